"""The configs the package ships (``crossenvs/configs/``), and which file a ``crossenvs train`` command means.

The YAML files are package data, so ``crossenvs train alphazero --game crossings`` works from
``pip install``, with no checkout: ``--game`` picks the game's shipped config, ``--config`` takes a
shipped config's name (``crisscross6``) or a file of one's own, and ``--option`` / ``--set`` change a
copy of it (the run folder's ``config.yaml`` records what ran). The files are the one source: the
checkout's ``configs`` is a link to this folder.

Importing this module reads no YAML (PyYAML comes with the ``train`` extra, which the command
line checks for first).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crossenvs.support.errors import UsageError

#: the package's configs: MaskablePPO ones at the top, AlphaZero ones in ``alphazero/``
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
#: each trainer's folder of shipped configs (RLlib runs take flags, not a config file)
FOLDERS = {"alphazero": CONFIGS / "alphazero", "ppo": CONFIGS}


def shipped_configs(trainer: str) -> dict[str, Path]:
    """The configs shipped for ``trainer`` (``alphazero`` or ``ppo``) by name: ``{"crisscross6": .../crisscross6.yaml}``."""
    return {path.stem: path for path in sorted(FOLDERS[trainer].glob("*.yaml"))}


def config_game(path: Path) -> tuple[str, dict[str, Any]]:
    """A shipped config's ``game`` and ``options``."""
    from crossenvs.trainer.config import read_yaml_config  # YAML: the train extra, checked before any config is read

    raw = read_yaml_config(path)
    return raw.get("game", ""), raw.get("options") or {}


def config_for_game(trainer: str, game: str, options: dict[str, Any], same_options: Any) -> Path:
    """The shipped ``trainer`` config for ``game``: the one whose options are the same as ``options``
    (``same_options(a, b)`` compares two option dicts as the game reads them, so ``size=6`` finds
    ``crisscross6.yaml``), else the game's own, ``<game>.yaml`` (``--option`` then changes its options)."""
    configs = shipped_configs(trainer)
    for path in configs.values():
        found, found_options = config_game(path)
        if found == game and same_options(found_options, options):
            return path
    if game in configs:
        return configs[game]
    raise UsageError(
        f"--game {game}: no shipped {trainer} config for it; give a config file of your own with --config FILE "
        f"(the shipped ones: {', '.join(configs)})"
    )


def config_path(trainer: str, text: str) -> Path:
    """``--config``: a YAML file, or the name of a shipped config (``crisscross6`` or ``crisscross6.yaml``)."""
    path = Path(text)
    if path.is_file() or path.is_dir():
        return path  # the config reader says what is wrong with a folder
    configs = shipped_configs(trainer)
    name = text.removesuffix(".yaml")
    if name in configs and path.parent == Path("."):
        return configs[name]
    raise UsageError(
        f"--config {text}: the file does not exist, nor is it the name of a shipped {trainer} config "
        f"({', '.join(configs)})"
    )
