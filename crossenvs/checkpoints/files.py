"""What every kind of checkpoint shares: the trainers' file names, the kinds, the game check, the device.

The trainers, the CLI and the players name the trainers' files through the constants here, so a
file is spelt in one place. Torch is imported only when a device is chosen.
"""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path
from typing import Any

from crossenvs.support.errors import CheckpointError

from ..core.game import Game
from ..players import import_extra

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


def file_kind(path: str | Path) -> str:
    """:data:`ALPHAZERO` or :data:`SB3` for a checkpoint file: by the contents where they tell, else by the name.

    Both ``.pt`` and ``.zip`` files are zip archives: stable-baselines3's holds a ``data`` entry,
    torch's a ``<name>/data.pkl``. Folders (RLlib's) are :func:`crossenvs.checkpoints.detect_kind`'s.
    """
    path = Path(path)
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


def spec_of(kind: str, path: str | Path) -> str:
    """The player spec that plays checkpoint ``path`` of ``kind`` (``az:<file>``, ``rllib:<folder>``...)."""
    return _SPEC_OF[kind].format(path=path)


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
    """``auto`` is CUDA when present, else the CPU; any other name is kept, once it is checked that a CUDA device
    asked for is here (one clear error before any work, not torch's traceback at the first tensor)."""
    torch = torch_for("choosing a device")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        from ..kernels.cuda import CudaUnavailableError

        raise CudaUnavailableError(
            f"--device {device} needs an NVIDIA GPU and a CUDA build of torch, and torch sees none here; "
            "use --device cpu (or auto, which takes a GPU when there is one)"
        )
    return device


def torch_for(what: str) -> Any:
    """torch, or an error naming ``what`` needed it and the extra that installs it."""
    return import_extra("torch", what, "agents")


#: errors that a damaged file raises from inside the unpickler: their words ("pop from empty list") describe the
#: unpickler's stack, not the file, so the file's state is said instead
DAMAGED_INSIDE = (IndexError, KeyError, EOFError, ValueError, TypeError, AttributeError, MemoryError, OverflowError)


def short_error(exc: Exception) -> str:
    """An exception in one line (torch appends a paragraph of advice to its errors)."""
    if isinstance(exc, DAMAGED_INSIDE):
        return f"its data is damaged or cut short: reading it stopped with {type(exc).__name__}"
    text = str(exc).split(". ")[0].splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"
