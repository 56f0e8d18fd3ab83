"""Rating a player on a ladder: games against the rung nearest its estimate, until the interval is narrow.

The rungs' ratings are held fixed, so the answer is on the ladder's scale whatever else is in the
run; the fit is :func:`crossenvs.eval.ratings.fit_rating`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from crossenvs.support.checks import check_count, check_seed
from crossenvs.support.errors import InvalidOptionError

from ...core.game import Game
from ...players import Player, make_player
from ..arena import round_robin
from ..ratings import Z95, LadderFit, fit_rating
from .files import OPENING_PLIES, Ladder, Rung, check_agent

#: the one procedure's defaults, for ``crossenvs rate``, the trainers' ladder line and ``make train`` alike: stop once
#: the 95% interval is this narrow (Elo) or this many games are played, refitting after each batch of games
WIDTH = 100.0
MAX_GAMES = 100
BATCH = 10


def rung_sd(rung: Rung) -> float:
    """A rung's standard error: its 95% interval from the ladder's build over 2 x 1.96 (the anchor's: 0)."""
    return max(0.0, rung.high - rung.low) / (2 * Z95) if math.isfinite(rung.high - rung.low) else 0.0


def family(spec: str) -> str:
    """The kind of player a rung is (``mcts``, ``pretrained``, ``random``...): players of one kind are alike, so a
    player that is intransitive against the ladder is most likely so between kinds."""
    return spec.partition(":")[0]


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
        text = (
            f"{name}: {self.fit.rating_text()} on the {self.ladder.game} ladder (95% interval {self.fit.interval_text()}), "
            f"from {self.fit.games} games: {rungs}"
        )
        misfit = self.misfit()
        return f"{text}\n{misfit}" if misfit else text

    def by_family(self) -> dict[str, LadderFit]:
        """The player rated against each kind of rung on its own."""
        fits = {}
        for kind in dict.fromkeys(family(spec) for spec in self.played):
            specs = [spec for spec in self.played if family(spec) == kind]
            fits[kind] = fit_rating(
                [self.ladder.rating_of(spec) for spec in specs for _ in self.played[spec]],
                [score for spec in specs for score in self.played[spec]],
            )
        return fits

    def misfit(self) -> str:
        """One plain line where the player fits the ladder badly: its results against two kinds of rung say
        ratings further apart than chance allows (networks and MCTS players need not be transitive); else ''."""
        fits = {kind: fit for kind, fit in self.by_family().items() if math.isfinite(fit.width) and fit.games >= 10}
        if len(fits) < 2:
            return ""
        low, high = min(fits.values(), key=lambda fit: fit.rating), max(fits.values(), key=lambda fit: fit.rating)
        standard_errors = math.hypot(low.width, high.width) / (2 * Z95)  # of the difference, from the 95% intervals
        if high.rating - low.rating <= Z95 * standard_errors:
            return ""
        said = ", ".join(f"against the {kind} rungs {fit.rating:.0f}" for kind, fit in fits.items())
        return (
            f"fits the ladder badly: {said} (further apart than chance allows; the interval above is widened "
            f"for it, {self.fit.dispersion:.1f}x the variance)"
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


#: a batch of games against a rung: (rung, games, games played so far) -> the player's scores
PlayBatch = Callable[[Rung, int, int], list[float]]


def rate_with(
    ladder: Ladder,
    play: PlayBatch,
    *,
    width: float = WIDTH,
    max_games: int = MAX_GAMES,
    batch: int = BATCH,
    progress: Callable[[LadderFit, str], None] | None = None,
) -> LadderRating:
    """The procedure itself, whoever plays the games: ``batch`` games at a time against the rung nearest the
    estimate, refit (rungs' uncertainty and overdispersion in the interval), until the 95% interval is at most
    ``width`` Elo or ``max_games`` are played. :func:`rate` plays real games; the calibration tests, simulated ones.
    """
    if not math.isfinite(width) or width <= 0:
        raise InvalidOptionError(f"the interval width must be a positive number of Elo points, got {width!r}")
    max_games = check_count(max_games, "game budget", 2, 1_000_000)
    batch = check_count(batch, "games per batch", 2, max_games)
    by_spec = {rung.spec: rung for rung in ladder.rungs}
    played: dict[str, list[float]] = {}
    fit: LadderFit | None = None
    while fit is None or (fit.width > width and fit.games < max_games):
        rung = next_rung(ladder, fit)
        so_far = fit.games if fit else 0
        played.setdefault(rung.spec, []).extend(play(rung, min(batch, max_games - so_far), so_far))
        specs = [spec for spec, scores in played.items() for _ in scores]
        fit = fit_rating(
            [by_spec[spec].rating for spec in specs],
            [s for scores in played.values() for s in scores],
            [rung_sd(by_spec[spec]) for spec in specs],
        )
        if progress:
            progress(fit, rung.spec)
    return LadderRating(fit, ladder, played)


def rate(
    game: Game,
    player: Player,
    ladder: Ladder,
    *,
    width: float = WIDTH,
    max_games: int = MAX_GAMES,
    batch: int = BATCH,
    seed: int = 0,
    progress: Callable[[LadderFit, str], None] | None = None,
) -> LadderRating:
    """Rate ``player`` on ``ladder`` (:func:`rate_with`), playing real games, seats alternating, under the
    ladder's own conditions (its random opening plies); the rungs' players are made once and seeded from ``seed``.
    """
    seed = check_seed(seed, "rating seed") or 0
    check_agent(ladder, game)
    opening_plies = int(ladder.extra.get("opening_plies", OPENING_PLIES))  # the ladder's own conditions
    rung_players: dict[str, Player] = {}

    def play(rung: Rung, games: int, so_far: int) -> list[float]:
        if rung.spec not in rung_players:
            rung_players[rung.spec] = make_player(rung.spec, game=game, seed=seed + 7919 * len(rung_players))
            rung_players[rung.spec].name = f"rung {rung.spec}"
        batch_seed = (seed * 1_000_003 + so_far) % 2**62
        records = round_robin(game, [player, rung_players[rung.spec]], games, batch_seed, opening_plies)
        return [r.score_first if r.first == player.name else 1.0 - r.score_first for r in records]

    return rate_with(ladder, play, width=width, max_games=max_games, batch=batch, progress=progress)
