"""``crossenvs rate``: a player's rating on the game's fixed-anchor ladder, comparable across runs and machines."""

from __future__ import annotations

import argparse
import math
from typing import Any, TextIO

from crossenvs.support.command_args import check_int_range
from crossenvs.support.errors import UsageError

from ..core.registry import list_games
from ..eval.ladder import adaptive
from ..players import player_specs
from .common import MAX_GAMES, Command, game_of


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", metavar="SPEC", help=f"the player to rate: {player_specs()}")
    parser.add_argument("--game", required=True, help=f"one of {', '.join(list_games())} (any case)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable; see below)"
    )
    parser.add_argument("--ladder", metavar="FILE", help="a ladder file (default: the one shipped for the game)")
    parser.add_argument(
        "--width", type=float, default=adaptive.WIDTH, help="stop once the 95%% interval is this narrow (Elo)"
    )
    parser.add_argument("--max-games", type=int, default=adaptive.MAX_GAMES, help="stop after this many games at most")
    parser.add_argument(
        "--batch", type=int, default=adaptive.BATCH, help="games against one rung before the estimate is refit"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the games")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.max_games, "--max-games", 2, MAX_GAMES)
    check_int_range(args.batch, "--batch", 2, MAX_GAMES)
    if not math.isfinite(args.width) or args.width <= 0:
        raise UsageError(f"--width {args.width}: give the widest 95% interval to stop at, in Elo points, above 0")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """A player's rating on the game's fixed-anchor ladder, comparable across runs and machines."""
    from ..eval.ladder import load_ladder, rate
    from ..players import make_player

    game = game_of(args)
    ladder = load_ladder(game, args.ladder)
    player = make_player(args.player, game=game, seed=args.seed)
    player.name = args.player

    def progress(fit: Any, rung: str) -> None:
        out.write(
            f"  {fit.games:4} games, last against {rung:<14} {fit.rating_text():>8}  (95% {fit.interval_text()})\n"
        )
        out.flush()

    result = rate(game, player, ladder, width=args.width, max_games=args.max_games, batch=args.batch,
                  seed=args.seed, progress=progress)  # fmt: skip
    out.write(result.summary(args.player) + "\n")


COMMAND = Command(
    "rate",
    "a player's rating on the game's fixed-anchor ladder (comparable across runs)",
    "crossenvs rate pretrained --game crisscross --option size=6",
    arguments,
    run,
    check,
    lists_game_options=True,
)
