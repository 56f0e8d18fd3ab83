"""Rating a player on a ladder: games against the rung nearest its estimate, until the interval is narrow.

The rungs' ratings are held fixed, so the answer is on the ladder's scale whatever else is in the
run; the fit is :func:`crossenvs.eval.ratings.fit_rating`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...core.checks import check_count, check_seed
from ...core.errors import InvalidOptionError
from ...core.game import Game
from ...players import Player, make_player
from ..arena import round_robin
from ..ratings import LadderFit, fit_rating
from .files import OPENING_PLIES, Ladder, Rung, check_agent


@dataclass
class LadderRating:
    """What :func:`rate` found: the fit and the games behind it, rung by rung."""

    fit: LadderFit
    ladder: Ladder
    played: dict[str, list[float]]  # rung spec -> the player's scores against it

    def summary(self, name: str) -> str:
        rungs = ", ".join(
            f"{spec} ({self.ladder.rating_of(spec):.0f}) {sum(s):g}/{len(s)}" for spec, s in self.played.items()
        )
        return (
            f"{name}: {self.fit.rating_text()} on the {self.ladder.game} ladder (95% interval {self.fit.interval_text()}), "
            f"from {self.fit.games} games: {rungs}"
        )


def next_rung(ladder: Ladder, fit: LadderFit | None) -> Rung:
    """The rung to play next: the one nearest the running estimate (the middle rung before any game).

    A clean sweep's estimate is a bound: the next rung is the nearest one beyond it, so a player
    who beats the top rung keeps meeting it, and its bound rises with every win.
    """
    rungs = sorted(ladder.rungs, key=lambda rung: rung.rating)
    if fit is None:
        return rungs[len(rungs) // 2]
    if math.isinf(fit.high):
        beyond = [rung for rung in rungs if rung.rating > fit.rating]
        return beyond[0] if beyond else rungs[-1]
    if math.isinf(fit.low):
        below = [rung for rung in rungs if rung.rating < fit.rating]
        return below[-1] if below else rungs[0]
    return min(rungs, key=lambda rung: abs(rung.rating - fit.rating))


def rate(
    game: Game,
    player: Player,
    ladder: Ladder,
    *,
    width: float = 100.0,
    max_games: int = 200,
    batch: int = 10,
    seed: int = 0,
    progress: Callable[[LadderFit, str], None] | None = None,
) -> LadderRating:
    """Rate ``player`` on ``ladder``: ``batch`` games at a time (seats alternating) against the rung
    nearest its estimate, until the 95% interval is at most ``width`` Elo or ``max_games`` are played.
    """
    if not math.isfinite(width) or width <= 0:
        raise InvalidOptionError(f"the interval width must be a positive number of Elo points, got {width!r}")
    max_games = check_count(max_games, "game budget", 2, 1_000_000)
    batch = check_count(batch, "games per batch", 2, max_games)
    seed = check_seed(seed, "rating seed") or 0
    check_agent(ladder, game)
    opening_plies = int(ladder.extra.get("opening_plies", OPENING_PLIES))  # the ladder's own conditions
    rung_players: dict[str, Player] = {}
    played: dict[str, list[float]] = {}
    fit: LadderFit | None = None
    while fit is None or (fit.width > width and fit.games < max_games):
        rung = next_rung(ladder, fit)
        if rung.spec not in rung_players:
            rung_players[rung.spec] = make_player(rung.spec, game=game, seed=seed + 7919 * len(rung_players))
            rung_players[rung.spec].name = f"rung {rung.spec}"
        games = min(batch, max_games - (fit.games if fit else 0))
        batch_seed = (seed * 1_000_003 + (fit.games if fit else 0)) % 2**62
        records = round_robin(game, [player, rung_players[rung.spec]], games, batch_seed, opening_plies)
        played.setdefault(rung.spec, []).extend(
            r.score_first if r.first == player.name else 1.0 - r.score_first for r in records
        )
        opponents = [ladder.rating_of(spec) for spec, scores in played.items() for _ in scores]
        fit = fit_rating(opponents, [s for scores in played.values() for s in scores])
        if progress:
            progress(fit, rung.spec)
    return LadderRating(fit, ladder, played)
