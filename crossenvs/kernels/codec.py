"""Action-codec helpers: fixed-size action ids from board coordinates, in numba.

Action ids are laid out in mixed radix over the acting player's frame (see
:mod:`crossenvs.kernels.frames`): a square is ``row * width + col``; a move from a square in one
of eight directions over a distance is ``(square * 8 + direction) * max_distance + (distance - 1)``.
Each game documents its own layout in its module docstring and builds it from these pieces.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the eight king-step directions as (row step, col step): N, NE, E, SE, S, SW, W, NW
DIRECTIONS = np.array([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]], dtype=np.int64)
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


@njit(cache=True, inline="always")
def opposite_direction(direction: int) -> int:
    """The direction turned half a turn (what a direction becomes in a ROTATE_180 frame)."""
    return (direction + 4) % 8


def direction_between(from_row: int, from_col: int, to_row: int, to_col: int) -> tuple[int, int]:
    """``(direction, distance)`` from one square to another along a rank, file or diagonal.

    ``ValueError`` if the squares are equal or not on one line.
    """
    dr, dc = to_row - from_row, to_col - from_col
    if (dr, dc) == (0, 0):
        raise ValueError("the two squares are the same")
    if not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
        raise ValueError("the squares are not on one rank, file or diagonal")
    unit = (int(np.sign(dr)), int(np.sign(dc)))
    direction = next(d for d in range(8) if (DIRECTIONS[d, 0], DIRECTIONS[d, 1]) == unit)
    return direction, max(abs(dr), abs(dc))


@njit(cache=True, inline="always")
def square_index(row: int, col: int, width: int) -> int:
    """The id of square ``(row, col)`` on a board ``width`` wide."""
    return row * width + col


@njit(cache=True, inline="always")
def square_of(index: int, width: int) -> tuple[int, int]:
    """``(row, col)`` of square id ``index``."""
    return index // width, index % width


@njit(cache=True, inline="always")
def move_index(square: int, direction: int, distance: int, max_distance: int) -> int:
    """Id of a move from ``square`` in ``direction`` (0..7) over ``distance`` (1..max_distance)."""
    return (square * 8 + direction) * max_distance + (distance - 1)


@njit(cache=True, inline="always")
def move_of(index: int, max_distance: int) -> tuple[int, int, int]:
    """``(square, direction, distance)`` of a move id."""
    distance = index % max_distance + 1
    rest = index // max_distance
    return rest // 8, rest % 8, distance
