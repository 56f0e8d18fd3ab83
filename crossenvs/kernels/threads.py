"""How batched loops use the CPU: serially, or across numba's threads for a batch big enough to pay.

Every batched kernel's CPU loop is written twice beside it, ``<name>_serial`` (``range``) and
``<name>_parallel`` (``prange``), each taking the kernel's NamedTuple's fields in order (``*fields``:
numba types positional arrays in C, a tuple's fields in Python, a fraction of a microsecond each).
:func:`run` picks one by a simple rule:

* **serially below** :data:`SERIAL_BELOW` **games** (waking threads costs more than it saves), or where
  numba has one thread (``NUMBA_NUM_THREADS=1``, ``numba.set_num_threads(1)``, ``numba_on_one_thread``);
* **serially where other processes leave less than** :data:`SPARE_CORES_FOR_PARALLEL` **cores spare**
  (:class:`NeighbourLoad`, from Linux's ``/proc/stat``; OpenMP's ``OMP_DYNAMIC`` looks at the load the
  same way): a parallel loop ends only when its last thread does, and a thread sharing a core with a
  busy neighbour waits for its time slices, so beside a busy process the threads lose to the serial loop many
  times over (measured: docs/architecture.md, section 'Threads and memory in batched loops');
* **else across numba's threads**, :data:`CHUNK` games at a time (a thread slowed by a neighbour takes
  fewer games).

The first two calls big enough for threads run the parallel loop and then the serial one, whatever the
load, so a process compiles (or loads) both and a later one, under other load, compiles neither. No loop
is timed. The override is ``CROSSENVS_SERIAL_BELOW``, read on import: a large value keeps every
loop serial, 0 sends every batch that the neighbours allow to the threads. PPO training runs numba on
one thread (:func:`numba_on_one_thread` says why).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba import njit

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


def run(serial: Callable[..., Any], parallel: Callable[..., Any] | None, args: tuple[Any, ...], size: int) -> None:
    """One batched kernel over ``size`` games: ``serial(*args)`` or ``parallel(*args)`` by the rule above
    (``parallel`` None: a kernel too cheap for threads has its serial loop only)."""
    if parallel is None or size < SERIAL_BELOW or numba.get_num_threads() == 1:
        serial(*args)
        return
    # the first two calls big enough for threads run the parallel loop, then the serial one, whatever the load:
    # both are then compiled (or loaded from numba's cache) in this process, so "compiled once" holds whichever
    # loop the load makes a later process pick (both loops compute the same)
    if parallel not in _LOADED:
        use_serial = False
    elif serial not in _LOADED:
        use_serial = True
    else:
        use_serial = _CPUS - NEIGHBOURS() < SPARE_CORES_FOR_PARALLEL
    _LOADED.add(serial if use_serial else parallel)
    if use_serial:
        serial(*args)
        return
    with numba.parallel_chunksize(CHUNK):
        parallel(*args)


def inline_twin(kernel: Any) -> Any:
    """``kernel``'s source compiled ``inline="always"``: what a serial loop calls per game (a call would pass the
    whole NamedTuple by value). A ``prange`` loop calls ``kernel`` itself: numba 0.68 drops the stores of a
    function inlined into a ``prange`` body through arrays taken from a tuple."""
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
