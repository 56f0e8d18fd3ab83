"""``crossenvs cache``: where compiled code lives: numba's cache of this version, and the per-game copies of templates."""

from __future__ import annotations

import argparse
from typing import TextIO

from crossenvs.kernels.cache import cache_root, copies_folder

from .common import Command


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    copies = sorted(copies_folder().glob("*.py")) if copies_folder().is_dir() else []
    out.write(f"numba's cache of this version: {cache_root()}\n")
    out.write(f"per-game copies of templates (the only code made at run time): {copies_folder()}, {len(copies)} now\n")
    for path in copies:
        out.write(f"    {path.name}\n")


def arguments(parser: argparse.ArgumentParser) -> None:
    """No flags of its own."""


COMMAND = Command(
    "cache", "where compiled code lives: numba's cache and the per-game copies of templates", "crossenvs cache",
    arguments, run,
)  # fmt: skip
