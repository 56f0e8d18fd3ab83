"""What the trainers share: YAML configs checked key by key, run folders checked before any
training, resuming from a good checkpoint, and atomic writes.

A config is a dataclass of a trainer; :func:`config_from_dict` refuses unknown keys and wrong
types naming the key, so a typo stops a run before any work starts. Likewise a run folder that
cannot be written, or a corrupt newest checkpoint, stops a run at once, with the way out.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

import crossenvs
from crossenvs import flag_checks as checks
from crossenvs.checkpoints import CHECKPOINTS
from crossenvs.core.checks import check_memory
from crossenvs.core.errors import CheckpointError, OutputPathError, UsageError
from crossenvs.flag_checks import check_folder_creatable, check_int_range, check_minutes

ConfigType = TypeVar("ConfigType")


class ConfigError(crossenvs.CrossenvsError, ValueError):
    """A config file that cannot be used; the message names the key."""


class _DuplicateKey(Exception):
    """A key written twice in one YAML mapping: the key and the lines of both."""


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key written twice in one mapping (PyYAML keeps the last one
    silently, so a setting changed near the top of a config could be undone further down)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue  # merge keys (<<) may repeat; other odd keys are the base loader's to judge
            key, line = self.construct_object(key_node), key_node.start_mark.line + 1
            if key in lines:
                raise _DuplicateKey(key, lines[key], line)
            lines[key] = line
        return super().construct_mapping(node, deep=deep)


def read_yaml_config(path: Path | str) -> dict[str, Any]:
    """The mapping in a YAML file; a clear error when it is missing, not UTF-8, malformed, repeats a key
    or is not a mapping."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"config {path} is a folder, not a YAML file")
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = path.read_bytes()
        raw = yaml.load(data.decode("utf-8"), Loader=UniqueKeyLoader) or {}
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save the config as UTF-8"
        ) from None
    except _DuplicateKey as exc:
        key, first, second = exc.args
        raise ConfigError(f"{path}: the key {key!r} is written twice (lines {first} and {second}); keep one") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys to values")
    return raw


_CONFIG_TYPES: dict[str, tuple[type, str]] = {
    "int": (int, "a whole number"),
    "float": (float, "a number"),
    "str": (str, "a text string"),
    "dict": (dict, "a mapping of names to values"),
}
"""A config field's annotation -> its Python type and how an error message names it."""


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
        expected, described = _CONFIG_TYPES[fields[name].type]
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ConfigError(f"{where}: '{name}' must be {described}, got {value!r}")
        values[name] = value
    if values["game"] not in crossenvs.list_games():
        raise ConfigError(f"{where}: 'game' {values['game']!r} is not one of {', '.join(crossenvs.list_games())}")
    return cls(**values)


def check_config_memory(parts: dict[str, int], where: str, keys: str) -> None:
    """Refuse a config whose buffers and network cannot fit in memory, before any run folder exists.

    ``parts`` maps what needs memory (replay buffer, network and optimiser...) to its bytes; ``keys`` names
    the config keys that shrink them.
    """
    biggest = ", ".join(f"{name} {size / 2**30:,.2f} GiB" for name, size in sorted(parts.items(), key=lambda i: -i[1]))
    check_memory(sum(parts.values()), f"{where}: this config ({biggest})", f"lower {keys}")


def check_wall_clock(minutes: float, where: str) -> None:
    """Every run has a finite wall-clock cap (``max_minutes`` > 0): a config can never run for hours unbidden."""
    if not (math.isfinite(minutes) and minutes > 0):
        raise ConfigError(
            f"{where}: 'max_minutes' must be a finite number of minutes above 0 (the run's wall-clock cap; "
            f"--max-minutes overrides it), got {minutes}"
        )


def trainer_parser(description: str, example_config: str, default_run_dir: str) -> argparse.ArgumentParser:
    """The options every trainer takes: a config or a run to resume, the run folder, device, progress bar."""
    parser = argparse.ArgumentParser(description=description)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help=f"a YAML config, e.g. {example_config}")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its newest checkpoint")
    parser.add_argument(
        "--from-checkpoint",
        metavar="PATH",
        help="with --resume: continue from this checkpoint of the run instead (newer ones are moved aside)",
    )
    parser.add_argument("--run-dir", help=f"where a new run writes (default {default_run_dir})")
    parser.add_argument("--max-minutes", type=float, help="override the config's wall-clock cap (minutes, above 0)")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="auto: CUDA when present")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs and CI)")
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="with --resume: train no further, only run the final evaluation of the run's newest checkpoint again "
        "(rewrites summary.json; for a run killed during its final match)",
    )
    return parser


def check_trainer_args(args: argparse.Namespace) -> None:
    """Flags that are out of range or do not go together, refused before any config is read."""
    if args.from_checkpoint and not args.resume:
        raise UsageError("--from-checkpoint needs --resume RUN_DIR (it names a checkpoint of that run)")
    if getattr(args, "evaluate_only", False) and not args.resume:
        raise UsageError("--evaluate-only needs --resume RUN_DIR (it evaluates that run's newest checkpoint)")
    if args.run_dir and args.resume:
        raise UsageError(f"--run-dir is for a new run (--config); --resume {args.resume} already names the folder")
    if args.max_minutes is not None:
        check_minutes(args.max_minutes, "--max-minutes")
    if getattr(args, "actors", 0):
        check_int_range(args.actors, "--actors", 1)
    if getattr(args, "address", None) and not getattr(args, "actors", 0):
        raise UsageError(f"--address {args.address} is for Ray self-play: add --actors N")
    if getattr(args, "total_steps", None) is not None:
        check_int_range(args.total_steps, "--total-steps", 1)


def run_cli(train: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run a trainer: a :class:`crossenvs.CrossenvsError` becomes one line on stderr and exit code 2."""
    try:
        check_trainer_args(args)
        train(args)
    except crossenvs.CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def protocol_step(what: str) -> None:
    """Called between the steps of :func:`commit_files` (tests stand a kill in here); does nothing."""


def commit_files(writes: list[tuple[Path, Callable[[Path], Any]]]) -> None:
    """Write a checkpoint's files so that a kill at any moment leaves the run resumable.

    Each ``write(temporary)`` writes one file under a hidden temporary name (``.<name>.tmp``); then the
    temporaries are renamed in order, so the **last** file (the metadata) appears only once every other
    one is complete: it is the commit marker. Readers take a checkpoint only where its metadata is,
    and resuming removes what a kill left (:func:`remove_incomplete`).
    """
    temporaries = []
    for path, write in writes:
        temporary = path.with_name(f".{path.name}.tmp")
        write(temporary)
        protocol_step(f"wrote {temporary.name}")
        temporaries.append((temporary, path))
    for temporary, path in temporaries:
        os.replace(temporary, path)
        protocol_step(f"renamed {path.name}")


def remove_incomplete(folder: Path, orphans: list[Path] = ()) -> list[Path]:
    """Remove the temporary files a killed writer left in ``folder`` (``.<name>.tmp``, any suffix after) and
    ``orphans`` (data files whose metadata never appeared); the files removed."""
    removed = [path for path in folder.glob(".*.tmp*") if path.is_file()] + list(orphans)
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary name beside ``path``, then rename: a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


# ----------------------------------------------------------------------------- run folders
def start_run_folder(run_dir: Path, flag: str, config: Any) -> None:
    """A new run's folder with its ``config.yaml``; refused up front when it cannot be written or
    already holds a run (whose checkpoints the new one would mix with)."""
    check_folder_creatable(run_dir, flag)
    if (run_dir / "config.yaml").exists() or any((run_dir / CHECKPOINTS).glob("*")):
        raise UsageError(
            f"{flag} {run_dir} already holds a run; continue it with --resume {run_dir}, or choose a new folder"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        write_atomically(run_dir / "config.yaml", yaml.safe_dump(dataclasses.asdict(config), sort_keys=False))
    except OSError as exc:
        raise OutputPathError(f"{flag} {run_dir}: cannot write the run folder: {exc}") from None


def check_resume_folder(text: str) -> Path:
    """The folder of a run to continue: it holds a ``config.yaml``, and the run can write in every folder of it
    (checkpoints and logs), checked now rather than at the first checkpoint."""
    run_dir = Path(text).resolve()
    if not run_dir.is_dir():
        raise UsageError(f"--resume {text}: no such folder")
    if not (run_dir / "config.yaml").is_file():
        raise UsageError(f"--resume {text}: no config.yaml in it, so it is not a run folder (start one with --config)")
    for folder in [run_dir, *sorted(path for path in run_dir.rglob("*") if path.is_dir())]:
        if not checks.writable_folder(folder):  # by module: tests stand in for a read-only disk
            raise OutputPathError(
                f"--resume {text}: cannot write in {folder} (read-only?), where the run writes checkpoints and "
                f"logs; make it writable (chmod -R u+w {text}) or copy the run to a writable place"
            )
    return run_dir


def script_text(file: str) -> str:
    """A trainer's path as the user would type it: relative to the working folder when it is inside it."""
    path = Path(file).resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def resume_offer(script: str, resume: str, reason: str, previous: Path | None) -> CheckpointError:
    """The error for a checkpoint a run cannot continue from, naming the previous good one and the command."""
    if previous is None:
        return CheckpointError(f"{reason}; no older checkpoint of the run is readable, so start a new run (--config)")
    shown = Path(resume) / CHECKPOINTS / previous.name
    return CheckpointError(
        f"{reason}; the previous good checkpoint is {shown}: resume from it with "
        f"python {script} --resume {resume} --from-checkpoint {shown}"
    )


def check_from_checkpoint(text: str, checkpoints: Path, pattern: str, names: str) -> Path:
    """``--from-checkpoint``: an existing file in the run's own ``checkpoints/`` folder whose name matches the
    regular expression ``pattern`` (``names`` says which, for the error)."""
    path = Path(text)
    if not path.is_file():
        raise CheckpointError(f"--from-checkpoint {text} does not exist")
    if path.resolve().parent != checkpoints.resolve() or not re.fullmatch(pattern, path.name):
        raise UsageError(f"--from-checkpoint {text}: not one of this run's checkpoints ({checkpoints}/{names})")
    return path.resolve()


def set_aside(paths: list[Path], checkpoints: Path) -> Path | None:
    """Move checkpoints newer than the one a run continues from into ``checkpoints/superseded/<time>/``:
    the run's history stays one line (for --resume and rating-plot) and nothing is deleted."""
    if not paths:
        return None
    target = checkpoints / "superseded" / time.strftime("%Y%m%d-%H%M%S")
    target.mkdir(parents=True, exist_ok=True)
    for path in paths:
        os.replace(path, target / path.name)
    print(f"moved {len(paths)} newer checkpoint file(s) ({', '.join(p.name for p in paths)}) to {target}")
    return target
