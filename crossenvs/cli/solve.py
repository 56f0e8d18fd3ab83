"""``crossenvs solve``: the game-theoretic value of a position and its optimal moves, proven exactly."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from .common import Command, game_of


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--position", metavar="FILE", help="position text to solve (default: the start)")
    parser.add_argument("--nodes", type=int, default=50_000_000, help="positions to visit at most before giving up")
    parser.add_argument("--table-bits", type=int, default=22, help="log2 of the transposition table's slots")
    parser.add_argument(
        "--deepening",
        type=int,
        default=8,
        help="plies of bounded searches before the full one: quick proofs of near wins (0: straight to the full search)",
    )
    parser.add_argument(
        "--value-only", action="store_true", help="prove the value only, not every move's (much faster to a win)"
    )


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """The proven value of a position (the start, or ``--position`` text) and its optimal moves."""
    from crossenvs.support.waits import Wait

    with Wait("loading the solver"):  # its imports, seconds on a busy machine before the solve's own lines
        from ..eval.solver import solve

    game = game_of(args)
    state = game.from_text(Path(args.position).read_text()) if args.position else game.initial_state()
    with Wait(
        f"solving {game.name} {'(the value)' if args.value_only else '(every move)'}, at most {args.nodes:,} positions"
    ):
        solution = solve(
            game,
            state,
            nodes=args.nodes,
            table_bits=args.table_bits,
            moves=not args.value_only,
            deepening=args.deepening,
        )
    mover = game.colours[game.current_player(state)]
    verdict = {1: f"{mover} wins", 0: "a draw", -1: f"{mover} loses"}[solution.value]
    out.write(f"{game!r}, {mover} to move: {verdict} with best play\n")
    if not args.value_only:
        optimal = " ".join(game.action_to_str(state, action) for action in solution.optimal)
        out.write(f"optimal moves: {optimal}\n")
    out.write(f"proven in {solution.seconds:.1f} s over {solution.nodes:,} positions\n")


COMMAND = Command(
    "solve",
    "the game-theoretic value of a position and its optimal moves (exact)",
    "crossenvs solve crisscross --option size=4",
    arguments,
    run,
    plays_a_game=True,
    seed_help=None,  # the proof draws nothing at random
)
