"""Rules several games share, written once as numba kernels: passes that draw, colours of seats.

* A player with no legal action passes, and **two passes in a row draw**: ``meta[PASSES]``
  counts consecutive passes (a move resets it), :func:`count_pass` adds one and ends the game on
  the second, and :func:`passes_draw` asks the question for a position read from text.
* Where the colour of the first player is an option, a game keeps seat 0's colour (0 or 1) in a
  meta slot; :func:`seat_colour` gives either seat's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st

#: consecutive passes that draw the game
PASSES_TO_DRAW = 2


@njit(cache=True, inline="always")
def passes_draw(meta: np.ndarray) -> bool:
    """Whether the passes counted so far draw the game."""
    return meta[st.PASSES] >= PASSES_TO_DRAW


@njit(cache=True, inline="always")
def count_pass(meta: np.ndarray) -> bool:
    """One more consecutive pass; True, with the game drawn, when that makes two in a row."""
    meta[st.PASSES] += 1
    if meta[st.PASSES] >= PASSES_TO_DRAW:
        meta[st.STATUS] = st.STATUS_DRAW
        return True
    return False


@njit(cache=True, inline="always")
def seat_colour(seat0_colour: int, seat: int) -> int:
    """The colour (0 or 1) of ``seat`` when seat 0 plays ``seat0_colour``."""
    return seat0_colour if seat == 0 else 1 - seat0_colour
