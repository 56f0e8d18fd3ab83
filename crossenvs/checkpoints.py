"""Checkpoints: the files the trainers write, and one careful reader for each kind.

Three kinds, told apart by :func:`detect_kind`:

* **AlphaZero** (``training/alphazero.py``): a ``.pt`` file, a plain ``torch.save`` dictionary
  (format, game, options, network sizes, weights, and for a run's own files counters and the
  optimiser). Read with ``weights_only=True``; its declared sizes are bounded and every weight's
  shape is checked against a network of those sizes built on torch's ``meta`` device (which
  allocates nothing) before the real network is built, so a small file declaring a huge network
  fails at once instead of allocating gigabytes.
* **MaskablePPO** (``training/selfplay.py``): stable-baselines3's ``.zip`` with ``step_<n>.json``
  beside it. Read without unpickling: the policy is rebuilt from the JSON (game, architecture) and
  the weights are read from the zip's ``policy.pth`` with ``weights_only=True``. Only
  ``load_sb3(..., allow_pickle=True)`` (the ``pickle:<file>`` spec) runs stable-baselines3's
  unpickling reader, for a file the user trusts (``docs/security.md``).
* **RLlib** (``training/rllib_selfplay.py``): a folder, ``iter_<n>/`` holding an Algorithm
  checkpoint and ``crossenvs.json`` (the game it plays).

Every missing, corrupt, oversized or wrong-game checkpoint is a :class:`CheckpointError` saying what
was wrong and what would be right. The trainers, the CLI and the players name the trainers' files
through the constants here. Torch, stable-baselines3 and Ray are imported only when a checkpoint
of theirs is read; a missing one is an error naming the extra that installs it.
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from pathlib import Path
from typing import Any

from .core.errors import CheckpointError
from .core.game import Game
from .players import ModelPlayer, Player, import_extra

# ----------------------------------------------------------------------------- the trainers' files
#: the folder of a run that holds its checkpoints
CHECKPOINTS = "checkpoints"
#: AlphaZero: the newest state of a run (weights, optimiser, counters), rewritten as it trains
AZ_LATEST = "latest.pt"
#: AlphaZero: the network at the end of a run
AZ_FINAL = "final.pt"
#: AlphaZero: the network after n seconds of training (for rating against wall-clock time)
AZ_SNAPSHOT_GLOB = "seconds_*.pt"
#: AlphaZero: the files a run can continue from (group 1: a snapshot's seconds)
AZ_FILES = r"latest\.pt|final\.pt|seconds_(\d+)\.pt"
#: MaskablePPO: a checkpoint's files, step_<n>.zip (the model) and step_<n>.json (its metadata)
SB3_FILES = r"step_(\d+)\.(zip|json)"
SB3_META_GLOB = "step_*.json"
#: RLlib: the Algorithm checkpoints of a run, and the file in each naming its game
RLLIB_GLOB = "iter_*"
RLLIB_METADATA = "crossenvs.json"
#: RLlib: the class file of an RLModule folder (what marks a folder as one)
RLLIB_MODULE_FILE = "class_and_ctor_args.pkl"


def az_snapshot_name(seconds: float) -> str:
    """``seconds_000300.pt``: the snapshot after ``seconds`` of training."""
    return f"seconds_{round(seconds):06d}.pt"


def az_snapshot_seconds(path: str | Path) -> float:
    """n of ``seconds_<n>.pt``; infinity for latest.pt and final.pt, which come after every snapshot."""
    match = re.fullmatch(AZ_FILES, Path(path).name)
    return int(match.group(1)) if match and match.group(1) else math.inf


def sb3_step_name(step: int | str, suffix: str = ".zip") -> str:
    """``step_<n>.zip`` (the model) or, with ``suffix=".json"``, its metadata (``step="*"``: a glob)."""
    return f"step_{step}{suffix}"


def rllib_iteration_name(iteration: int) -> str:
    """``iter_000005``: the Algorithm checkpoint after ``iteration`` iterations."""
    return f"iter_{iteration:06d}"


# ----------------------------------------------------------------------------- kinds
ALPHAZERO, SB3, RLLIB = "alphazero", "sb3", "rllib"
_SPEC_OF = {ALPHAZERO: "az:{path}", SB3: "{path}", RLLIB: "rllib:{path}"}


def detect_kind(path: str | Path) -> str:
    """:data:`ALPHAZERO`, :data:`SB3` or :data:`RLLIB`: by the contents where they tell, else by the name.

    Both ``.pt`` and ``.zip`` files are zip archives: stable-baselines3's holds a ``data`` entry,
    torch's a ``<name>/data.pkl``. A folder is an RLlib checkpoint or refused.
    """
    path = Path(path)
    if path.is_dir():
        rllib_module_folder(path)  # refuses a folder that is not one, saying what would be
        return RLLIB
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        names = []
    if "data" in names:
        return SB3
    if any(name == "data.pkl" or name.endswith("/data.pkl") for name in names) or path.suffix == ".pt":
        return ALPHAZERO
    if path.suffix == ".zip":
        return SB3
    raise CheckpointError(
        f"{path} is no checkpoint crossenvs reads: an AlphaZero .pt (az:<file>), a MaskablePPO .zip "
        "or an RLlib checkpoint folder (rllib:<folder>)"
    )


def spec_for(path: str | Path) -> str:
    """The player spec that plays checkpoint ``path``, whatever its kind (``az:<file>``, ``rllib:<folder>``...)."""
    return _SPEC_OF[detect_kind(path)].format(path=path)


def check_trained_on(path: str | Path, trained_on: tuple[str, dict], game: Game) -> None:
    """The checkpoint's game and options (those that differ from the defaults) must be ``game``'s."""

    def chosen(options: dict, defaults: dict) -> dict:
        return {key: value for key, value in options.items() if defaults.get(key) != value}

    name, options = trained_on
    if name != game.name or chosen(options, game.OPTIONS) != chosen(dict(game.options), game.OPTIONS):
        raise CheckpointError(
            f"{path} was trained on {name} {options}, not {game.name} {dict(game.options)}: "
            f"play it in {name} with those options, or use a checkpoint of a {game.name} run"
        )


def resolve_device(device: str) -> str:
    """``auto`` is CUDA when present, else the CPU; any other name is kept."""
    if device != "auto":
        return device
    torch = _torch("choosing a device")
    return "cuda" if torch.cuda.is_available() else "cpu"


def _torch(what: str) -> Any:
    return import_extra("torch", what, "agents")


def _short(exc: Exception) -> str:
    """An exception in one line (torch appends a paragraph of advice to its errors)."""
    text = str(exc).split(". ")[0].splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"


# ----------------------------------------------------------------------------- AlphaZero
AZ_FORMAT = "crossenvs-alphazero-1"
#: the largest sizes an AlphaZero checkpoint may declare: far above any trained network, far below
#: one that would not fit in memory (weights grow with channels squared times blocks)
AZ_LIMITS = {"board": 64, "planes": 256, "num_actions": 1 << 20, "channels": 512, "blocks": 40}


def save_alphazero(path: str | Path, net: Any, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Weights, sizes, game and options, written to a temporary file and renamed (never half-written)."""
    torch = _torch("saving AlphaZero checkpoints")
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
    torch = _torch("AlphaZero checkpoints")
    path = Path(path)
    if not path.is_file():
        hint = f"; {path} is a folder: an RLlib checkpoint plays as rllib:{path}" if path.is_dir() else ""
        raise CheckpointError(f"AlphaZero checkpoint {path} does not exist{hint}")
    try:
        document = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # zip, pickle and torch errors all mean "unreadable"
        hint = f" (a MaskablePPO .zip plays as {path}, without az:)" if detect_kind(path) == SB3 else ""
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable, not a usable AlphaZero checkpoint ({_short(exc)}){hint}"
        ) from None
    _check_alphazero_document(path, document, network)
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


def _check_alphazero_document(path: Path, document: Any, network: Any) -> None:
    """The document holds what a checkpoint must, its sizes are sane and its weights have their shapes."""
    usable = f"{path} is not a usable AlphaZero checkpoint"
    keys = ("game", "options", "sizes", "state_dict")
    if not isinstance(document, dict) or any(key not in document for key in keys):
        found = sorted(document) if isinstance(document, dict) else type(document).__name__
        raise CheckpointError(f"{usable}: it holds {found}, not {', '.join(keys)} (as training/alphazero.py writes)")
    if not isinstance(document["game"], str) or not isinstance(document["options"], dict):
        raise CheckpointError(
            f"{usable}: its game {document['game']!r} or options {document['options']!r} are malformed"
        )
    expected = _alphazero_shapes(path, document["sizes"], network)
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


def _alphazero_shapes(path: Path, sizes: Any, network: Any) -> dict[str, tuple[int, ...]]:
    """The weight shapes of a network of ``sizes``, from one built on the meta device, once the sizes are sane."""
    sane = _sane_sizes(sizes)
    if sane is not None:
        raise CheckpointError(f"{path} is not a usable AlphaZero checkpoint: its sizes {sizes!r} {sane}")
    torch = _torch("AlphaZero checkpoints")
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


# ----------------------------------------------------------------------------- MaskablePPO
SB3_FORMAT = "crossenvs-maskableppo-1"
#: the policies training/selfplay.py builds, and the widest net a checkpoint's metadata may declare
SB3_POLICIES = ("cnn", "mlp")
SB3_MAX_NET_WIDTH = 4096
#: the spec prefix (and Python argument ``allow_pickle=True``) that reads a .zip by unpickling it
PICKLE_PREFIX = "pickle"
#: the torch files inside stable-baselines3's .zip that hold only tensors (read with weights_only=True)
SB3_POLICY_ENTRY, SB3_OPTIMIZER_ENTRY = "policy.pth", "policy.optimizer.pth"
_BOARD_CNN: Any = None


def _board_cnn() -> Any:
    """The CNN features extractor (a class made on first use: stable-baselines3 is imported only then)."""
    global _BOARD_CNN
    if _BOARD_CNN is None:
        torch_layers = import_extra("stable_baselines3.common.torch_layers", "MaskablePPO checkpoints", "train")
        nn = _torch("MaskablePPO checkpoints").nn

        class BoardCNN(torch_layers.BaseFeaturesExtractor):
            """Two 3x3 convolutions over the board planes, then a dense layer (boards are small)."""

            def __init__(self, observation_space: Any, features_dim: int = 128, channels: int = 64) -> None:
                height, width, planes = observation_space.shape
                super().__init__(observation_space, features_dim)
                self.net = nn.Sequential(
                    nn.Conv2d(planes, channels, 3, padding=1),
                    nn.ReLU(),
                    nn.Conv2d(channels, channels, 3, padding=1),
                    nn.ReLU(),
                    nn.Flatten(),
                    nn.Linear(channels * height * width, features_dim),
                    nn.ReLU(),
                )

            def forward(self, observations: Any) -> Any:
                return self.net(observations.permute(0, 3, 1, 2))

        BoardCNN.__module__, BoardCNN.__qualname__ = __name__, "BoardCNN"  # pickled by reference, found again below
        _BOARD_CNN = BoardCNN
    return _BOARD_CNN


def __getattr__(name: str) -> Any:
    """``crossenvs.checkpoints.BoardCNN``, made on first use (so a pickled model finds its class)."""
    if name == "BoardCNN":
        return _board_cnn()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def ppo_policy_kwargs(policy: str, net_width: int) -> dict[str, Any]:
    """MaskablePPO's ``policy_kwargs`` for training/selfplay.py's ``policy`` (cnn or mlp) and ``net_width``."""
    if policy == "cnn":
        return {"features_extractor_class": _board_cnn(), "features_extractor_kwargs": {"features_dim": net_width}}
    return {"net_arch": [net_width, net_width]}


def sb3_architecture(policy: str, net_width: int) -> dict[str, Any]:
    """What step_<n>.json records so the policy can be rebuilt without unpickling anything."""
    return {"format": SB3_FORMAT, "policy": policy, "net_width": net_width}


def _sb3_architecture(path: Path, metadata: dict[str, Any]) -> tuple[str, int]:
    """(policy, net_width) from the metadata (``architecture``, or the ``config`` of older runs), checked."""
    found = metadata.get("architecture") or metadata.get("config") or {}
    policy, width = (found.get("policy"), found.get("net_width")) if isinstance(found, dict) else (None, None)
    if policy not in SB3_POLICIES or isinstance(width, bool) or not isinstance(width, int):
        raise CheckpointError(
            f"checkpoint metadata {path} declares no usable architecture (policy cnn or mlp and net_width), "
            f"got {found!r}: it was not written by training/selfplay.py"
        )
    if not 1 <= width <= SB3_MAX_NET_WIDTH:
        raise CheckpointError(
            f"checkpoint metadata {path} declares net_width {width}; a network has 1 to {SB3_MAX_NET_WIDTH}: "
            "the file is corrupt or not a crossenvs one"
        )
    return policy, width


def _zip_tensors(path: Path, entry: str) -> Any:
    """A torch file inside stable-baselines3's .zip, read with ``weights_only=True`` (tensors, no code)."""
    import io

    torch = _torch("MaskablePPO checkpoints")
    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read(entry)
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # zip, torch and weights-only refusals all mean "unreadable"
        raise CheckpointError(f"checkpoint {path} is corrupt or unreadable: {_short(exc)}") from None


def sb3_metadata_path(path: str | Path) -> Path:
    """``step_<n>.json`` beside ``step_<n>.zip`` (any ``<name>.zip``: ``<name>.json``)."""
    return Path(path).with_suffix(".json")


def load_sb3(
    path: str | Path, game: Game | None = None, env: Any = None, device: str = "cpu", allow_pickle: bool = False
) -> Any:
    """A MaskablePPO checkpoint's policy, rebuilt from its metadata and weights: nothing is unpickled.

    The .zip needs its ``step_<n>.json`` beside it (training/selfplay.py writes both): the JSON names
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
    if detect_kind(path) == ALPHAZERO:
        raise CheckpointError(f"{path} is an AlphaZero checkpoint, not a MaskablePPO .zip: play it as az:{path}")
    if allow_pickle:
        return _load_sb3_pickled(path, game, env, device)
    meta_path = sb3_metadata_path(path)
    if not meta_path.is_file():
        raise CheckpointError(
            f"{path} has no {meta_path.name} beside it (as training/selfplay.py writes), so it could only be read by "
            f"unpickling it, which runs any code the file holds; crossenvs does not do that unasked. If you trust "
            f"the file, play it as {PICKLE_PREFIX}:{path} (in Python: load_sb3(path, allow_pickle=True))"
        )
    metadata = read_sb3_metadata(meta_path)
    weights = _zip_tensors(path, SB3_POLICY_ENTRY)
    policy_name, width = _sb3_architecture(meta_path, metadata)
    trained_on = (metadata.get("game"), metadata.get("options", {}))
    if not isinstance(trained_on[0], str) or not isinstance(trained_on[1], dict):
        raise CheckpointError(f"checkpoint metadata {meta_path} is corrupt: it names no game and options")
    if game is not None:
        check_trained_on(path, trained_on, game)
    else:
        from .core.registry import make_game

        try:
            game = make_game(trained_on[0], **trained_on[1])
        except Exception as exc:  # an unknown game or option: the metadata is not usable here
            raise CheckpointError(f"checkpoint metadata {meta_path} names an unusable game: {exc}") from None
    policy = new_sb3_policy(game, policy_name, width)
    try:
        policy.load_state_dict(weights)
    except Exception as exc:  # names or shapes differ from the declared architecture
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable: its weights do not fit the {policy_name} policy of "
            f"net_width {width} for {game!r} that {meta_path.name} declares ({_short(exc)})"
        ) from None
    return policy.to(device).eval()


def new_sb3_policy(game: Game, policy: str, net_width: int) -> Any:
    """An untrained MaskablePPO actor-critic for ``game`` (the policy of training/selfplay.py's models)."""
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


def _load_sb3_pickled(path: Path, game: Game | None, env: Any, device: str) -> Any:
    """stable-baselines3's own reader, which unpickles: only for a file the user said they trust."""
    MaskablePPO = import_extra("sb3_contrib", "MaskablePPO checkpoints", "train").MaskablePPO
    try:
        model = MaskablePPO.load(path, env=env, device=device)
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


# ----------------------------------------------------------------------------- RLlib
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
    ``training/rllib_selfplay.py`` (its newest checkpoint) or an RLModule folder itself.
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
        file_hint = f"; {path} is a file: play it as {spec_for(path)}" if path.is_file() else ""
        raise CheckpointError(
            f"{path} is no RLlib checkpoint: expected an Algorithm checkpoint (with learner_group/learner/"
            f"rl_module/{module}/), a run folder of training/rllib_selfplay.py, or an RLModule folder{file_hint}"
        )
    metadata = next((p / RLLIB_METADATA for p in (folder, *folder.parents) if (p / RLLIB_METADATA).is_file()), None)
    return folder, (read_rllib_metadata(metadata) if metadata else None)


def read_rllib_metadata(path: str | Path) -> dict[str, Any]:
    """An RLlib checkpoint's ``crossenvs.json``: a dictionary naming the ``game`` (text) and its ``options``."""
    path = Path(path)
    try:
        metadata = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"rllib checkpoint metadata {path} is corrupt: {_short(exc)}") from None
    if not (isinstance(metadata, dict) and isinstance(metadata.get("game"), str)
            and isinstance(metadata.get("options"), dict)):  # fmt: skip
        raise CheckpointError(
            f"rllib checkpoint metadata {path} is corrupt: expected an object with 'game' (a name) and 'options' "
            f"(an object), as training/rllib_selfplay.py writes, not {json.dumps(metadata)[:200]}"
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
