"""``crossenvs check``: the contract suite (:func:`crossenvs.testing.check_game`) on a game of one's own."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TextIO

from crossenvs.support.command_args import check_int_range
from crossenvs.support.errors import UsageError

from ..core.options import parse_options
from ..core.registry import list_games
from .common import Command, canonical_game, import_module


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "module",
        help="a module name or .py file that registers the game with crossenvs.register_game "
        "(the documentation's 'Your own game' page shows one to start from)",
    )
    parser.add_argument("game", nargs="?", help="the game to check (default: every game the module registers)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    parser.add_argument("--plies", type=int, default=600, help="random plies to check positions of")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random plies")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.plies, "--plies", 1, 1_000_000)


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> int:
    """The contract suite on the module's games: 0 when it passes, 1 when not."""
    from ..testing import check_game

    before = set(list_games())
    import_module(args.module, given_as="module")
    names = [canonical_game(args.game)] if args.game else sorted(set(list_games()) - before)
    if not names:
        raise UsageError(
            f"check {args.module}: it registers no new game; name one (crossenvs check {args.module} <game>) "
            "or call crossenvs.register_game in the module"
        )
    options = parse_options(args.option)
    failed = 0
    for name in names:
        out.write(f"checking {name} {options or ''}({args.plies} random plies)...\n")
        try:
            report = check_game(name, plies=args.plies, seed=args.seed, **options)
        except AssertionError as exc:
            failed += 1
            out.write(f"FAILED {name}: {exc}\n")
            continue
        counts = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in asdict(report).items() if key != "game")
        out.write(f"passed {name}: {counts}\n")
    return 1 if failed else 0


COMMAND = Command(
    "check",
    "run the contract suite on a game of your own and print its report",
    "crossenvs check my_game.py",
    arguments,
    run,
    check,
    imports_its_game=True,
)
