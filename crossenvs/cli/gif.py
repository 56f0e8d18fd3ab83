"""``crossenvs gif``: one game between two players as an animated GIF."""

from __future__ import annotations

import argparse
from typing import TextIO

from crossenvs.support.checks import MAX_SEED
from crossenvs.support.command_args import check_int_range, check_output_file
from crossenvs.support.errors import InvalidOptionError
from crossenvs.support.waits import Wait

from .common import Command, game_of

#: a GIF stores frame delays in hundredths of a second, in 16 bits
GIF_MS = (10, 655_350)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", nargs=2, default=["random", "random"], metavar="SPEC", help="first seat, second seat"
    )
    parser.add_argument("--out", default="game.gif", help="the GIF to write")
    parser.add_argument("--ms", type=int, default=400, help="milliseconds per frame")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.ms, "--ms (milliseconds per frame; GIFs keep hundredths of a second)", *GIF_MS)
    check_output_file(args.out, "--out", (".gif",))


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """One game between two players as an animated GIF of rgb_array frames."""
    from PIL import Image

    from ..play.game_in_progress import play_frames
    from ..players import make_player

    game = game_of(args)
    if len(args.players) != 2:
        raise InvalidOptionError("gif needs exactly two players (first seat, second seat)")
    seeds = [args.seed, (args.seed + 1) % (MAX_SEED + 1)]
    players = [make_player(spec, seed=seeds[seat], game=game) for seat, spec in enumerate(args.players)]
    with Wait(f"playing {game.name} for the GIF: {args.players[0]} against {args.players[1]}"):
        frames = [Image.fromarray(frame) for frame in play_frames(game, players)]
    frames[0].save(args.out, save_all=True, append_images=frames[1:], duration=args.ms, loop=0)
    out.write(f"wrote {args.out} ({len(frames)} frames)\n")


COMMAND = Command(
    "gif",
    "an animated GIF of one game",
    "crossenvs gif crisscross --option size=6 --players mcts:100 random --out game.gif",
    arguments,
    run,
    check,
    plays_a_game=True,
)
