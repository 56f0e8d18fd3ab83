"""An arena's ratings on a ladder's scale: the one scale crossenvs reports on wherever it can.

When the game has a ladder and some players of an arena are its rungs (random is a rung of every
ladder), :func:`ratings_on_ladder` fits the arena's games with those players held at their ladder
ratings, as BayesElo and Ordo anchor: every other player's rating and interval come out on the
scale of ``crossenvs rate`` (random = 0) directly, and a player who won or lost every game gets a
one-sided bound that moves nobody. A player is a rung whatever the spelling of its spec
(``pretrained`` is the rung ``pretrained:64``): both sides are compared in their canonical spelling,
:func:`crossenvs.players.canonical_spec`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from ...core.game import Game
from ...players import UnknownPlayerError, canonical_spec
from ..ratings import GameRecord, LadderFit, Rating, ratings, widen
from .adaptive import rung_sd
from .files import Ladder, LadderError, load_ladder


def shipped_ladder(game: Game) -> Ladder | None:
    """The ladder shipped for ``game`` at its options, or None where there is none (other options, a game of
    one's own)."""
    try:
        return load_ladder(game)
    except LadderError:
        return None


def _spelled(spec: str) -> str | None:
    try:
        return canonical_spec(spec)
    except UnknownPlayerError:
        return None  # no kind of player: not a rung


def ladder_rungs_among(ladder: Ladder, specs: Mapping[str, str]) -> dict[str, float]:
    """Player name -> the ladder rating of its rung, for the players (``specs``: name -> spec) that are rungs,
    however their specs are spelled."""
    fixed = {_spelled(rung.spec): rung.rating for rung in ladder.rungs}
    return {name: fixed[spelled] for name, spec in specs.items() if (spelled := _spelled(spec)) in fixed}


def ratings_on_ladder(ladder: Ladder, records: Sequence[GameRecord], specs: Mapping[str, str]) -> list[Rating]:
    """The arena's ratings (:func:`~crossenvs.eval.ratings.ratings`) with its players that are rungs of
    ``ladder`` held at their ladder ratings; ``specs`` maps each player's name in ``records`` to its spec.

    ``LadderError`` when none of them is a rung: nothing would put the others on the ladder's scale.
    """
    fixed = ladder_rungs_among(ladder, specs)
    if not fixed:
        raise LadderError(
            f"none of the players is a rung of the {ladder.game} ladder; add one of "
            f"{', '.join(rung.spec for rung in ladder.rungs)}"
        )
    sd = {
        name: rung_sd(rung)
        for name, spec in specs.items()
        for rung in ladder.rungs
        if _spelled(rung.spec) == _spelled(spec)
    }
    return [_widened_as_rate_would(rating, records, fixed, sd) for rating in ratings(records, list(specs), fixed=fixed)]


def _widened_as_rate_would(rating: Rating, records: Sequence[GameRecord], fixed: Mapping[str, float],
                           sd: Mapping[str, float]) -> Rating:  # fmt: skip
    """A free player's interval widened as ``crossenvs rate`` widens its own (the rungs' uncertainty, the misfit of
    its results rung by rung), from its games against the rungs: the two commands give one interval for one player
    from the same games."""
    if rating.fixed or math.isnan(rating.rating):
        return rating
    games = [(r.second, r.score_first) if r.first == rating.name else (r.first, 1.0 - r.score_first)
             for r in records if rating.name in (r.first, r.second)]  # fmt: skip
    against = [(name, score) for name, score in games if name in fixed]
    if not against:
        return rating
    fit = LadderFit(rating.rating, rating.low, rating.high, rating.games, rating.score)
    widened = widen(
        fit,
        np.array([fixed[name] for name, _ in against]),
        np.array([score for _, score in against]),
        np.array([sd.get(name, 0.0) for name, _ in against]),
    )
    return replace(rating, rating=widened.rating, low=widened.low, high=widened.high)
