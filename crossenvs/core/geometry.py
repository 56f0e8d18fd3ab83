"""Square names and board geometry (docs/README.md, position text).

Squares are chess-style: files ``a..`` from the left, ranks ``1..`` from the bottom. Arrays are
indexed ``[row, col]`` with ``row = rank - 1`` and ``col = file index``.
"""

from __future__ import annotations

import re

Cell = tuple[int, int]  # (row, col) of the board: row 0 is rank 1

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SQUARE_RE = re.compile(r"^([a-z])([1-9][0-9]?)$")


def square_name(row: int, col: int) -> str:
    """``(row, col)`` to a name such as ``c4`` (row 0 is rank 1)."""
    return f"{FILE_LETTERS[col]}{row + 1}"


def parse_square(text: str, height: int, width: int) -> tuple[int, int]:
    """A name such as ``c4`` to ``(row, col)``; ``ValueError`` if it is not on the board."""
    match = _SQUARE_RE.match(text.strip().lower())
    if not match:
        raise ValueError(f"{text!r} is not a square name (expected a file letter and a rank, e.g. 'c4')")
    col = FILE_LETTERS.index(match.group(1))
    row = int(match.group(2)) - 1
    if not (0 <= row < height and 0 <= col < width):
        last = f"{FILE_LETTERS[width - 1]}{height}"
        raise ValueError(f"square {text!r} is off the {width}x{height} board (a1..{last})")
    return row, col


_NAMED_SQUARE_RE = re.compile(r"([a-z])([1-9][0-9]?)(?![0-9])")


def squares_named(text: str, height: int, width: int) -> list[tuple[int, int]]:
    """The on-board squares a move's text names, in order (``3F:f4-i5`` -> f4, i5; ``pass`` -> none).

    Notation always uses real square names (docs/README.md, conventions), so this reads the
    cells of any game's move without knowing its notation; a token such as ``3F`` is not a square.
    """
    squares = []
    for match in _NAMED_SQUARE_RE.finditer(text.lower()):
        row, col = int(match.group(2)) - 1, FILE_LETTERS.index(match.group(1))
        if match.start() > 0 and text[match.start() - 1].isdigit():
            continue  # the letter of a token such as "3F1": not a file
        if 0 <= row < height and 0 <= col < width:
            squares.append((row, col))
    return squares
