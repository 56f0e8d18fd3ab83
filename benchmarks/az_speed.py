"""AlphaZero self-play speed: positions searched per second and network evaluations per second.

    python benchmarks/az_speed.py                                  # Crisscross 6x6, make train's settings
    python benchmarks/az_speed.py --game crosse --batch 64 --simulations 32 --device auto
    python benchmarks/az_speed.py --precision bfloat16             # the network in bfloat16

One search step is what self-play does before every move of every game: the batch's trees walked
in numba (selection, expansion, backup) and one forward pass per simulation for all leaves. The
report splits the time between the two, with the network untrained (speed does not depend on it).
"""

from __future__ import annotations

import argparse
import json

import torch

import crossenvs
from crossenvs.az.network import PRECISIONS
from crossenvs.az.speed import game_from_args, measure
from crossenvs.checkpoints import resolve_device


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="crisscross", choices=crossenvs.list_games())
    parser.add_argument("--option", action="append", default=None, metavar="KEY=VALUE", help="default: size=6")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--precision", default="float32", choices=PRECISIONS, help="the network's number format")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    game = game_from_args(args)
    device = resolve_device(args.device)
    with torch.no_grad():
        figures = measure(
            game, args.batch, args.simulations, args.channels, args.blocks, device, args.seconds, args.precision
        )
    print(
        f"{game!r} B={args.batch}, {args.simulations} simulations, {device}, {args.precision}: {figures['positions_per_second']:,.0f} "
        f"positions/s, {figures['network_evaluations_per_second']:,.0f} network evaluations/s "
        f"({figures['network_share']:.0%} of the time in the network)"
    )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)
    return figures


if __name__ == "__main__":
    main()
