"""TorchRL: the batched EnvBase over the vector env (specs, auto-reset, seeding, bad input), on the CPU and
under numba's CUDA simulator, and the self-play PPO recipe (examples/torchrl_selfplay.py): its credit
assignment by hand, and a run on a tiny budget.

Small batches and short rollouts: the rules are the vector env's, tested there; what is tested here is
what TorchRL sees of them.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl", reason='needs the torchrl extra: pip install -e ".[torchrl]"')
import torch
import torchrl_selfplay  # examples/, on sys.path from conftest
from tensordict import TensorDict
from torchrl.collectors import Collector
from torchrl.envs.utils import check_env_specs

import crossenvs
from crossenvs.integrations.torchrl import CrossTorchRLEnv
from crossenvs.kernels.cuda import CudaUnavailableError

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["crossings", "neo_crossings", "charing_cross", "crisscross", "crosse"]


@pytest.mark.parametrize("name", GAMES)
def test_check_env_specs_passes_for_every_game(name):
    env = CrossTorchRLEnv(name, num_envs=3)
    env.set_seed(0)
    check_env_specs(env, seed=None)
    game = crossenvs.make_game(name)
    assert env.observation_spec["observation"].shape == (3, *game.observation_shape)
    assert env.observation_spec["action_mask"].shape == (3, game.num_actions)
    assert env.action_spec.n == game.num_actions and env.batch_locked


def test_torchrls_own_auto_reset_transform_takes_it_too():
    env = CrossTorchRLEnv("crisscross", num_envs=4, size=4, auto_reset=True)
    check_env_specs(env)
    rollout = env.rollout(40, break_when_any_done=False)
    done = rollout["next", "done"].squeeze(-1)
    assert done.any(), "40 random plies of 4x4 Crisscross end some game"
    assert torch.isnan(rollout["next", "observation"][done]).all()  # the transform blanks what a reset replaced


def test_a_collectors_batches_are_consistent_games():
    """Next observations are the following step's; a game that ends restarts; rewards are the mover's seat reward."""
    env = CrossTorchRLEnv("crisscross", num_envs=8, size=4)
    collector = Collector(env, None, frames_per_batch=8 * 16, total_frames=8 * 32)
    batches = list(collector)
    collector.shutdown()
    batch = batches[-1]
    assert torch.equal(batch["next", "observation"][:, :-1], batch["observation"][:, 1:])
    assert torch.equal(batch["next", "current_player"][:, :-1], batch["current_player"][:, 1:])
    done = batch["next", "done"].squeeze(-1)
    assert done.any() and torch.equal(done, batch["next", "terminated"].squeeze(-1))
    assert not batch["next", "truncated"].any()
    mover_reward = batch["next", "seat_rewards"].gather(-1, batch["current_player"].unsqueeze(-1))
    assert torch.equal(batch["next", "reward"], mover_reward)
    assert (batch["next", "seat_rewards"][~done] == 0).all() and (batch["next", "seat_rewards"][done] != 0).any(
        -1
    ).all()
    # the row after a finished game is the first position of a new one: the first player is to move, nothing played
    after = done[:, :-1]
    assert (batch["next", "current_player"][:, :-1][after] == 0).all()
    start = env.reset()
    assert (batch["next", "observation"][:, :-1][after] == start["observation"][0]).all()


def test_observations_wrap_the_vector_envs_arrays_without_a_copy(monkeypatch):
    env = CrossTorchRLEnv("crisscross", num_envs=4, size=5)
    returned = {}
    step = env._vector.step

    def spy(actions):
        returned["step"] = step(actions)
        return returned["step"]

    monkeypatch.setattr(env._vector, "step", spy)
    td = env.rand_step(env.reset())
    observations, rewards, _, _, info = returned["step"]
    assert np.shares_memory(td["next", "observation"].numpy(), observations)
    assert np.shares_memory(td["next", "action_mask"].numpy(), info["action_mask"])
    assert np.shares_memory(td["next", "reward"].numpy(), rewards)


def test_set_seed_decides_the_random_legal_actions():
    def actions(seed):
        env = CrossTorchRLEnv("charing_cross", num_envs=4)
        env.set_seed(seed)
        rollout = env.rollout(30, break_when_any_done=False)
        legal = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1))
        assert legal.all(), "rand_action draws legal actions only"
        return rollout["action"]

    assert torch.equal(actions(7), actions(7))
    assert not torch.equal(actions(7), actions(8))


def test_a_partial_reset_restarts_only_the_games_that_did_not_just_end():
    env = CrossTorchRLEnv("crisscross", num_envs=3, size=4)
    start = env.reset()
    td = start.clone()
    for _ in range(3):
        td = env.step_mdp(env.rand_step(td))
    assert (td["observation"] != start["observation"]).flatten(1).any(-1).all()
    partial = td.clone().set("_reset", torch.tensor([[True], [False], [False]]))
    restarted = env.reset(partial)
    assert torch.equal(restarted["observation"][0], start["observation"][0])
    assert torch.equal(restarted["observation"][1:], td["observation"][1:])


def test_wrong_batch_sizes_devices_and_actions_are_one_error_each():
    with pytest.raises(crossenvs.InvalidOptionError, match="num_envs must be a positive integer"):
        CrossTorchRLEnv("crisscross", num_envs=0)
    with pytest.raises(crossenvs.InvalidOptionError, match="device must be 'cpu' or 'cuda'"):
        CrossTorchRLEnv("crisscross", num_envs=2, device="gpu")
    with pytest.raises(crossenvs.InvalidOptionError, match="device must be 'cpu' or 'cuda'"):
        CrossTorchRLEnv("crisscross", num_envs=2, device=torch.device("meta"))
    if not torch.cuda.is_available():
        with pytest.raises(CudaUnavailableError, match="device='cpu'"):
            CrossTorchRLEnv("crisscross", num_envs=2, device="cuda")
    env = CrossTorchRLEnv("crisscross", num_envs=2, size=4)
    td = env.reset()
    with pytest.raises(crossenvs.InvalidArgumentError, match=r"batch size \(2,\); got \(3,\)"):
        env.step(TensorDict({"action": torch.zeros(3, dtype=torch.int64)}, batch_size=[3]))
    with pytest.raises(crossenvs.InvalidArgumentError, match=r"got \(2, 1\)\. Start from env.reset\(\)"):
        env.reset(TensorDict({}, batch_size=[2, 1]))
    bad_actions = {
        "dtype torch.float32": torch.zeros(2),
        "dtype torch.bool": torch.zeros(2, dtype=torch.bool),
        r"shape \(2, 16\)": torch.zeros(2, 16, dtype=torch.int64),
        r"action\[1\] = 16 is out of range": torch.tensor([0, 16]),
        r"action\[0\] = -1 is out of range": torch.tensor([-1, 0]),
    }
    for message, actions in bad_actions.items():
        with pytest.raises(crossenvs.InvalidActionError, match=message):
            env.step(td.clone().set("action", actions))
    elsewhere = TensorDict({"action": torch.zeros(2, dtype=torch.int64, device="meta")}, batch_size=[2])
    with pytest.raises(crossenvs.InvalidActionError, match="on cpu, got a tensor on meta"):
        env.step(elsewhere)
    with pytest.raises(crossenvs.InvalidActionError, match="got NoneType"):
        env.step(td.clone())
    assert torch.equal(env.step(td.clone().set("action", torch.tensor([0, 5])))["action"], torch.tensor([0, 5]))


SIMULATED = """
import warnings
import numpy as np
np.seterr(over="ignore")  # numba off: the random streams' 64-bit products wrap, as they do compiled
warnings.simplefilter("ignore", RuntimeWarning)
from crossenvs.selfcheck import check_device_torchrl
for name in {games!r}:
    check_device_torchrl(name, num_envs=2)
    print(name, "ok")
"""


@pytest.mark.slow
def test_the_device_form_passes_check_env_specs_under_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"}
    script = SIMULATED.format(games=GAMES)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [line.split()[0] for line in done.stdout.splitlines() if line.endswith(" ok")] == GAMES


def test_the_recipe_credits_each_move_to_its_mover():
    """Three plies of one game, seat 0 then 1 then 0, seat 0 winning with the last: with a critic that says 0
    everywhere, each move's advantage is the discounted outcome for the player who made it."""
    _, critic, seat0_critic = torchrl_selfplay.make_modules((4, 4, 2), 16, width=4, hidden=8)
    final = critic.module[-1]
    torch.nn.init.zeros_(final.weight)
    torch.nn.init.zeros_(final.bias)
    gae = torchrl_selfplay.GAE(gamma=0.9, lmbda=0.5, value_network=seat0_critic)
    gae.set_keys(reward="seat0_reward", value="seat0_value")
    observation = torch.zeros(1, 3, 4, 4, 2)
    batch = TensorDict(
        {
            "observation": observation,
            "current_player": torch.tensor([[0, 1, 0]]),
            "next": {
                "observation": observation,
                "current_player": torch.tensor([[1, 0, 0]]),
                "seat_rewards": torch.tensor([[[0.0, 0.0], [0.0, 0.0], [1.0, -1.0]]]),
                "reward": torch.tensor([[[0.0], [0.0], [1.0]]]),
                "done": torch.tensor([[[False], [False], [True]]]),
                "terminated": torch.tensor([[[False], [False], [True]]]),
            },
        },
        batch_size=[1, 3],
    )
    torchrl_selfplay.mover_frame_advantages(batch, gae)
    step = 0.9 * 0.5
    expected = torch.tensor([[[step**2], [-step], [1.0]]])  # seat 0's win is good for seat 0's moves, bad for seat 1's
    torch.testing.assert_close(batch["advantage"], expected)
    torch.testing.assert_close(batch["value_target"], expected)  # the critic said 0: targets are the advantages


def test_the_recipe_runs_on_a_tiny_budget(capsys):
    torchrl_selfplay.main(
        ["--option", "size=4", "--num-envs", "16", "--num-steps", "4", "--epochs", "1", "--minibatches", "2",
         "--eval-every", "1", "--eval-games", "8", "--minutes", "0", "--width", "4", "--hidden", "16"]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "update 1: 64 steps" in printed and "steps/s end to end" in printed and "against random" in printed
    assert printed.splitlines()[-1].startswith("done: 64 steps")


def test_the_pettingzoo_comparison_runs_both_rows(tmp_path):
    out = tmp_path / "torchrl_ppo.json"
    bench = runpy.run_path(str(ROOT / "benchmarks" / "torchrl_ppo.py"))
    figures = bench["main"](["--seconds", "0", "--num-envs", "4", "--json", str(out)])
    assert list(figures) == ["CrossTorchRLEnv", "PettingZooWrapper (SerialEnv)"]
    assert all(row["steps_per_second"] > 0 for row in figures.values())
    assert json.loads(out.read_text()) == figures
