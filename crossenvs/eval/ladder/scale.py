"""An arena's ratings on a ladder's scale: the one scale crossenvs reports on wherever it can.

An arena's Bradley-Terry ratings are fixed only up to a constant; :func:`~crossenvs.eval.ratings.ratings`
picks a mean of 1500, which means nothing outside that arena. When the game has a ladder and some
players of the arena are its rungs (random is a rung of every ladder), :func:`on_ladder_scale`
picks the constant that puts those players at their ladder ratings instead, so the table reads on
the scale of ``crossenvs rate`` (random = 0). The gaps between the players do not change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ...core.game import Game
from ..ratings import Rating
from .files import Ladder, LadderError, load_ladder


def shipped_ladder(game: Game) -> Ladder | None:
    """The ladder shipped for ``game`` at its options, or None where there is none (other options, a game of
    one's own)."""
    try:
        return load_ladder(game)
    except LadderError:
        return None


def ladder_rungs_among(ladder: Ladder, specs: Mapping[str, str]) -> dict[str, float]:
    """Player name -> the ladder rating of its rung, for the players (``specs``: name -> spec) that are rungs."""
    fixed = {rung.spec: rung.rating for rung in ladder.rungs}
    return {name: fixed[spec] for name, spec in specs.items() if spec in fixed}


def on_ladder_scale(ladder: Ladder, table: Sequence[Rating], specs: Mapping[str, str]) -> list[Rating]:
    """``table`` shifted so that its players that are rungs of ``ladder`` (named by the same spec: ``specs``
    maps a player's name in the table to its spec) sit, on average, at their ladder ratings.

    ``LadderError`` when none of them is a rung: nothing would pin the shift.
    """
    pinned = ladder_rungs_among(ladder, specs)
    if not pinned:
        raise LadderError(
            f"none of the players is a rung of the {ladder.game} ladder; add one of "
            f"{', '.join(rung.spec for rung in ladder.rungs)}"
        )
    by_name = {rating.name: rating.rating for rating in table}
    shift = sum(rating - by_name[name] for name, rating in pinned.items()) / len(pinned)
    return [replace(r, rating=r.rating + shift, low=r.low + shift, high=r.high + shift) for r in table]
