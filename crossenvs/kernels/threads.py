"""How batched loops use the CPU: serially, or across numba's threads, whichever is measured faster now.

Every batched kernel is one body over a range of indices, ``body(args, start, stop)``, given the kernel's
NamedTuple, and has two CPU loops: the body over every index (:class:`SerialLoop`, through its compiled entry
point) and ``<name>_parallel`` beside it (``prange`` over units of :data:`CHUNK` indices, taking the tuple's
fields in order, ``*fields``: a ``prange`` body may use a NamedTuple only where the function built it).
:func:`run` picks one:

* **serially below** :data:`SERIAL_BELOW` **games** (waking threads costs more than it saves), or where
  numba has one thread (``NUMBA_NUM_THREADS=1``, ``numba.set_num_threads(1)``, ``numba_on_one_thread``);
* **else by measurement, per loop and batch shape** (:class:`FasterOf`, one per loop and power of two of
  games): both loops are timed, the faster is kept and the other tried again now and then, spaced in time
  and never costing more than :data:`TRIAL_BUDGET` of it. Whether threads pay depends on the game and the
  machine: a light game's step (Connect Four) is faster serially at every batch size on a two-core VM whose
  cores share a physical one, a heavier one (Crosse, Hex) gains from threads there;
* **serially, without trials, where other processes leave less than** :data:`SPARE_CORES_FOR_PARALLEL`
  **cores spare** (:class:`NeighbourLoad`, from Linux's ``/proc/stat``; OpenMP's ``OMP_DYNAMIC`` looks at
  the load the same way): a parallel loop ends only when its last thread does, and a thread sharing a core
  with a busy neighbour waits for its time slices, so beside a busy process the threads lose to the serial
  loop many times over (measured: docs/architecture.md, section 'Threads and memory in batched loops').

Across threads a loop runs over units of :data:`CHUNK` games, split evenly between the threads (a busy neighbour
sends the loops serial, above).
The first two calls big enough for threads run the parallel loop and then the serial one, whatever the
load, so a process compiles (or loads) both and a later one, under other load, compiles neither. The
override is ``CROSSENVS_SERIAL_BELOW``, read on import: a large value keeps every loop serial. PPO
training runs numba on one thread (:func:`numba_on_one_thread` says why). The same measured choice
serves torch's threads for AlphaZero's network (``crossenvs.az.torch_threads``).
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import Any

import numba
from numba import njit

from crossenvs.kernels.numba_internals import compiled_entry

#: batches smaller than this run on the calling thread (``CROSSENVS_SERIAL_BELOW`` overrides it)
SERIAL_BELOW = int(os.environ.get("CROSSENVS_SERIAL_BELOW") or 64)
CHUNK = 16  # games per unit of work a thread takes
SPARE_CORES_FOR_PARALLEL = 1.5  # fewer cores left by other processes than this: serial throughout
LOAD_WINDOW = 0.1  # seconds of /proc/stat counts behind each look at the neighbours' load


class NeighbourLoad:
    """Cores' worth of CPU that other processes used lately, from Linux's ``/proc/stat``.

    Calling it returns the figure of the last :data:`LOAD_WINDOW` seconds or more (a new look at
    most that often: a file read of 30 us); 0.0 where ``/proc/stat`` cannot be read. Time the
    hypervisor gave other machines (steal) counts as used: it stalls a parallel loop alike.
    """

    def __init__(self) -> None:
        self.cores = 0.0
        self._last = self._sample()

    @staticmethod
    def _sample() -> tuple[float, float, float] | None:
        """(wall clock, CPU seconds the machine spent busy, CPU seconds this process spent)."""
        try:
            with open("/proc/stat", "rb") as stat:
                ticks = [int(field) for field in stat.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait (user .. steal)
        return time.perf_counter(), busy / os.sysconf("SC_CLK_TCK"), time.process_time()

    def __call__(self) -> float:
        last = self._last
        if last is None or time.perf_counter() - last[0] < LOAD_WINDOW:
            return self.cores
        now = self._sample()
        if now is not None:
            others = (now[1] - last[1]) - (now[2] - last[2])
            self.cores = max(0.0, others / (now[0] - last[0]))
        self._last = now
        return self.cores


#: what other processes use of the CPU, for every loop of this process (and torch's choice of threads)
NEIGHBOURS = NeighbourLoad()
_CPUS = os.cpu_count() or 1
#: the parallel loops this process has run once (and so compiled or loaded from numba's cache)
_LOADED: set[Any] = set()


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
        self,
        clock: Callable[[], float] = time.perf_counter,
        neighbour_load: Callable[[], float] | None = None,
        margin: float = SWITCH_MARGIN,
    ) -> None:
        self.clock = clock
        self.margin = margin  # the other way's share of the kept way's time at which it takes over
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
        winning = total < self.margin * kept
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


#: the measured choice of each parallel loop per batch shape: (parallel loop, games' bit length) -> its runner
_CHOICES: dict[tuple[Any, int], FasterOf] = {}
#: a loop's other way takes over when its trial's mean is this share of the kept way's or less (timed over up
#: to TRIAL_CALLS calls of one process, nothing else changing: a closer call than the networks' needs)
LOOP_SWITCH_MARGIN = 0.9


def run(serial: Callable[..., Any], parallel: Callable[..., Any] | None, args: tuple[Any, ...], size: int) -> None:
    """One batched kernel over ``size`` games: ``serial(args, size)`` (a :class:`SerialLoop`) or ``parallel(*args)``
    by the rule above (``parallel`` None: a kernel too cheap for threads has its serial loop only)."""
    if parallel is None or size < SERIAL_BELOW or numba.get_num_threads() == 1:
        serial(args, size)
        return
    # the first two calls big enough for threads run the parallel loop, then the serial one, whatever the load:
    # both are then compiled (or loaded from numba's cache) in this process, so "compiled once" holds whichever
    # loop the load makes a later process pick (both loops compute the same)
    if parallel not in _LOADED or serial not in _LOADED:
        if parallel not in _LOADED:
            _LOADED.add(parallel)
            _parallel_chunked(parallel, args, size)
        else:
            _LOADED.add(serial)
            serial(args, size)
        return
    if _CPUS - NEIGHBOURS() < SPARE_CORES_FOR_PARALLEL:
        serial(args, size)
        return
    key = (parallel, size.bit_length())
    runner = _CHOICES.get(key)
    if runner is None:
        choice = WayChoice(margin=LOOP_SWITCH_MARGIN)
        runner = _CHOICES[key] = FasterOf(partial(_parallel_chunked, parallel), serial, choice)
    runner(size, args, size)


def _parallel_chunked(parallel: Callable[..., Any], args: tuple[Any, ...], size: int) -> None:
    """``parallel(*args)`` across numba's threads, its ``prange`` indices (each a unit of :data:`CHUNK` games:
    :func:`chunk_bounds`) split evenly between them: taken one at a time, 256 units of a light game's step
    cost more in scheduling than they saved (measured: docs/benchmarks.md, the search written like the step)."""
    with numba.parallel_chunksize(0):  # 0: numba's even split, whatever a caller's outer setting
        parallel(*args)


class SerialLoop:
    """A range function ``body(args, start, stop)`` over every index on the calling thread: ``loop(args, size)``.

    It is a kernel's serial loop: the body itself, called through the machine code numba compiled for ``args``'
    type (its entry point), looked up at the first call. Given a NamedTuple of a dozen arrays, numba's
    dispatcher spends longer finding that code than a one-game step takes; a ``*fields`` wrapper that builds
    the tuple inside numba, the other way round it, is one more function to compile, which links the whole
    body in again (most of a cold first search's extra compile: docs/benchmarks.md). Safe because each job
    builds ``args`` from buffers of fixed types (the kernels' bodies are compiled once, a test checks it); where
    no machine code is found (``NUMBA_DISABLE_JIT=1``) the body itself runs. Make one with :func:`serial_loop`.
    """

    def __init__(self, body: Callable[..., None]) -> None:
        self.body = body
        self._entry: Callable[..., None] | None = None

    def __call__(self, args: tuple[Any, ...], size: int) -> None:
        entry = self._entry
        if entry is not None:
            entry(args, 0, size)
            return
        self.body(args, 0, size)  # compiles, or loads from the cache, the version for these types (int64 bounds)
        self._entry = compiled_entry(self.body, args, 0, size)


@cache
def serial_loop(body: Callable[..., None]) -> SerialLoop:
    """The one :class:`SerialLoop` of ``body`` (a kernel's loops are shared by every job that runs it)."""
    return SerialLoop(body)


@njit(cache=True, inline="always")
def chunk_count(games):
    """How many units of :data:`CHUNK` games a parallel loop's ``prange`` runs over (the last one may be short)."""
    return (games + CHUNK - 1) // CHUNK


@njit(cache=True, inline="always")
def chunk_bounds(chunk, games):
    """The games of unit ``chunk`` of a parallel loop: from ``start`` to ``stop - 1``."""
    start = chunk * CHUNK
    return start, min(games, start + CHUNK)


def inline_twin(kernel: Any) -> Any:
    """``kernel``'s source compiled ``inline="always"``: a game's kernel as a range function (``step_games``) calls
    it per game, given views of one game's rows (a call per game counts those views in and out). The range
    function itself is called by every loop, never inlined into one: numba 0.68 drops the stores of a function
    inlined into a ``prange`` body, or into the function that built the tuple, through arrays taken from it."""
    return njit(inline="always")(getattr(kernel, "py_func", kernel))


@contextlib.contextmanager
def numba_on_one_thread() -> Iterator[None]:
    """PPO trains with numba on one thread and torch on the cores, unless ``NUMBA_NUM_THREADS`` is set.

    Used by the SB3 trainer (``training/selfplay.py``) and the TorchRL recipe (``examples/torchrl_selfplay.py``).

    With both thread pools awake, numba's and torch's, a busy process beside training on a small machine
    starves both and training falls to a fraction of its idle speed; with numba on one thread it keeps its
    idle speed under load and loses nothing when idle (measured with ``benchmarks/bench.py --busy``:
    docs/benchmarks.md, section 'Environment steps'). The setting is numba's per-thread one, restored on exit:
    setting the environment variable on import instead made any later numba compilation in the
    importing process (a test session, the arena loading a PPO player) fail once numba's threads
    had started with another count.
    """
    if "NUMBA_NUM_THREADS" in os.environ:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
