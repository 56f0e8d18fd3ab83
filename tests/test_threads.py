"""The batched loops' choice between serial and parallel, driven by a fake clock (no timing is measured)."""

from __future__ import annotations

import numba
import pytest

from crossenvs.envs.threads import LAST_RETRY, SERIAL_BELOW, BatchRunner


class FakeKernels:
    """A parallel and a serial kernel whose cost per call is set by the test, on a fake clock."""

    def __init__(self, parallel_cost: float, serial_cost: float) -> None:
        self.now = 0.0
        self.cost = {"parallel": parallel_cost, "serial": serial_cost}
        self.calls: list[str] = []

    def clock(self) -> float:
        return self.now

    def kernel(self, way: str):
        def run() -> None:
            self.calls.append(way)
            self.now += self.cost[way]

        return run

    def runner(self) -> BatchRunner:
        return BatchRunner(self.kernel("parallel"), self.kernel("serial"), clock=self.clock)


@pytest.fixture(autouse=True)
def two_threads():
    if numba.get_num_threads() < 2:
        pytest.skip("needs numba with at least two threads")


def test_small_batches_always_run_serially():
    fake = FakeKernels(parallel_cost=0.0, serial_cost=1.0)
    runner = fake.runner()
    for _ in range(20):
        runner(SERIAL_BELOW - 1)
    assert set(fake.calls) == {"serial"}


def test_the_faster_way_is_kept_and_the_slower_tried_less_and_less_often():
    fake = FakeKernels(parallel_cost=10.0, serial_cost=1.0)  # parallel loses, as under a busy neighbour
    runner = fake.runner()
    for _ in range(2000):
        runner(1024)
    assert runner.use_parallel is False and runner.retry_after == LAST_RETRY
    late = fake.calls[-1000:]
    assert late.count("parallel") <= 1000 // LAST_RETRY + 1  # trials became rare


def test_a_change_of_load_is_noticed():
    fake = FakeKernels(parallel_cost=10.0, serial_cost=1.0)
    runner = fake.runner()
    for _ in range(100):
        runner(1024)
    assert runner.use_parallel is False
    fake.cost["parallel"] = 0.5  # the neighbour went away
    for _ in range(2 * LAST_RETRY):
        runner(1024)
    assert runner.use_parallel is True
    assert fake.calls[-10:] == ["parallel"] * 10


def test_first_calls_are_not_timed():
    """A way's first call compiles or starts threads: it must not count against that way."""
    fake = FakeKernels(parallel_cost=1.0, serial_cost=2.0)
    fake.cost["parallel"] = 1000.0  # the first parallel call is slow (compiling)
    runner = fake.runner()
    runner(1024)
    fake.cost["parallel"] = 1.0
    for _ in range(50):
        runner(1024)
    assert runner.use_parallel is True
