"""Rendering shared by every game: ``ansi`` text and ``rgb_array`` images (Pillow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import state as st
from .geometry import FILE_LETTERS
from .text import format_position_text

if TYPE_CHECKING:
    from .game import Game
    from .state import State

BACKGROUND = (245, 240, 228)
GRID = (120, 110, 95)
LABEL = (60, 55, 50)


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


def render_ansi(game: Game, state: State) -> str:
    return status_line(game, state) + "\n" + format_position_text([], game.text_rows(state))


def render_rgb(game: Game, state: State, cell_pixels: int = 48) -> np.ndarray:
    """Draw the board: grid, pieces, edge bars, file and rank labels, status line."""
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
    for col in range(width):
        x = left + col * cell_pixels + cell_pixels // 2 - 3
        draw.text((x, bottom + bar + 2), FILE_LETTERS[col], fill=LABEL, font=font)
    for row in range(height):
        y = top + (height - 1 - row) * cell_pixels + cell_pixels // 2 - 6
        draw.text((4, y), str(row + 1), fill=LABEL, font=font)
    draw.text((left, bottom + bar + 16), status_line(game, state), fill=LABEL, font=font)
    return np.asarray(image, dtype=np.uint8)
