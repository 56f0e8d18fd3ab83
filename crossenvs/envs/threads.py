"""How batched loops use the CPU: serially or across numba's threads, whichever is faster now.

Every batched loop (the vector env's apply and view, random moves) exists twice, parallel and
serial, and a :class:`BatchRunner` picks one per call:

* **Small batches run serially**: below :data:`SERIAL_BELOW` games, waking threads costs more
  than it saves.
* **Otherwise the measured faster one.** On an idle machine the parallel loop wins on large
  batches. With a busy neighbour on a 2-core machine it can lose by ten times: a parallel loop
  ends only when its last thread does, and a thread that shares a core with the neighbour waits
  for a time slice (milliseconds) while the serial loop would have finished. So the runner times
  both (seconds per game), keeps the faster, and tries the other again now and then. Trials are
  spaced in **time**, not calls: a change of load is noticed within a fraction of a second however
  long each call takes, and the gap grows while the other way keeps losing, but never beyond what
  keeps the trials' extra cost under :data:`TRIAL_BUDGET` of the time.
* PPO training sets ``NUMBA_NUM_THREADS=1`` (``training/selfplay.py`` says why): there
  torch's threads and numba's must not compete.
* **Chunks, not shares**: a parallel loop hands out :data:`CHUNK` games at a time rather than
  one equal share per thread, so a thread slowed by a neighbour takes fewer games.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numba

SERIAL_BELOW = 64  # batches smaller than this always run on the calling thread
CHUNK = 16  # games per unit of work a thread takes
FIRST_RETRY = 0.01  # seconds before the losing way is timed again; doubles while it keeps losing
LAST_RETRY = 0.25  # the longest gap, unless a trial costs so much that TRIAL_BUDGET needs a longer one
TRIAL_BUDGET = 0.02  # trials of the losing way may cost at most this share of the time
SWITCH_MARGIN = 0.8  # the other way must be this much faster to take over: one lucky call is not enough


class FasterOf:
    """Runs ``parallel(*args)`` or ``serial(*args)``, two interchangeable ways, whichever is measured faster now.

    ``size`` (games, positions: the unit the cost grows with) makes calls of different sizes
    comparable. Returns what the way returns.
    """

    def __init__(
        self, parallel: Callable[..., Any], serial: Callable[..., Any], clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.parallel, self.serial, self.clock = parallel, serial, clock
        self.seconds_per_game = {True: 0.0, False: 0.0}
        self.use_parallel = True
        self.retry_after = FIRST_RETRY  # seconds from one trial of the other way to the next
        self.next_trial = math.inf  # clock time of the next trial: due once the parallel way has a figure
        self._warm: set[bool] = set()  # a way's first call compiles or starts threads: not timed

    def __call__(self, size: int, *args: Any) -> Any:
        start = self.clock()
        trial = start >= self.next_trial
        parallel = self.use_parallel != trial
        result = (self.parallel if parallel else self.serial)(*args)
        seconds = self.clock() - start
        if parallel not in self._warm:
            self._warm.add(parallel)  # untimed; a due trial stays due, so the next call times it
        elif trial:
            self._decide(parallel, seconds, size)
        else:
            previous = self.seconds_per_game[parallel]  # a running average: one slow call does not decide
            per_game = seconds / size
            self.seconds_per_game[parallel] = per_game if previous == 0.0 else 0.7 * previous + 0.3 * per_game
            if self.next_trial == math.inf:  # the first figure of the first way: time the other way next
                self.next_trial = start
        return result

    def _decide(self, tried_parallel: bool, seconds: float, size: int) -> None:
        """After a trial of the other way: switch if it was faster, else wait longer before the next trial."""
        kept = self.seconds_per_game[not tried_parallel]
        self.seconds_per_game[tried_parallel] = seconds / size  # a fresh figure: the old one may be from other times
        if seconds / size < SWITCH_MARGIN * kept:
            self.use_parallel = tried_parallel
            self.retry_after = FIRST_RETRY
        else:
            extra = seconds - kept * size  # what this trial cost beyond the kept way
            self.retry_after = max(min(2 * self.retry_after, LAST_RETRY), extra / TRIAL_BUDGET)
        self.next_trial = self.clock() + self.retry_after


class BatchRunner(FasterOf):
    """A batched numba kernel, ``parallel`` (a ``prange`` loop) or ``serial``: small batches always serially."""

    def __init__(
        self, parallel: Callable[..., Any], serial: Callable[..., Any], clock: Callable[[], float] = time.perf_counter
    ) -> None:
        def in_chunks(*args: Any) -> None:
            with numba.parallel_chunksize(CHUNK):
                parallel(*args)

        super().__init__(in_chunks, serial, clock)

    def __call__(self, size: int, *args: Any) -> None:
        if size < SERIAL_BELOW or numba.get_num_threads() == 1:
            self.serial(*args)
        else:
            super().__call__(size, *args)


def torch_thread_choice(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` on all of torch's CPU threads or on one, whichever is faster now: ``choice(size, *args)``.

    Torch splits a large operation among its threads and waits for the last: beside a busy
    process, a thread sharing its core makes every operation wait for a time slice. Measured
    (AlphaZero self-play, Crisscross 6x6, a browser busy beside it): 34 positions/s on two
    threads against 360 on one.
    """
    import torch  # the training extra; the environments do not need it

    many = torch.get_num_threads()

    def on(threads: int) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
            return function(*args)

        return run

    if many == 1:
        return lambda size, *args: function(*args)
    return FasterOf(on(many), on(1))
