"""Ratings from game results: the statistics shared by arenas and ladders, in one place.

Two questions, one scale (Elo: 400 points are odds of 10 to 1; a draw counts half a win for
each side):

* **Players rated together** (an arena, a ladder's rungs): Bradley-Terry strengths fitted by
  maximum likelihood (:func:`bradley_terry`), with intervals from a bootstrap over the games
  (:func:`bootstrap_ratings`). :func:`ratings` is an arena's table: mean 1500, a one-sided bound
  for a clean sweep. A ladder pins its anchor at 0 instead, from the same fit and bootstrap.
* **One player against opponents of fixed ratings** (rating a player on a ladder):
  :func:`fit_rating`, a maximum-likelihood rating with a likelihood-ratio interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import InvalidOptionError

#: the Elo scale: 400 points are odds of 10 to 1
ELO = 400.0 / math.log(10.0)
#: chi-square(1) at 95%, halved: the drop in log-likelihood that bounds a likelihood-ratio interval
LR_DROP = 1.920729


@dataclass(frozen=True)
class GameRecord:
    """One game: who sat first and second, and the first seat's score (1 win, 0.5 draw, 0 loss)."""

    first: str
    second: str
    score_first: float
    plies: int
    seed: int


# ---------------------------------------------------------------------------------------------
# Players rated together


def bradley_terry(records: Sequence[GameRecord], names: Sequence[str], iterations: int = 500) -> np.ndarray:
    """Elo-scale ratings (mean 1500) maximising the Bradley-Terry likelihood (MM algorithm).

    A small prior (one draw against a virtual average player) keeps ratings finite for a player
    who won or lost every game.
    """
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    wins = np.full(n, 0.5)  # the prior's half win
    meetings = np.zeros((n, n))
    for record in records:
        i, j = index[record.first], index[record.second]
        wins[i] += record.score_first
        wins[j] += 1.0 - record.score_first
        meetings[i, j] += 1
        meetings[j, i] += 1
    strength = np.ones(n)
    for _ in range(iterations):
        denominator = (meetings / (strength[:, None] + strength[None, :])).sum(axis=1) + 1.0 / (strength + 1.0)
        strength = wins / denominator
        strength /= np.exp(np.log(strength).mean())
    ratings = 400.0 * np.log10(strength)
    return ratings - ratings.mean() + 1500.0


def bootstrap_ratings(records: Sequence[GameRecord], names: Sequence[str], samples: int, seed: int) -> np.ndarray:
    """``samples`` Bradley-Terry fits (rows; columns in ``names``' order), each of the games resampled with replacement.

    The spread of a player's column is the uncertainty of its rating. Reproducible from ``seed``:
    arenas and ladders draw their resamples the same way, so a seed gives the same intervals in both.
    """
    rng = np.random.default_rng(seed)
    resampled = ([records[k] for k in rng.integers(len(records), size=len(records))] for _ in range(samples))
    return np.array([bradley_terry(sample, names, 200) for sample in resampled])


@dataclass(frozen=True)
class Rating:
    name: str
    rating: float
    low: float  # 95% interval (see :func:`ratings`); -inf or inf where only one side is bounded
    high: float
    games: int
    score: float  # points per game


def ratings(records: Sequence[GameRecord], names: Sequence[str], bootstrap: int = 200, seed: int = 0) -> list[Rating]:
    """Ratings, best first, with 95% intervals.

    Mostly a bootstrap (games resampled with replacement). That says nothing about a player who
    won (or lost) every game: every resample is a clean sweep too, so the interval would have no
    width. Such a player gets an honest one-sided bound instead: the exact binomial bound on its
    score (all ``n`` games won is likelier than 5% only for a score of at least ``0.05 ** (1/n)``),
    as an Elo gap above its opponents' mean rating; the other side is unbounded (``inf``).
    """
    point = bradley_terry(records, names)
    samples = bootstrap_ratings(records, names, bootstrap, seed)
    table = []
    for i, name in enumerate(names):
        played = [r for r in records if name in (r.first, r.second)]
        points = sum(r.score_first if r.first == name else 1.0 - r.score_first for r in played)
        low, high = np.percentile(samples[:, i], [2.5, 97.5])
        if played and points in (0.0, len(played)):
            low, high = _sweep_bound(name, played, names, point, won=points > 0)
        table.append(Rating(name, float(point[i]), float(low), float(high), len(played), points / max(1, len(played))))
    return sorted(table, key=lambda rating: -rating.rating)


def _sweep_bound(
    name: str, played: Sequence[GameRecord], names: Sequence[str], point: np.ndarray, won: bool
) -> tuple[float, float]:
    """The one-sided 95% bound of a player who won (or lost) all its games: see :func:`ratings`."""
    index = {n: i for i, n in enumerate(names)}
    opponents = [record.second if record.first == name else record.first for record in played]
    mean = float(np.mean([point[index[other]] for other in opponents]))
    score = 0.05 ** (1.0 / len(played))
    gap = 400.0 * math.log10(score / (1.0 - score))
    return (mean + gap, math.inf) if won else (-math.inf, mean - gap)


def bounds_text(low: float, high: float) -> str:
    """``1440 .. 1560``, or ``>= 1817`` / ``<= 1183`` where one side is unbounded."""
    if math.isinf(high):
        return f">= {low:.0f}"
    if math.isinf(low):
        return f"<= {high:.0f}"
    return f"{low:.0f} .. {high:.0f}"


def interval_text(rating: Rating) -> str:
    """``1440 .. 1560``, or ``>= 1817`` / ``<= 1183`` for a one-sided bound."""
    return bounds_text(rating.low, rating.high)


# ---------------------------------------------------------------------------------------------
# One player against opponents of fixed ratings


def _win_probability(rating: float | np.ndarray, opponents: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp((opponents - rating) / ELO))


def log_likelihood(rating: float, opponents: np.ndarray, scores: np.ndarray) -> float:
    """Log-likelihood of the scores (1, 0.5, 0 per game) of a player of ``rating`` against fixed opponents."""
    p = np.clip(_win_probability(rating, opponents), 1e-300, 1.0 - 1e-16)
    return float(np.sum(scores * np.log(p) + (1.0 - scores) * np.log1p(-p)))


def _solve(function: Callable[[float], float], low: float, high: float) -> float:
    """The root of an increasing ``function`` in [low, high], by bisection."""
    for _ in range(200):
        middle = 0.5 * (low + high)
        if function(middle) > 0:
            high = middle
        else:
            low = middle
    return 0.5 * (low + high)


@dataclass(frozen=True)
class LadderFit:
    """A rating on a ladder's scale with its 95% interval (``low`` -inf / ``high`` inf: unbounded side)."""

    rating: float
    low: float
    high: float
    games: int
    score: float

    def interval_text(self) -> str:
        return bounds_text(self.low, self.high)

    @property
    def width(self) -> float:
        return self.high - self.low


def fit_rating(opponents: Sequence[float], scores: Sequence[float]) -> LadderFit:
    """The maximum-likelihood rating of a player whose games against fixed-rated opponents scored ``scores``.

    The interval is the likelihood-ratio one. A player who won (or lost) every game has no finite
    estimate; it gets the exact one-sided bound instead: the rating at which a clean sweep has
    probability 5% (and its point value is that bound).
    """
    opponents = np.asarray(opponents, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        raise InvalidOptionError("a rating needs at least one game")
    span = (float(opponents.min()) - 4000.0, float(opponents.max()) + 4000.0)
    total = float(scores.sum())
    if total in (0.0, float(len(scores))):
        return _sweep_fit(opponents, len(scores), won=total > 0, span=span)
    rating = _solve(lambda r: float(np.sum(_win_probability(r, opponents) - scores)), *span)
    top = log_likelihood(rating, opponents, scores)
    low = _solve(lambda r: log_likelihood(r, opponents, scores) - top + LR_DROP, span[0], rating)
    high = _solve(lambda r: top - LR_DROP - log_likelihood(r, opponents, scores), rating, span[1])
    return LadderFit(rating, low, high, len(scores), total / len(scores))


def _sweep_fit(opponents: np.ndarray, games: int, won: bool, span: tuple[float, float]) -> LadderFit:
    """A clean sweep's fit: the rating at which it has probability 5%, as a one-sided bound."""

    def sweep_probability(r: float) -> float:
        p = _win_probability(r, opponents)
        return float(np.sum(np.log(p if won else 1.0 - p)) - math.log(0.05)) * (1 if won else -1)

    bound = _solve(sweep_probability, *span)
    if won:
        return LadderFit(bound, bound, math.inf, games, 1.0)
    return LadderFit(bound, -math.inf, bound, games, 0.0)
