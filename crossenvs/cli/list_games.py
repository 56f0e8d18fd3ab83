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
        out.write(f"    {strength_tools(name)}\n")
        out.write(options_text(name, indent="    "))


def strength_tools(name: str) -> str:
    """Which of the package's strength tools a game has: a pretrained agent, a ladder, perfect play."""
    from .. import agents
    from ..eval.ladder.files import available as ladder_files

    trained = [agents.file_name(game, **options) for game, options in agents.available() if game == name]
    ladders = [file for file in ladder_files() if file == name + ".json" or file.startswith(name + "_")]
    words = [
        f"pretrained agent: {'yes' if trained else 'none yet'}",
        f"ladder (crossenvs rate): {'yes' if ladders else 'none yet'}",
    ]
    if name == "connect_four":
        words.append("perfect play: the perfect player and crossenvs mistakes")
    return "; ".join(words)


def arguments(parser: argparse.ArgumentParser) -> None:
    """No flags of its own."""


COMMAND = Command("list", "the games, their gymnasium ids and options", "crossenvs list", arguments, run)
