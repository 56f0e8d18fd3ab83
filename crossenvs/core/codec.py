"""Action-codec helpers: fixed-size action ids from board coordinates, in numba.

Action ids are laid out in mixed radix over the acting player's frame (see
:mod:`crossenvs.core.frames`): a square is ``row * width + col``; a move from a square in one
of eight directions over a distance is ``(square * 8 + direction) * max_distance + (distance - 1)``.
Each game documents its own layout in its module docstring and builds it from these pieces.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the eight king-step directions as (row step, col step): N, NE, E, SE, S, SW, W, NW
DIRECTIONS = np.array([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]], dtype=np.int64)


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
