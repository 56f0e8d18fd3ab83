"""AlphaZero checkpoints (``crossenvs train alphazero``): a ``.pt`` file, a plain ``torch.save`` dictionary.

It holds the format, game, options, network sizes and weights, and for a run's own files counters
and the optimiser. It is read with ``weights_only=True``; its declared sizes are bounded and every
weight's shape is checked against a network of those sizes built on torch's ``meta`` device (which
allocates nothing) before the real network is built, so a small file declaring a huge network
fails at once instead of allocating gigabytes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from crossenvs.support.errors import CheckpointError

from ..core.game import Game
from .files import SB3, check_trained_on, file_kind, short_error, torch_for

AZ_FORMAT = "crossenvs-alphazero-1"
#: the largest sizes an AlphaZero checkpoint may declare: far above any trained network, far below
#: one that would not fit in memory (weights grow with channels squared times blocks)
AZ_LIMITS = {"board": 64, "planes": 256, "num_actions": 1 << 20, "channels": 512, "blocks": 40}


def save_alphazero(path: str | Path, net: Any, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Weights, sizes, game and options, written to a temporary file and renamed (never half-written)."""
    torch = torch_for("saving AlphaZero checkpoints")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "format": AZ_FORMAT,
        "game": game.name,
        "options": dict(game.options),
        "sizes": net.sizes,
        "state_dict": {name: tensor.detach().cpu() for name, tensor in net.state_dict().items()},
        **(extra or {}),
    }
    temporary = path.with_name(f".{path.name}.tmp")
    torch.save(document, temporary)
    os.replace(temporary, path)
    return path


def read_alphazero(path: str | Path, network: Any, game: Game | None = None) -> dict[str, Any]:
    """An AlphaZero checkpoint's document, checked whole (sizes, every weight's shape, ``game``); no network built.

    ``network`` is the network class (``crossenvs.az.network.AlphaZeroNet``, with ``from_sizes``): given,
    not imported, because this module sits below :mod:`crossenvs.az`, whose player reads checkpoints here.
    """
    torch = torch_for("AlphaZero checkpoints")
    path = Path(path)
    if not path.is_file():
        hint = f"; {path} is a folder: an RLlib checkpoint plays as rllib:{path}" if path.is_dir() else ""
        raise CheckpointError(f"AlphaZero checkpoint {path} does not exist{hint}")
    try:
        document = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # zip, pickle and torch errors all mean "unreadable"
        hint = f" (a MaskablePPO .zip plays as {path}, without az:)" if file_kind(path) == SB3 else ""
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable, not a usable AlphaZero checkpoint ({short_error(exc)}){hint}"
        ) from None
    _check_document(path, document, network)
    if game is not None:
        check_trained_on(path, (document["game"], dict(document["options"])), game)
        declared = (tuple(document["sizes"]["observation_shape"]), document["sizes"]["num_actions"])
        if declared != (game.observation_shape, game.num_actions):
            raise CheckpointError(
                f"{path} takes observations {declared[0]} with {declared[1]} actions; {game!r} has "
                f"{game.observation_shape} and {game.num_actions}: another game version or board size"
            )
    return document


def load_alphazero(
    path: str | Path, network: Any, game: Game | None = None, device: str = "cpu"
) -> tuple[Any, dict[str, Any]]:
    """The ``network`` (class) of an AlphaZero checkpoint, in eval mode on ``device``, and its document."""
    document = read_alphazero(path, network, game)
    net = network.from_sizes(document["sizes"])
    net.load_state_dict(document["state_dict"])  # shapes and names were checked: this cannot fail
    return net.to(device).eval(), document


def _check_document(path: Path, document: Any, network: Any) -> None:
    """The document holds what a checkpoint must, its sizes are sane and its weights have their shapes."""
    usable = f"{path} is not a usable AlphaZero checkpoint"
    keys = ("game", "options", "sizes", "state_dict")
    if not isinstance(document, dict) or any(key not in document for key in keys):
        found = sorted(document) if isinstance(document, dict) else type(document).__name__
        raise CheckpointError(
            f"{usable}: it holds {found}, not {', '.join(keys)} (as crossenvs train alphazero writes)"
        )
    if not isinstance(document["game"], str) or not isinstance(document["options"], dict):
        raise CheckpointError(
            f"{usable}: its game {document['game']!r} or options {document['options']!r} are malformed"
        )
    expected = _shapes(path, document["sizes"], network)
    weights = document["state_dict"]
    if not isinstance(weights, dict) or set(weights) != set(expected):
        names = sorted(set(weights) ^ set(expected)) if isinstance(weights, dict) else type(weights).__name__
        raise CheckpointError(f"{usable}: its weights do not match the declared sizes (differing names: {names})")
    for name, shape in expected.items():
        got = tuple(getattr(weights[name], "shape", ()))
        if got != shape:
            raise CheckpointError(
                f"{usable}: weight {name} has shape {got}, but a network of the declared sizes "
                f"{document['sizes']} has {shape}: the file is corrupt or was edited"
            )


def _shapes(path: Path, sizes: Any, network: Any) -> dict[str, tuple[int, ...]]:
    """The weight shapes of a network of ``sizes``, from one built on the meta device, once the sizes are sane."""
    sane = _sane_sizes(sizes)
    if sane is not None:
        raise CheckpointError(f"{path} is not a usable AlphaZero checkpoint: its sizes {sizes!r} {sane}")
    torch = torch_for("AlphaZero checkpoints")
    with torch.device("meta"):
        net = network.from_sizes(sizes)
    return {name: tuple(tensor.shape) for name, tensor in net.state_dict().items()}


def _sane_sizes(sizes: Any) -> str | None:
    """Why ``sizes`` cannot be a network's (None when they can), by :data:`AZ_LIMITS`."""
    keys = ("observation_shape", "num_actions", "channels", "blocks")
    if not isinstance(sizes, dict) or any(key not in sizes for key in keys):
        return f"lack one of {', '.join(keys)}"
    shape = sizes["observation_shape"]
    if not isinstance(shape, (list, tuple)) or len(shape) != 3:
        return "give an observation shape that is not (height, width, planes)"
    limits = {
        "height": (shape[0], AZ_LIMITS["board"]),
        "width": (shape[1], AZ_LIMITS["board"]),
        "planes": (shape[2], AZ_LIMITS["planes"]),
        **{key: (sizes[key], AZ_LIMITS[key]) for key in ("num_actions", "channels", "blocks")},
    }
    for key, (value, most) in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            return f"declare {key} {value!r}; a network has 1 to {most}: the file is corrupt or not a crossenvs one"
    return None
