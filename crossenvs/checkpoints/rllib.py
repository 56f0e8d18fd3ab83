"""RLlib checkpoints (``crossenvs train rllib``): a folder, ``iter_<n>/`` holding an Algorithm
checkpoint and ``crossenvs.json`` (the game it plays). Ray is imported only when a module is loaded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from crossenvs.support.errors import CheckpointError

from ..core.game import Game
from ..players import import_extra
from .files import CHECKPOINTS, RLLIB_METADATA, RLLIB_MODULE_FILE, check_trained_on, file_kind, short_error, spec_of


def save_rllib(algo: Any, folder: str | Path, game: Game, module: str, extra: dict[str, Any] | None = None) -> Path:
    """``algo.save_to_path`` into ``folder``, atomically: written beside it, then renamed, with a
    ``crossenvs.json`` naming the game and the module that plays, so a reader never finds half a checkpoint."""
    folder = Path(folder)
    temporary = folder.with_name(f".{folder.name}.tmp")
    algo.save_to_path(str(temporary.resolve()))  # pyarrow, underneath, wants absolute paths
    document = {"game": game.name, "options": dict(game.options), "module": module, **(extra or {})}
    (temporary / RLLIB_METADATA).write_text(json.dumps(document, indent=2))
    os.replace(temporary, folder)
    return folder


def rllib_module_folder(path: str | Path, module: str = "main") -> tuple[Path, dict[str, Any] | None]:
    """The RLModule folder a path means, and the checkpoint's ``crossenvs.json`` when there is one.

    ``path`` may be an Algorithm checkpoint (``save_to_path``), a run folder of
    ``crossenvs train rllib`` (its newest checkpoint) or an RLModule folder itself.
    """
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"rllib checkpoint {path} does not exist")
    if (path / CHECKPOINTS).is_dir():
        found = sorted(p for p in (path / CHECKPOINTS).iterdir() if p.is_dir() and not p.name.startswith("."))
        if not found:
            raise CheckpointError(f"rllib run {path} has no checkpoints yet ({CHECKPOINTS}/ is empty)")
        path = found[-1]
    # an Algorithm checkpoint and a MultiRLModule folder hold a class file too: look inside first
    candidates = [path / "learner_group" / "learner" / "rl_module" / module, path / module, path]
    folder = next((c for c in candidates if (c / RLLIB_MODULE_FILE).is_file()), None)
    if folder is None:
        file_hint = f"; {path} is a file: play it as {spec_of(file_kind(path), path)}" if path.is_file() else ""
        raise CheckpointError(
            f"{path} is no RLlib checkpoint: expected an Algorithm checkpoint (with learner_group/learner/"
            f"rl_module/{module}/), a run folder of crossenvs train rllib, or an RLModule folder{file_hint}"
        )
    metadata = next((p / RLLIB_METADATA for p in (folder, *folder.parents) if (p / RLLIB_METADATA).is_file()), None)
    return folder, (read_rllib_metadata(metadata) if metadata else None)


def read_rllib_metadata(path: str | Path) -> dict[str, Any]:
    """An RLlib checkpoint's ``crossenvs.json``: a dictionary naming the ``game`` (text) and its ``options``."""
    path = Path(path)
    try:
        metadata = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"rllib checkpoint metadata {path} is corrupt: {short_error(exc)}") from None
    if not (isinstance(metadata, dict) and isinstance(metadata.get("game"), str)
            and isinstance(metadata.get("options"), dict)):  # fmt: skip
        raise CheckpointError(
            f"rllib checkpoint metadata {path} is corrupt: expected an object with 'game' (a name) and 'options' "
            f"(an object), as crossenvs train rllib writes, not {json.dumps(metadata)[:200]}"
        )
    return metadata


def load_rllib_module(path: str | Path, game: Game | None = None, module: str = "main") -> tuple[Any, dict | None]:
    """The RLModule of a checkpoint (on CPU, without starting Ray) and its metadata; checked against ``game``'s name."""
    folder, metadata = rllib_module_folder(path, module)
    if game is not None and metadata is not None:
        check_trained_on(path, (metadata["game"], metadata["options"]), game)
    RLModule = import_extra("ray.rllib.core.rl_module.rl_module", "RLlib checkpoints", "rllib").RLModule
    try:
        loaded = RLModule.from_checkpoint(folder.resolve())  # pyarrow, underneath, wants absolute paths
    except Exception as exc:  # pickle, torch and pyarrow errors all mean "unreadable"
        raise CheckpointError(f"rllib checkpoint {folder} is unreadable: {type(exc).__name__}: {exc}") from None
    return loaded, metadata
