"""``crossenvs eval``: a round robin between players, both seats, with ratings: on the game's ladder's scale
(random = 0, as ``crossenvs rate``: the players that are rungs held at their ladder ratings) whenever a
player is one of its rungs, else relative (mean 1500), and the output says which."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from crossenvs.support.command_args import check_int_range, check_output_file
from crossenvs.support.errors import InvalidOptionError, UsageError

from ..core.game import Game
from ..players import player_specs
from .common import MAX_GAMES, SHIPPED_LADDER, Command, chosen_ladder, game_of

#: the most random plies an arena's games may open with (a game longer than that is no opening)
MAX_OPENING_PLIES = 100

if TYPE_CHECKING:
    from ..eval.ladder import Ladder


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", nargs="+", required=True, metavar="SPEC", help=f"two or more of: {player_specs()}")
    parser.add_argument("--games", type=int, default=20, help="games per pair (seats alternate)")
    parser.add_argument(
        "--opening-plies",
        type=int,
        default=0,
        metavar="N",
        help="open every game with N random legal moves, the same for the two games that swap seats, so that "
        "players who always choose alike (AlphaZero agents, the solver) play different games (the ladders use 2)",
    )
    parser.add_argument("--csv", help="write the ratings table as CSV (default: not written)")
    parser.add_argument("--json", help="write ratings and games as JSON (default: not written)")
    parser.add_argument(
        "--ladder",
        nargs="?",
        const=SHIPPED_LADDER,
        metavar="FILE",
        help="insist on a ladder's scale: the game's shipped ladder, or FILE, refusing an arena without one of its "
        "rungs (default: the shipped ladder's scale whenever a player is one of its rungs, e.g. random or "
        "mcts:500, else ratings relative to the players' mean, 1500)",
    )


def check(args: argparse.Namespace) -> None:
    check_int_range(args.games, "--games", 1, MAX_GAMES)
    check_int_range(args.opening_plies, "--opening-plies", 0, MAX_OPENING_PLIES)
    if len(args.players) < 2:
        raise UsageError(f"--players: an arena needs at least two players, got only {args.players[0]}")
    flags = [("--csv", args.csv), ("--json", args.json)]
    outputs = [check_output_file(path, flag).resolve() for flag, path in flags if path]
    if len(outputs) == 2 and outputs[0] == outputs[1]:
        raise UsageError(f"--csv and --json both name {args.csv}; give them different files")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    from ..eval.arena import round_robin, write_results
    from ..eval.ladder import ladder_rungs_among, ratings_on_ladder, shipped_ladder
    from ..eval.ratings import ratings
    from ..players import make_player

    game = game_of(args)
    players = [make_player(spec, game=game) for spec in args.players]
    seen: dict[str, int] = {}
    for player in players:  # two checkpoints called step_1000.zip, or random twice: number them
        seen[player.name] = seen.get(player.name, 0) + 1
        if seen[player.name] > 1:
            player.name = f"{player.name}#{seen[player.name]}"
    specs = {player.name: spec for player, spec in zip(players, args.players)}
    ladder = None if args.ladder is None else chosen_ladder(game, args.ladder)  # a bad file stops it before any game
    if ladder is not None and not ladder_rungs_among(ladder, specs):
        raise InvalidOptionError(
            f"--ladder: none of the players is a rung of the {ladder.game} ladder; add one of "
            f"{', '.join(rung.spec for rung in ladder.rungs)} to --players"
        )
    ladder = ladder or shipped_ladder(game)
    records = round_robin(game, players, args.games, seed=args.seed, opening_plies=args.opening_plies)
    if ladder is not None and ladder_rungs_among(ladder, specs):
        table = ratings_on_ladder(ladder, records, specs)
    else:
        table = ratings(records, [p.name for p in players])
    out.write(scale_line(game, ladder, specs))
    print_table(table, out)
    out.write(repeats_note(records, args.opening_plies))
    for path in filter(None, (args.csv, args.json)):
        write_results(path, table, records)
        out.write(f"wrote {path}\n")


def scale_line(game: Game, ladder: Ladder | None, specs: dict[str, str]) -> str:
    """Which scale the table is on: the ladder's (comparable with ``crossenvs rate`` and across runs), or
    relative to these players, and then why and how it could be the ladder's."""
    from ..eval.ladder import ladder_rungs_among

    pinned = ladder_rungs_among(ladder, specs) if ladder is not None else {}
    if pinned:
        return (
            f"(ratings on the {ladder.game} ladder's scale, random = 0: {len(pinned)} of its rungs held at their "
            "ladder ratings; comparable with crossenvs rate and across runs)\n"
        )
    why = f"{game!r} has no ladder" if ladder is None else f"add random, a rung of the {ladder.game} ladder"
    return f"(ratings relative to these players, mean 1500: {why} to put them on a scale with random = 0)\n"


def print_table(table: list, out: TextIO) -> None:
    """The ratings; a line under the table says how a one-sided bound (a clean sweep) was worked out."""
    from ..eval.ratings import interval_text, rating_text

    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # the eval extra is not installed: plain text
        out.write(f"{'player':<24} {'rating':>7} {'95% interval':>15} {'games':>6} {'score':>7}\n")
        for r in table:
            interval = interval_text(r)
            out.write(f"{r.name:<24} {rating_text(r):>7} {interval:>15} {r.games:>6} {r.score:>7.1%}\n")
        out.write(_sweep_note(table))
        return

    view = Table(title="Round robin (Bradley-Terry ratings, 95% intervals)")
    for column in ("player", "rating", "95% interval", "games", "score"):
        view.add_column(column, justify="left" if column == "player" else "right")
    for r in table:
        view.add_row(r.name, rating_text(r), interval_text(r), str(r.games), f"{r.score:.1%}")
    Console(file=out, width=100).print(view)
    out.write(_sweep_note(table))


def repeats_note(records: list, opening_plies: int) -> str:
    """Pairs whose games look like one game a seat played again: alike in length and result, seat by seat.

    Two players who always choose alike (an AlphaZero agent searches without noise) play the same game
    every time they meet in the same seats, and twenty such games are two games' worth of evidence. The
    records keep no moves, so this says "look like": every game with the same first player, as long and
    ending alike, more than two of them.
    """
    seats: dict[tuple[str, str], set[tuple[float, int]]] = {}
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.first, record.second)
        seats.setdefault(key, set()).add((record.score_first, record.plies))
        counts[key] = counts.get(key, 0) + 1
    alike = sorted({tuple(sorted(key)) for key, kinds in seats.items() if len(kinds) == 1 and counts[key] > 2})
    if not alike:
        return ""
    pairs = ", ".join(f"{a} vs {b}" for a, b in alike)
    remedy = "more --opening-plies" if opening_plies else "--opening-plies 2 (random first moves) varies them"
    return (
        f"(the games of {pairs} look like one game a seat, played again: every game with the same player first "
        f"was as long and ended alike; players who always choose alike repeat their game; {remedy})\n"
    )


def _sweep_note(table: list) -> str:
    """A player who won or lost every game against the rated players has a one-sided bound only: say how."""
    if not any(r.one_sided for r in table):
        return ""
    return (
        "(won all / lost all: the player won or lost every game against the players rated, so its rating has no "
        "point, only one bound (>= / <=): where those results have a 5% chance, which after few games may lie "
        "beyond the players it beat; it is left out of the fit and moves no other rating)\n"
    )


COMMAND = Command(
    "eval",
    "round robin between players, both seats, with ratings",
    "crossenvs eval crisscross --option size=6 --players random greedy mcts:100 --games 20 --csv out.csv",
    arguments,
    run,
    check,
    plays_a_game=True,
)
