"""How Crosse looks: :class:`CrosseView` (piece colours, cell fills, the legend, the status note and the
move tokens the web page shows beside the board).
"""

from __future__ import annotations

from crossenvs.kernels.state import State

from ...core.geometry import square_name
from ...core.view import GameView
from .tables import (
    BLACK_STONE,
    CENTRE,
    IS_CORNER,
    IS_RING,
    JUMPING,
    JUMPS_LEFT,
    REMOVAL_PENDING,
    SIZE,
    TOKENS,
    USABLE,
    WHITE_STONE,
)
from .text import tokens_text


class CrosseView(GameView):
    """How Crosse looks: colours, labels and the legend (the rules are in :class:`Crosse`)."""

    piece_colours = {BLACK_STONE: (40, 40, 40), WHITE_STONE: (238, 236, 228)}

    def status_note(self, state: State) -> str:
        if self.game.is_terminal(state):
            return ""
        meta = state.meta
        note = f" [tokens {tokens_text(int(meta[TOKENS + self.game.current_player(state)]))}]"
        if meta[REMOVAL_PENDING]:
            return note + ": cover complete: remove the first-row stones? (remove or keep)"
        if meta[JUMPING] >= 0:
            left = int(meta[JUMPS_LEFT])
            return note + f": the stone on {square_name(*divmod(int(meta[JUMPING]), SIZE))} jumps on ({left} more)"
        if meta[JUMPS_LEFT] > 0:
            return note + f": must jump, capturing {int(meta[JUMPS_LEFT])}"
        return note

    def move_tokens(self, state: State) -> dict[str, list[str]]:
        """Each colour's unused tokens, in canonical order (the web page shows them beside the board)."""
        return {
            colour: tokens_text(int(state.meta[TOKENS + seat])).split() for seat, colour in enumerate(self.game.colours)
        }

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        square = row * SIZE + col
        if IS_CORNER[square]:
            return (214, 120, 100)
        if IS_RING[square]:
            return (222, 190, 130)
        if square in CENTRE:
            return (120, 110, 95)
        return (176, 140, 100) if USABLE[square] else None

    def piece_kind(self, code: int) -> str:
        return "stone"

    def empty_markers(self) -> list[tuple[str, str]]:
        """The diagram markers :meth:`cell_text` writes for empty cells (docs/crosse.md, board and setup)."""
        return [
            (".", "empty dark square"),
            ("-", "light square (never used)"),
            ("o", "empty ring cell"),
            ("+", "empty ring corner"),
            ("#", "centre (never used)"),
        ]
