"""Torch's CPU threads for the networks: all of them or one, whichever is measured faster now.

Torch splits a large operation among its threads and waits for the last: beside a busy process on a
machine with few cores, a thread sharing its core makes every operation wait for a time slice. So a
:class:`FasterOf` times both ways (seconds per position), keeps the faster and tries the other again
now and then, spaced in time (a change of load is noticed within a fraction of a second) and never
costing more than :data:`TRIAL_BUDGET` of the time; a trial must win on its mean over up to
:data:`TRIAL_CALLS` calls. Where Linux's ``/proc/stat`` is readable, the choice also looks at how much
CPU other processes used lately (:class:`crossenvs.kernels.threads.NeighbourLoad`, as numba's loops do): with less than
:data:`SPARE_CORES_FOR_PARALLEL` cores spare, one thread without trials. numba's batched loops use a
simpler rule (:mod:`crossenvs.kernels.threads`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch

from ..kernels.threads import NEIGHBOURS, SPARE_CORES_FOR_PARALLEL

FIRST_RETRY = 0.01  # seconds before the losing way is timed again; doubles while it keeps losing
LAST_RETRY = 0.25  # the longest gap, unless a trial costs so much that TRIAL_BUDGET needs a longer one
TRIAL_BUDGET = 0.02  # trials of the losing way may cost at most this share of the time
SWITCH_MARGIN = 0.8  # the other way must be this much faster to take over
TRIAL_CALLS = 32  # calls a winning trial lasts (their mean decides): a lucky streak is not enough


class WayChoice:
    """Which way the calls sharing this choice run now, parallel or serial, and the trials that change it.

    The callers (:class:`FasterOf`) time their own calls; a trial call reports its seconds and
    what the kept way would have taken (its size times the caller's kept figure), so loops of
    any cost add up in one verdict.
    """

    def __init__(
        self, clock: Callable[[], float] = time.perf_counter, neighbour_load: Callable[[], float] | None = None
    ) -> None:
        self.clock = clock
        #: cores' worth other processes use now (a :class:`NeighbourLoad`), or None to go by timing alone
        self.neighbour_load = neighbour_load
        self.cpu_count = os.cpu_count() or 1
        self.use_parallel = True
        self.retry_after = FIRST_RETRY  # seconds from one trial of the other way to the next
        self.next_trial = math.inf  # clock time of the next trial: due once the kept way has a figure
        #: the trial under way: (calls, seconds, the kept way's seconds for them, its first call's extra)
        self._trial: tuple[int, float, float, float] | None = None

    def now(self, start: float) -> tuple[bool, bool]:
        """``(parallel, trial)`` for a call starting at clock time ``start``."""
        if self.crowded():
            self._trial = None
            return False, False
        trial = self._trial is not None or start >= self.next_trial
        return self.use_parallel != trial, trial

    def crowded(self) -> bool:
        """Whether other processes leave too few cores spare for a parallel loop to gain."""
        return self.neighbour_load is not None and self.cpu_count - self.neighbour_load() < SPARE_CORES_FOR_PARALLEL

    def kept_way_timed(self, start: float) -> None:
        """A call of the kept way was timed: the first one makes the first trial due."""
        if self.next_trial == math.inf:
            self.next_trial = start

    def trial_call(self, tried_parallel: bool, seconds: float, kept_seconds: float) -> None:
        """One call of a trial: it goes on while its mean wins, up to :data:`TRIAL_CALLS` calls, then decides.

        The trial's first call only wakes the other way up (numba's worker threads sleep after a
        serial stretch, and waking them costs a first parallel call more than the serial one
        saves): it counts toward the trial's cost, not toward its mean.
        """
        if self._trial is None:
            self._trial = (0, 0.0, 0.0, seconds - kept_seconds)
            return
        calls, total, kept, wake_up = self._trial
        calls, total, kept = calls + 1, total + seconds, kept + kept_seconds
        winning = total < SWITCH_MARGIN * kept
        if winning and calls < TRIAL_CALLS:
            self._trial = (calls, total, kept, wake_up)
            return
        self._trial = None
        if winning:
            self.use_parallel = tried_parallel
            self.retry_after = FIRST_RETRY
        else:
            extra = total - kept + wake_up  # what this trial cost beyond the kept way
            self.retry_after = max(min(2 * self.retry_after, LAST_RETRY), extra / TRIAL_BUDGET)
        self.next_trial = self.clock() + self.retry_after


class FasterOf:
    """Runs ``parallel(*args)`` or ``serial(*args)``, two interchangeable ways, whichever is measured faster now.

    ``size`` (games, positions: the unit the cost grows with) makes calls of different sizes
    comparable. Returns what the way returns. Runners given one ``choice`` decide together
    (default: a choice of its own).
    """

    def __init__(
        self, parallel: Callable[..., Any], serial: Callable[..., Any], choice: WayChoice | None = None
    ) -> None:
        self.parallel, self.serial = parallel, serial
        self.choice = WayChoice() if choice is None else choice
        self.seconds_per_game = {True: 0.0, False: 0.0}  # running averages; 0.0: not timed yet
        self._warm: set[bool] = set()  # a way's first call compiles or starts threads: not timed

    @property
    def use_parallel(self) -> bool:
        return self.choice.use_parallel

    def __call__(self, size: int, *args: Any) -> Any:
        choice = self.choice
        start = choice.clock()
        parallel, trial = choice.now(start)
        if trial and not self.seconds_per_game[not parallel]:
            # the kept way has no figure yet (a process that started beside a busy neighbour ran the other way
            # only): a trial would have nothing to be compared with, so the kept way runs, to be timed
            parallel, trial = not parallel, False
        result = (self.parallel if parallel else self.serial)(*args)
        seconds = choice.clock() - start
        if parallel not in self._warm:
            self._warm.add(parallel)  # untimed; a due trial stays due, so the next call times it
            return result
        kept = self.seconds_per_game[not parallel] if trial else 0.0
        self._record(parallel, seconds / size)
        if not trial:
            choice.kept_way_timed(start)
        elif kept:  # a loop that never timed the kept way has nothing to compare with
            choice.trial_call(parallel, seconds, kept * size)
        return result

    def _record(self, parallel: bool, per_game: float) -> None:
        """A running average: one slow call does not decide."""
        previous = self.seconds_per_game[parallel]
        self.seconds_per_game[parallel] = per_game if previous == 0.0 else 0.7 * previous + 0.3 * per_game


def torch_thread_choice(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` on all of torch's CPU threads or on one, whichever is faster now: ``choice(size, *args)``.

    Torch splits a large operation among its threads and waits for the last: beside a busy
    process, a thread sharing its core makes every operation wait for a time slice, and self-play
    on all the threads fell to a small share of its speed on one (measured: docs/benchmarks.md,
    section 'Environment steps'). The choice is its own (torch's load is not numba's) but looks at
    the same neighbours (:data:`NEIGHBOURS`).
    """
    many = torch.get_num_threads()

    def on(count: int) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            if torch.get_num_threads() != count:
                torch.set_num_threads(count)
            return function(*args)

        return run

    if many == 1:
        return lambda size, *args: function(*args)
    return FasterOf(on(many), on(1), WayChoice(neighbour_load=NEIGHBOURS))
