"""``crossenvs rating-plot``: every checkpoint of a training run rated, plotted against training step or time."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TextIO

from .. import checkpoints as ck
from ..core.checks import MAX_SEED
from ..core.command_args import check_int_range, check_output_file
from ..core.errors import UsageError
from ..core.extras import check_installed
from ..core.game import Game
from ..core.registry import make_game
from ..players import Player
from .common import MAX_GAMES, SHIPPED_LADDER, Command, chosen_ladder

#: what rating-plot writes (matplotlib's formats that need nothing beyond matplotlib and Pillow)
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".webp")


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="the folder of a training run (it holds checkpoints/)")
    parser.add_argument("--out", default="ratings.png", help="the plot to write (.png, .pdf, .svg, ...)")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (seats alternate)")
    parser.add_argument("--mcts", type=int, default=100, help="simulations of the MCTS baseline")
    parser.add_argument(
        "--baselines", nargs="+", help="player specs to rate against (default: random greedy mcts:<--mcts>)"
    )
    parser.add_argument("--simulations", type=int, default=64, help="search of AlphaZero checkpoints")
    parser.add_argument(
        "--ladder",
        nargs="?",
        const=SHIPPED_LADDER,
        metavar="FILE",
        help="rate each checkpoint on a fixed-anchor ladder instead (the game's shipped one, or FILE), "
        "--games games at most: the same scale in every run",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the games")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.games, "--games", 1, MAX_GAMES)
    check_int_range(args.mcts, "--mcts", 1)
    check_int_range(args.simulations, "--simulations", 0)
    check_installed("crossenvs rating-plot", {"matplotlib": "eval"})
    check_output_file(args.out, "--out", PLOT_SUFFIXES)
    folder = Path(args.run_dir)
    if not folder.is_dir():
        raise UsageError(f"rating-plot {folder}: no such folder; give the folder of a run of crossenvs train")
    if not (folder / ck.CHECKPOINTS).is_dir():
        raise UsageError(
            f"rating-plot {folder}: it has no {ck.CHECKPOINTS}/ folder, so it is not a training run's folder"
        )


def checkpoint_players(run_dir: Path, simulations: int) -> tuple[Game, str, list[tuple[float, Player]]]:
    """A training run's checkpoints (:func:`crossenvs.checkpoints.run_checkpoints`) as players, each with its
    place on the x axis; AlphaZero snapshots play with ``simulations`` per move."""
    from ..players import ModelPlayer

    run = ck.run_checkpoints(run_dir)
    if run.kind == ck.ALPHAZERO:
        from ..az.player import AlphaZeroPlayer

        players = [AlphaZeroPlayer(path, simulations) for _, path in run.points]
        for (_, path), player in zip(run.points, players):
            player.name = path.stem
        document = players[0].document
        game = make_game(document["game"], **document["options"])
        return game, run.x_label, [(x, player) for (x, _), player in zip(run.points, players)]
    players = [(x, ModelPlayer(ck.load_sb3(path, run.game), name=f"step_{x:.0f}")) for x, path in run.points]
    return run.game, run.x_label, players


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """Rate every checkpoint of a run against baselines; plot rating against training step or time."""
    from ..eval.arena import round_robin
    from ..eval.plots import plot_ratings
    from ..eval.ratings import bradley_terry
    from ..players import make_player

    game, x_label, checkpoints = checkpoint_players(args.run_dir, args.simulations)
    if args.ladder is not None:
        return ladder_plot(args, out, game, x_label, checkpoints)
    specs = args.baselines or ["random", "greedy", f"mcts:{args.mcts}"]
    baselines = [make_player(spec, game=game) for spec in specs]
    records = round_robin(game, baselines, args.games, seed=args.seed)  # the baselines meet once
    for _, player in checkpoints:
        for index, baseline in enumerate(baselines):
            records += round_robin(game, [player, baseline], args.games, seed=(args.seed + 1 + index) % (MAX_SEED + 1))
    names = [player.name for _, player in checkpoints] + [b.name for b in baselines]
    rated = bradley_terry(records, names)
    xs = [x for x, _ in checkpoints]
    references = [
        (rated[len(xs) + offset], baseline.name, {"linestyle": "--", "color": f"C{offset + 1}"})
        for offset, baseline in enumerate(baselines)
    ]
    title = f"{game.name} {game.options or ''}: rating against {x_label.split(' of ')[0]}"
    plot_ratings(args.out, xs, rated[: len(xs)], references, x_label, "rating (Bradley-Terry, Elo scale)", title)
    for name, rating in zip(names, rated):
        out.write(f"{name:<24} {rating:7.0f}\n")
    out.write(f"wrote {args.out}\n")


def ladder_plot(
    args: argparse.Namespace, out: TextIO, game: Game, x_label: str, checkpoints: list[tuple[float, Player]]
) -> None:
    """rating-plot --ladder: each checkpoint rated on the game's fixed-anchor ladder (``--games`` games at most)."""
    from ..eval.ladder import rate
    from ..eval.plots import plot_ratings

    ladder = chosen_ladder(game, args.ladder)
    fits = []
    for _, player in checkpoints:
        fits.append(rate(game, player, ladder, max_games=args.games, batch=min(10, args.games), seed=args.seed).fit)
        out.write(f"{player.name:<24} {fits[-1].rating:7.0f}  (95% {fits[-1].interval_text()})\n")
    lows = [fit.rating - fit.low if math.isfinite(fit.low) else 0.0 for fit in fits]
    highs = [fit.high - fit.rating if math.isfinite(fit.high) else 0.0 for fit in fits]
    top = max(fit.rating for fit in fits)
    references = [
        (rung.rating, rung.spec, {"linestyle": ":", "color": f"C{offset % 9 + 1}", "linewidth": 0.8})
        for offset, rung in enumerate(r for r in ladder.rungs if r.rating <= top + 200)
    ]
    plot_ratings(
        args.out, [x for x, _ in checkpoints], [fit.rating for fit in fits], references, x_label,
        "ladder rating (Elo, random = 0)", f"{game.name} {game.options or ''}: on the fixed-anchor ladder",
        errors=[lows, highs], legend={"fontsize": "small", "ncol": 2},
    )  # fmt: skip
    out.write(f"wrote {args.out}\n")


COMMAND = Command(
    "rating-plot",
    "rating of a run's checkpoints against training step or time",
    "crossenvs rating-plot runs/crisscross-20261121-113000 --out ratings.png",
    arguments,
    run,
    check,
)
