"""First contact: untrusted checkpoints, kills at any moment, the replay buffer kept, the final
evaluation run again, and configs that cannot fit in memory refused before any work."""

from __future__ import annotations

import argparse
import base64
import builtins
import json
import pickle
import zipfile
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
import yaml
from conftest import AZ_TINY, training_script
from test_training import az_run_with_checkpoints, ppo_run_with_checkpoints, tiny_config, trainer_error

import crossenvs
from crossenvs import checkpoints as ck
from crossenvs.az import config as az_config
from crossenvs.az.network import AlphaZeroNet
from crossenvs.az.replay import Replay
from crossenvs.az.resume import checkpoint_to_resume, latest_extra, read_document
from crossenvs.players import make_player
from crossenvs.ppo.config import load_config
from crossenvs.ppo.resume import resume
from crossenvs.ppo.run import Run, new_model
from crossenvs.support import checks
from crossenvs.trainer import folders

ROOT = Path(__file__).resolve().parent.parent
alphazero = training_script("alphazero")
selfplay = training_script("selfplay")


# ----------------------------------------------------------------------------- 1. checkpoint trust
class _Payload:
    """Unpickling this creates the file ``marker``: what a crafted checkpoint could do instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return builtins.exec, (f"open({str(self.marker)!r}, 'w').close()",)


def crafted_zip(path: Path, marker: Path) -> Path:
    """A stable-baselines3-shaped .zip whose ``data`` holds a cloudpickled value that creates ``marker``."""
    serialized = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": serialized}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    return path


@pytest.mark.parametrize("with_metadata", [False, True], ids=["bare", "with-json"])
def test_a_crafted_zip_is_refused_everywhere_without_running_its_pickle(tmp_path, with_metadata):
    from crossenvs.web.errors import BadRequestError
    from crossenvs.web.opponents import CheckpointFolders, make_opponent

    marker = tmp_path / "pwned"
    evil = crafted_zip(tmp_path / "step_64.zip", marker)
    if with_metadata:  # an attacker may ship the metadata too: the weights are still read weights-only
        architecture = ck.sb3_architecture("mlp", 32)
        meta = {"step": 64, "game": "crisscross", "options": {"size": 4}, "architecture": architecture}
        (tmp_path / "step_64.json").write_text(json.dumps(meta))
    game = crossenvs.make_game("crisscross", size=4)
    with pytest.raises(crossenvs.CrossenvsError, match="pickle:" if not with_metadata else "corrupt or unreadable"):
        make_player(str(evil), game=game)
    with pytest.raises(crossenvs.CrossenvsError):
        gymnasium.make("crossenvs/Crisscross-v0", size=4, opponent=str(evil))
    folders = CheckpointFolders([tmp_path])
    for spec in ("step_64.zip", "pickle:step_64.zip"):
        with pytest.raises(BadRequestError):
            make_opponent(spec, game, folders, 0, 100)
    assert not marker.exists()
    # the operator's explicit flag lets a page name pickle: (and then the file is unpickled: trust it first)
    with pytest.raises(BadRequestError, match="corrupt or unreadable"):
        make_opponent("pickle:step_64.zip", game, CheckpointFolders([tmp_path], trust_pickles=True), 0, 100)
    assert marker.exists()


def test_the_trainers_checkpoints_load_without_unpickling_and_play(tmp_path, monkeypatch):
    run_dir = ppo_run_with_checkpoints(tmp_path, [256])
    checkpoint = run_dir / "checkpoints" / "step_256.zip"
    metadata = json.loads(checkpoint.with_suffix(".json").read_text())
    assert metadata["architecture"] == {"format": ck.SB3_FORMAT, "policy": "mlp", "net_width": 32}

    def no_pickles(*args, **kwargs):
        raise AssertionError("unpickled a checkpoint")

    from sb3_contrib import MaskablePPO

    monkeypatch.setattr(MaskablePPO, "load", no_pickles)
    env = gymnasium.make("crossenvs/Crisscross-v0", size=4, opponent=str(checkpoint))
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert "illegal_action" not in info
    policy = ck.load_sb3(checkpoint)
    with zipfile.ZipFile(checkpoint) as archive, archive.open("policy.pth") as saved:
        weights = torch.load(saved, weights_only=True)
    assert all(torch.equal(tensor, weights[name]) for name, tensor in policy.state_dict().items())


# ----------------------------------------------------------------------------- 2. kills at any moment
def resume_args(run_dir: Path, **changes) -> argparse.Namespace:
    values = {"resume": str(run_dir), "total_steps": None, "max_minutes": None, "from_checkpoint": None}
    values.update(changes, evaluate_only=False)
    return argparse.Namespace(**values)


class Killed(BaseException):
    """A kill: nothing after it runs (BaseException, so no handler in the trainers catches it)."""


@pytest.mark.parametrize("kill_at", [1, 2, 3, 4, 5])
def test_a_ppo_checkpoint_killed_at_any_step_leaves_a_resumable_run(tmp_path, monkeypatch, kill_at):
    run_dir = ppo_run_with_checkpoints(tmp_path, [256])
    run = Run(load_config(run_dir / "config.yaml"), run_dir, "cpu")
    model = new_model(run.config, run.make_env(), "cpu")
    model.num_timesteps = 512
    calls = []

    def step(what: str) -> None:
        calls.append(what)
        if len(calls) == kill_at:
            raise Killed(what)

    monkeypatch.setattr(folders, "protocol_step", step)
    if kill_at <= 4:  # the protocol has four steps: write data, write metadata, rename data, rename metadata
        with pytest.raises(Killed):
            run.save_checkpoint(model)
    else:
        run.save_checkpoint(model)
    monkeypatch.undo()
    resumed, _, _ = resume(resume_args(run_dir), "cpu")
    expected = 512 if kill_at >= 4 else 256  # the metadata's rename commits the checkpoint
    assert resumed.steps()[-1] == expected
    left = sorted(path.name for path in (run_dir / "checkpoints").iterdir())
    assert left == sorted(f"step_{step}.{suffix}" for step in {256, expected} for suffix in ("zip", "json"))


def test_alphazero_resume_removes_what_a_killed_write_left(tmp_path, monkeypatch):
    run_dir = az_run_with_checkpoints(tmp_path)
    game = crossenvs.make_game("crisscross", size=4)
    net, _ = ck.load_alphazero(run_dir / "checkpoints" / "latest.pt", AlphaZeroNet)
    with monkeypatch.context() as patch:  # killed between writing the temporary file and renaming it
        patch.setattr(ck.alphazero.os, "replace", lambda *a: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            ck.save_alphazero(run_dir / "checkpoints" / "seconds_000180.pt", net, game, {"counters": {}})
    (run_dir / "checkpoints" / ".latest.pt.tmp").write_bytes(b"half a file")
    chosen, document = checkpoint_to_resume(run_dir, resume_args(run_dir))
    assert chosen.name == "latest.pt" and document["counters"]["moves"] == 120
    assert not list((run_dir / "checkpoints").glob(".*"))


@pytest.mark.parametrize("trainer", [selfplay, alphazero], ids=["ppo", "alphazero"])
def test_resume_of_a_run_killed_before_its_first_checkpoint_starts_it(tmp_path, capsys, trainer):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    if trainer is selfplay:
        config = json.loads(tiny_config(tmp_path, total_steps=256, eval_games=2).read_text())
    else:
        config = {**AZ_TINY, "max_minutes": 0.01, "eval_games": 2}
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    (run_dir / "checkpoints").mkdir()
    assert trainer.main(["--no-progress", "--device", "cpu", "--resume", str(run_dir)]) == 0
    assert "no checkpoint yet, so the run starts from its config.yaml" in capsys.readouterr().out
    assert (run_dir / "summary.json").is_file()


# ----------------------------------------------------------------------------- 3. the replay buffer
def test_the_alphazero_replay_buffer_is_saved_with_latest_and_restored(tmp_path, capsys):
    run_dir = az_run_with_checkpoints(tmp_path)
    game = crossenvs.make_game("crisscross", size=4)
    replay = Replay(32, game.observation_shape, game.num_actions)
    rng = np.random.default_rng(0)
    for _ in range(3):  # 45 positions into 32 places: the ring wraps
        count = 15
        observations = rng.integers(0, 2, (count, *game.observation_shape)).astype(np.float32)
        policies = rng.dirichlet(np.ones(game.num_actions), count).astype(np.float32)
        replay.add(observations, policies, rng.choice([-1.0, 0.0, 1.0], count).astype(np.float32))
    latest = run_dir / "checkpoints" / "latest.pt"
    document = read_document(latest)
    net, _ = ck.load_alphazero(latest, AlphaZeroNet)
    optimizer = torch.optim.AdamW(net.parameters())
    ck.save_alphazero(latest, net, game, latest_extra(optimizer, document["counters"], replay))

    copy = Replay(32, game.observation_shape, game.num_actions)
    copy.restore(read_document(latest)["replay"], latest)
    assert copy.size == 32
    for name in ("observations", "policies", "results"):
        assert np.array_equal(np.sort(getattr(copy, name), axis=0), np.sort(getattr(replay, name), axis=0))
    assert np.array_equal(copy.state()["results"], replay.state()["results"])  # same order, oldest first

    (run_dir / "config.yaml").write_text(yaml.safe_dump({**AZ_TINY, "max_minutes": 0.01, "eval_games": 2}))
    assert alphazero.main(["--no-progress", "--device", "cpu", "--resume", str(run_dir)]) == 0
    assert "replay buffer restored: 32 positions" in capsys.readouterr().out
    assert len(read_document(latest)["replay"]["results"]) >= 32


def test_the_default_replay_buffer_size_is_bounded():
    config = az_config.load_config(ROOT / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml")
    game = crossenvs.make_game(config.game, **config.options)
    megabytes = config.replay_size * az_config.replay_row_bytes(game) / 2**20
    assert megabytes < 64, megabytes  # docs/training.md states the figure


# ----------------------------------------------------------------------------- 4. the final evaluation again
def test_evaluate_only_reruns_the_final_match_without_training(tmp_path, capsys):
    az_run = az_run_with_checkpoints(tmp_path / "az")
    before = sorted(p.name for p in (az_run / "checkpoints").iterdir())
    (az_run / "config.yaml").write_text(yaml.safe_dump({**AZ_TINY, "eval_games": 2}))
    assert alphazero.main(["--no-progress", "--device", "cpu", "--resume", str(az_run), "--evaluate-only"]) == 0
    assert "evaluating" in capsys.readouterr().out
    assert json.loads((az_run / "summary.json").read_text())["games"] == 2
    assert sorted(p.name for p in (az_run / "checkpoints").iterdir()) == before

    ppo_run = ppo_run_with_checkpoints(tmp_path / "ppo", [256, 512])
    assert selfplay.main(["--no-progress", "--device", "cpu", "--resume", str(ppo_run), "--evaluate-only"]) == 0
    summary = json.loads((ppo_run / "summary.json").read_text())
    assert summary["steps"] == 512 and summary["checkpoint"].endswith("step_512.zip")
    assert len(list((ppo_run / "checkpoints").glob("step_*.zip"))) == 2
    err = trainer_error(selfplay.main, ["--config", str(tiny_config(tmp_path)), "--evaluate-only"], capsys)
    assert "--evaluate-only needs --resume" in err


# ----------------------------------------------------------------------------- 5. configs too big for memory
@pytest.mark.parametrize(
    "trainer, changes, key",
    [
        (alphazero, {"num_envs": 1_000_000_000}, "num_envs"),
        (alphazero, {"replay_size": 10_000_000_000}, "replay_size"),
        (alphazero, {"channels": 200_000}, "channels"),
        (selfplay, {"net_width": 5_000_000}, "net_width"),
        (selfplay, {"num_envs": 100_000_000, "n_steps": 1000}, "num_envs"),
    ],
)
def test_a_config_that_cannot_fit_in_memory_is_refused_before_any_folder(tmp_path, capsys, trainer, changes, key):
    if trainer is selfplay:
        config_path = tiny_config(tmp_path, **changes)
    else:
        config_path = tmp_path / "az.yaml"
        config_path.write_text(yaml.safe_dump({**AZ_TINY, **changes}))
    run_dir = tmp_path / "run"
    err = trainer_error(trainer.main, ["--config", str(config_path), "--run-dir", str(run_dir)], capsys)
    assert "needs about" in err and "GiB of memory" in err and key in err.split("; lower ")[1]
    assert not run_dir.exists()


def test_local_ray_actors_count_in_the_memory_a_config_needs(monkeypatch):
    """With --actors and no --address, the actors' processes live on this machine too: a config that fits for
    one process but not with its actors is refused, naming --actors; a remote cluster's actors are not counted."""
    config = az_config.Config(**AZ_TINY)
    game = crossenvs.make_game(config.game, **config.options)
    learner = sum(az_config.memory_needed(config, game).values())
    per_actor = az_config.actor_memory_needed(config, game)
    assert az_config.ACTOR_PROCESS_BYTES < per_actor < az_config.ACTOR_PROCESS_BYTES + 64 * 2**20
    monkeypatch.setattr(checks, "available_memory", lambda: learner + az_config.LOCAL_RAY_BYTES + 3 * per_actor)
    config.check("tiny.yaml")  # one process fits
    config.check("tiny.yaml", local_actors=3)  # and with 3 actors, just
    with pytest.raises(crossenvs.CrossenvsError, match=r"4 local Ray actor\(s\).*or --actors$"):
        config.check("tiny.yaml", local_actors=4)
