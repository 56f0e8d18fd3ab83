"""What the trainers share: YAML configs checked key by key, and atomic writes.

A config is a dataclass of a trainer; :func:`config_from_dict` refuses unknown keys and wrong
types naming the key, so a typo stops a run before any work starts.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

import crossenvs

ConfigType = TypeVar("ConfigType")


class ConfigError(crossenvs.CrossenvsError, ValueError):
    """A config file that cannot be used; the message names the key."""


def read_yaml_config(path: Path | str) -> dict[str, Any]:
    """The mapping in a YAML file; a clear error when it is missing, malformed or not a mapping."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys to values")
    return raw


def config_from_dict(cls: type[ConfigType], raw: dict[str, Any], where: str = "config") -> ConfigType:
    """An instance of dataclass ``cls`` from ``raw``; unknown keys, a missing game and wrong types are refused."""
    fields = {field.name: field for field in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(fields)}")
    if "game" not in raw:
        raise ConfigError(f"{where}: the key 'game' is required ({', '.join(crossenvs.list_games())})")
    values = {}
    for name, value in raw.items():
        expected = {"int": int, "float": float, "str": str, "dict": dict}[fields[name].type]
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ConfigError(f"{where}: '{name}' must be a {expected.__name__}, got {value!r}")
        values[name] = value
    if values["game"] not in crossenvs.list_games():
        raise ConfigError(f"{where}: 'game' {values['game']!r} is not one of {', '.join(crossenvs.list_games())}")
    return cls(**values)


def trainer_parser(description: str, example_config: str, default_run_dir: str) -> argparse.ArgumentParser:
    """The options every trainer takes: a config or a run to resume, the run folder, device, progress bar."""
    parser = argparse.ArgumentParser(description=description)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help=f"a YAML config, e.g. {example_config}")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its newest checkpoint")
    parser.add_argument("--run-dir", help=f"where a new run writes (default {default_run_dir})")
    parser.add_argument("--max-minutes", type=float, help="override the config's wall-clock budget (PPO: 0 = no limit)")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="auto: CUDA when present")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs and CI)")
    return parser


def run_cli(train: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run a trainer: a :class:`crossenvs.CrossenvsError` becomes one line on stderr and exit code 2."""
    try:
        train(args)
    except crossenvs.CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary name beside ``path``, then rename: a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)
