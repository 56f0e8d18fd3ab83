"""How Charing Cross looks: :class:`CharingCrossView` (piece colours and labels, home squares, the
re-placement note) and the goal lines as a player reads them.
"""

from __future__ import annotations

from crossenvs.kernels.state import State

from ...core.view import GameView
from .rules import (
    BLACK_KNIGHT,
    BLACK_ROOK,
    EMPTY,
    GOAL_IS_COL,
    GOAL_LINE,
    HOME_COLS,
    HOME_ROWS,
    PENDING,
    WHITE_KNIGHT,
    WHITE_ROOK,
    is_knight,
)


def goal_name(code: int) -> str:
    """The goal line of a piece code, as a player reads it: ``file h``, ``rank 1``."""
    line = int(GOAL_LINE[code])
    return f"file {'abcdefgh'[line]}" if GOAL_IS_COL[code] else f"rank {line + 1}"


class CharingCrossView(GameView):
    """How CharingCross looks: colours, labels and the legend (the rules are in :class:`CharingCross`)."""

    piece_colours = {
        WHITE_KNIGHT: (238, 236, 228),
        WHITE_ROOK: (238, 236, 228),
        BLACK_KNIGHT: (40, 40, 40),
        BLACK_ROOK: (40, 40, 40),
    }

    def status_note(self, state: State) -> str:
        code = int(state.meta[PENDING])
        if code == EMPTY or self.game.is_terminal(state):
            return ""
        choices = " or ".join(self.game.action_to_str(state, int(a)) for a in self.game.legal_actions(state))
        return f": re-place the jumped {self.game.cell_letters[code]} ({choices})"

    def piece_label(self, code: int) -> str:
        return "N" if is_knight(code) else "R"

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        for code in (WHITE_KNIGHT, WHITE_ROOK, BLACK_KNIGHT, BLACK_ROOK):
            if any(row == HOME_ROWS[code, i] and col == HOME_COLS[code, i] for i in range(2)):
                return (214, 200, 170)
        return None

    def piece_kind(self, code: int) -> str:
        return f"{'knight' if is_knight(code) else 'rook'} (races to {goal_name(code)})"
