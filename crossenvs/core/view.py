"""How a game looks, apart from its rules: a :class:`GameView` per game, and the rendering every game shares.

A game's rules module holds the rules; its view (a :class:`GameView` subclass beside them, named
by the game's ``view_class``) holds what only a person needs: piece colours and labels, cell
fills, edge bars, the legend, a note on the status line. The renderers here draw any game from
its view: ``ansi`` text for terminals and ``rgb_array`` images (Pillow), and the web page
(``crossenvs.web.board``) reads the same view, so the browser's board looks like the PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from crossenvs.kernels import state as st
from crossenvs.kernels.state import State

from .geometry import FILE_LETTERS, Cell
from .text import format_position_text

RGB = tuple[int, int, int]


class BoardRules(Protocol):
    """What a view reads of its game's rules (a :class:`~crossenvs.core.game.Game` has all of it)."""

    height: int
    width: int
    colours: tuple[str, str]
    cell_letters: dict[int, str]
    owner_colour: dict[int, str]

    def text_rows(self, state: State) -> list[list[str]]: ...

    def cell_text(self, row: int, col: int, code: int) -> str: ...


class GameView:
    """The look of one game: subclass it beside the rules and override what the game shows.

    The defaults draw any game: grey pieces named "piece", a plain board, no edges or labels.
    """

    #: cell code -> RGB fill of the piece drawn there
    piece_colours: ClassVar[dict[int, RGB]] = {}
    #: pieces change owner where they stand (Crisscross's flips), so a move's turned pieces are worth telling;
    #: elsewhere a square that changes owner saw a capture and a piece moving in (:meth:`turned_cells`)
    turns_pieces: ClassVar[bool] = False

    def __init__(self, game: BoardRules) -> None:
        self.game = game

    def piece_kind(self, code: int) -> str:
        """What the piece of a cell code is, for the legend (``stone``, ``knight (races to file h)``)."""
        return "piece"

    def piece_label(self, code: int) -> str:
        """A letter drawn on the piece of this cell code (to tell piece kinds apart); '' for none."""
        return ""

    def empty_markers(self) -> list[tuple[str, str]]:
        """``(letter, meaning)`` of the empty-cell letters (a game that marks cells by kind lists each)."""
        return [(self.game.cell_letters[0], "empty")]

    def edge_colours(self) -> dict[str, RGB]:
        """Colour bars to draw along edges (``top``, ``bottom``, ``left``, ``right``)."""
        return {}

    def cell_fill(self, row: int, col: int) -> RGB | None:
        """Background of a cell (light squares, rings, goals); None for the plain board colour."""
        return None

    def status_note(self, state: State) -> str:
        """Text added to the status line, e.g. a decision in progress ('' for none)."""
        return ""

    def move_tokens(self, state: State) -> dict[str, list[str]] | None:
        """Colour -> its unused move tokens, in a game moved by tokens (Crosse), for the web page to show
        beside the status line; None in a game without tokens."""
        return None

    def turned_cells(self, before: State, after: State) -> list[Cell]:
        """The cells whose piece one move turned to the other side (``before`` -> ``after``), for play to
        announce; [] in a game whose pieces do not turn (``turns_pieces`` false)."""
        if not self.turns_pieces:
            return []
        owner = self.game.owner_colour
        turned = []
        for row, col in np.argwhere(before.board != after.board):
            was, now = owner.get(int(before.board[row, col])), owner.get(int(after.board[row, col]))
            if was is not None and now is not None and was != now:
                turned.append((int(row), int(col)))
        return turned

    def legend(self) -> list[tuple[str, str]]:
        """``(letter, meaning)`` for every letter the text board shows: pieces, then empty cells."""
        game = self.game
        pieces = [
            (letter, f"{game.owner_colour.get(code, '')} {self.piece_kind(code)}".strip())
            for code, letter in sorted(game.cell_letters.items())
            if code != 0
        ]
        return pieces + self.empty_markers()

    def render_ansi(
        self, state: State, last_move: Sequence[Cell] = (), *, legend: bool = False, colour: bool = False
    ) -> str:
        """Status line and board as text; see :meth:`crossenvs.core.game.Game.render_ansi`."""
        return render_ansi(self, state, last_move, legend=legend, colour=colour)

    def render_rgb(self, state: State, cell_pixels: int = 48, last_move: Sequence[Cell] = ()) -> np.ndarray:
        """The board as an RGB image; see :meth:`crossenvs.core.game.Game.render_rgb`."""
        return render_rgb(self, state, cell_pixels, last_move)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game!r})"


BACKGROUND = (245, 240, 228)
GRID = (120, 110, 95)
LABEL = (60, 55, 50)
LAST_MOVE = (20, 190, 60)  # outline of the last move's cells: a green no game uses for pieces or cells
LAST_MOVE_KEY = "[ ]"
LEGEND_GAP = 4  # spaces between an unmarked board line and the legend beside it
REVERSE, PLAIN = "\x1b[7m", "\x1b[0m"  # ANSI reverse video on and off (only for a terminal)


def status_line(view: GameView, state: State) -> str:
    """``Red to move (ply 3)``, ``Red wins (ply 40)`` or ``Draw (ply 64)``."""
    game = view.game
    ply = int(state.meta[st.PLY])
    status = int(state.meta[st.STATUS])
    if status == st.STATUS_PLAYING:
        return f"{game.colours[int(state.meta[st.TO_MOVE])].capitalize()} to move (ply {ply}){view.status_note(state)}"
    if status == st.STATUS_DRAW:
        return f"Draw (ply {ply})"
    winner = 0 if status == st.STATUS_WIN_0 else 1
    return f"{game.colours[winner].capitalize()} wins (ply {ply})"


def render_ansi(
    view: GameView, state: State, last_move: Sequence[Cell] = (), *, legend: bool = False, colour: bool = False
) -> str:
    """Status line and board; ``last_move`` cells bracketed, the legend beside the board on request."""
    rows = view.game.text_rows(state)
    if last_move:
        board = marked_board(rows, set(last_move), colour)
    else:
        board = format_position_text([], rows).splitlines()
    if legend:  # at a fixed column: a bracket after the last file must not push it right
        board = beside(board, legend_lines(view), column=len(str(len(rows))) + 2 * len(rows[0]) + LEGEND_GAP)
    return "\n".join([status_line(view, state), *board]) + "\n"


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


def legend_lines(view: GameView) -> list[str]:
    """The game's legend, one ``letter  meaning`` a line, and the last-move brackets."""
    entries = [*view.legend(), (LAST_MOVE_KEY, "last move")]
    return [f"{key:<{len(LAST_MOVE_KEY)}} {meaning}" for key, meaning in entries]


def beside(left: list[str], right: list[str], gap: int = LEGEND_GAP, column: int | None = None) -> list[str]:
    """``right`` printed to the right of ``left`` (lines of any length; escapes do not count), at ``column``
    or ``gap`` spaces after the longest line of ``left``; at least one space apart either way."""
    width = max(len(_visible(line)) + 1 for line in left)
    width = max(width, column) if column is not None else width - 1 + gap
    rows = max(len(left), len(right))
    left = left + [""] * (rows - len(left))
    right = right + [""] * (rows - len(right))
    return [(a + " " * (width - len(_visible(a))) + b).rstrip() for a, b in zip(left, right)]


def _visible(text: str) -> str:
    return text.replace(REVERSE, "").replace(PLAIN, "")


def render_rgb(view: GameView, state: State, cell_pixels: int = 48, last_move: Sequence[Cell] = ()) -> np.ndarray:
    """Draw the board: grid, pieces, edge bars, file and rank labels, status line, last move."""
    height, width = state.board.shape
    margin = cell_pixels // 2 + 8
    bar = max(4, cell_pixels // 8)
    image = Image.new("RGB", (width * cell_pixels + 2 * margin, height * cell_pixels + 2 * margin + 18), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    left, top = margin, margin
    right, bottom = left + width * cell_pixels, top + height * cell_pixels

    edges = view.edge_colours()
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
            draw.rectangle([x0, y0, x0 + cell_pixels, y0 + cell_pixels], fill=view.cell_fill(row, col), outline=GRID)
            code = int(state.board[row, col])
            colour = view.piece_colours.get(code)
            if colour is not None:
                draw.ellipse(
                    [x0 + pad, y0 + pad, x0 + cell_pixels - pad, y0 + cell_pixels - pad],
                    fill=colour,
                    outline=(30, 30, 30),
                    width=2,
                )
                label = view.piece_label(code)
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
    draw.text((left, bottom + bar + 16), status_line(view, state), fill=LABEL, font=font)
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
