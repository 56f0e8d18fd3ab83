"""A training run's folder: which checkpoints it holds, in training order, each with its place on a plot's x axis.

The CLI's ``rating-plot`` turns them into players; the trainers write them (``crossenvs train``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crossenvs.support.errors import CheckpointError

from ..core.game import Game
from ..core.registry import make_game
from .files import ALPHAZERO, AZ_SNAPSHOT_GLOB, CHECKPOINTS, SB3, SB3_META_GLOB, az_snapshot_seconds
from .sb3 import read_sb3_metadata


@dataclass(frozen=True)
class RunCheckpoints:
    """The checkpoints of one run, oldest first.

    ``points`` are (x, checkpoint file); ``game`` is the game a MaskablePPO run's metadata names,
    None for an AlphaZero run, whose snapshots name their game inside (read when one is loaded).
    """

    kind: str
    x_label: str
    points: list[tuple[float, Path]]
    game: Game | None = None


def run_checkpoints(run_dir: str | Path) -> RunCheckpoints:
    """The checkpoints of a training run's folder, from its ``checkpoints/``.

    A PPO run (``crossenvs train ppo``) has ``step_<n>.zip`` with ``step_<n>.json``: x is the
    training step. An AlphaZero run (``crossenvs train alphazero``) has ``seconds_<n>.pt`` snapshots:
    x is wall-clock minutes.
    """
    folder = Path(run_dir, CHECKPOINTS)
    snapshots = sorted(folder.glob(AZ_SNAPSHOT_GLOB))
    if snapshots:
        points = [(az_snapshot_seconds(path) / 60.0, path) for path in snapshots]
        return RunCheckpoints(ALPHAZERO, "wall-clock minutes of training", points)
    steps = []
    for meta_path in folder.glob(SB3_META_GLOB):
        meta = read_sb3_metadata(meta_path)
        steps.append((int(meta["step"]), meta, meta_path.with_suffix(".zip")))
    if not steps:
        raise CheckpointError(
            f"no checkpoints in {folder} (step_<n>.zip from crossenvs train ppo or seconds_<n>.pt from "
            "crossenvs train alphazero): the run has not written one yet"
        )
    steps.sort(key=lambda item: item[0])
    try:
        game = make_game(steps[0][1]["game"], **steps[0][1]["options"])
    except (KeyError, TypeError) as exc:
        raise CheckpointError(f"checkpoint metadata of step {steps[0][0]} in {folder} is corrupt: {exc}") from None
    return RunCheckpoints(SB3, "training step", [(float(step), path) for step, _, path in steps], game)
