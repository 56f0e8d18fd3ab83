"""The benchmarks' one timing harness: a loop timed in windows, rows interleaved round by round, medians.

Every benchmark script times the same way (``benchmarks/bench.py``, ``gpu.py``, ``cores.py``,
``whole_process.py``): a *loop* is a function that works until a deadline (``time.perf_counter()``) and says how
many units it did (steps, positions, calls). It is warmed first (compiles and caches out of the timing), then
every row is timed once a round, ``rounds`` times, so a slow moment of a shared machine hits every row alike;
a row's figure is the median of its rounds, and the spread says how far to trust it. A loop that runs on a GPU
synchronises before it returns, so its units are done when it says so.

The package does not need this: it is the project's measuring, kept here because the scripts import
no script of another (``tests/test_layers.py``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

#: work until the deadline (a ``time.perf_counter()`` value); returns the units done
Loop = Callable[[float], int]


def warm(loop: Loop, seconds: float) -> None:
    """Run ``loop`` for ``seconds`` untimed: its compiles, caches and first allocations out of the timing."""
    loop(time.perf_counter() + seconds)


def rate(loop: Loop, seconds: float) -> float:
    """Units per second of one timed call of ``loop`` that works for ``seconds``."""
    started = time.perf_counter()
    done = loop(started + seconds)
    return done / (time.perf_counter() - started)


def interleaved_rounds(
    loops: Sequence[Loop], rounds: int, seconds: float, on_round: Callable[[int], None] | None = None
) -> list[list[float]]:
    """Each loop's rate ``rounds`` times, every loop once a round (interleaved); ``on_round(n)`` before round n."""
    samples: list[list[float]] = [[] for _ in loops]
    for number in range(rounds):
        if on_round is not None:
            on_round(number)
        for loop, rates in zip(loops, samples):
            rates.append(rate(loop, seconds))
    return samples


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float]) -> float:
    """(largest - smallest) / median of a row's rounds: 0.1 means the rounds lie within 10% of each other."""
    middle = statistics.median(values)
    return (max(values) - min(values)) / middle if middle else 0.0


def seconds_per_call(work: Callable[[], object], seconds: float, windows: int = 7) -> float:
    """Seconds one call of ``work`` takes: the median over ``windows`` windows of ``seconds / windows`` each, after
    one window's warm-up (a microsecond call timed alone would be the clock's, not the call's)."""

    def calls(deadline: float) -> int:
        count = 0
        while time.perf_counter() < deadline:
            work()
            count += 1
        return count

    warm(calls, seconds / windows)
    return 1.0 / median(interleaved_rounds([calls], windows, seconds / windows)[0])
