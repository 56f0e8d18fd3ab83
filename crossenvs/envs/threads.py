"""How batched loops use the CPU: serially or across numba's threads, whichever is faster now.

Every batched loop (the vector env's apply and view, random moves) exists twice, parallel and
serial, and a :class:`BatchRunner` picks one per call:

* **Small batches run serially**: below :data:`SERIAL_BELOW` games, waking threads costs more
  than it saves.
* **Otherwise the measured faster one.** On an idle machine the parallel loop wins on large
  batches. With a busy neighbour on a 2-core machine it can lose by ten times: a parallel loop
  ends only when its last thread does, and a thread that shares a core with the neighbour waits
  for a time slice (milliseconds) while the serial loop would have finished. So the runner times
  both (seconds per game), keeps the faster, and tries the other again now and then, less and
  less often while it keeps losing, so that a change of load is noticed without paying much for
  the trials.
* PPO training sets ``NUMBA_NUM_THREADS=1`` (``training/selfplay.py`` says why): there
  torch's threads and numba's must not compete.
* **Chunks, not shares**: a parallel loop hands out :data:`CHUNK` games at a time rather than
  one equal share per thread, so a thread slowed by a neighbour takes fewer games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numba

SERIAL_BELOW = 64  # batches smaller than this always run on the calling thread
CHUNK = 16  # games per unit of work a thread takes
FIRST_RETRY = 8  # calls before the losing way is timed again; doubles while it keeps losing
LAST_RETRY = 512
SWITCH_MARGIN = 0.8  # the other way must be this much faster to take over: one lucky call is not enough


class BatchRunner:
    """Runs one batched kernel, ``parallel(*args)`` or ``serial(*args)``, whichever is measured faster."""

    def __init__(
        self, parallel: Callable[..., Any], serial: Callable[..., Any], clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.parallel, self.serial, self.clock = parallel, serial, clock
        self.seconds_per_game = {True: 0.0, False: 0.0}
        self.use_parallel = True
        self.retry_after = FIRST_RETRY
        self.calls_to_retry = 1  # the first timed call is parallel, the next one serial
        self._warm: set[bool] = set()  # a way's first call compiles or starts threads: not timed

    def __call__(self, size: int, *args: Any) -> None:
        if size < SERIAL_BELOW or numba.get_num_threads() == 1:
            self.serial(*args)
            return
        trial = self.calls_to_retry <= 0
        parallel = self.use_parallel != trial
        seconds = self._run(parallel, args) / size
        if parallel not in self._warm:
            self._warm.add(parallel)
        elif trial:
            self.seconds_per_game[parallel] = seconds  # a fresh figure: the old one may be from other times
            self._decide(parallel)
        else:
            previous = self.seconds_per_game[parallel]  # a running average: one slow call does not decide
            self.seconds_per_game[parallel] = seconds if previous == 0.0 else 0.7 * previous + 0.3 * seconds
            self.calls_to_retry -= 1

    def _run(self, parallel: bool, args: tuple[Any, ...]) -> float:
        """Seconds one call took."""
        start = self.clock()
        if parallel:
            with numba.parallel_chunksize(CHUNK):
                self.parallel(*args)
        else:
            self.serial(*args)
        return self.clock() - start

    def _decide(self, tried_parallel: bool) -> None:
        """After a trial of the other way: switch if it was faster, else wait longer before the next trial."""
        if self.seconds_per_game[tried_parallel] < SWITCH_MARGIN * self.seconds_per_game[not tried_parallel]:
            self.use_parallel = tried_parallel
            self.retry_after = FIRST_RETRY
        else:
            self.retry_after = min(2 * self.retry_after, LAST_RETRY)
        self.calls_to_retry = self.retry_after
