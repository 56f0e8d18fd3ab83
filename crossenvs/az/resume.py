"""Continuing an AlphaZero run: which checkpoint, read and checked before any work, and what it restores.

``latest.pt`` keeps the network, the optimiser, the counters and the replay buffer; ``final.pt``
and the ``seconds_<n>.pt`` snapshots keep the network and counters. Should the chosen checkpoint
be unreadable, the error names the newest good snapshot before it and the command that resumes
from there; continuing from an older checkpoint moves the newer ones aside.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train alphazero"):
    import torch

from crossenvs import checkpoints as ck
from crossenvs.az.network import AlphaZeroNet
from crossenvs.az.replay import Replay
from crossenvs.support.errors import CheckpointError
from crossenvs.trainer.folders import check_from_checkpoint, remove_incomplete, resume_offer

#: the checkpoints a run can continue from: latest.pt (with the optimiser), final.pt, the snapshots
CHECKPOINT_FILE = ck.AZ_FILES


def named_checkpoint(text: str, folder: Path) -> Path:
    """``--from-checkpoint``: one of the checkpoints in the run's own ``folder``."""
    return check_from_checkpoint(text, folder, CHECKPOINT_FILE, "latest.pt, final.pt or seconds_<n>.pt")


def latest_extra(optimizer: torch.optim.Optimizer, counters: dict, replay: Replay) -> dict[str, Any]:
    """What latest.pt keeps besides the network: the optimiser, the counters and the replay buffer."""
    return {"optimizer": optimizer.state_dict(), "counters": counters, "replay": replay.state()}


def read_document(path: Path) -> dict[str, Any]:
    """A checkpoint's contents (:func:`crossenvs.checkpoints.read_alphazero` checks the network's), with counters."""
    document = ck.read_alphazero(path, AlphaZeroNet)
    try:
        int(document["counters"]["moves"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable: its counters are missing ({exc!r})"
        ) from None
    return document


def usable(path: Path) -> bool:
    """Whether ``path`` reads as a checkpoint a run can continue from."""
    try:
        read_document(path)
    except CheckpointError:
        return False
    return True


def checkpoint_to_resume(run_dir: Path, args: argparse.Namespace) -> tuple[Path | None, dict[str, Any] | None]:
    """``latest.pt``, or the checkpoint ``--from-checkpoint`` names, read before any work; should it be unreadable,
    the error names the newest good snapshot before it and the command that resumes from there. ``(None, None)``
    for a run killed before its first checkpoint: it starts again from its config.yaml."""
    folder = run_dir / ck.CHECKPOINTS
    if folder.is_dir():
        remove_incomplete(folder)  # the .<name>.tmp files a kill during a write left
    if args.from_checkpoint:
        chosen = named_checkpoint(args.from_checkpoint, folder)
    else:
        chosen = folder / ck.AZ_LATEST
    snapshots = sorted(folder.glob(ck.AZ_SNAPSHOT_GLOB), key=ck.az_snapshot_seconds, reverse=True)
    if not chosen.exists() and not snapshots and not (folder / ck.AZ_FINAL).exists():
        return None, None
    try:
        return chosen, read_document(chosen)
    except CheckpointError as exc:
        older = (path for path in snapshots if ck.az_snapshot_seconds(path) < ck.az_snapshot_seconds(chosen))
        previous = next((path for path in older if usable(path)), None)
        raise resume_offer(args.command_line, args.resume, str(exc), previous) from None


def restore(net: AlphaZeroNet, optimizer: torch.optim.Optimizer, counters: dict, document: dict, path: Path) -> None:
    """Network, counters and, where the checkpoint keeps it (latest.pt), the optimiser's state."""
    try:
        net.load_state_dict(document["state_dict"])
        if "optimizer" in document:
            optimizer.load_state_dict(document["optimizer"])
    except (RuntimeError, ValueError, KeyError) as exc:
        raise CheckpointError(
            f"checkpoint {path} does not fit this run's network (config.yaml changed?): {exc}"
        ) from None
    if "optimizer" not in document:
        print(f"note: {path.name} keeps no optimiser state, so AdamW starts afresh")
    counters.update(document["counters"])


def rates_from_config(optimizer: torch.optim.Optimizer, learning_rate: float, weight_decay: float) -> None:
    """config.yaml's learning rate and weight decay over those the restored optimiser state carried: a run's
    config.yaml is what it goes on with, so lowering its ``learning_rate`` before ``--resume`` (annealing a long
    run by hand) takes effect, while AdamW's moments are kept."""
    first = optimizer.param_groups[0]
    if (first["lr"], first["weight_decay"]) != (learning_rate, weight_decay):
        print(f"note: learning rate {first['lr']:g} -> {learning_rate:g}, weight decay {first['weight_decay']:g}"
              f" -> {weight_decay:g}, as config.yaml now says")  # fmt: skip
    for group in optimizer.param_groups:
        group["lr"], group["weight_decay"] = learning_rate, weight_decay


def superseded(chosen: Path, wall_seconds: float) -> list[Path]:
    """When a run continues from a checkpoint older than latest.pt: latest.pt, final.pt and the later snapshots,
    the line of history it leaves (moved aside, so --resume and rating-plot see one line)."""
    if chosen.name == ck.AZ_LATEST:
        return []
    folder = chosen.parent
    ends = [
        folder / name for name in (ck.AZ_LATEST, ck.AZ_FINAL) if (folder / name).exists() and folder / name != chosen
    ]
    later = [
        path
        for path in folder.glob(ck.AZ_SNAPSHOT_GLOB)
        if round(wall_seconds) < ck.az_snapshot_seconds(path) < math.inf
    ]
    return sorted(ends + later)
