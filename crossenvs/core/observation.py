"""Observation helpers: egocentric one-hot planes computed in numba.

Every game's observation starts with piece planes (own pieces in plane 0, docs/README.md, conventions) taken
in the observing player's frame; a game adds the planes the board alone does not show.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .frames import frame_to_board


@njit(cache=True)
def fill_piece_planes(board: np.ndarray, frame: int, plane_codes: np.ndarray, out: np.ndarray) -> None:
    """``out[r, c, p] = 1`` where the board, seen in ``frame``, holds ``plane_codes[p]``.

    Only the first ``len(plane_codes)`` planes of ``out`` are written.
    """
    height, width = board.shape
    for r in range(out.shape[0]):
        for c in range(out.shape[1]):
            br, bc = frame_to_board(r, c, frame, height, width)
            cell = board[br, bc]
            for p in range(plane_codes.shape[0]):
                out[r, c, p] = 1.0 if cell == plane_codes[p] else 0.0


@njit(cache=True, inline="always")
def pass_and_cap_values(passes: int, ply: int, move_cap: int) -> tuple[float, float]:
    """The two constant planes of every game with passes and a move cap.

    A pass pending (1.0 when the previous turn was a pass, so one more draws) and the progress
    to the cap (plies / cap, at most 1): neither shows on the board, and both decide draws.
    """
    return (1.0 if passes == 1 else 0.0), min(1.0, ply / move_cap)
