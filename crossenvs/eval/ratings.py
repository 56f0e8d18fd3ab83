"""Ratings from game results: the statistics shared by arenas, ladders and ``crossenvs rate``, in one place.

One scale (Elo: 400 points are odds of 10 to 1; a draw counts half a win for each side) and one
fit, :func:`ratings`: Bradley-Terry ratings by maximum likelihood, with some players *fixed* at
given ratings (a ladder's rungs, as BayesElo and Ordo anchor), so every other rating and its
interval come out on the rungs' scale directly. Without fixed players the ratings are relative
to the players' mean, 1500. Intervals are likelihood-ratio ones (the profile likelihood: the other
players re-fitted at every trial rating). A player who won every game it played (or lost every
one, or a group that did so together) has no finite rating: it gets an exact one-sided bound and
is left out of the fit, so it never moves the others. Rating a player against a ladder
(:func:`fit_rating`) is the same fit with one free player.

:func:`bradley_terry` is a quick point estimate kept finite by a small prior: an order of players
(which ladder rungs are neighbours) and a plot, not a rating to report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from crossenvs.support.errors import InvalidOptionError

#: the Elo scale: 400 points are odds of 10 to 1
ELO = 400.0 / math.log(10.0)
#: chi-square(1) at 95%, halved: the drop in log-likelihood that bounds a likelihood-ratio interval
LR_DROP = 1.920729
#: the probability of a clean sweep at a one-sided bound: 5%, the bound is a 95% one
SWEEP_LEVEL = 0.05


@dataclass(frozen=True)
class GameRecord:
    """One game: who sat first and second, and the first seat's score (1 win, 0.5 draw, 0 loss)."""

    first: str
    second: str
    score_first: float
    plies: int
    seed: int


def bradley_terry(records: Sequence[GameRecord], names: Sequence[str], iterations: int = 500) -> np.ndarray:
    """Quick Elo-scale point ratings (mean 1500) maximising the Bradley-Terry likelihood (MM algorithm).

    A small prior (one draw against a virtual average player) keeps them finite for a player who
    won or lost every game, so they always order the players: what a ladder's build needs to find
    neighbours, and a plot. Reported ratings come from :func:`ratings`, which has no prior.
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


@dataclass(frozen=True)
class Rating:
    """A player's rating and 95% interval.

    ``rating`` is the maximum-likelihood rating; for a player with only a one-sided bound (it won,
    or lost, every game against the rated players) it is that bound, and ``high`` (or ``low``) is
    infinite; ``nan`` where nothing rates the player. ``fixed``: a ladder rung held at its rating.
    """

    name: str
    rating: float
    low: float  # -inf or inf where only one side is bounded
    high: float
    games: int
    score: float  # points per game
    fixed: bool = False

    @property
    def one_sided(self) -> bool:
        return math.isinf(self.low) != math.isinf(self.high)


def _tally(records: Sequence[GameRecord], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``points[i, j]``: what player i scored against player j, over ``games[i, j]`` games."""
    index = {name: i for i, name in enumerate(names)}
    unknown = {r.first for r in records} | {r.second for r in records}
    unknown -= set(index)
    if unknown:
        raise InvalidOptionError(f"games of players not among the names to rate: {sorted(unknown)}")
    n = len(names)
    points, games = np.zeros((n, n)), np.zeros((n, n))
    for record in records:
        i, j = index[record.first], index[record.second]
        points[i, j] += record.score_first
        points[j, i] += 1.0 - record.score_first
        games[i, j] += 1
        games[j, i] += 1
    return points, games


def _log_likelihood(points: np.ndarray, ratings: np.ndarray) -> float:
    gaps = (ratings[:, None] - ratings[None, :]) / ELO
    return float(-(points * np.logaddexp(0.0, -gaps)).sum())


def _maximise(
    points: np.ndarray, games: np.ndarray, start: np.ndarray, pinned: Mapping[int, float], total: float | None
) -> tuple[np.ndarray, float]:
    """The ratings of greatest likelihood with those of ``pinned`` held (index -> rating) and, unless
    ``total`` is None, the ratings summing to ``total`` (a relative scale's mean); Newton's method.

    Every player here must have a finite maximum (see :func:`_groups`). ``start`` need not meet the
    constraints (it is moved onto them first), and a near one makes few steps.
    """
    ratings = start.astype(np.float64)
    held = list(pinned)
    ratings[held] = [pinned[i] for i in held]
    free = [i for i in range(len(ratings)) if i not in pinned]
    if total is not None and free:
        ratings[free] += (total - ratings.sum()) / len(free)
    # the directions the constraints leave free: each free player alone, or (with a total) against the last
    basis = np.zeros((len(ratings), len(free)))
    basis[free, np.arange(len(free))] = 1.0
    if total is not None and free:
        basis[free[-1]] = -1.0
        basis = basis[:, :-1]
    current = _log_likelihood(points, ratings)
    if basis.shape[1] == 0:
        return ratings, current
    for _ in range(200):
        gaps = (ratings[:, None] - ratings[None, :]) / ELO
        p = 1.0 / (1.0 + np.exp(-gaps))
        gradient = (points - games * p).sum(axis=1) / ELO
        weight = games * p * (1.0 - p)
        curvature = (np.diag(weight.sum(axis=1)) - weight) / ELO**2  # minus the Hessian
        reduced = basis.T @ curvature @ basis
        try:
            step = basis @ np.linalg.solve(reduced, basis.T @ gradient)
        except np.linalg.LinAlgError:  # flat where far from the top: a step up the gradient instead
            step = basis @ (basis.T @ gradient)
        step *= min(1.0, 800.0 / max(1e-300, float(np.abs(step).max())))  # far from the top, a bounded step
        scale, trial = 1.0, current
        while scale > 1e-9:
            trial = _log_likelihood(points, ratings + scale * step)
            if trial >= current - 1e-12:
                break
            scale /= 2
        ratings, current = ratings + scale * step, max(current, trial)
        if float(np.abs(scale * step).max()) < 1e-7:
            break
    return ratings, current


def _reach(beats: np.ndarray) -> np.ndarray:
    """``reach[i, j]``: a chain of players, each scoring against the next, leads from i to j (i to i too)."""
    reach = beats | np.eye(len(beats), dtype=bool)
    for k in range(len(beats)):  # Warshall's transitive closure
        reach |= reach[:, [k]] & reach[[k], :]
    return reach


def _groups(points: np.ndarray, games: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Each player's group: 0 the *core*, rated with finite ratings; 1 above it (scored against it, and it
    never against them: unbounded above); -1 below it; 2 neither (no games linking it to the core).

    The maximum likelihood is finite exactly for the players that lie on a cycle of "scored against"
    with the fixed players (all fixed players count as one, their ratings being given). Without fixed
    players, the core is the largest such group (ties: the one with the most games among its
    players, then the weakest: a scale anchors at its bottom, as a ladder does at random).
    """
    beats = points > 0
    beats[np.ix_(fixed, fixed)] = True  # the fixed players count as one
    reach = _reach(beats)
    together = reach & reach.T
    if fixed.any():
        core = together[np.flatnonzero(fixed)[0]]
    else:
        groups = {tuple(np.flatnonzero(row)) for row in together}
        scored = points.sum(axis=1)

        def size(group: tuple[int, ...]) -> tuple[float, float, float]:
            members = list(group)
            return (len(members), games[np.ix_(members, members)].sum(), -scored[members].sum())

        core = np.zeros(len(points), dtype=bool)
        core[list(max(groups, key=size))] = True
    to_core, from_core = reach[:, core].any(axis=1), reach[core].any(axis=0)
    return np.where(core, 0, np.where(to_core & ~from_core, 1, np.where(from_core & ~to_core, -1, 2)))


def _sweep_bound(opponents: np.ndarray, won: bool) -> float:
    """The rating at which all these games won (lost) have probability :data:`SWEEP_LEVEL`: a one-sided bound."""
    sign = 1.0 if won else -1.0

    def excess(rating: float) -> float:  # increasing in rating for a sweep won, decreasing for one lost
        gaps = sign * (rating - opponents) / ELO
        return sign * (float(-np.logaddexp(0.0, -gaps).sum()) - math.log(SWEEP_LEVEL))

    return _crossing(excess, float(opponents.max()) + 4000.0, float(opponents.min()) - 4000.0)


def _crossing(function: Callable[[float], float], above: float, below: float) -> float:
    """Where ``function`` falls from above 0 (at ``above``) to 0 or less (at ``below``), by bisection, to 1e-6."""
    for _ in range(200):
        middle = 0.5 * (above + below)
        if function(middle) > 0:
            above = middle
        else:
            below = middle
        if abs(above - below) < 1e-6:
            break
    return 0.5 * (above + below)


def ratings(
    records: Sequence[GameRecord],
    names: Sequence[str],
    fixed: Mapping[str, float] | None = None,
    mean: float = 1500.0,
) -> list[Rating]:
    """Ratings with 95% intervals, best first: with the players of ``fixed`` held at those ratings (a
    ladder's rungs: the rest come out on the ladder's scale), else relative, the rated players' mean at ``mean``.

    * The players that have a finite maximum-likelihood rating (the *core*: see :func:`_groups`)
      get it, and a likelihood-ratio interval: the ratings at which the likelihood, the other free
      players re-fitted, falls by :data:`LR_DROP` (chi-square at 95%).
    * A player who only won (lost) against the core has no finite rating. It is left out of the
      fit, and gets the exact one-sided bound: the rating at which its wins (losses) against the
      core players, at their ratings, have a 5% chance together; for 20 wins out of 20 against one
      player, 317 above it. ``rating`` holds that bound and the other side is infinite.
    * A player with no games linking it to the core is not rated (``nan``, -inf .. inf).
    """
    fixed = dict(fixed or {})
    if not names:
        return []
    missing = set(fixed) - set(names)
    if missing:
        raise InvalidOptionError(f"fixed ratings of players not among the names to rate: {sorted(missing)}")
    n = len(names)
    points, games = _tally(records, names)
    held = np.array([name in fixed for name in names])
    group = _groups(points, games, held)
    core = np.flatnonzero(group == 0)
    sub_points, sub_games = points[np.ix_(core, core)], games[np.ix_(core, core)]
    m = len(core)
    pinned = {k: fixed[names[i]] for k, i in enumerate(core) if held[i]}
    total = None if pinned else mean * m  # without fixed players, the core's mean is the scale
    start = np.array([fixed.get(names[i], mean) for i in core])
    point_core, top = _maximise(sub_points, sub_games, start, pinned, total)
    point = np.full(n, math.nan)
    point[core] = point_core
    low, high = point.copy(), point.copy()
    for k, i in enumerate(core):
        if held[i] or (total is not None and m == 1):
            continue  # its rating is given (or is the scale itself)
        low[i], high[i] = _profile_interval(sub_points, sub_games, point_core, pinned, total, k, top)
    for i in np.flatnonzero(group != 0):
        against = [j for j in core for _ in range(int(games[i, j]))]
        if group[i] == 2 or not against:
            low[i], high[i] = -math.inf, math.inf
            continue
        bound = _sweep_bound(point[against], won=group[i] == 1)
        point[i] = bound
        low[i], high[i] = (bound, math.inf) if group[i] == 1 else (-math.inf, bound)
    table = []
    for i, name in enumerate(names):
        played = float(games[i].sum())
        score = float(points[i].sum()) / played if played else math.nan
        rating = Rating(name, float(point[i]), float(low[i]), float(high[i]), int(played), score, bool(held[i]))
        table.append((int(group[i]), rating))
    order = {1: 0, 0: 1, -1: 2, 2: 3}  # above the core, the core, below it, unrated
    table.sort(key=lambda item: (order[item[0]], -item[1].rating if math.isfinite(item[1].rating) else 0.0))
    return [rating for _, rating in table]


def _profile_interval(
    points: np.ndarray,
    games: np.ndarray,
    best: np.ndarray,
    pinned: Mapping[int, float],
    total: float | None,
    k: int,
    top: float,
) -> tuple[float, float]:
    """Player ``k``'s likelihood-ratio interval: where the profile likelihood (the other free players
    re-fitted) falls :data:`LR_DROP` below ``top``."""
    warm = [best]

    def profile(rating: float) -> float:
        found, likelihood = _maximise(points, games, warm[0], {**pinned, k: rating}, total)
        warm[0] = found
        return likelihood - top + LR_DROP  # > 0 inside the interval (the profile is concave)

    ends = []
    for direction in (-1.0, 1.0):
        warm[0], span = best, 400.0
        while profile(best[k] + direction * span) > 0:  # widen until outside the interval
            if span > 1e5:  # a likelihood this flat bounds nothing on this side
                break
            span *= 2
        else:
            warm[0] = best
            ends.append(_crossing(profile, best[k], best[k] + direction * span))
            continue
        ends.append(direction * math.inf)
    return ends[0], ends[1]


def bounds_text(low: float, high: float) -> str:
    """``1440 .. 1560``, or ``>= 1817`` / ``<= 1183`` where one side is unbounded."""
    if math.isinf(high) and math.isinf(low):
        return "not rated"
    if math.isinf(high):
        return f">= {low:.0f}"
    if math.isinf(low):
        return f"<= {high:.0f}"
    return f"{low:.0f} .. {high:.0f}"


def interval_text(rating: Rating) -> str:
    """``1440 .. 1560``; ``>= 1817`` / ``<= 1183`` for a one-sided bound; ``fixed`` for a ladder rung."""
    return "fixed (rung)" if rating.fixed else bounds_text(rating.low, rating.high)


def rating_text(rating: Rating) -> str:
    """The rating column: ``1500``; ``won all`` / ``lost all`` for a player rated by a one-sided bound only (its
    rating has no point: the bound, in the interval column, may lie below a player it beat), or ``-`` unrated."""
    if math.isnan(rating.rating):
        return "-"
    if rating.one_sided:
        return "won all" if math.isinf(rating.high) else "lost all"
    return f"{rating.rating:.0f}"


# ---------------------------------------------------------------------------------------------
# One player against opponents of fixed ratings


@dataclass(frozen=True)
class LadderFit:
    """A rating on a ladder's scale with its 95% interval (``low`` -inf / ``high`` inf: unbounded side; then
    ``rating`` is the bound, not an estimate). ``dispersion``: how much more the player's results against the
    different rungs scatter than one rating explains (1: no more; the interval was widened by its root)."""

    rating: float
    low: float
    high: float
    games: int
    score: float
    dispersion: float = 1.0

    def interval_text(self) -> str:
        return bounds_text(self.low, self.high)

    def rating_text(self) -> str:
        """``1234``, or the bound ``>= 2210`` of a player who won (lost) every game."""
        return (
            bounds_text(self.low, self.high) if math.isinf(self.low) != math.isinf(self.high) else f"{self.rating:.0f}"
        )

    @property
    def width(self) -> float:
        return self.high - self.low


#: the normal quantile of a two-sided 95% interval
Z95 = 1.959964


def fit_rating(
    opponents: Sequence[float], scores: Sequence[float], rung_sd: Sequence[float] | None = None
) -> LadderFit:
    """The maximum-likelihood rating of a player whose games against fixed-rated opponents scored ``scores``.

    :func:`ratings` with one free player gives the rating and its likelihood-ratio interval (a player who
    won, or lost, every game gets the exact one-sided bound instead: the rating at which that sweep has a
    5% chance; ``rating`` is that bound). That interval assumes the rungs' ratings exact and the player a
    Bradley-Terry one; neither holds, so it is widened by both (:func:`widen`): ``rung_sd``, each game's
    opponent's standard error (a ladder's rung intervals), and the overdispersion of the results rung by rung.
    """
    opponents = np.asarray(opponents, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0 or len(scores) != len(opponents):
        raise InvalidOptionError(f"a rating needs one opponent rating per game, got {len(opponents)} for {len(scores)}")
    rungs = {float(value): f"opponent {k}" for k, value in enumerate(np.unique(opponents))}
    records = [GameRecord("player", rungs[float(o)], float(s), 0, 0) for o, s in zip(opponents, scores)]
    table = ratings(records, ["player", *rungs.values()], fixed={name: value for value, name in rungs.items()})
    fit = next(rating for rating in table if rating.name == "player")
    sd = np.zeros_like(opponents) if rung_sd is None else np.asarray(rung_sd, dtype=np.float64)
    return widen(LadderFit(fit.rating, fit.low, fit.high, fit.games, fit.score), opponents, scores, sd)


def widen(fit: LadderFit, opponents: np.ndarray, scores: np.ndarray, sd: np.ndarray) -> LadderFit:
    """``fit``'s interval widened for what the likelihood leaves out.

    * The rungs' own uncertainty: the rating moves with each rung's rating in proportion to that rung's
      share of the Fisher information, so their variances add, weighted by the squared shares.
    * Overdispersion (a player that fits the ladder badly: networks and MCTS players need not be
      transitive): Pearson's chi-square of the scores rung by rung over its degrees of freedom, when above
      1, scales the likelihood interval's half-widths by its root (quasi-likelihood).
    """
    if math.isnan(fit.rating):
        return fit
    expected = 1.0 / (1.0 + np.exp(-(fit.rating - opponents) / ELO))
    variance = expected * (1.0 - expected)
    values = np.unique(opponents)
    info = np.array([variance[opponents == value].sum() for value in values])
    shares = info / info.sum() if info.sum() > 0 else np.full(len(values), 1.0 / len(values))
    rung_sd = np.array([sd[opponents == value].max() for value in values])
    rung_var = float((shares**2 * rung_sd**2).sum())
    dispersion = 1.0
    if len(values) >= 2 and math.isfinite(fit.low) and math.isfinite(fit.high):
        residual = [
            (scores[opponents == v].sum() - expected[opponents == v].sum()) ** 2 / max(i, 1e-9)
            for v, i in zip(values, info)
        ]
        dispersion = max(1.0, float(sum(residual)) / (len(values) - 1))
    low = fit.rating - math.sqrt(dispersion * (fit.rating - fit.low) ** 2 + Z95**2 * rung_var)
    high = fit.rating + math.sqrt(dispersion * (fit.high - fit.rating) ** 2 + Z95**2 * rung_var)
    if math.isinf(fit.high) != math.isinf(fit.low):  # a sweep: its rating is its bound, which moves with the rungs
        low, high = (low, math.inf) if math.isinf(fit.high) else (-math.inf, high)
        return LadderFit(low if math.isinf(high) else high, low, high, fit.games, fit.score, dispersion)
    return LadderFit(fit.rating, low, high, fit.games, fit.score, dispersion)
