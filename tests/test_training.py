"""Self-play training: an end-to-end run in a subprocess, resume, checkpoints as opponents, config errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import crossenvs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "training"))

import selfplay  # noqa: E402

from crossenvs.players import Positions  # noqa: E402

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def run_selfplay(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "training" / "selfplay.py"), "--no-progress", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def tiny_config(tmp_path: Path, **changes) -> Path:
    config = {
        "game": "crisscross",
        "options": {"size": 4},
        "policy": "mlp",  # what make train uses; the CNN is tested on its own below
        "net_width": 32,
        "num_envs": 8,
        "total_steps": 1024,
        "snapshot_every": 256,
        "checkpoint_every": 512,
        "n_steps": 32,
        "batch_size": 64,
        "n_epochs": 1,
        "eval_games": 20,
        **changes,
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(config))  # JSON is YAML
    return path


def test_a_short_run_writes_checkpoints_resumes_and_plays_as_an_opponent(tmp_path):
    run_dir = tmp_path / "run"
    first = run_selfplay("--config", str(tiny_config(tmp_path)), "--run-dir", str(run_dir))
    assert first.returncode == 0, first.stderr
    assert "vs random" in first.stdout and "over 20 games (both seats)" in first.stdout
    metas = sorted((run_dir / "checkpoints").glob("step_*.json"), key=lambda p: int(p.stem.split("_")[1]))
    assert len(metas) >= 2  # one on the way (every 512 steps) and one at the end
    metadata = json.loads(metas[-1].read_text())
    assert metadata["game"] == "crisscross" and metadata["options"] == {"size": 4}
    assert metadata["step"] >= 1024 and metadata["config"]["num_envs"] == 8 and "crossenvs_version" in metadata
    assert not list((run_dir / "checkpoints").glob(".*"))  # no temporary files left behind
    assert list((run_dir / "tensorboard").rglob("events.*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert 0.0 <= summary["win_rate"] <= 1.0 and summary["games"] == 20

    resumed = subprocess.run(  # from another working directory: the run folder must not depend on it
        [sys.executable, str(ROOT / "training" / "selfplay.py"), "--no-progress", "--resume", "run"]
        + ["--total-steps", "2048"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"from step_{metadata['step']}.zip" in resumed.stdout
    logs = list((run_dir / "tensorboard").iterdir())
    assert len(logs) == 1 and len(list(logs[0].glob("events.*"))) == 2  # the resumed session continues the curve
    assert not (tmp_path / "tensorboard").exists()
    steps = [json.loads(p.read_text())["step"] for p in (run_dir / "checkpoints").glob("step_*.json")]
    assert max(steps) >= 2048

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run_dir / "checkpoints" / f"step_{max(steps)}.zip", device="cpu")
    env = gymnasium.make("crossenvs/Crisscross-v0", size=4, opponent=model)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, reward, done, _, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert "illegal_action" not in info and reward in (-1.0, 0.0, 1.0)


def test_resume_without_checkpoints_is_a_clear_error(tmp_path):
    run_dir = tmp_path / "empty"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(tiny_config(tmp_path).read_text())
    result = run_selfplay("--resume", str(run_dir))
    assert result.returncode == 2 and "no checkpoint to resume from" in result.stderr


def test_resume_from_a_corrupt_checkpoint_is_a_clear_error(tmp_path):
    run_dir = tmp_path / "broken"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text(tiny_config(tmp_path).read_text())
    (run_dir / "checkpoints" / "step_64.zip").write_bytes(b"garbage")
    (run_dir / "checkpoints" / "step_64.json").write_text(json.dumps({"step": 64}))
    result = run_selfplay("--resume", str(run_dir))
    assert result.returncode == 2 and "corrupt or unreadable" in result.stderr


def test_a_corrupt_checkpoint_is_a_clear_error(tmp_path):
    broken = tmp_path / "step_5.zip"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(crossenvs.CrossenvsError, match="corrupt or unreadable"):
        selfplay.load_checkpoint(broken)
    with pytest.raises(crossenvs.CrossenvsError, match="does not exist"):
        selfplay.load_checkpoint(tmp_path / "missing.zip")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"learning_rte": 0.1}, "unknown key.*learning_rte"),
        ({"num_envs": "many"}, "'num_envs' must be a int"),
        ({"num_envs": True}, "'num_envs' must be a int"),
        ({"policy": "transformer"}, "'policy' must be 'cnn' or 'mlp'"),
        ({"random_share": 1.5}, "'random_share' must be between 0 and 1"),
        ({"game": "chess"}, "'game' 'chess' is not one of"),
        ({"options": {"size": 99}}, "size must be an integer from 3 to 19"),
        ({"total_steps": 0}, "'total_steps' must be at least 1"),
        ({"max_minutes": -1}, "'max_minutes' must be 0"),
        ({"learning_rate": 0}, "'learning_rate' must be positive"),
        ({"gamma": 1.5}, "'gamma' must be in"),
        ({"batch_size": 100000}, "'batch_size' must be at most num_envs"),
    ],
)
def test_config_errors_name_the_key(tmp_path, changes, message):
    with pytest.raises((selfplay.ConfigError, ValueError), match=message):
        selfplay.load_config(tiny_config(tmp_path, **changes))


def test_config_errors_stop_the_command_line(tmp_path):
    result = run_selfplay("--config", str(tiny_config(tmp_path, batchsize=3)))
    assert result.returncode == 2 and "unknown key(s) batchsize" in result.stderr
    missing = run_selfplay("--config", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_shipped_config_loads(path):
    config = selfplay.load_config(path)
    assert config.game == path.stem


def test_every_built_in_game_has_a_config():
    import crossenvs

    built_in = {
        name for name in crossenvs.list_games() if str(crossenvs.game_spec(name).target).startswith("crossenvs.")
    }
    assert (
        {path.stem for path in CONFIGS}
        == built_in
        == {"charing_cross", "crisscross", "crosse", "crossings", "neo_crossings"}
    )


def test_the_cnn_reads_board_planes():
    import torch
    from gymnasium import spaces

    space = spaces.Box(0.0, 1.0, (6, 6, 2), dtype=np.float32)
    net = selfplay.BoardCNN(space, features_dim=16, channels=8)
    assert net(torch.zeros(3, 6, 6, 2)).shape == (3, 16)


class FixedPolicy:
    """A stand-in snapshot that always plays one action, so tests can see who moved."""

    def __init__(self, action):
        self.action = action

    def eval(self):
        return self

    def predict(self, observations, action_masks=None, deterministic=False):
        return np.full(len(observations), self.action), None


def test_the_pool_mixes_random_and_snapshots_and_games_keep_their_opponent():
    pool = selfplay.OpponentPool(num_envs=1000, pool_size=2, random_share=0.25)
    pool.start_games(np.arange(1000), np.random.default_rng(0).random(1000))
    assert (pool.member == 0).all()  # no snapshot yet: everyone plays the random policy
    pool.add(FixedPolicy(100))
    pool.add(FixedPolicy(200))
    pool.start_games(np.arange(1000), np.random.default_rng(1).random(1000))
    shares = np.bincount(pool.member, minlength=3) / 1000
    assert abs(shares[0] - 0.25) < 0.05 and abs(shares[1] - 0.375) < 0.05 and abs(shares[2] - 0.375) < 0.05

    game = crossenvs.make_game("crosse")  # 1,095 action ids: the fixed snapshot actions are ids of it
    ids = np.arange(1000)
    n = len(ids)

    def positions():  # every id legal; a zero uniform makes the random policy play id 0
        boards, metas = np.zeros((n, 10, 10), np.int8), np.zeros((n, 12), np.int32)
        observations, masks = np.zeros((n, 1)), np.ones((n, game.num_actions), dtype=np.int8)
        return Positions(game, boards, metas, observations, masks, ids, uniforms=np.zeros(n))

    before = pool.act_batch(positions())
    assert set(np.unique(before)) == {0, 100, 200}
    pool.add(FixedPolicy(300))  # the pool is full: snapshot 1 (action 100) leaves
    after = pool.act_batch(positions())
    assert np.array_equal(after[before == 200], before[before == 200])  # snapshot 2's games keep it
    assert (after[before == 100] == 300).all()  # games of the dropped snapshot go to the newest
    assert (after[before == 0] == 0).all()  # the random policy's games too
