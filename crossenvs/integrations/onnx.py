"""Agents that leave Python: an AlphaZero or MaskablePPO checkpoint as an ONNX file, checked against torch.

The exported graph takes what every env gives a policy, ``observation`` (float32, ``(batch, H, W, C)``,
the egocentric planes) and ``action_mask`` (int8, ``(batch, num_actions)``), and returns ``logits``
(illegal actions at :data:`ILLEGAL_LOGIT`, so an argmax or a softmax needs no mask of its own) and
``value`` (the mover's expected result, -1 to 1 for AlphaZero; the critic's estimate for MaskablePPO).
Any ONNX runtime plays it: onnxruntime in C++, C#, Java or a browser (onnxruntime-web).

Every export is checked before it is called done: :func:`export_onnx` runs the file in onnxruntime on
positions from random games of the checkpoint's game and compares it with the torch network; a largest
difference above :data:`TOLERANCE` removes the file and raises. The ``export`` extra (onnx, onnxscript,
onnxruntime) is what it needs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from crossenvs.checkpoints.files import ALPHAZERO, SB3, file_kind, torch_for
from crossenvs.core.game import Game
from crossenvs.core.registry import make_game
from crossenvs.support.errors import CheckpointError, OutputPathError
from crossenvs.support.extras import check_installed

#: the logit an illegal action gets: far below any real one, finite (a softmax of it is 0, not NaN)
ILLEGAL_LOGIT = -1e9
#: the largest difference between the ONNX file and torch accepted on the check positions
TOLERANCE = 1e-4
INPUTS, OUTPUTS = ["observation", "action_mask"], ["logits", "value"]


@dataclasses.dataclass(frozen=True)
class Export:
    """What an export wrote and how closely it agrees with torch."""

    path: Path
    game: str
    options: dict[str, Any]
    kind: str
    positions_checked: int
    largest_logit_difference: float
    largest_value_difference: float


def export_onnx(checkpoint: str | Path, out: str | Path, *, positions: int = 1000, seed: int = 0) -> Export:
    """``checkpoint`` (an AlphaZero ``.pt`` or a MaskablePPO ``.zip`` with its ``step_<n>.json``) as ONNX at ``out``,
    checked against torch on ``positions`` positions of random games (refused, and no file left, past
    :data:`TOLERANCE`)."""
    check_installed("crossenvs export", {"onnx": "export", "onnxscript": "export", "onnxruntime": "export"})
    out = Path(out)
    if out.suffix != ".onnx" or not out.parent.is_dir():
        raise OutputPathError(f"--onnx {out}: give a file name ending in .onnx in a folder that exists")
    torch = torch_for("exporting a checkpoint")
    module, game, kind = policy_module(checkpoint)
    observations, masks = check_positions(game, positions, seed)
    with torch.no_grad():
        example = (torch.from_numpy(observations[:2]), torch.from_numpy(masks[:2]))
        batch = torch.export.Dim("batch", min=1)
        with exporter_quiet():
            torch.onnx.export(
                module, example, str(out), input_names=INPUTS, output_names=OUTPUTS, dynamo=True,
                dynamic_shapes=({0: batch}, {0: batch}), verbose=False,
            )  # fmt: skip
        logits, values = (part.numpy() for part in module(torch.from_numpy(observations), torch.from_numpy(masks)))
    onnx_logits, onnx_values = run_onnx(out, observations, masks)
    report = Export(
        out, game.name, dict(game.options), kind, len(observations),
        float(np.abs(onnx_logits - logits).max()), float(np.abs(onnx_values - values).max()),
    )  # fmt: skip
    if max(report.largest_logit_difference, report.largest_value_difference) > TOLERANCE:
        out.unlink(missing_ok=True)
        raise CheckpointError(
            f"the ONNX export of {checkpoint} differs from torch by {report.largest_logit_difference:.2g} (logits) "
            f"and {report.largest_value_difference:.2g} (value) on {len(observations)} positions, above {TOLERANCE}; "
            "no file was kept (a newer torch or onnxscript may export this network correctly)"
        )
    return report


@contextlib.contextmanager
def exporter_quiet() -> Iterator[None]:
    """torch's exporter without its progress lines, warnings and log notes (about packages it does not need):
    the command's own lines say what happened; an error still comes through."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def run_onnx(path: str | Path, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exported policy's logits and values on a batch, through onnxruntime on the CPU."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, values = session.run(OUTPUTS, {"observation": observations, "action_mask": masks})
    return logits, values


def policy_module(checkpoint: str | Path) -> tuple[Any, Game, str]:
    """The checkpoint's network as one torch module of (observation, action_mask) -> (logits, value)."""
    path = Path(checkpoint)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist; give an AlphaZero .pt or a MaskablePPO .zip")
    kind = file_kind(path)
    if kind == ALPHAZERO:
        from crossenvs.az.network import AlphaZeroNet
        from crossenvs.checkpoints.alphazero import load_alphazero

        net, document = load_alphazero(path, AlphaZeroNet)
        return _masked(net, net), make_game(document["game"], **document["options"]), kind
    if kind == SB3:
        from crossenvs.checkpoints.sb3 import load_sb3, read_sb3_metadata, sb3_metadata_path

        metadata = read_sb3_metadata(sb3_metadata_path(path))
        game = make_game(metadata["game"], **metadata.get("options", {}))
        policy = load_sb3(path, game)
        return _masked(policy, lambda observation: _sb3_outputs(policy, observation)), game, kind
    raise CheckpointError(f"{path}: only AlphaZero .pt and MaskablePPO .zip checkpoints export to ONNX")


def _sb3_outputs(policy: Any, observation: Any) -> tuple[Any, Any]:
    """MaskablePPO's action logits and critic value, as its ``forward`` computes them before sampling."""
    features = policy.extract_features(observation)
    if isinstance(features, tuple):  # separate actor and critic extractors
        latent_pi, latent_vf = (
            policy.mlp_extractor.forward_actor(features[0]),
            policy.mlp_extractor.forward_critic(features[1]),
        )
    else:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def _masked(owner: Any, outputs: Any) -> Any:
    """A module around ``outputs(observation) -> (logits, value)`` that puts illegal actions at ILLEGAL_LOGIT."""
    torch = torch_for("exporting a checkpoint")

    class MaskedPolicy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.owner = owner  # registered, so export sees its weights as the module's

        def forward(self, observation: Any, action_mask: Any) -> tuple[Any, Any]:
            logits, value = outputs(observation)
            return torch.where(action_mask > 0, logits, torch.full_like(logits, ILLEGAL_LOGIT)), value

    return MaskedPolicy().eval()


def check_positions(game: Game, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions of uniformly random games (each seat to move in turn), their observations and masks."""
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    state = game.initial_state()
    while len(observations) < count:
        if game.is_terminal(state):
            state = game.initial_state()
            continue
        observations.append(game.observe(state, game.current_player(state)))
        masks.append(game.legal_mask(state))
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    return np.stack(observations).astype(np.float32), np.stack(masks).astype(np.int8)
