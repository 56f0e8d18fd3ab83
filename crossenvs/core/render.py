"""Rendering shared by every game: ``ansi`` text and ``rgb_array`` images (Pillow)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import state as st
from .geometry import FILE_LETTERS
from .text import format_position_text

if TYPE_CHECKING:
    from .game import Cell, Game
    from .state import State

BACKGROUND = (245, 240, 228)
GRID = (120, 110, 95)
LABEL = (60, 55, 50)
LAST_MOVE = (20, 190, 60)  # outline of the last move's cells: a green no game uses for pieces or cells
LAST_MOVE_KEY = "[ ]"
REVERSE, PLAIN = "\x1b[7m", "\x1b[0m"  # ANSI reverse video on and off (only for a terminal)


def status_line(game: Game, state: State) -> str:
    """``Red to move (ply 3)``, ``Red wins (ply 40)`` or ``Draw (ply 64)``."""
    ply = int(state.meta[st.PLY])
    status = int(state.meta[st.STATUS])
    if status == st.STATUS_PLAYING:
        return f"{game.colours[int(state.meta[st.TO_MOVE])].capitalize()} to move (ply {ply}){game.status_note(state)}"
    if status == st.STATUS_DRAW:
        return f"Draw (ply {ply})"
    winner = 0 if status == st.STATUS_WIN_0 else 1
    return f"{game.colours[winner].capitalize()} wins (ply {ply})"


def render_ansi(
    game: Game, state: State, last_move: Sequence[Cell] = (), *, legend: bool = False, colour: bool = False
) -> str:
    """Status line and board; ``last_move`` cells bracketed, the legend beside the board on request."""
    rows = game.text_rows(state)
    if last_move:
        board = marked_board(rows, set(last_move), colour)
    else:
        board = format_position_text([], rows).splitlines()
    if legend:
        board = beside(board, legend_lines(game))
    return "\n".join([status_line(game, state), *board]) + "\n"


def marked_board(rows: list[list[str]], marked: set[Cell], colour: bool) -> list[str]:
    """The board lines of position text with each marked cell bracketed: ``3 .[R]. .``.

    The brackets take the place of the spaces around a cell, so columns stay aligned and the
    text reads without colours; two marked neighbours share a ``|`` (``[R|B]``).
    """
    label = len(str(len(rows)))
    lines = []
    for row in range(len(rows) - 1, -1, -1):
        parts = [f"{row + 1:>{label}}"]
        for col, letter in enumerate(rows[row]):
            here, before = (row, col) in marked, (row, col - 1) in marked
            parts.append("|" if here and before else "[" if here else "]" if before else " ")
            parts.append(f"{REVERSE}{letter}{PLAIN}" if here and colour else letter)
        if (row, len(rows[row]) - 1) in marked:
            parts.append("]")
        lines.append("".join(parts))
    lines.append(" " * (label + 1) + " ".join(FILE_LETTERS[: len(rows[0])]))
    return lines


def legend_lines(game: Game) -> list[str]:
    """The game's legend, one ``letter  meaning`` a line, and the last-move brackets."""
    entries = [*game.legend(), (LAST_MOVE_KEY, "last move")]
    return [f"{key:<{len(LAST_MOVE_KEY)}} {meaning}" for key, meaning in entries]


def beside(left: list[str], right: list[str], gap: int = 4) -> list[str]:
    """``right`` printed to the right of ``left`` (lines of any length; escapes do not count)."""
    width = max(len(_visible(line)) for line in left) + gap
    rows = max(len(left), len(right))
    left = left + [""] * (rows - len(left))
    right = right + [""] * (rows - len(right))
    return [(a + " " * (width - len(_visible(a))) + b).rstrip() for a, b in zip(left, right)]


def _visible(text: str) -> str:
    return text.replace(REVERSE, "").replace(PLAIN, "")


def render_rgb(game: Game, state: State, cell_pixels: int = 48, last_move: Sequence[Cell] = ()) -> np.ndarray:
    """Draw the board: grid, pieces, edge bars, file and rank labels, status line, last move."""
    height, width = state.board.shape
    margin = cell_pixels // 2 + 8
    bar = max(4, cell_pixels // 8)
    image = Image.new("RGB", (width * cell_pixels + 2 * margin, height * cell_pixels + 2 * margin + 18), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    left, top = margin, margin
    right, bottom = left + width * cell_pixels, top + height * cell_pixels

    edges = game.edge_colours()
    if "top" in edges:
        draw.rectangle([left, top - bar, right, top - 1], fill=edges["top"])
    if "bottom" in edges:
        draw.rectangle([left, bottom + 1, right, bottom + bar], fill=edges["bottom"])
    if "left" in edges:
        draw.rectangle([left - bar, top, left - 1, bottom], fill=edges["left"])
    if "right" in edges:
        draw.rectangle([right + 1, top, right + bar, bottom], fill=edges["right"])

    pad = max(3, cell_pixels // 8)
    for row in range(height):
        y0 = top + (height - 1 - row) * cell_pixels  # rank 1 at the bottom
        for col in range(width):
            x0 = left + col * cell_pixels
            draw.rectangle([x0, y0, x0 + cell_pixels, y0 + cell_pixels], fill=game.cell_fill(row, col), outline=GRID)
            code = int(state.board[row, col])
            colour = game.piece_colours.get(code)
            if colour is not None:
                draw.ellipse(
                    [x0 + pad, y0 + pad, x0 + cell_pixels - pad, y0 + cell_pixels - pad],
                    fill=colour,
                    outline=(30, 30, 30),
                    width=2,
                )
                label = game.piece_label(code)
                if label:
                    centre = (x0 + cell_pixels // 2, y0 + cell_pixels // 2)
                    ink = "black" if sum(colour) > 384 else "white"  # readable on light and dark pieces
                    draw.text(centre, label, fill=ink, font=font, anchor="mm")
    outline_cells(draw, last_move, (left, top), height, cell_pixels)
    for col in range(width):
        x = left + col * cell_pixels + cell_pixels // 2 - 3
        draw.text((x, bottom + bar + 2), FILE_LETTERS[col], fill=LABEL, font=font)
    for row in range(height):
        y = top + (height - 1 - row) * cell_pixels + cell_pixels // 2 - 6
        draw.text((4, y), str(row + 1), fill=LABEL, font=font)
    draw.text((left, bottom + bar + 16), status_line(game, state), fill=LABEL, font=font)
    return np.asarray(image, dtype=np.uint8)


def outline_cells(
    draw: ImageDraw.ImageDraw, cells: Sequence[Cell], origin: Cell, height: int, cell_pixels: int
) -> None:
    """Outline the last move's cells inside their grid lines, over whatever stands there."""
    left, top = origin
    line = max(2, cell_pixels // 12)
    for row, col in cells:
        x0, y0 = left + col * cell_pixels, top + (height - 1 - row) * cell_pixels
        draw.rectangle([x0 + 1, y0 + 1, x0 + cell_pixels - 1, y0 + cell_pixels - 1], outline=LAST_MOVE, width=line)
