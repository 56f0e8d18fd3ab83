"""Do ``crossenvs rate``'s 95% intervals hold the truth 95% of the time? Simulated players on a simulated ladder.

The ladder is shaped like the shipped ones (random at 0, MCTS rungs, network rungs above and between them);
its shipped ratings are the true ones plus the error of a ladder build (each rung's standard error
``rung_sd``, random exact), and its rung intervals say so. A simulated player wins each game against a rung
with a true probability, and the real procedure (:func:`crossenvs.eval.ladder.rate_with`, the one ``crossenvs
rate`` and the trainers use) rates it from those games. Two kinds of player:

* **Bradley-Terry**: one true rating ``T``; its truth is ``T``.
* **Intransitive**: ``T + delta`` against the network rungs and ``T - delta`` against the MCTS ones, as a
  network can be against MCTS players. Such a player has no one rating; its truth is the rating that
  fits its true expected scores against the rungs it played, as often as it played them (what infinitely
  many games of the same procedure would give: the quasi-likelihood's target).

Run ``python -m crossenvs.selfcheck.rating_calibration`` for the table on the Evaluation page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..eval.ladder.adaptive import family, rate_with
from ..eval.ladder.files import Ladder, Rung
from ..eval.ratings import ELO, Z95

#: a ladder like Crisscross 6x6's: rungs and their true ratings
TRUE_RUNGS = (
    ("random", 0.0),
    ("mcts:8", 150.0),
    ("mcts:32", 360.0),
    ("mcts:128", 650.0),
    ("mcts:500", 950.0),
    ("pretrained:0", 1100.0),
    ("mcts:2000", 1250.0),
    ("pretrained:16", 1400.0),
    ("pretrained:64", 1650.0),
    ("pretrained:256", 1800.0),
)


@dataclass(frozen=True)
class Coverage:
    """How often the intervals held the truth, over ``repeats`` ratings."""

    player: str
    repeats: int
    covered: float
    median_width: float
    mean_games: float


def _expected(gap: float) -> float:
    return 1.0 / (1.0 + math.exp(-gap / ELO))


def noisy_ladder(rng: np.random.Generator, rung_sd: float) -> Ladder:
    """The true ladder as a build would ship it: each rating off by its standard error, which its interval says."""
    rungs = []
    for spec, rating in TRUE_RUNGS:
        sd = 0.0 if spec == "random" else rung_sd
        shipped = rating + float(rng.normal(0.0, sd)) if sd else rating
        rungs.append(Rung(spec, shipped, shipped - Z95 * sd, shipped + Z95 * sd, 1000))
    return Ladder("simulated", {}, tuple(rungs))


def pseudo_true(played: dict[str, list[float]], strength: dict[str, float]) -> float:
    """The rating whose expected scores against the true rungs, weighted by the games played, match the player's."""
    true = dict(TRUE_RUNGS)

    def excess(rating: float) -> float:
        return sum(
            len(scores) * (_expected(strength[spec] - true[spec]) - _expected(rating - true[spec]))
            for spec, scores in played.items()
        )

    low, high = -4000.0, 6000.0
    for _ in range(80):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if excess(middle) > 0 else (low, middle)
    return 0.5 * (low + high)


def coverage(
    repeats: int = 400,
    delta: float = 0.0,
    span: tuple[float, float] = (100.0, 1700.0),
    rung_sd: float = 25.0,
    seed: int = 0,
) -> Coverage:
    """Rate ``repeats`` simulated players (true ratings uniform in ``span``; intransitive by ``delta`` when not 0)."""
    rng = np.random.default_rng(seed)
    true = dict(TRUE_RUNGS)
    covered, widths, games = 0, [], []
    for _ in range(repeats):
        rating = float(rng.uniform(*span))
        strength = {spec: rating + (delta if family(spec) == "pretrained" else -delta) for spec in true}
        ladder = noisy_ladder(rng, rung_sd)

        def play(rung: Rung, count: int, so_far: int, strength: dict[str, float] = strength) -> list[float]:
            won = rng.random(count) < _expected(strength[rung.spec] - true[rung.spec])
            return [float(w) for w in won]

        result = rate_with(ladder, play)
        truth = pseudo_true(result.played, strength)
        covered += result.fit.low <= truth <= result.fit.high
        widths.append(result.fit.width)
        games.append(result.fit.games)
    player = f"intransitive (±{delta:.0f} Elo by kind of rung)" if delta else "Bradley-Terry"
    return Coverage(player, repeats, covered / repeats, float(np.median(widths)), float(np.mean(games)))


def table(repeats: int = 400) -> list[Coverage]:
    """The Evaluation page's rows."""
    return [
        coverage(repeats),
        coverage(repeats, delta=120.0, span=(1000.0, 1700.0), seed=1),
        coverage(repeats, delta=250.0, span=(1000.0, 1700.0), seed=2),
    ]


if __name__ == "__main__":
    print("| player | repeats | 95% intervals holding the truth | median width (Elo) | games |")
    print("|---|---|---|---|---|")
    for row in table():
        print(f"| {row.player} | {row.repeats} | {row.covered:.1%} | {row.median_width:.0f} | {row.mean_games:.0f} |")
