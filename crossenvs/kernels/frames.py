"""Egocentric frames (docs/README.md, conventions; docs/architecture.md, the engine).

Each player sees the board, and names its actions, in its own *frame*: the board as it would be
if that player were the first player. A frame is one of three symmetries of the board, each its
own inverse, so the same function maps frame coordinates to board coordinates and back:

* ``IDENTITY``: the first player's view.
* ``TRANSPOSE``: Crisscross Blue, who connects left-right, sees the board transposed so that he
  too connects top to bottom.
* ``ROTATE_180``: the colour whose home is at the top sees the board turned half a turn.

These are numba functions so that kernels can use them directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels.codec import square_index
from crossenvs.kernels.portable import flat_view

IDENTITY = 0
TRANSPOSE = 1
ROTATE_180 = 2


@njit(cache=True, inline="always")
def frame_to_board(row: int, col: int, frame: int, height: int, width: int) -> tuple[int, int]:
    """Map ``(row, col)`` between a frame and the board (the maps are involutions)."""
    if frame == TRANSPOSE:
        return col, row
    if frame == ROTATE_180:
        return height - 1 - row, width - 1 - col
    return row, col


@njit(cache=True)
def mark_empty_cells(board: np.ndarray, frame: int, playing: bool, out: np.ndarray) -> None:
    """``out[a] = 1`` for each empty cell of a square board seen in ``frame`` (action ``a`` its frame index, row by
    row), every entry 0 once the game is over: the mask of the games where a move fills any empty cell.

    A loop per frame, not :func:`frame_to_board` per cell: in the board's own frame the board is read flat,
    which the compiler widens (an 11x11 mask in about 9 ns instead of 54).
    """
    n = board.shape[0]
    if not playing:
        for a in range(n * n):
            out[a] = 0
    elif frame == IDENTITY:
        cells = flat_view(board)
        for a in range(n * n):
            out[a] = cells[a] == 0
    else:
        for fr in range(n):
            for fc in range(n):
                br, bc = frame_to_board(fr, fc, frame, n, n)
                out[square_index(fr, fc, n)] = board[br, bc] == 0


def board_in_frame(board: np.ndarray, frame: int) -> np.ndarray:
    """A view of ``board`` as seen in ``frame`` (no copy)."""
    if frame == TRANSPOSE:
        return board.T
    if frame == ROTATE_180:
        return board[::-1, ::-1]
    return board
