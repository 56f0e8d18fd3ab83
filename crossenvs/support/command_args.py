"""Checks made before any work starts: numbers a user typed, and files and folders a command will write.

An arena or a training run that fails at its last step (the results file cannot be written)
loses everything it computed; these checks run first, so the error comes at once and names
the flag. The CLI (:mod:`crossenvs.cli`), the trainers (:mod:`crossenvs.trainer`, ``training/``) and
the RLlib run use them; they live in the core, below all of those commands, beside the engine's own
argument checks (:mod:`crossenvs.support.checks`).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from crossenvs.support.errors import OutputPathError, UsageError


def check_int_range(value: int, flag: str, low: int, high: int | None = None) -> int:
    """``value`` if ``low <= value <= high``; else an error naming ``flag`` and the range."""
    if low <= value and (high is None or value <= high):
        return value
    allowed = f"at least {low}" if high is None else f"from {low} to {high}"
    raise UsageError(f"{flag} must be {allowed}, got {value}")


def check_minutes(value: float, flag: str) -> float:
    """A wall-clock cap: a finite number of minutes above 0 (0 used to mean "no limit")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise UsageError(
            f"{flag} must be a finite number of minutes above 0 (every run has a wall-clock cap; "
            f"for a long run give a large one, e.g. 600), got {value!r}"
        )
    return float(value)


def writable_folder(folder: Path) -> bool:
    """Whether a new file can be created in ``folder``: tried, not read off permission bits.

    Permission bits mislead under root, ACLs and read-only mounts; creating (and removing) an
    empty hidden file answers for all of them.
    """
    try:
        handle, name = tempfile.mkstemp(prefix=".crossenvs-write-test-", dir=folder)
    except OSError:
        return False
    os.close(handle)
    os.unlink(name)
    return True


def check_output_file(path: str | Path, flag: str, suffixes: Sequence[str] = ()) -> Path:
    """A file a command will write at its end: its folder exists and takes new files, it is no folder
    itself, an existing file may be replaced, and its name ends in one of ``suffixes`` (when given)."""
    path = Path(path)
    if path.is_dir():
        example = path / f"results{suffixes[0] if suffixes else ''}"
        raise OutputPathError(f"{flag} {path} is a folder; give a file name in it, e.g. {example}")
    if suffixes and path.suffix.lower() not in suffixes:
        example = path.with_suffix(suffixes[0]).name if path.stem else f"out{suffixes[0]}"
        endings = " or ".join([", ".join(suffixes[:-1]), suffixes[-1]] if len(suffixes) > 1 else suffixes)
        raise OutputPathError(f"{flag} {path}: the name must end in {endings}, e.g. {example}")
    folder = path.parent
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise OutputPathError(f"{flag} {path}: the folder {folder} {what}; create it first or write elsewhere")
    if not writable_folder(folder) or (path.exists() and not _appendable(path)):
        raise OutputPathError(f"{flag} {path}: cannot write in {folder} (read-only?); choose another folder")
    return path


def _appendable(path: Path) -> bool:
    """Whether an existing file may be rewritten (opened to append, so nothing in it changes)."""
    try:
        with open(path, "ab"):
            return True
    except OSError:
        return False


def check_folder_creatable(folder: str | Path, flag: str) -> Path:
    """A folder a run will create or fill: it, or its nearest existing parent, is a folder that takes new files."""
    folder = Path(folder)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputPathError(f"{flag} {folder}: {existing} is a file, not a folder; choose another path")
    if not writable_folder(existing):
        raise OutputPathError(f"{flag} {folder}: cannot create files in {existing} (read-only?); choose another path")
    return folder
