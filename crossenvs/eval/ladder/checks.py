"""Does a ladder agree with itself? The checks a build runs on its own games, and records in the ladder file.

A ladder's rungs are fitted together from the games between neighbours; a rung whose games say another
rating than the fit gives it would rate every player against it wrongly (the shipped Crisscross ladder's
network rungs sat about 200 Elo from what their games against the MCTS rungs said). Two checks:

* **Pairs that depart from the fit**: each pair's score against what the fitted ratings predict, as a
  z-score; those beyond chance (|z| > 1.96) are listed, and Pearson's chi-square over its degrees of
  freedom says how well the whole ladder fits (1: as well as one rating a rung allows).
* **Leave one rung out**: each rung rated from its own games against the others, exactly as ``crossenvs
  rate`` rates a player (:func:`~crossenvs.eval.ratings.fit_rating`, the others held at their ratings, their
  uncertainty counted), must land inside its own shipped interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ratings import ELO, Z95, GameRecord, fit_rating
from .adaptive import rung_sd
from .files import ANCHOR, Rung


@dataclass(frozen=True)
class PairFit:
    """One pair's games against the fit: ``score`` and ``expected`` are the first rung's points per game."""

    first: str
    second: str
    games: int
    score: float
    expected: float

    @property
    def z(self) -> float:
        spread = math.sqrt(self.expected * (1.0 - self.expected) / self.games)
        return (self.score - self.expected) / spread if spread > 0 else 0.0


def pair_fits(records: Sequence[GameRecord], rungs: Sequence[Rung]) -> list[PairFit]:
    """Every pair that met, its score, and the score the rungs' fitted ratings predict."""
    rating = {rung.spec: rung.rating for rung in rungs}
    order = {rung.spec: k for k, rung in enumerate(rungs)}
    totals: dict[tuple[str, str], list[float]] = {}
    for record in records:
        a, b = sorted((record.first, record.second), key=order.__getitem__)
        totals.setdefault((a, b), []).append(record.score_first if record.first == a else 1.0 - record.score_first)
    return [
        PairFit(a, b, len(scores), sum(scores) / len(scores), 1.0 / (1.0 + math.exp(-(rating[a] - rating[b]) / ELO)))
        for (a, b), scores in sorted(totals.items(), key=lambda item: (order[item[0][0]], order[item[0][1]]))
    ]


def leave_one_out(records: Sequence[GameRecord], rungs: Sequence[Rung]) -> dict[str, tuple[float, float, float]]:
    """Each rung but the anchor rated from its games against the others, as ``crossenvs rate`` rates a player:
    spec -> (rating, low, high)."""
    by_spec = {rung.spec: rung for rung in rungs}
    found = {}
    for rung in rungs:
        if rung.spec == ANCHOR:
            continue
        games = [
            (record.second, record.score_first)
            if record.first == rung.spec
            else (record.first, 1.0 - record.score_first)
            for record in records
            if rung.spec in (record.first, record.second)
        ]
        if not games:
            continue
        fit = fit_rating(
            [by_spec[other].rating for other, _ in games],
            [score for _, score in games],
            [rung_sd(by_spec[other]) for other, _ in games],
        )
        found[rung.spec] = (fit.rating, fit.low, fit.high)
    return found


def fit_chi_square(pairs: Sequence[PairFit], rung_count: int) -> tuple[float, int]:
    """Pearson's chi-square of the pairs' scores about the fit, and its degrees of freedom (pairs less the
    ratings fitted); their ratio is the dispersion, 1 when the rungs agree as well as chance allows."""
    return sum(pair.z**2 for pair in pairs), max(1, len(pairs) - (rung_count - 1))


def consistency(records: Sequence[GameRecord], rungs: Sequence[Rung]) -> dict[str, Any]:
    """What a ladder file records of how well its rungs agree: the fit, the departing pairs, leave-one-out."""
    pairs = pair_fits(records, rungs)
    chi_square, freedom = fit_chi_square(pairs, len(rungs))
    by_spec = {rung.spec: rung for rung in rungs}
    alone = leave_one_out(records, rungs)
    return {
        "pairs": [[p.first, p.second, p.games, round(p.score, 4), round(p.expected, 4)] for p in pairs],
        "chi_square": round(chi_square, 2),
        "degrees_of_freedom": freedom,
        "dispersion": round(chi_square / freedom, 3),
        "departing_pairs": [
            f"{p.first} vs {p.second}: {p.score:.1%} in {p.games} games, the fit says {p.expected:.1%} (z {p.z:+.1f})"
            for p in pairs
            if abs(p.z) > Z95
        ],
        "leave_one_out": {spec: _alone(by_spec[spec], found) for spec, found in alone.items()},
    }


def _alone(rung: Rung, found: tuple[float, float, float]) -> dict[str, Any]:
    rating, low, high = found
    return {"rating": round(rating, 1), "low": round(low, 1), "high": round(high, 1),
            "inside": rung.low <= rating <= rung.high}  # fmt: skip


def widen_rungs(records: Sequence[GameRecord], rungs: Sequence[Rung]) -> tuple[list[Rung], float]:
    """The rungs with their intervals widened for the ladder's misfit, and the factor: when the pairs' scores
    scatter about the fit more than chance allows (Pearson's chi-square over its degrees of freedom above 1),
    every half-width is scaled by its root, as :func:`~crossenvs.eval.ratings.widen` does for a rated player
    (quasi-likelihood). A ladder whose rungs are not quite transitive (greedy against MCTS, networks against
    both) then says so in its intervals, which every rating made against it carries on."""
    chi_square, freedom = fit_chi_square(pair_fits(records, rungs), len(rungs))
    factor = math.sqrt(max(1.0, chi_square / freedom))
    widened = [
        Rung(r.spec, r.rating, r.rating - factor * (r.rating - r.low), r.rating + factor * (r.high - r.rating), r.games)
        for r in rungs
    ]
    return widened, factor


def outside(report: dict[str, Any]) -> list[str]:
    """The rungs whose leave-one-out rating lies outside their own interval: to rebuild, drop or explain."""
    return [spec for spec, found in report.get("leave_one_out", {}).items() if not found["inside"]]
