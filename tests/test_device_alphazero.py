"""AlphaZero on a GPU without a GPU (its compiled kernels are checked in tests/test_compiled_code.py): under numba's CUDA
simulator the device search returns what the CPU search returns on the same positions, noise and evaluator, and
device self-play plays the same games and hands the learner the same positions as the CPU's.

The simulator runs the device search's own code (its launches, buffers and kernels, one Python thread a tree)
with numba off, in a subprocess because both switches must be set before numba is imported. On a GPU the same
check runs on many trees: ``python benchmarks/gpu.py --check``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from test_device import NO_GPU

import crossenvs
from crossenvs.selfcheck import SearchReport, _compare_searches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAMES = ["crisscross", "charing_cross", "crosse", "crossings", "neo_crossings", "tictactoe"]


def _game(name: str) -> crossenvs.Game:
    if name == "tictactoe":
        sys.path.insert(0, str(EXAMPLES))
        import tictactoe

        return tictactoe.TicTacToe()
    return crossenvs.make_game(name)


SIMULATED = """
import json, sys, warnings
import numpy as np
np.seterr(over="ignore")  # numba off: the random streams' 64-bit products wrap, as they do compiled
warnings.simplefilter("ignore", RuntimeWarning)
sys.path.insert(0, {examples!r})
import tictactoe
from crossenvs.selfcheck import check_device_search
report = check_device_search({name!r}, positions=3, simulations=6, searches=4, seed=3, batch=5)  # 3 of 5 trees
print(json.dumps(report.__dict__))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_device_search_chooses_what_the_cpu_search_chooses_under_the_simulator(name):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"}
    script = SIMULATED.format(examples=str(EXAMPLES), name=name)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = SearchReport(**json.loads(done.stdout.strip().splitlines()[-1]))
    assert report.searches == 4 and report.positions == 3
    assert report.action_mismatches == 0, report.first_mismatch
    assert report.root_observation_mismatches == 0
    assert report.max_policy_gap == 0.0 and report.max_value_gap == 0.0


def test_the_search_comparison_sees_a_difference():
    """The check must be able to fail: a different action, policy or value is counted."""
    report = SearchReport(2, 4, 1, 0, 0, 0.0, 0.0)
    expected = (np.array([3, 5]), np.full((2, 7), 1 / 7, np.float32), np.zeros(2, np.float32), np.zeros((2, 1, 1, 1)))
    got = [np.array([3, 6]), expected[1].copy(), np.array([0.0, 0.25], np.float32), np.ones((2, 1, 1, 1))]
    got[1][0, 0] += 0.5
    _compare_searches(report, 0, expected, got)
    assert report.action_mismatches == 1 and report.first_mismatch.startswith("search 0, position 1: action 5")
    assert report.root_observation_mismatches == 2
    assert report.max_policy_gap == pytest.approx(0.5) and report.max_value_gap == pytest.approx(0.25)


SELF_PLAY = """
import json, warnings
import numpy as np
np.seterr(over="ignore")
warnings.simplefilter("ignore", RuntimeWarning)
import torch
from crossenvs.az.config import load_config
from crossenvs.az.replay import Replay
from crossenvs.az.selfplay import SelfPlay
from crossenvs.selfcheck import linear_evaluator

overrides = {{"num_envs": 3, "simulations": 4, "max_considered": 4, "fast_simulations": 2, "full_search_share": 0.5,
             "random_opening_plies": 2, "options": {{"size": 4}}}}
config = load_config({config!r}, overrides)


class SameChoices:  # both paths' generator: no root noise, and the same full-or-fast choice each move
    def __init__(self):
        self.draws = iter([0.2, 0.9, 0.1, 0.1, 0.7] * 10)

    def gumbel(self, size):
        return np.zeros(size)

    def random(self):
        return next(self.draws)

    def integers(self, low, high=None, size=None):  # a stream seed; or each new game's opening length
        return 7 if size is None else np.arange(size) % high


cpu, device = SelfPlay(config, SameChoices()), SelfPlay(config, SameChoices(), device="cuda")
for search in (device.search, device.fast_search):
    search.gumbel_noise = lambda n=None, generator=None: torch.zeros((3, cpu.game.num_actions))
evaluate = linear_evaluator(cpu.game, 1)
replays = [Replay(64, cpu.game.observation_shape, cpu.game.num_actions) for _ in range(2)]
found = {{"ended": 0, "positions": 0, "fast_moves": 0, "opening_moves": 0, "mismatches": []}}
for step in range(16):
    found["opening_moves"] += int((cpu.opening_left > 0).sum())  # the random moves this step plays
    a, b = cpu.step(evaluate), device.step(evaluate)
    found["ended"] += a.ended
    found["positions"] += len(a.results)
    found["fast_moves"] += a.searched == 0
    if (a.ended, a.searched, list(a.tags)) != (b.ended, b.searched, list(b.tags)):
        found["mismatches"].append(f"step {{step}}: ended, searched, tags {{a.ended, a.searched, list(a.tags)}} != "
                                   f"{{b.ended, b.searched, list(b.tags)}}")
    for replay, finished in zip(replays, (a, b)):
        replay.add(finished.observations, finished.policies, finished.results)
for name in ("observations", "policies", "results"):
    if not torch.equal(getattr(replays[0], name), getattr(replays[1], name)):
        found["mismatches"].append(f"the replay buffers' {{name}} differ")
print(json.dumps(found))
"""


@pytest.mark.slow
def test_device_self_play_plays_the_cpu_games_under_the_simulator():
    """Same start, no root noise, the same evaluator and the same full-or-fast search choices (playout-cap
    randomisation), random openings: the same games, and the same positions, results and tags handed over."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"}
    config = str(Path(__file__).resolve().parent.parent / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml")
    done = subprocess.run(
        [sys.executable, "-c", SELF_PLAY.format(config=config)], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["mismatches"] == []
    assert found["ended"] >= 3 and found["positions"] >= 10  # games did end and their positions were compared
    assert found["fast_moves"] >= 4  # cheap searches were played too (their positions are not learnt from)
    assert found["opening_moves"] >= 3  # and random opening moves (played on the device, not learnt from)


@NO_GPU
def test_training_on_a_gpu_where_there_is_none_is_one_clear_error_and_no_folder(tmp_path):
    run = tmp_path / "run"
    command = [sys.executable, str(Path(__file__).resolve().parent.parent / "training" / "alphazero.py"), "--config",
               str(Path(__file__).resolve().parent.parent / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml"), "--device",
               "cuda", "--run-dir", str(run), "--no-progress"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--device cuda needs an NVIDIA GPU" in done.stderr and "use --device cpu" in done.stderr
    assert not run.exists()


STORES = ["host", "device"]


def _pending(kind: str, num_games: int, slots: int):
    from crossenvs.az.pending import DevicePending, HostPending

    if kind == "host":
        return HostPending(num_games, (2, 2, 1), 3)
    return DevicePending(num_games, slots, (2, 2, 1), 3, torch.device("cpu"), "test")


def _move(kind: str, generator, num_games: int):
    """One searched move's rows: observations, policies, movers (seats 0 and 1), as the store's kind takes them."""
    observations = torch.randint(0, 9, (num_games, 2, 2, 1), generator=generator).float()
    policies = torch.rand((num_games, 3), generator=generator)
    movers = torch.randint(0, 2, (num_games,), generator=generator)
    return tuple(t.numpy() for t in (observations, policies, movers)) if kind == "host" else (observations, policies,
                                                                                                 movers)  # fmt: skip


@pytest.mark.parametrize("kind", STORES)
def test_both_pending_stores_hand_over_game_after_game_in_play_order(kind):
    """Moves with fast searches (no rows), games still in their random opening (no row for them), games ending at
    different moves, tags that grow: each ended game's rows come back game after game, each in play order, with
    its result for each mover and its first row's tag, on the CPU's lists and the GPU's slots alike (the slots in
    float16, from storage allocated once)."""
    generator = torch.Generator().manual_seed(5)
    pending = _pending(kind, 3, 6)
    storage = (
        [t.data_ptr() for t in (pending.observations, pending.policies, pending.movers)] if kind == "device" else []
    )
    model: list[list[tuple]] = [[] for _ in range(3)]  # what each game holds: (observation, policy, mover, tag)
    ends = [[0, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 1], [0, 1, 0], [1, 1, 1]]
    rows = [[1, 1, 1], [0, 1, 1], [1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 1, 1]]
    full = [True, True, False, True, True, True]
    stored = np.float16 if kind == "device" else np.float32
    handed = 0
    for step, (ended_now, searched) in enumerate(zip(ends, full)):
        if searched:
            observations, policies, movers = _move(kind, generator, 3)
            keep = np.array(rows[step], dtype=bool)
            pending.add(observations, policies, movers, keep, 10 + step)
            for i in np.flatnonzero(keep):
                model[i].append((np.asarray(observations[i]), np.asarray(policies[i]), int(movers[i]), 10 + step))
        ended = np.array(ended_now, dtype=bool)
        rewards = np.array([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]], np.float32) * (step + 1)
        if kind == "device":
            ended, rewards = torch.as_tensor(ended), torch.as_tensor(rewards)
        expected = [(o, p, float(rewards[i, seat]), model[i][0][3]) for i in np.flatnonzero(ended_now)
                    for o, p, seat, _ in model[i]]  # fmt: skip
        for i in np.flatnonzero(ended_now):
            model[i] = []
        finished = pending.take(ended, rewards, searched=7)
        assert finished.ended == sum(ended_now) and finished.searched == 7
        assert len(finished.results) == len(expected)
        assert len(pending) == sum(len(h) for h in model) and pending.counts().tolist() == [len(h) for h in model]
        if not expected:
            assert tuple(finished.observations.shape) == (0, 2, 2, 1)
            continue
        assert np.array_equal(np.asarray(finished.observations), np.stack([o for o, *_ in expected]).astype(stored))
        assert np.array_equal(np.asarray(finished.policies), np.stack([p for _, p, *_ in expected]).astype(stored))
        assert np.asarray(finished.results).tolist() == [r for _, _, r, _ in expected]
        assert finished.tags.tolist() == [t for *_, t in expected]
        handed += len(finished.results)
    assert handed == 13  # every game ends at the last move: each kept row, once
    if kind == "device":
        assert [t.data_ptr() for t in (pending.observations, pending.policies, pending.movers)] == storage


def test_a_game_that_fills_its_slots_is_handed_over_whole_and_one_past_them_is_refused():
    """A game that runs to its move cap uses every slot (its max_game_length); a game that plays more than it
    declared is one clear error, before anything is handed over, and nothing is written out of bounds."""
    from crossenvs.support.errors import InvalidArgumentError

    generator = torch.Generator().manual_seed(1)
    pending, moves, both = _pending("device", 2, 3), [], np.ones(2, dtype=bool)
    for _ in range(3):
        moves.append(_move("device", generator, 2))
        pending.add(*moves[-1], both, 0)
    finished = pending.take(torch.tensor([True, False]), torch.zeros((2, 2)), 2)
    assert finished.ended == 1 and torch.equal(finished.observations, torch.stack([m[0][0] for m in moves]).half())
    pending.add(*_move("device", generator, 2), both, 0)  # game 1's fourth searched move: past its 3 slots
    with pytest.raises(InvalidArgumentError, match=r"test: 1 game\(s\) played more than max_game_length \(3\)"):
        pending.take(torch.tensor([False, False]), torch.zeros((2, 2)), 2)


def test_pending_positions_too_large_for_memory_are_refused_before_allocating(monkeypatch):
    from crossenvs.az.pending import DevicePending
    from crossenvs.support.errors import InvalidArgumentError

    def allocate(*args, **kwargs):
        raise AssertionError("allocated before checking the memory")

    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")  # the simulator's stand-in: the host's available memory
    monkeypatch.setattr(torch, "zeros", allocate)
    with pytest.raises(InvalidArgumentError, match=r"pending positions of 1,000,000 crosse games \(632 moves each\)"
                       r".*ask for fewer games \(num_envs\)"):  # fmt: skip
        DevicePending(1_000_000, 632, (10, 10, 26), 1095, torch.device("cpu"), "crosse")  # Crosse's sizes: 4.2 TiB


def test_device_self_play_refuses_a_game_without_a_longest_game():
    from crossenvs.az.pending import DevicePending
    from crossenvs.support.errors import InvalidArgumentError

    unbounded = type("Unbounded", (type(_game("tictactoe")),), {"max_game_length": None})()
    with pytest.raises(InvalidArgumentError, match=r"tictactoe: device self-play .* give the Game subclass a max_game"):
        DevicePending.for_game(unbounded, 4, torch.device("cpu"))


FINISHED = """
import crossenvs, numpy as np
from crossenvs.az.search.gumbel import GumbelSearch
from crossenvs.kernels import state as st
from crossenvs.support.errors import IllegalActionError
game = crossenvs.make_game("crisscross", size=4)
start = game.initial_state()
boards, metas = np.stack([start.board] * 2), np.stack([start.meta] * 2)
metas[1, st.STATUS] = st.STATUS_DRAW
try:
    GumbelSearch(game, 2, 4, device="cuda").run(boards, metas, lambda o: None)
except IllegalActionError as exc:
    print("refused:", exc)
"""


def test_the_device_search_refuses_a_finished_position_from_the_host():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", FINISHED], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "refused: crisscross: position 1 of the batch is a finished game" in done.stdout
