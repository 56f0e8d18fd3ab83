"""``crossenvs rating-plot``: every checkpoint of a training run rated, plotted against training step or time."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from crossenvs.support.checks import MAX_SEED
from crossenvs.support.command_args import check_int_range, check_output_file
from crossenvs.support.errors import UsageError
from crossenvs.support.extras import check_installed

from .. import checkpoints as ck
from ..core.game import Game
from ..core.registry import make_game
from ..players import Player
from .common import MAX_GAMES, SHIPPED_LADDER, Command, chosen_ladder

if TYPE_CHECKING:
    from ..eval.ladder import Ladder

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
        help="rate each checkpoint on a fixed-anchor ladder, --games games at most: the same scale in every run "
        "(the default where the game has a shipped ladder; FILE: a ladder of your own)",
    )
    parser.add_argument(
        "--relative",
        action="store_true",
        help="rate the checkpoints against the baselines and each other, their mean at 1500, even where a ladder "
        "ships (the default where none does, or where --baselines is given)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the games")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.games, "--games", 1, MAX_GAMES)
    check_int_range(args.mcts, "--mcts", 1)
    check_int_range(args.simulations, "--simulations", 0)
    check_installed("crossenvs rating-plot", {"matplotlib": "eval"})
    check_output_file(args.out, "--out", PLOT_SUFFIXES)
    if args.relative and args.ladder is not None:
        raise UsageError("rating-plot: --ladder and --relative are two scales; give one of them")
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
    """Rate every checkpoint of a run on the game's ladder (where one ships) or against baselines; plot
    rating against training step or time."""
    from crossenvs.support.waits import Wait

    from ..eval.ladder.scale import shipped_ladder

    with Wait(f"loading the checkpoints of {args.run_dir} (torch first)"):
        game, x_label, checkpoints = checkpoint_players(args.run_dir, args.simulations)
    if args.ladder is not None:
        ladder = chosen_ladder(game, args.ladder)
    else:
        ladder = None if args.relative or args.baselines else shipped_ladder(game)
    if ladder is not None:
        return ladder_plot(args, out, game, x_label, checkpoints, ladder)
    return relative_plot(args, out, game, x_label, checkpoints)


def relative_plot(
    args: argparse.Namespace, out: TextIO, game: Game, x_label: str, checkpoints: list[tuple[float, Player]]
) -> None:
    """The checkpoints and the baselines rated together, their mean at 1500: each with its 95% interval, a
    checkpoint that won (lost) every game a bound, drawn as an open marker at it, never a made-up point."""
    from crossenvs.support.waits import Wait

    from ..eval.arena import round_robin
    from ..eval.plots import plot_ratings
    from ..eval.ratings import interval_text, rating_text, ratings
    from ..players import make_player

    specs = args.baselines or ["random", "greedy", f"mcts:{args.mcts}"]
    baselines = [make_player(spec, game=game) for spec in specs]
    pairings = 1 + len(checkpoints) * len(baselines)
    with Wait(
        f"rating {len(checkpoints)} checkpoints against {', '.join(specs)}", total=pairings, unit="pairings"
    ) as wait:
        records = round_robin(game, baselines, args.games, seed=args.seed)  # the baselines meet once
        wait.advance()
        for _, player in checkpoints:
            for index, baseline in enumerate(baselines):
                seed = (args.seed + 1 + index) % (MAX_SEED + 1)
                records += round_robin(game, [player, baseline], args.games, seed=seed)
                wait.advance()
    names = [player.name for _, player in checkpoints] + [b.name for b in baselines]
    by_name = {rating.name: rating for rating in ratings(records, names)}
    rated = [by_name[name] for name in names]
    out.write(f"(ratings relative to these players, mean 1500: {relative_reason(args, game)})\n")
    for rating in rated:
        out.write(f"{rating.name:<24} {rating_text(rating):>7}  (95% {interval_text(rating)})\n")
    points = rated[: len(checkpoints)]
    references = [
        (rating.rating, rating.name, {"linestyle": "--", "color": f"C{offset + 1}"})
        for offset, rating in enumerate(rated[len(checkpoints) :])
        if math.isfinite(rating.rating)
    ]
    title = f"{game.name} {game.options or ''}: rating against {x_label.split(' of ')[0]}"
    plot_ratings(
        args.out, [x for x, _ in checkpoints], [rating.rating for rating in points], references, x_label,
        "rating (Bradley-Terry, Elo scale, mean 1500)", title, errors=error_bars(points),
        bounds=[bound_kind(rating.low, rating.high) for rating in points],
    )  # fmt: skip
    out.write(f"wrote {args.out}\n")


def relative_reason(args: argparse.Namespace, game: Game) -> str:
    """Why the plot is on a relative scale, for the line above its table."""
    if args.relative:
        return "--relative"
    if args.baselines:
        return "--baselines given; without them a game's shipped ladder rates the checkpoints"
    return f"{game!r} has no ladder"


def bound_kind(low: float, high: float) -> str:
    """``"at least"`` for a rating that is only a lower bound (it won every game), ``"at most"``, or ``""``."""
    if math.isinf(low) == math.isinf(high):
        return ""
    return "at least" if math.isinf(high) else "at most"


def error_bars(fits) -> list[list[float]]:
    """[below, above] each rating to its interval's ends; 0 on a side without an end (a bound's open side)."""
    lows = [fit.rating - fit.low if math.isfinite(fit.low) else 0.0 for fit in fits]
    highs = [fit.high - fit.rating if math.isfinite(fit.high) else 0.0 for fit in fits]
    return [lows, highs]


def ladder_plot(
    args: argparse.Namespace,
    out: TextIO,
    game: Game,
    x_label: str,
    checkpoints: list[tuple[float, Player]],
    ladder: Ladder,
) -> None:
    """rating-plot --ladder: each checkpoint rated on the game's fixed-anchor ladder (``--games`` games at most)."""
    from crossenvs.support.waits import Wait

    from ..eval.ladder import rate
    from ..eval.plots import plot_ratings

    out.write(
        f"(ratings on the {ladder.game} ladder's scale, random = 0: comparable with crossenvs rate and across runs)\n"
    )
    fits = []
    with Wait(f"rating {len(checkpoints)} checkpoints on the {ladder.game} ladder", total=len(checkpoints),
              unit="checkpoints") as wait:  # fmt: skip
        for _, player in checkpoints:
            fit = rate(game, player, ladder, max_games=args.games, batch=min(10, args.games), seed=args.seed).fit
            fits.append(fit)
            out.write(f"{player.name:<24} {fit.rating_text():>7}  (95% {fit.interval_text()})\n")
            wait.advance()
    top = max(fit.rating for fit in fits)
    references = [
        (rung.rating, rung.spec, {"linestyle": ":", "color": f"C{offset % 9 + 1}", "linewidth": 0.8})
        for offset, rung in enumerate(r for r in ladder.rungs if r.rating <= top + 200)
    ]
    plot_ratings(
        args.out, [x for x, _ in checkpoints], [fit.rating for fit in fits], references, x_label,
        "ladder rating (Elo, random = 0)", f"{game.name} {game.options or ''}: on the fixed-anchor ladder",
        errors=error_bars(fits), bounds=[bound_kind(fit.low, fit.high) for fit in fits],
        legend={"fontsize": "small", "ncol": 2},
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
