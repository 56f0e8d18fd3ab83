"""MaskablePPO checkpoints (``crossenvs train ppo``): stable-baselines3's ``.zip`` with ``step_<n>.json`` beside it.

Read without unpickling: the policy is rebuilt from the JSON (game, architecture) and the weights
are read from the zip's ``policy.pth`` with ``weights_only=True``. Only ``load_sb3(...,
allow_pickle=True)`` (the ``pickle:<file>`` spec) runs stable-baselines3's unpickling reader, for a
file the user trusts (``docs/security.md``). Torch and stable-baselines3 are imported only when a
checkpoint is read.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

from crossenvs.support.errors import CheckpointError

from ..core.game import Game
from ..core.registry import make_game
from ..players import ModelPlayer, Player, import_extra
from .files import ALPHAZERO, check_trained_on, file_kind, short_error, torch_for

SB3_FORMAT = "crossenvs-maskableppo-1"
#: the policies crossenvs train ppo builds, and the widest net a checkpoint's metadata may declare
SB3_POLICIES = ("cnn", "mlp")
SB3_MAX_NET_WIDTH = 4096
#: the spec prefix (and Python argument ``allow_pickle=True``) that reads a .zip by unpickling it
PICKLE_PREFIX = "pickle"
#: the torch files inside stable-baselines3's .zip that hold only tensors (read with weights_only=True)
SB3_POLICY_ENTRY, SB3_OPTIMIZER_ENTRY = "policy.pth", "policy.optimizer.pth"
#: the .zip's entry of the model's settings: JSON, the objects in it pickled (base64) under ":serialized:"
SB3_DATA_ENTRY, SB3_PICKLED = "data", ":serialized:"
#: (module, name) where older .zip files name a class -> where it lives now. stable-baselines3 pickles
#: ``policy_kwargs`` with cloudpickle, which saves a class by reference (module and name), so a file names
#: the class where it was when the file was written; the unpickling reader finds it where it is now
MOVED_CLASSES = {
    (old, "BoardCNN"): ("crossenvs.checkpoints.board_cnn", "BoardCNN")
    for old in ("crossenvs.checkpoints", "crossenvs.az.board_cnn")  # the CNN's places before
}


def ppo_policy_kwargs(policy: str, net_width: int) -> dict[str, Any]:
    """MaskablePPO's ``policy_kwargs`` for crossenvs train ppo's ``policy`` (cnn or mlp) and ``net_width``."""
    if policy == "cnn":
        from .board_cnn import BoardCNN  # imports torch and stable-baselines3: only for a CNN policy

        return {"features_extractor_class": BoardCNN, "features_extractor_kwargs": {"features_dim": net_width}}
    return {"net_arch": [net_width, net_width]}


def sb3_architecture(policy: str, net_width: int) -> dict[str, Any]:
    """What step_<n>.json records so the policy can be rebuilt without unpickling anything."""
    return {"format": SB3_FORMAT, "policy": policy, "net_width": net_width}


def _architecture(path: Path, metadata: dict[str, Any]) -> tuple[str, int]:
    """(policy, net_width) from the metadata (``architecture``, or the ``config`` of older runs), checked."""
    found = metadata.get("architecture") or metadata.get("config") or {}
    policy, width = (found.get("policy"), found.get("net_width")) if isinstance(found, dict) else (None, None)
    if policy not in SB3_POLICIES or isinstance(width, bool) or not isinstance(width, int):
        raise CheckpointError(
            f"checkpoint metadata {path} declares no usable architecture (policy cnn or mlp and net_width), "
            f"got {found!r}: it was not written by crossenvs train ppo"
        )
    if not 1 <= width <= SB3_MAX_NET_WIDTH:
        raise CheckpointError(
            f"checkpoint metadata {path} declares net_width {width}; a network has 1 to {SB3_MAX_NET_WIDTH}: "
            "the file is corrupt or not a crossenvs one"
        )
    return policy, width


def _zip_tensors(path: Path, entry: str) -> Any:
    """A torch file inside stable-baselines3's .zip, read with ``weights_only=True`` (tensors, no code)."""
    torch = torch_for("MaskablePPO checkpoints")
    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read(entry)
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # zip, torch and weights-only refusals all mean "unreadable"
        raise CheckpointError(f"checkpoint {path} is corrupt or unreadable: {short_error(exc)}") from None


def sb3_metadata_path(path: str | Path) -> Path:
    """``step_<n>.json`` beside ``step_<n>.zip`` (any ``<name>.zip``: ``<name>.json``)."""
    return Path(path).with_suffix(".json")


def load_sb3(
    path: str | Path, game: Game | None = None, env: Any = None, device: str = "cpu", allow_pickle: bool = False
) -> Any:
    """A MaskablePPO checkpoint's policy, rebuilt from its metadata and weights: nothing is unpickled.

    The .zip needs its ``step_<n>.json`` beside it (crossenvs train ppo writes both): the JSON names
    the game and the architecture, and the weights are read from the .zip's ``policy.pth`` with
    ``weights_only=True``. The result has ``predict``, ``observation_space`` and ``action_space``.
    With ``allow_pickle=True`` (the ``pickle:`` spec) stable-baselines3's ``MaskablePPO.load`` reads
    the file instead, unpickling it: that runs any code the file holds, so only for files you trust;
    ``env`` is handed to that model. With ``game`` the checkpoint's game must be ``game``.
    """
    path = Path(path)
    if not path.is_file():
        hint = f"; {path} is a folder: an RLlib checkpoint plays as rllib:{path}" if path.is_dir() else ""
        raise CheckpointError(f"checkpoint {path} does not exist{hint}")
    if file_kind(path) == ALPHAZERO:
        raise CheckpointError(f"{path} is an AlphaZero checkpoint, not a MaskablePPO .zip: play it as az:{path}")
    if allow_pickle:
        return _load_pickled(path, game, env, device)
    meta_path = sb3_metadata_path(path)
    if not meta_path.is_file():
        raise CheckpointError(
            f"{path} has no {meta_path.name} beside it (as crossenvs train ppo writes), so it could only be read by "
            f"unpickling it, which runs any code the file holds; crossenvs does not do that unasked. If you trust "
            f"the file, play it as {PICKLE_PREFIX}:{path} (in Python: load_sb3(path, allow_pickle=True))"
        )
    metadata = read_sb3_metadata(meta_path)
    weights = _zip_tensors(path, SB3_POLICY_ENTRY)
    policy_name, width = _architecture(meta_path, metadata)
    game = _metadata_game(path, meta_path, metadata, game)
    policy = new_sb3_policy(game, policy_name, width)
    try:
        policy.load_state_dict(weights)
    except Exception as exc:  # names or shapes differ from the declared architecture
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable: its weights do not fit the {policy_name} policy of "
            f"net_width {width} for {game!r} that {meta_path.name} declares ({short_error(exc)})"
        ) from None
    return policy.to(device).eval()


def _metadata_game(path: Path, meta_path: Path, metadata: dict[str, Any], game: Game | None) -> Game:
    """The game the metadata names: checked against ``game`` when given, else made from it."""
    trained_on = (metadata.get("game"), metadata.get("options", {}))
    if not isinstance(trained_on[0], str) or not isinstance(trained_on[1], dict):
        raise CheckpointError(f"checkpoint metadata {meta_path} is corrupt: it names no game and options")
    if game is not None:
        check_trained_on(path, trained_on, game)
        return game
    try:
        return make_game(trained_on[0], **trained_on[1])
    except Exception as exc:  # an unknown game or option: the metadata is not usable here
        raise CheckpointError(f"checkpoint metadata {meta_path} names an unusable game: {exc}") from None


def new_sb3_policy(game: Game, policy: str, net_width: int) -> Any:
    """An untrained MaskablePPO actor-critic for ``game`` (the policy of crossenvs train ppo's models)."""
    spaces = import_extra("gymnasium.spaces", "MaskablePPO checkpoints", "train")
    policies = import_extra("sb3_contrib.common.maskable.policies", "MaskablePPO checkpoints", "train")
    import numpy as np

    observations = spaces.Box(0.0, 1.0, game.observation_shape, dtype=np.float32)
    return policies.MaskableActorCriticPolicy(
        observations, spaces.Discrete(game.num_actions), lambda _: 0.0, **ppo_policy_kwargs(policy, net_width)
    )


def read_sb3_optimizer(path: str | Path) -> Any:
    """The optimiser state inside a MaskablePPO .zip (``policy.optimizer.pth``), read with ``weights_only=True``."""
    return _zip_tensors(Path(path), SB3_OPTIMIZER_ENTRY)


def _load_pickled(path: Path, game: Game | None, env: Any, device: str) -> Any:
    """stable-baselines3's own reader, which unpickles: only for a file the user said they trust."""
    MaskablePPO = import_extra("sb3_contrib", "MaskablePPO checkpoints", "train").MaskablePPO
    try:
        model = MaskablePPO.load(path, env=env, device=device, custom_objects=_moved_class_settings(path))
    except Exception as exc:  # zip, pickle and torch errors all mean "unreadable"
        raise CheckpointError(f"checkpoint {path} is corrupt or unreadable: {type(exc).__name__}: {exc}") from None
    if game is not None:
        shape, actions = tuple(model.observation_space.shape), int(model.action_space.n)
        if shape != game.observation_shape or actions != game.num_actions:
            raise CheckpointError(
                f"checkpoint {path} was trained on observations {shape} with {actions} actions; {game!r} has "
                f"{game.observation_shape} and {game.num_actions}: another game or board size"
            )
    return model


class _MovedClassesUnpickler(pickle.Unpickler):
    """Unpickles as pickle does, but a class named at a place in :data:`MOVED_CLASSES` is found at its new one."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(*MOVED_CLASSES.get((module, name), (module, name)))


def _moved_class_settings(path: Path) -> dict[str, Any]:
    """The settings of a .zip's ``data`` that name a moved class (:data:`MOVED_CLASSES`), unpickled with the class
    found where it lives now: stable-baselines3's ``custom_objects``, which it takes instead of unpickling them."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read(SB3_DATA_ENTRY))
    except Exception:  # no zip, no data, no JSON: stable-baselines3's reader says what is wrong
        return {}
    settings = {}
    for key, item in data.items() if isinstance(data, dict) else ():
        if isinstance(item, dict) and isinstance(item.get(SB3_PICKLED), str):
            pickled = base64.b64decode(item[SB3_PICKLED])
            if any(module.encode() in pickled for module, _ in MOVED_CLASSES):
                settings[key] = _MovedClassesUnpickler(io.BytesIO(pickled)).load()
    return settings


def read_sb3_metadata(path: str | Path) -> dict[str, Any]:
    """``step_<n>.json``: a dictionary with the checkpoint's ``step``; a CheckpointError when missing or corrupt."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint metadata {path} is missing")
    try:
        metadata = json.loads(path.read_text())
        int(metadata["step"]), float(metadata.get("wall_seconds", 0.0))
    except (OSError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise CheckpointError(f"checkpoint metadata {path} is corrupt: {type(exc).__name__}: {exc}") from None
    return metadata


def sb3_player(argument: str, game: Game | None, seed: int | None) -> Player:
    """A bare checkpoint path as a player (the spec kind ``crossenvs.players.PATH_KIND``): read without pickle."""
    return ModelPlayer(load_sb3(argument, game), name=Path(argument).stem, seed=seed)


def pickled_sb3_player(argument: str, game: Game | None, seed: int | None) -> Player:
    """``pickle:<file>.zip``: a MaskablePPO checkpoint read by unpickling it (the user trusts the file)."""
    return ModelPlayer(load_sb3(argument, game, allow_pickle=True), name=Path(argument).stem, seed=seed)
