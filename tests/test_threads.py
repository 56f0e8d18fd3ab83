"""The measured choice between a parallel and a serial way (numba's loops, torch's threads), driven by a fake
clock (no timing is measured). How numba's loops reach it is tested in tests/test_kernel_wing.py.
"""

from __future__ import annotations

import pytest

from crossenvs.kernels.threads import LAST_RETRY, TRIAL_BUDGET, TRIAL_CALLS, FasterOf, WayChoice


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

    def runner(self, choice: WayChoice | None = None) -> FasterOf:
        """A runner of the two fake kernels (a fresh choice on the fake clock unless one is given)."""
        choice = WayChoice(clock=self.clock) if choice is None else choice
        return FasterOf(self.kernel("parallel"), self.kernel("serial"), choice)

    def ways(self, since: float = 0.0) -> list[str]:
        return [way for way, start in self.calls if start >= since]


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
    # a losing parallel trial costs 4 ms more than serial: within budget at the LAST_RETRY gap
    fake = FakeKernels(parallel_cost=0.005, serial_cost=0.001)
    assert (fake.cost["parallel"] - fake.cost["serial"]) / TRIAL_BUDGET <= LAST_RETRY
    runner = fake.runner()
    for _ in range(2000):
        runner(1024)
    assert runner.use_parallel is False
    fake.cost["parallel"] = 0.0005  # the neighbour went away
    changed = fake.now
    while not runner.use_parallel:
        runner(1024)
    trial_length = TRIAL_CALLS * fake.cost["parallel"]  # a winning trial lasts TRIAL_CALLS calls
    assert fake.now - changed <= LAST_RETRY + fake.cost["serial"] + trial_length
    fake.cost["parallel"] = 0.010  # and came back
    changed = fake.now
    while runner.use_parallel:
        runner(1024)
    assert fake.now - changed <= 2 * LAST_RETRY


def test_a_way_that_is_only_now_and_then_fast_does_not_take_over():
    """Beside a busy neighbour most parallel calls wait for a time slice, a few run as fast as idle.

    Their mean loses to the serial way, so the runner must stay serial: switching on one lucky call
    and back on the next serial trial cost a tenth of the loaded throughput (measured).
    """
    fake = FakeKernels(parallel_cost=0.0002, serial_cost=0.001)
    calls = 0

    def bursty_parallel() -> None:  # every other call is fast (0.2 ms), the rest wait 5 ms: mean 2.6 ms
        nonlocal calls
        calls += 1
        fake.calls.append(("parallel", fake.now))
        fake.now += 0.0002 if calls % 2 else 0.005

    runner = FasterOf(bursty_parallel, fake.kernel("serial"), WayChoice(clock=fake.clock))
    for _ in range(20_000):
        runner(1024)
    late = fake.ways(since=fake.now / 2)
    assert runner.use_parallel is False
    assert late.count("parallel") <= 0.01 * len(late)  # trials only, never a run of parallel calls
    assert late.count("parallel") >= 1


def test_runners_sharing_a_choice_switch_together_on_their_summed_times():
    """Two loops of different costs, stepped in turn: parallel loses on their sum, so both go serial."""
    fake = FakeKernels(parallel_cost=0.0009, serial_cost=0.001)  # the cheap loop: parallel a little faster
    costly = FakeKernels(parallel_cost=0.020, serial_cost=0.004)  # the costly loop: parallel far slower
    costly.clock = fake.clock  # one clock: both advance fake.now
    costly.now = 0.0

    def costly_way(way: str):
        def run() -> None:
            fake.calls.append((f"costly {way}", fake.now))
            fake.now += costly.cost[way]

        return run

    choice = WayChoice(clock=fake.clock)
    cheap = fake.runner(choice)
    dear = FasterOf(costly_way("parallel"), costly_way("serial"), choice)
    for _ in range(5000):
        cheap(1024)
        dear(1024)
    assert choice.use_parallel is False and cheap.use_parallel is False and dear.use_parallel is False
    late = fake.ways(since=fake.now / 2)
    assert late.count("parallel") <= 0.01 * late.count("serial")  # the cheap loop goes serial too


def beside_a_neighbour(cores: float) -> tuple[FakeKernels, dict, FasterOf]:
    """Fake kernels (parallel would win on timing alone) on a 2-core machine whose other processes use
    ``neighbour["cores"]`` cores, which the test changes as it goes."""
    fake = FakeKernels(parallel_cost=0.0005, serial_cost=0.001)
    neighbour = {"cores": cores}
    choice = WayChoice(clock=fake.clock, neighbour_load=lambda: neighbour["cores"])
    choice.cpu_count = 2
    return fake, neighbour, fake.runner(choice)


def test_a_crowded_machine_runs_serially_without_trials_until_the_neighbour_leaves():
    fake, neighbour, runner = beside_a_neighbour(cores=0.0)
    for _ in range(100):
        runner(1024)
    assert fake.ways(since=fake.now / 2).count("parallel") >= 40  # idle: parallel kept
    neighbour["cores"] = 1.0  # one busy process: half a core spare is not enough for a second thread
    busy_since = fake.now
    for _ in range(2000):
        runner(1024)
    assert set(fake.ways(since=busy_since)) == {"serial"}  # not even a trial
    neighbour["cores"] = 0.2
    idle_since = fake.now
    for _ in range(100):
        runner(1024)
    assert fake.ways(since=idle_since).count("parallel") >= 90


def test_a_process_that_starts_crowded_goes_parallel_once_the_neighbour_leaves():
    """Serial from the first call (the parallel way never timed), then the machine empties: the parallel way
    is run and timed, and kept. It once stayed serial for the whole run: every later call was a trial of the
    serial way with no figure of the parallel one to compare with (make train at a third of its speed)."""
    fake, neighbour, runner = beside_a_neighbour(cores=1.0)
    for _ in range(200):
        runner(1024)
    assert set(fake.ways()) == {"serial"}
    neighbour["cores"] = 0.0
    idle_since = fake.now
    for _ in range(200):
        runner(1024)
    assert fake.ways(since=idle_since).count("parallel") >= 180


def test_neighbour_load_counts_other_processes_not_this_one(monkeypatch):
    """The machine's busy CPU time less this process's own, per second of wall clock, a new look once a window.

    Read from scripted samples of (wall clock, machine busy seconds, own CPU seconds): how busy the
    real machine is (other test workers, other jobs) must not decide whether this test passes.
    """
    from crossenvs.kernels.threads import LOAD_WINDOW, NeighbourLoad

    window = 2 * LOAD_WINDOW
    samples = iter([
        (0.0, 100.0, 10.0),
        (window, 100.0 + 1.0 * window, 10.0 + 1.0 * window),  # only this process was busy: no neighbour
        (2 * window, 100.0 + 3.5 * window, 10.0 + 1.5 * window),  # 2.5 cores busy, half of one of them ours
    ])  # fmt: skip
    clock = {"now": 0.0}
    monkeypatch.setattr(NeighbourLoad, "_sample", staticmethod(lambda: next(samples)))
    monkeypatch.setattr("crossenvs.kernels.threads.time.perf_counter", lambda: clock["now"])
    load = NeighbourLoad()
    clock["now"] = window
    assert load() == pytest.approx(0.0, abs=1e-9)
    clock["now"] = window + LOAD_WINDOW / 2
    assert load() == pytest.approx(0.0, abs=1e-9)  # within a window: the last figure, no new look
    clock["now"] = 2 * window
    assert load() == pytest.approx(2.0)


def test_the_machines_cpu_times_are_read_where_linux_gives_them():
    from crossenvs.kernels.threads import NeighbourLoad

    first = NeighbourLoad._sample()
    if first is None:
        pytest.skip("/proc/stat is not readable here")
    sum(range(200_000))
    second = NeighbourLoad._sample()
    assert second[0] > first[0] and second[1] >= first[1] > 0 and second[2] >= first[2] > 0


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
    ran = []

    def way(name: str):
        return lambda x: (ran.append(name), (name, x))[1]

    runner = FasterOf(way("parallel"), way("serial"), WayChoice(clock=fake.clock))
    answers = [runner(8, step) for step in range(20)]
    assert [x for _, x in answers] == list(range(20))
    assert [name for name, _ in answers] == ran  # one way ran per call, and its answer came back


def test_torch_thread_choice_runs_on_all_threads_or_one(monkeypatch):
    torch = pytest.importorskip("torch")

    from crossenvs.az import torch_threads
    from crossenvs.az.torch_threads import torch_thread_choice

    monkeypatch.setattr(torch_threads, "NEIGHBOURS", lambda: 0.0)  # an idle machine, whatever else runs here now
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # the choice is between all of torch's threads and one: two, even where tests run on one
    many = torch.get_num_threads()
    seen = []

    def record(x):
        seen.append(torch.get_num_threads())
        return x * 2

    choice = torch_thread_choice(record)
    assert [choice(1, step) for step in range(50)] == [2 * step for step in range(50)]
    assert set(seen) <= {1, many}
    assert set(seen) == {1, many}  # both ways were timed
    torch.set_num_threads(before)
