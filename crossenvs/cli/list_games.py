"""``crossenvs list``: the games, their gymnasium ids and options."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..core.registry import game_spec, list_games
from .common import Command, options_text


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    for name in list_games():
        spec = game_spec(name)
        out.write(f"{name:<14} {spec.gym_id}\n    {spec.facts.display_name}: {spec.summary}\n")
        out.write(options_text(name, indent="    "))


def arguments(parser: argparse.ArgumentParser) -> None:
    """No flags of its own."""


COMMAND = Command("list", "the games, their gymnasium ids and options", "crossenvs list", arguments, run)
