"""crossenvs export: AlphaZero and MaskablePPO checkpoints as ONNX, equal to torch through onnxruntime, and playable
by a loop that knows nothing of crossenvs but the env."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import torch

pytest.importorskip("onnxruntime", reason='needs the export extra: pip install -e ".[export]"')

from crossenvs import make_game
from crossenvs.az.network import AlphaZeroNet
from crossenvs.checkpoints import load_alphazero, save_alphazero
from crossenvs.cli import main as cli
from crossenvs.integrations import onnx as export
from crossenvs.support.errors import CheckpointError, OutputPathError

GAME = make_game("crisscross", size=5)


@pytest.fixture(scope="module")
def az_checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    net = AlphaZeroNet(GAME.observation_shape, GAME.num_actions, channels=8, blocks=1)
    for parameter in net.parameters():  # weights of some size, so the logits spread as a trained net's do
        parameter.data.normal_(0, 0.5)
    return save_alphazero(tmp_path_factory.mktemp("az") / "net.pt", net, GAME)


@pytest.fixture(scope="module")
def az_export(az_checkpoint, tmp_path_factory):
    return export.export_onnx(az_checkpoint, tmp_path_factory.mktemp("onnx") / "net.onnx", positions=200)


def test_the_alphazero_export_equals_torch_on_a_thousand_fresh_positions(az_checkpoint, az_export):
    net, _ = load_alphazero(az_checkpoint, AlphaZeroNet)
    observations, masks = export.check_positions(GAME, 1000, seed=7)  # not the positions the export checked on
    logits, values = export.run_onnx(az_export.path, observations, masks)
    with torch.no_grad():
        torch_logits, torch_values = (part.numpy() for part in net(torch.from_numpy(observations)))
    legal = masks == 1
    assert np.abs(logits[legal] - torch_logits[legal]).max() <= 1e-4
    assert np.abs(values - torch_values).max() <= 1e-4
    assert (logits[~legal] == export.ILLEGAL_LOGIT).all()  # the mask is applied inside the graph
    assert az_export.positions_checked == 200 and az_export.largest_logit_difference <= export.TOLERANCE


def test_an_onnxruntime_loop_plays_a_whole_game_with_the_export(az_export):
    """The loop a deployment runs: the env's observation and mask in, the argmax out, no crossenvs player."""
    import onnxruntime

    from crossenvs import crisscross_v0

    session = onnxruntime.InferenceSession(str(az_export.path), providers=["CPUExecutionProvider"])
    env = crisscross_v0.env(size=5)
    env.reset(seed=0)
    moves = 0
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        logits, _ = session.run(
            ["logits", "value"],
            {"observation": observation["observation"][None], "action_mask": observation["action_mask"][None]},
        )
        action = int(logits[0].argmax())
        assert observation["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert moves >= 5 and not env.agents  # a whole game, to its end (Crisscross 5x5 takes 5 moves at the least)


def test_a_maskable_ppo_checkpoint_exports_its_policy_and_critic(tmp_path):
    from crossenvs.ppo.config import load_config
    from crossenvs.ppo.run import Run, new_model

    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps({"game": "crisscross", "options": {"size": 5}, "policy": "mlp", "net_width": 32,
                                  "num_envs": 4, "n_steps": 8, "batch_size": 16}))  # fmt: skip
    run = Run(load_config(config), tmp_path / "run", "cpu")
    model = new_model(run.config, run.make_env(), "cpu")
    checkpoint = run.save_checkpoint(model)
    report = export.export_onnx(checkpoint, tmp_path / "ppo.onnx", positions=1000)
    assert report.kind == "sb3" and report.positions_checked == 1000
    assert report.largest_logit_difference <= 1e-4 and report.largest_value_difference <= 1e-4
    observations, masks = export.check_positions(GAME, 50, seed=3)
    logits, _ = export.run_onnx(report.path, observations, masks)
    chosen = logits.argmax(axis=1)
    deterministic = model.policy.predict(observations, action_masks=masks.astype(bool), deterministic=True)[0]
    assert (chosen == deterministic).all()  # the same moves SB3 itself would play


def test_an_export_that_drifts_from_torch_is_refused_and_leaves_no_file(az_checkpoint, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "TOLERANCE", -1.0)  # no difference, not even none, passes
    with pytest.raises(CheckpointError, match="differs from torch"):
        export.export_onnx(az_checkpoint, tmp_path / "drift.onnx", positions=20)
    assert not (tmp_path / "drift.onnx").exists()


def test_bad_paths_are_one_error_before_any_export(tmp_path, az_checkpoint):
    with pytest.raises(OutputPathError, match=r"ending in \.onnx"):
        export.export_onnx(az_checkpoint, tmp_path / "missing_folder" / "x.onnx")
    with pytest.raises(CheckpointError, match="does not exist"):
        export.export_onnx(tmp_path / "none.pt", tmp_path / "x.onnx")
    assert cli(["export", str(az_checkpoint), "--onnx", str(tmp_path / "x.txt")]) == 2


def test_the_export_command_says_what_it_wrote_and_how_close_it_is(az_checkpoint, tmp_path):
    out = io.StringIO()
    target = tmp_path / "cli.onnx"
    assert cli(["export", f"az:{az_checkpoint}", "--onnx", str(target), "--check-positions", "100"], out=out) == 0
    text = out.getvalue()
    assert text.startswith(f"{target}: alphazero policy of crisscross") and target.is_file()
    assert "checked on 100 positions of random games against torch: largest difference" in text
