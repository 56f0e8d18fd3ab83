"""How batched loops use the CPU: serially, or across numba's threads for a batch big enough to pay.

Every batched kernel's CPU loop is written twice beside it, ``<name>_serial`` (``range``) and
``<name>_parallel`` (``prange``), each taking the kernel's NamedTuple's fields in order (``*fields``:
numba types positional arrays in C, a tuple's fields in Python, a quarter of a microsecond each).
:func:`run` picks one by a simple rule:

* **serially below** :data:`SERIAL_BELOW` **games** (waking threads costs more than it saves), or where
  numba has one thread (``NUMBA_NUM_THREADS=1``, ``numba.set_num_threads(1)``, ``numba_on_one_thread``);
* **else across numba's threads**, :data:`CHUNK` games at a time (a thread slowed by a neighbour takes
  fewer games).

The override is ``CROSSENVS_SERIAL_BELOW``, read on import: a large value keeps every loop serial (beside a
busy process on a machine with few cores, where a parallel loop waits for its slowest thread's time
slice), 0 sends every batch to the threads. PPO training runs numba on one thread
(:func:`numba_on_one_thread` says why).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba import njit

#: batches smaller than this run on the calling thread (``CROSSENVS_SERIAL_BELOW`` overrides it)
SERIAL_BELOW = int(os.environ.get("CROSSENVS_SERIAL_BELOW") or 64)
CHUNK = 16  # games per unit of work a thread takes


def run(serial: Callable[..., Any], parallel: Callable[..., Any] | None, args: tuple[Any, ...], size: int) -> None:
    """One batched kernel over ``size`` games: ``serial(*args)`` or ``parallel(*args)`` by the rule above
    (``parallel`` None: a kernel too cheap for threads has its serial loop only)."""
    if parallel is None or size < SERIAL_BELOW or numba.get_num_threads() == 1:
        serial(*args)
    else:
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

    With both thread pools, one busy process beside it on 2 cores cut training to a fifth of its
    idle speed (457 against 2,540 steps/s); with numba on one thread it kept it (about 1,780
    loaded against 1,680 idle), and idle speed stayed within this machine's noise
    (``benchmarks/bench.py --busy``). The setting is numba's per-thread one, restored on exit:
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
