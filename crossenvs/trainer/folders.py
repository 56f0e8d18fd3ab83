"""A run's folder: made and checked before any training, written atomically, resumed from a good checkpoint.

A run folder that cannot be written, or a corrupt newest checkpoint, stops a run at once, with the
way out: the error names the previous good checkpoint and the command that continues from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crossenvs.checkpoints import CHECKPOINTS
from crossenvs.support import command_args as checks
from crossenvs.support.command_args import check_folder_creatable
from crossenvs.support.errors import CheckpointError, OutputPathError, UsageError
from crossenvs.support.extras import import_extra


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


def start_new_run(args: argparse.Namespace, name: str, config: Any) -> Path:
    """A new run's folder, ``--run-dir`` or ``runs/<name>-<time>`` in the working folder (the package may be
    installed anywhere, so never beside it), made by :func:`start_run_folder`; its absolute path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    default = Path("runs") / f"{name}-{stamp}"
    run_dir = (Path(args.run_dir) if args.run_dir else default).resolve()
    start_run_folder(run_dir, "--run-dir" if args.run_dir else "run folder", config)
    return run_dir


def start_run_folder(run_dir: Path, flag: str, config: Any) -> None:
    """A new run's folder with its ``config.yaml``; refused up front when it cannot be written or
    already holds a run (whose checkpoints the new one would mix with)."""
    check_folder_creatable(run_dir, flag)
    if (run_dir / "config.yaml").exists() or any((run_dir / CHECKPOINTS).glob("*")):
        raise UsageError(
            f"{flag} {run_dir} already holds a run; continue it with --resume {run_dir}, or choose a new folder"
        )
    yaml = import_extra("yaml", "a training run's config.yaml", "train")  # here: the command line imports this module
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


def resume_offer(command: str, resume: str, reason: str, previous: Path | None) -> CheckpointError:
    """The error for a checkpoint a run cannot continue from, naming the previous good one and the command
    (``command``: the trainer's, ``crossenvs train alphazero``, which the parser records as ``args.command_line``)."""
    if previous is None:
        return CheckpointError(f"{reason}; no older checkpoint of the run is readable, so start a new run (--config)")
    shown = Path(resume) / CHECKPOINTS / previous.name
    return CheckpointError(
        f"{reason}; the previous good checkpoint is {shown}: resume from it with "
        f"{command} --resume {resume} --from-checkpoint {shown}"
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
