"""The ``crossenvs`` command line: list games, run arenas, play an agent, train one, plot ratings, make GIFs.

crossenvs list
crossenvs eval crisscross --option size=6 --players random greedy mcts:100 --games 20 --csv out.csv
crossenvs play charing_cross --opponent mcts:400
crossenvs train alphazero --game crisscross --option size=6
crossenvs rating-plot runs/crisscross-20261121-113000 --out ratings.png
crossenvs gif crisscross --option size=6 --players mcts:100 random --out game.gif
crossenvs serve --port 8000
crossenvs doctor
crossenvs cache

Each command is one module here holding its flags, its checks, its example and its run
(:class:`~crossenvs.cli.common.Command`); :data:`COMMANDS` lists them and :func:`main` dispatches
by name. Adding a command is one module and one line in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from crossenvs.support.checks import check_seed
from crossenvs.support.errors import CrossenvsError

from . import (
    cache,
    check,
    doctor,
    evaluate,
    export,
    gif,
    ladder,
    list_games,
    mistakes,
    play,
    rate,
    rating_plot,
    serve,
    solve,
    train,
)
from .common import Command, GameCommandParser, HelpFormatter, canonical_game, import_module

__all__ = ["COMMANDS", "EXAMPLES", "Command", "build_parser", "canonical_game", "main"]

#: the commands, in the order the help lists them
COMMANDS: tuple[Command, ...] = tuple(
    module.COMMAND
    for module in (
        list_games,
        evaluate,
        play,
        train,
        gif,
        rating_plot,
        solve,
        mistakes,
        ladder,
        rate,
        export,
        check,
        serve,
        doctor,
        cache,
    )
)
_BY_NAME = {command.name: command for command in COMMANDS}
#: one example per command, shown at the end of its help; the main help shows them in this order
EXAMPLES = {
    name: _BY_NAME[name].example
    for name in (
        "list",
        "eval",
        "play",
        "train",
        "gif",
        "rating-plot",
        "serve",
        "check",
        "solve",
        "mistakes",
        "ladder",
        "rate",
        "export",
        "doctor",
        "cache",
    )
}


def build_parser() -> argparse.ArgumentParser:
    """The ``crossenvs`` parser: ``--import`` and one subparser per command of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="crossenvs",
        description="crossenvs: games, arenas, play, training, plots.",
        epilog="examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES.values()),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module name or .py file to import first (it may register games of its own)",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=GameCommandParser)
    for command in COMMANDS:
        command.add_to(commands)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, source: TextIO | None = None) -> int:
    """Run ``crossenvs <argv>``: 0 when it went well, 2 for a refused input (one line ``error: ...``),
    or the command's own code (``play``: 130 after Ctrl-C; ``check``: 1 when the suite fails)."""
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--import", dest="imports", action="append", default=[])
    known, rest = early.parse_known_args(argv)  # --import may stand anywhere; the rest is the command
    try:
        for module in known.imports:  # before the parser lists the games
            import_module(module)
    except CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(rest)
    command = _BY_NAME[args.command]
    try:
        if getattr(args, "game", None) is not None and not command.imports_its_game:
            args.game = canonical_game(args.game)
        if getattr(args, "seed", None) is not None:
            check_seed(args.seed, "--seed")
        command.check(args)
        code = command.run(args, out, source or sys.stdin)
    except CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (crossenvs list | head): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        return 1
    return code or 0
