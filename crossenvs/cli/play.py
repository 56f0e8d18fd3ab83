"""``crossenvs play``: a person against an agent in the terminal (:mod:`crossenvs.play`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..players import player_specs
from .common import Command, game_of


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponent", default="random", metavar="SPEC", help=f"one of: {player_specs()}")
    parser.add_argument("--seat", default="first", choices=["first", "second", "0", "1"], help="the seat you play")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> int:
    """A human against an opponent in the terminal (:mod:`crossenvs.play`); 130 after Ctrl-C."""
    from ..play import play
    from ..players import make_player

    game = game_of(args)
    opponent = make_player(args.opponent, seed=args.seed, game=game)
    return play(game, opponent, 0 if args.seat in ("first", "0") else 1, out, source)


COMMAND = Command(
    "play",
    "play against an agent in the terminal",
    "crossenvs play charing_cross --opponent pretrained --seat second",
    arguments,
    run,
    plays_a_game=True,
)
