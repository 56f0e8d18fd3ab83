"""``crossenvs mistakes``: a player's mistake rate against perfect play, class by class (Connect Four)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from crossenvs.support.command_args import check_int_range
from crossenvs.support.errors import UsageError

from ..players import player_specs
from .common import Command

#: the most positions a class may hold here (the shipped set has 1,000)
MAX_PER_CLASS = 100_000


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("players", metavar="SPEC", nargs="+", help=f"the players to measure: {player_specs()}")
    parser.add_argument("--per-class", type=int, default=1000, help="positions of each class to use (default: 1000)")
    parser.add_argument(
        "--positions",
        metavar="FILE",
        help="a journal of benchmarks/connect_four_positions.py (default: the shipped set)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the players' random choices")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.per_class, "--per-class", 1, MAX_PER_CLASS)
    if args.positions and not Path(args.positions).is_file():
        raise UsageError(f"--positions {args.positions}: no such file; give a journal of benchmark positions")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """Each player's mistakes on the benchmark positions of each class, with 95% intervals."""
    from crossenvs.support.waits import Wait

    from ..core.registry import make_game
    from ..eval.connect_four import mistakes, positions
    from ..players import make_player

    game = make_game("connect_four")
    players = [make_player(spec, game=game, seed=args.seed) for spec in args.players]  # every spec vetted first
    sets = positions.load(args.positions or positions.SHIPPED, args.per_class)
    short = {name: len(rows) for name, rows in sets.items() if len(rows) < args.per_class}
    if short:
        out.write("note: some classes hold fewer positions than asked: "
                  + ", ".join(f"{k} {v}" for k, v in short.items()) + "\n")  # fmt: skip
    total = sum(len(rows) for rows in sets.values())
    for spec, player in zip(args.players, players):
        with Wait(f"{spec}'s moves against the solved ones", total=total, unit="positions") as wait:
            rates = mistakes.mistake_rates(player, sets, wait.advance)
        out.write(mistakes.format_table(rates, spec) + "\n\n")
        out.flush()


COMMAND = Command(
    "mistakes",
    "a Connect Four player's mistake rate against perfect play on six classes of solved positions",
    "crossenvs mistakes pretrained:0 mcts:1000 --per-class 200",
    arguments,
    run,
    check,
)
