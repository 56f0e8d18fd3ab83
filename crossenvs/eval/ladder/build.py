"""Building a ladder: which rungs meet, how often, and their ratings with random pinned at 0.

The games are played by :func:`crossenvs.eval.ladder.play_pairs` (across processes); the fit and
its intervals are :func:`crossenvs.eval.ratings.ratings`' (an arena's, with the anchor held at 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from crossenvs.support.checks import check_count, check_seed
from crossenvs.support.errors import CrossenvsError, InvalidOptionError

from ...core.game import Game
from ...players import make_player
from ..ratings import GameRecord, bradley_terry, interval_text, ratings
from .checks import consistency, widen_rungs
from .files import ANCHOR, OPENING_PLIES, Ladder, LadderError, Rung, agent_digest
from .pool import default_workers, play_pairs

#: the rungs of the shipped ladders, roughly weakest first (the order only decides who meets whom)
MCTS_RUNGS = ("random", "greedy", "mcts:8", "mcts:32", "mcts:128", "mcts:500", "mcts:2000")
PRETRAINED_RUNGS = ("pretrained:0", "pretrained:16", "pretrained:64", "pretrained:256")
#: perfect play on top, where a game has it (Connect Four 7x6), reached through perfect players that play a share of
#: their moves at random: ``perfect`` alone would win every game it plays, and a rung needs games that go both ways
PERFECT_RUNGS = ("perfect:10", "perfect:3", "perfect")
#: MCTS rungs between the usual ones where strength climbs steeply with simulations: on Hex 11x11, with random
#: rollouts on 121 cells, MCTS-500 won 99% against MCTS-128 and the ladder without these rated it 925 .. 2626
DENSER_MCTS_RUNGS = {"hex": ("mcts:64", "mcts:250", "mcts:1000")}
#: rungs between the top MCTS rung and an agent that sweeps it: the agent's network alone with a share of its moves
#: played at random. On Hex 11x11 the network alone (pretrained:0) won 400 of 400 against MCTS-1000 and MCTS-2000; with
#: 30% of its moves at random it scored 75% against MCTS-2000, with 15% it scored 15% against the network alone
BRIDGE_RUNGS = {"hex": ("noisy:30:pretrained:0", "noisy:15:pretrained:0")}


def default_rungs(game: Game) -> list[str]:
    """The MCTS rungs, the pretrained agent's when the game at these options has one, and perfect play's where
    the game has it."""
    from ... import agents  # the same layer; agents need torch only when a player is made

    rungs = sorted(MCTS_RUNGS + DENSER_MCTS_RUNGS.get(game.name, ()), key=rung_order)
    try:
        agents.path(game.name, **game.options)
        rungs += BRIDGE_RUNGS.get(game.name, ()) + PRETRAINED_RUNGS
    except InvalidOptionError:
        pass
    try:
        make_player("perfect", game=game)
        rungs += PERFECT_RUNGS
    except InvalidOptionError:
        pass
    return rungs


def rung_order(spec: str) -> tuple[int, int]:
    """Where a default rung stands in a list weakest first: random, greedy, MCTS by simulations, the bridge rungs
    and perfect play with the most random moves first, the pretrained agent by simulations (a guess; the build
    corrects it)."""
    kind, _, argument = spec.partition(":")
    count = argument.partition(":")[0]
    rank = _KINDS_IN_ORDER.index(kind) if kind in _KINDS_IN_ORDER else len(_KINDS_IN_ORDER)
    number = int(count) if count.isdigit() else 0
    return rank, -number if kind in _PERCENT_AT_RANDOM else number


_KINDS_IN_ORDER = ("random", "greedy", "mcts", "noisy", "pretrained", "perfect")
#: the kinds whose number is a share of moves played at random: more is weaker
_PERCENT_AT_RANDOM = ("noisy", "perfect")


def neighbour_pairs(count: int, reach: int) -> list[tuple[int, int]]:
    """Rung pairs that meet: each rung with the next ``reach`` rungs above it."""
    return [(i, j) for i in range(count) for j in range(i + 1, min(count, i + reach + 1))]


def anchored_ratings(records: Sequence[GameRecord], names: Sequence[str], anchor: str = ANCHOR) -> list[Rung]:
    """The rungs' ratings with ``anchor`` held at 0, and each one's 95% likelihood-ratio interval (its gap to
    the anchor), weakest first: :func:`~crossenvs.eval.ratings.ratings`, the fit of every arena.

    A rung needs a finite rating: one that won (or lost) every game against the others is refused
    (``LadderError``), with what would rate it.
    """
    if anchor not in names:
        raise InvalidOptionError(f"a ladder needs its anchor {anchor!r} among its rungs, got {list(names)}")
    table = ratings(records, names, fixed={anchor: 0.0})
    unbounded = [rating for rating in table if not (math.isfinite(rating.low) and math.isfinite(rating.high))]
    if unbounded:
        raise LadderError(
            "rungs without a finite rating: "
            + ", ".join(f"{r.name} ({interval_text(r)}, {r.score:.0%} of {r.games} games)" for r in unbounded)
            + ": a rung that wins (or loses) every game it plays needs a stronger (weaker) neighbour among "
            "the rungs, or more games per pair"
        )
    rungs = [Rung(r.name, r.rating, r.low, r.high, r.games) for r in table]
    return sorted(rungs, key=lambda rung: rung.rating)


def build_ladder(
    game: Game,
    specs: Sequence[str],
    games_per_pair: int,
    *,
    reach: int = 2,
    seed: int = 0,
    workers: int = 1,
    opening_plies: int = OPENING_PLIES,
    repair_rounds: int = 2,
    command: str = "",
    made: str = "",
    progress: Callable[[str], None] | None = None,
    journal: str | Path | None = None,
) -> Ladder:
    """Play each rung against its ``reach`` nearest rungs (``specs`` listed weakest first) and rate them all.

    Every game opens with ``opening_plies`` random decisions, shared by the two games of a seat swap.
    Only neighbours meet: a far mismatch is a sweep that says little, while games between rungs of
    similar strength pin the gaps down. The listed order is a guess (greedy is strong in one game and
    weak in another), so after the first games the rungs are sorted by their ratings and the pairs of
    new neighbours play too, for up to ``repair_rounds`` rounds: a rung that swept everything it met
    would otherwise be rated by the fit's prior alone. ``specs`` must include the anchor, ``random``.
    Where the pairs' scores scatter about the fit more than chance allows, every rung's interval is widened
    for it (``crossenvs.eval.ladder.checks.widen_rungs``).

    ``journal``: where each finished job's games are kept (:func:`~crossenvs.eval.ladder.play_pairs`); the
    same build run again reads them back instead of playing them, so a build may span several sessions.
    """
    specs = list(dict.fromkeys(specs))
    _check_rungs(game, specs)
    games_per_pair = check_count(games_per_pair, "games per pair", 2, 1_000_000)
    seed = check_seed(seed, "ladder seed") or 0
    pairs = set(neighbour_pairs(len(specs), reach))
    records = play_pairs(game, specs, sorted(pairs), games_per_pair, seed, workers, progress, opening_plies, journal)
    for round_index in range(1, repair_rounds + 1):  # the listed order was a guess: meet the real neighbours
        point = bradley_terry(records, specs)
        order = sorted(range(len(specs)), key=lambda k: point[k])
        wanted = {tuple(sorted((order[i], order[j]))) for i, j in neighbour_pairs(len(specs), reach)} - pairs
        if not wanted:
            break
        pairs |= wanted
        round_seed = (seed + 1_000_033 * round_index) % 2**62
        records += play_pairs(
            game, specs, sorted(wanted), games_per_pair, round_seed, workers, progress, opening_plies, journal
        )
    rungs, widened_by = widen_rungs(records, anchored_ratings(records, specs))
    extra: dict[str, Any] = {
        "reach": reach,
        "opening_plies": opening_plies,
        "pairs": [[specs[i], specs[j]] for i, j in sorted(pairs)],
        "intervals_widened_by": round(widened_by, 3),  # the root of the fit's dispersion, when above 1
    }
    if any(spec.startswith("pretrained") for spec in specs):
        extra["agent_sha256"] = agent_digest(game)
    extra["consistency"] = consistency(records, rungs)  # how well the rungs agree: the file says, not hides
    return Ladder(game.name, dict(game.options), tuple(rungs), command, made, games_per_pair, extra)


def _check_rungs(game: Game, specs: list[str]) -> None:
    """At least two rungs, the anchor among them, each made once before any game is played: a bad spec costs nothing."""
    if len(specs) < 2 or ANCHOR not in specs:
        raise InvalidOptionError(f"a ladder needs at least two rungs, its anchor {ANCHOR!r} among them, got {specs}")
    for spec in specs:
        try:
            make_player(spec, game=game)
        except CrossenvsError as exc:
            raise InvalidOptionError(f"ladder rung {spec!r}: {exc}") from None


def made_stamp() -> str:
    """When and on what a ladder was made, for its file: the date, the processor, the cores."""
    import datetime
    import platform

    return f"{datetime.date.today().isoformat()}, {platform.machine()} with {default_workers()} cores"
