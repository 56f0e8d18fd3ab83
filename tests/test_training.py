"""Self-play training: an end-to-end run in a subprocess, resume, checkpoints as opponents, config errors,
and every bad input to the trainers refused before training (both trainers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
import yaml
from conftest import AZ_TINY, trainer_error, training_script

import crossenvs
from crossenvs import checkpoints as ck
from crossenvs.az import config as az_config
from crossenvs.az.resume import usable
from crossenvs.checkpoints.board_cnn import BoardCNN
from crossenvs.players import Positions
from crossenvs.ppo import config as ppo_config
from crossenvs.ppo.config import load_config
from crossenvs.ppo.pool import OpponentPool
from crossenvs.ppo.run import Run, new_model
from crossenvs.trainer.config import ConfigError, read_yaml_config

ROOT = Path(__file__).resolve().parent.parent
alphazero = training_script("alphazero")
selfplay = training_script("selfplay")

CONFIGS = sorted((ROOT / "crossenvs" / "configs").glob("*.yaml"))


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
    start = "crisscross{'size': 4}: MaskablePPO self-play on cpu, to 1,024 steps or "  # said before the first step
    assert first.stdout.startswith(start) and f"(0 done) -> {run_dir}" in first.stdout.splitlines()[0], first.stdout
    metas = sorted((run_dir / "checkpoints").glob("step_*.json"), key=lambda p: int(p.stem.split("_")[1]))
    assert len(metas) >= 2  # one on the way (every 512 steps) and one at the end
    metadata = json.loads(metas[-1].read_text())
    assert metadata["game"] == "crisscross" and metadata["options"] == {"size": 4}
    assert metadata["step"] >= 1024 and metadata["config"]["num_envs"] == 8 and "crossenvs_version" in metadata
    assert not list((run_dir / "checkpoints").glob(".*"))  # no temporary files left behind
    assert list((run_dir / "tensorboard").rglob("events.*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    rates = summary["win_rate"], summary["draw_rate"], summary["loss_rate"]
    assert summary["games"] == 20 and sum(rates) == pytest.approx(1.0)
    assert all(float(rate * 20).is_integer() for rate in rates)  # whole games out of 20
    seats = (summary["win_rate_first_seat"] + summary["win_rate_second_seat"]) / 2  # 10 games in each seat
    assert seats == pytest.approx(summary["win_rate"])
    assert f"vs random {summary['win_rate']:.1%} wins, {summary['draw_rate']:.1%} draws" in first.stdout

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


def test_resuming_a_run_killed_before_its_first_checkpoint_starts_it_from_its_config(tmp_path):
    run_dir = tmp_path / "empty"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(tiny_config(tmp_path, total_steps=256, eval_games=2).read_text())
    result = run_selfplay("--resume", str(run_dir))
    assert result.returncode == 0, result.stderr
    assert "no checkpoint yet, so the run starts from its config.yaml" in result.stdout
    assert [p.name for p in (run_dir / "checkpoints").glob("step_*.json")] == ["step_256.json"]


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
        ck.load_sb3(broken, allow_pickle=True)
    (tmp_path / "step_5.json").write_text(json.dumps({"step": 5, "game": "crisscross", "options": {}}))
    with pytest.raises(crossenvs.CrossenvsError, match="corrupt or unreadable"):
        ck.load_sb3(broken)
    with pytest.raises(crossenvs.CrossenvsError, match="does not exist"):
        ck.load_sb3(tmp_path / "missing.zip")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"learning_rte": 0.1}, "unknown key.*learning_rte"),
        ({"num_envs": "many"}, "'num_envs' must be a whole number"),
        ({"num_envs": True}, "'num_envs' must be a whole number"),
        ({"policy": "transformer"}, "'policy' must be 'cnn' or 'mlp'"),
        ({"random_share": 1.5}, "'random_share' must be between 0 and 1"),
        ({"game": "chess"}, "'game' 'chess' is not one of"),
        ({"options": {"size": 99}}, "size must be an integer from 3 to 19"),
        ({"total_steps": 0}, "'total_steps' must be at least 1"),
        ({"max_minutes": -1}, "'max_minutes' must be a finite number of minutes above 0"),
        ({"max_minutes": 0}, "'max_minutes' must be a finite number of minutes above 0"),
        ({"seed": -1}, r"'seed' must be in 0\.\.2\*\*63-1, got -1"),
        ({"seed": 2**32}, r"'seed' must be below 2\*\*32"),
        ({"seed": True}, "'seed' must be a whole number"),
        ({"learning_rate": "fast"}, "'learning_rate' must be a number, got 'fast'"),
        ({"options": "size=6"}, "'options' must be a mapping of names to values"),
        ({"learning_rate": 0}, "'learning_rate' must be positive"),
        ({"gamma": 1.5}, "'gamma' must be in"),
        ({"batch_size": 100000}, "'batch_size' must be at most num_envs"),
    ],
)
def test_config_errors_name_the_key(tmp_path, changes, message):
    with pytest.raises((ConfigError, ValueError), match=message):
        load_config(tiny_config(tmp_path, **changes))


def test_config_errors_stop_the_command_line(tmp_path):
    result = run_selfplay("--config", str(tiny_config(tmp_path, batchsize=3)))
    assert result.returncode == 2 and "unknown key(s) batchsize" in result.stderr
    missing = run_selfplay("--config", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_shipped_config_loads(path):
    config = load_config(path)
    assert config.game == path.stem


def test_every_built_in_game_has_a_config():
    import crossenvs

    built_in = {
        name for name in crossenvs.list_games() if str(crossenvs.game_spec(name).target).startswith("crossenvs.")
    }
    assert (
        {path.stem for path in CONFIGS}
        == built_in
        == {"charing_cross", "crisscross", "crosse", "crossings", "neo_crossings", "hex", "connect_four"}
    )


def test_the_cnn_reads_board_planes():
    import torch
    from gymnasium import spaces

    space = spaces.Box(0.0, 1.0, (6, 6, 2), dtype=np.float32)
    net = BoardCNN(space, features_dim=16, channels=8)
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
    pool = OpponentPool(num_envs=1000, pool_size=2, random_share=0.25)
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


# ----------------------------------------------------------------------------- bad inputs, refused before training


def trainer_config(tmp_path: Path, trainer) -> str:
    """A tiny config for ``trainer`` (the two trainers take different keys)."""
    if trainer is selfplay:
        return str(tiny_config(tmp_path))
    path = tmp_path / "tiny_az.yaml"
    path.write_text(yaml.safe_dump(AZ_TINY))
    return str(path)


@pytest.mark.parametrize("path", sorted((ROOT / "crossenvs" / "configs").rglob("*.yaml")), ids=lambda p: p.stem)
def test_every_config_has_a_finite_positive_wall_clock_cap(path):
    raw = yaml.safe_load(path.read_text())
    assert "max_minutes" in raw, f"{path} states no wall-clock cap"
    assert 0 < raw["max_minutes"] <= 30 and np.isfinite(raw["max_minutes"])
    trainer = az_config if path.parent.name == "alphazero" else ppo_config
    assert trainer.load_config(path).max_minutes == raw["max_minutes"]


@pytest.mark.parametrize("trainer", [ppo_config, az_config], ids=["ppo", "alphazero"])
@pytest.mark.parametrize("minutes", [0, -1, ".inf", ".nan"])
def test_a_config_without_a_finite_cap_is_refused(tmp_path, trainer, minutes):
    path = tmp_path / "uncapped.yaml"
    path.write_text(f"game: crisscross\nmax_minutes: {minutes}\n")
    with pytest.raises(ConfigError, match="'max_minutes' must be a finite number of minutes above 0"):
        trainer.load_config(path)


@pytest.mark.parametrize("trainer", [ppo_config, az_config], ids=["ppo", "alphazero"])
def test_a_negative_config_seed_is_refused(tmp_path, trainer):
    path = tmp_path / "seed.yaml"
    path.write_text("game: crisscross\nseed: -1\n")
    with pytest.raises(crossenvs.CrossenvsError, match=r"seed.yaml: 'seed' must be in 0\.\.2\*\*63-1, got -1"):
        trainer.load_config(path)


def test_a_config_that_is_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("game: crisscross\n# réglage\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1.yaml: not UTF-8 text \(byte 0xe9 on line 2\)"):
        load_config(path)
    with pytest.raises(ConfigError, match="is a folder, not a YAML file"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("game: crisscross\nseed: 1\nnum_envs: 8\nseed: 2\n", "the key 'seed' is written twice (lines 2 and 4)"),
        ("game: crisscross\noptions:\n  size: 4\n  size: 6\n", "the key 'size' is written twice (lines 3 and 4)"),
        ("game: crisscross\noptions: {size: 4, size: 6}\n", "the key 'size' is written twice (lines 2 and 2)"),
    ],
)
def test_a_key_written_twice_is_refused_naming_key_and_lines(tmp_path, text, message):
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"twice.yaml: {message}".replace("(", r"\(").replace(")", r"\)")):
        read_yaml_config(path)


def test_yaml_merge_keys_still_work(tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text("base: &base {size: 4}\noptions:\n  <<: *base\n  size: 5\ngame: crisscross\n")
    assert read_yaml_config(path)["options"] == {"size": 5}


@pytest.mark.parametrize("trainer", [selfplay, alphazero], ids=["ppo", "alphazero"])
def test_trainer_flags_are_checked_before_anything_runs(tmp_path, capsys, trainer):
    config = trainer_config(tmp_path, trainer)
    (tmp_path / "a_file").write_text("")
    cases = [
        (["--config", config, "--max-minutes", "0"], "--max-minutes must be a finite number of minutes above 0"),
        (["--config", config, "--max-minutes", "inf"], "--max-minutes must be a finite number of minutes above 0"),
        (["--config", config, "--from-checkpoint", "x.zip"], "--from-checkpoint needs --resume RUN_DIR"),
        (["--resume", str(tmp_path), "--run-dir", str(tmp_path)], "--run-dir is for a new run (--game or --config)"),
        (["--resume", str(tmp_path / "nowhere")], "no such folder"),
        (["--resume", str(tmp_path)], "no config.yaml in it, so it is not a run folder"),
        (["--config", config, "--run-dir", str(tmp_path / "a_file" / "run")], "a_file is a file, not a folder"),
    ]
    for arguments, message in cases:
        assert message in trainer_error(trainer.main, arguments, capsys)
    ppo_only = ["--config", config, "--total-steps", "0"]
    if trainer is selfplay:
        assert "--total-steps must be at least 1, got 0" in trainer_error(trainer.main, ppo_only, capsys)


@pytest.mark.parametrize("trainer", [selfplay, alphazero], ids=["ppo", "alphazero"])
def test_a_run_folder_that_cannot_be_written_is_refused_before_training(tmp_path, capsys, read_only, trainer):
    config = trainer_config(tmp_path, trainer)
    locked = tmp_path / "locked"
    locked.mkdir()
    read_only(locked)
    err = trainer_error(trainer.main, ["--config", config, "--run-dir", str(locked / "run")], capsys)
    assert f"--run-dir {locked / 'run'}: cannot create files in {locked} (read-only?)" in err
    assert not (locked / "run").exists()
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "config.yaml").write_text("game: crisscross\n")
    err = trainer_error(trainer.main, ["--config", config, "--run-dir", str(taken)], capsys)
    assert f"already holds a run; continue it with --resume {taken}" in err


@pytest.mark.parametrize("trainer", [selfplay, alphazero], ids=["ppo", "alphazero"])
def test_resuming_a_read_only_run_is_refused_up_front(tmp_path, capsys, read_only, trainer):
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text(Path(trainer_config(tmp_path, trainer)).read_text())
    read_only(run_dir / "checkpoints")
    err = trainer_error(trainer.main, ["--resume", str(run_dir)], capsys)
    assert f"--resume {run_dir}: cannot write in {run_dir / 'checkpoints'} (read-only?)" in err
    assert f"chmod -R u+w {run_dir}" in err


def ppo_run_with_checkpoints(tmp_path: Path, steps: list[int]) -> Path:
    """A PPO run folder holding checkpoints at ``steps`` (untrained models; what resume reads is the same)."""
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    config_path = tiny_config(tmp_path, total_steps=max(steps) + 256, checkpoint_every=100_000)
    (run_dir / "config.yaml").write_text(config_path.read_text())
    run = Run(load_config(config_path), run_dir, "cpu")
    model = new_model(run.config, run.make_env(), "cpu")
    for step in steps:
        model.num_timesteps = step
        run.save_checkpoint(model)
    return run_dir


def test_a_corrupt_newest_ppo_checkpoint_names_the_previous_good_one(tmp_path, capsys, monkeypatch):
    run_dir = ppo_run_with_checkpoints(tmp_path, [256, 512, 768])
    checkpoints = run_dir / "checkpoints"
    newest = checkpoints / "step_768.zip"
    newest.write_bytes(newest.read_bytes()[:1000])  # truncated
    middle = checkpoints / "step_512.zip"
    middle.write_bytes(middle.read_bytes()[:-50])  # damaged too: the offer skips it
    monkeypatch.chdir(tmp_path)
    err = trainer_error(selfplay.main, ["--resume", "run"], capsys)
    assert f"checkpoint {newest} is corrupt or unreadable" in err
    expected = "crossenvs train ppo --resume run --from-checkpoint run/checkpoints/step_256.zip"
    assert f"the previous good checkpoint is run/checkpoints/step_256.zip: resume from it with {expected}" in err
    err = trainer_error(selfplay.main, ["--resume", "run", "--from-checkpoint", "elsewhere.zip"], capsys)
    assert "--from-checkpoint elsewhere.zip does not exist" in err
    (tmp_path / "other.zip").write_bytes(b"")
    err = trainer_error(selfplay.main, ["--resume", "run", "--from-checkpoint", "other.zip"], capsys)
    assert "not one of this run's checkpoints" in err


def test_resuming_from_the_offered_ppo_checkpoint_moves_the_newer_ones_aside(tmp_path):
    run_dir = ppo_run_with_checkpoints(tmp_path, [256, 512])
    (run_dir / "checkpoints" / "step_512.zip").write_bytes(b"PK\x03\x04 truncated")
    result = run_selfplay("--resume", str(run_dir), "--from-checkpoint", str(run_dir / "checkpoints" / "step_256.zip"))
    assert result.returncode == 0, result.stderr
    assert "resuming" in result.stdout and "from step_256.zip" in result.stdout
    assert "moved 2 newer checkpoint file(s) (step_512.json, step_512.zip)" in result.stdout
    aside = list((run_dir / "checkpoints" / "superseded").glob("*/step_512.zip"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"PK\x03\x04 truncated"
    steps = [json.loads(p.read_text())["step"] for p in (run_dir / "checkpoints").glob("step_*.json")]
    assert max(steps) >= 512  # trained on past the abandoned checkpoint
    again = run_selfplay("--resume", str(run_dir))  # the newest is good again: a plain resume works
    assert again.returncode == 0, again.stderr


def az_run_with_checkpoints(tmp_path: Path) -> Path:
    """An AlphaZero run folder: latest.pt (with the optimiser), final.pt and two snapshots."""
    from crossenvs.az.network import AlphaZeroNet
    from crossenvs.checkpoints import save_alphazero as save_checkpoint

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(AZ_TINY))
    game = crossenvs.make_game("crisscross", size=4)
    net = AlphaZeroNet(game.observation_shape, game.num_actions, AZ_TINY["channels"], AZ_TINY["blocks"])
    optimizer = torch.optim.AdamW(net.parameters())
    for seconds in (60, 120):
        counters = {"moves": seconds, "positions": 16 * seconds, "updates": 1, "games": 1, "wall_seconds": seconds}
        save_checkpoint(run_dir / "checkpoints" / f"seconds_{seconds:06d}.pt", net, game, {"counters": counters})
    for name in ("latest.pt", "final.pt"):
        save_checkpoint(
            run_dir / "checkpoints" / name, net, game, {"optimizer": optimizer.state_dict(), "counters": counters}
        )
    return run_dir


def test_a_corrupt_latest_alphazero_checkpoint_names_the_newest_good_snapshot(tmp_path, capsys, monkeypatch):
    run_dir = az_run_with_checkpoints(tmp_path)
    latest = run_dir / "checkpoints" / "latest.pt"
    latest.write_bytes(latest.read_bytes()[:500])
    snapshot = run_dir / "checkpoints" / "seconds_000120.pt"
    snapshot.write_bytes(snapshot.read_bytes()[:500])
    monkeypatch.chdir(tmp_path)
    err = trainer_error(alphazero.main, ["--resume", "run"], capsys)
    assert f"checkpoint {latest} is corrupt or unreadable" in err
    expected = "crossenvs train alphazero --resume run --from-checkpoint run/checkpoints/seconds_000060.pt"
    assert f"the previous good checkpoint is run/checkpoints/seconds_000060.pt: resume from it with {expected}" in err
    err = trainer_error(alphazero.main, ["--resume", "run", "--from-checkpoint", "run/config.yaml"], capsys)
    assert "not one of this run's checkpoints" in err and "latest.pt, final.pt or seconds_<n>.pt" in err


def test_resuming_alphazero_from_a_snapshot_moves_the_later_checkpoints_aside(tmp_path):
    run_dir = az_run_with_checkpoints(tmp_path)
    (run_dir / "checkpoints" / "latest.pt").write_bytes(b"")
    snapshot = run_dir / "checkpoints" / "seconds_000060.pt"
    command = [sys.executable, str(ROOT / "training" / "alphazero.py"), "--no-progress", "--device", "cpu"]
    command += ["--resume", str(run_dir), "--from-checkpoint", str(snapshot)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "from seconds_000060.pt at move 60" in result.stdout and "AdamW starts afresh" in result.stdout
    aside = {path.name for path in (run_dir / "checkpoints" / "superseded").glob("*/*")}
    assert aside == {"latest.pt", "final.pt", "seconds_000120.pt"}
    assert usable(run_dir / "checkpoints" / "latest.pt")  # written anew by the resumed run


def test_a_ppo_run_in_a_pipe_says_where_it_stands_against_steps_and_minutes(tmp_path, capsys):
    """Off a terminal SB3's bar draws nothing a log can use: a line every so often, against both ends."""
    from crossenvs.ppo.config import load_config
    from crossenvs.ppo.run import Run, SelfPlayCallback

    run = Run(load_config(tiny_config(tmp_path)), tmp_path / "run", "cpu")
    callback = SelfPlayCallback(run, pipe_every=1e-9)
    callback.num_timesteps, callback.next_snapshot, callback.next_checkpoint = 300, 10**9, 10**9
    assert callback._on_step() is True
    line = capsys.readouterr().out
    assert line.startswith("  300/1,024 steps, 0.0 of ") and "min (0 snapshots in the pool)" in line, line
