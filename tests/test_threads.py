"""The batched loops' choice between serial and parallel, driven by a fake clock (no timing is measured)."""

from __future__ import annotations

import numba
import pytest

from crossenvs.envs.threads import LAST_RETRY, SERIAL_BELOW, TRIAL_BUDGET, BatchRunner, FasterOf, torch_thread_choice


class FakeKernels:
    """A parallel and a serial kernel whose seconds per call are set by the test, on a fake clock."""

    def __init__(self, parallel_cost: float, serial_cost: float) -> None:
        self.now = 0.0
        self.cost = {"parallel": parallel_cost, "serial": serial_cost}
        self.calls: list[tuple[str, float]] = []  # (way, clock time at its start)

    def clock(self) -> float:
        return self.now

    def kernel(self, way: str):
        def run() -> None:
            self.calls.append((way, self.now))
            self.now += self.cost[way]

        return run

    def runner(self) -> BatchRunner:
        return BatchRunner(self.kernel("parallel"), self.kernel("serial"), clock=self.clock)

    def ways(self, since: float = 0.0) -> list[str]:
        return [way for way, start in self.calls if start >= since]


@pytest.fixture(autouse=True)
def two_threads():
    if numba.get_num_threads() < 2:
        pytest.skip("needs numba with at least two threads")


def test_small_batches_always_run_serially():
    fake = FakeKernels(parallel_cost=0.0, serial_cost=0.001)
    runner = fake.runner()
    for _ in range(20):
        runner(SERIAL_BELOW - 1)
    assert set(fake.ways()) == {"serial"}


def test_the_faster_way_is_kept_and_trials_of_the_other_stay_within_budget():
    fake = FakeKernels(parallel_cost=0.010, serial_cost=0.001)  # parallel loses, as under a busy neighbour
    runner = fake.runner()
    for _ in range(20_000):
        runner(1024)
    assert runner.use_parallel is False
    late = fake.ways(since=fake.now / 2)
    extra = late.count("parallel") * (fake.cost["parallel"] - fake.cost["serial"])
    assert extra <= 1.5 * TRIAL_BUDGET * fake.now / 2  # trials cost about their budget, not more
    assert late.count("parallel") >= 1  # but they still happen


def test_cheap_trials_come_at_least_every_last_retry_seconds():
    fake = FakeKernels(parallel_cost=0.0001, serial_cost=0.0002)  # serial trials cost little
    runner = fake.runner()
    for _ in range(20_000):
        runner(1024)
    trial_times = [start for way, start in fake.calls if way == "serial"]
    gaps = [b - a for a, b in zip(trial_times[2:], trial_times[3:])]
    assert runner.use_parallel is True
    assert max(gaps) <= LAST_RETRY + 0.001


def test_a_change_of_load_is_noticed_within_a_fraction_of_a_second():
    fake = FakeKernels(parallel_cost=0.010, serial_cost=0.001)
    runner = fake.runner()
    for _ in range(2000):
        runner(1024)
    assert runner.use_parallel is False
    fake.cost["parallel"] = 0.0005  # the neighbour went away
    changed = fake.now
    while not runner.use_parallel:
        runner(1024)
    assert fake.now - changed <= LAST_RETRY + fake.cost["parallel"] / TRIAL_BUDGET
    fake.cost["parallel"] = 0.010  # and came back
    changed = fake.now
    while runner.use_parallel:
        runner(1024)
    assert fake.now - changed <= 2 * LAST_RETRY


def test_first_calls_are_not_timed():
    """A way's first call compiles or starts threads: it must not count against that way."""
    fake = FakeKernels(parallel_cost=1000.0, serial_cost=0.002)  # the first parallel call is slow (compiling)
    runner = fake.runner()
    runner(1024)
    fake.cost["parallel"] = 0.001
    for _ in range(50):
        runner(1024)
    assert runner.use_parallel is True


def test_a_runner_returns_what_its_way_returns():
    fake = FakeKernels(parallel_cost=0.001, serial_cost=0.002)
    runner = FasterOf(lambda x: ("parallel", x), lambda x: ("serial", x), clock=fake.clock)
    answers = [runner(8, step) for step in range(20)]
    assert [x for _, x in answers] == list(range(20))
    assert {way for way, _ in answers} <= {"parallel", "serial"}


def test_torch_thread_choice_runs_on_all_threads_or_one():
    torch = pytest.importorskip("torch")
    many = torch.get_num_threads()
    seen = []

    def record(x):
        seen.append(torch.get_num_threads())
        return x * 2

    choice = torch_thread_choice(record)
    assert [choice(1, step) for step in range(50)] == [2 * step for step in range(50)]
    assert set(seen) <= {1, many}
    if many > 1:
        assert set(seen) == {1, many}  # both ways were timed
    torch.set_num_threads(many)
