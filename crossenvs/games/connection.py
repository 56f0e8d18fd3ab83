"""What the two connection games, Crisscross and Hex, share beside their rules.

Both are played on a size x size board where a move fills one empty cell and each seat joins its own pair of
edges: seat 0 rows 0 and N-1, seat 1 files 0 and N-1. Each seat sees the board in its own frame (seat 1 the
transposed board, so he too joins top to bottom), and an action id is a cell of the mover's frame. What follows
from that alone lives here: the sizes, the notation (a cell named on the board), the colours-swapped twin, the
bound on a loaded position's ply, the edges drawn in their side's colour. What a move does and what wins stay in
each game's own file, as Crossings and Neo-Crossings keep theirs beside :mod:`.phalanx`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.codec import square_index, square_of
from crossenvs.kernels.frames import IDENTITY, TRANSPOSE, frame_to_board
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError

from ..core.game import Game
from ..core.geometry import parse_square, square_name
from ..core.text import ParsedPosition
from ..core.view import GameView

EMPTY, FIRST, SECOND = 0, 1, 2  # the cell codes: seat s plays code s + 1


class ConnectionView(GameView):
    """Each pair of edges drawn in the colour of the side that joins it; a piece named by what its side joins."""

    #: what a piece is called in the legend ("checker", "stone")
    piece_noun: ClassVar[str]
    #: cell code -> the edges that side joins, in words
    edges: ClassVar[dict[int, str]]

    def edge_colours(self) -> dict[str, tuple[int, int, int]]:
        first, second = self.piece_colours[FIRST], self.piece_colours[SECOND]
        return {"top": first, "bottom": first, "left": second, "right": second}

    def piece_kind(self, code: int) -> str:
        return f"{self.piece_noun} (joins {self.edges[code]})"


class ConnectionGame(Game):
    """A connection game's board, frames and notation (see the module docstring); the rules are the subclass's."""

    MAX_PASSES = 0  # no pass: a 'passes' header is refused
    #: what the game calls a cell, in the message refusing a loaded ply ("squares", "cells")
    cell_word: ClassVar[str] = "cells"

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.size = self.options["size"]
        self.height = self.width = self.size
        self.num_actions = self.size * self.size
        self.observation_shape = (self.size, self.size, 2)

    def _frame(self, state: State) -> int:
        return TRANSPOSE if self.current_player(state) == 1 else IDENTITY

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """Colours swapped and the board transposed: the second seat's view of a position is the first's of the
        twin."""
        swapped = np.where(state.board == EMPTY, EMPTY, 3 - state.board).astype(np.int8)
        return State(np.ascontiguousarray(swapped.T), state.meta.copy()), (1, 0)

    def action_to_str(self, state: State, action: int) -> str:
        frame_row, frame_col = square_of(int(action), self.size)
        row, col = frame_to_board(frame_row, frame_col, self._frame(state), self.size, self.size)
        return square_name(row, col)

    def str_to_action(self, state: State, text: str) -> int:
        try:
            row, col = parse_square(text, self.size, self.size)
        except ValueError as exc:
            raise IllegalActionError(f"{self.name}: {exc}") from None
        frame_row, frame_col = frame_to_board(row, col, self._frame(state), self.size, self.size)
        return square_index(frame_row, frame_col, self.size)

    def _check_ply_room(self, state: State, parsed: ParsedPosition) -> None:
        """Refuse a ply that the empty cells could carry past ``MAX_PLY``.

        Neither game has a move cap: each ply fills one empty cell, so ``ply + empty cells`` never grows in
        play. Bounding it keeps every position played on from a readable one readable (and its int32 ply
        counter far from wrapping).
        """
        ply, empty = int(state.meta[st.PLY]), int((state.board == EMPTY).sum())
        if ply + empty > st.MAX_PLY:
            raise parsed.error(
                "ply",
                f"{ply} is too large: the {empty} empty {self.cell_word} could take the game past ply {st.MAX_PLY}, "
                f"the most a position may have played (give at most {st.MAX_PLY - empty})",
            )
