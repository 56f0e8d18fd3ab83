"""The :class:`CharingCross` game class: options, setup, notation, position text and end causes. The rules
it plays are the kernels of :mod:`.rules`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.codec import DIRECTIONS, direction_between, opposite_direction
from crossenvs.kernels.conventions import passes_draw
from crossenvs.kernels.frames import IDENTITY, ROTATE_180, frame_to_board
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError, PositionTextError

from ...core.facts import GameFacts
from ...core.game import PASS_TEXT, Game, is_raw_id_text, raw_id_text
from ...core.geometry import parse_square, square_name
from ...core.options import first_player, flag, move_cap, seat_colours
from ...core.text import ParsedPosition, shorten
from .rules import (
    BLACK,
    BLACK_KNIGHT,
    BLACK_ROOK,
    EMPTY,
    HOME_COLS,
    HOME_ROWS,
    JUMPER,
    META_SIZE,
    MOVE_CAP,
    NUM_ACTIONS,
    NUM_PLANES,
    PASS_ACTION,
    PENDING,
    PLACE_BASE,
    SEAT0_COLOUR,
    SELF_JUMP,
    SIZE,
    WHITE,
    WHITE_KNIGHT,
    WHITE_ROOK,
    apply_kernel,
    colour_of,
    is_goal,
    is_knight,
    mask_kernel,
    observe_kernel,
    vacant_homes,
)
from .view import CharingCrossView, goal_name


class CharingCross(Game):
    """Charing Cross (see :mod:`crossenvs.games.charing_cross`)."""

    name = "charing_cross"
    view_class = CharingCrossView
    facts = GameFacts(
        display_name="Charing Cross",
        rules_summary="Each side has two knights that race sideways across the board and two rooks that race up "
        "or down it. A piece steps one square forward (straight or diagonally) or jumps over an adjacent piece. "
        "A jumped piece is not captured but sent back home, and its owner picks which home square it returns "
        "to. The first piece to reach its goal line wins.",
    )
    OPTION_SCHEMA = (
        first_player("white", ("white", "black")),
        flag(
            "self_jump",
            True,
            "a piece may jump its own side's pieces (off: enemy pieces only)",
            label="Pieces may jump their own side",
            advanced=True,
        ),
        move_cap(200),
    )
    EXTRA_HEADER_KEYS = ("pending", "jumper")
    cell_letters = {EMPTY: ".", WHITE_KNIGHT: "N", WHITE_ROOK: "R", BLACK_KNIGHT: "n", BLACK_ROOK: "r"}
    owner_colour = {WHITE_KNIGHT: "white", WHITE_ROOK: "white", BLACK_KNIGHT: "black", BLACK_ROOK: "black"}
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    height = width = SIZE
    num_actions = NUM_ACTIONS
    observation_shape = (SIZE, SIZE, NUM_PLANES)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.self_jump = self.options["self_jump"]
        self.move_cap = self.options["move_cap"]
        self.colours = seat_colours(self.options["first_player"], ("white", "black"))

    @property
    def max_game_length(self) -> int:
        """``move_cap`` plies, each jump followed by at most one re-placement (an action that is no ply)."""
        return 2 * self.move_cap

    def initial_state(self) -> State:
        board = np.zeros((SIZE, SIZE), dtype=np.int8)
        for code in (WHITE_KNIGHT, WHITE_ROOK, BLACK_KNIGHT, BLACK_ROOK):
            for i in range(2):
                board[HOME_ROWS[code, i], HOME_COLS[code, i]] = code
        meta = np.zeros(META_SIZE, dtype=np.int32)
        meta[SEAT0_COLOUR] = WHITE if self.colours[0] == "white" else BLACK
        meta[SELF_JUMP] = self.self_jump
        meta[MOVE_CAP] = self.move_cap
        return State(board, meta)

    # ----------------------------------------------------------------- notation
    def _frame(self, state: State) -> int:
        return ROTATE_180 if self.colours[self.current_player(state)] == "black" else IDENTITY

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """The board turned half a turn, colours (and seat 0's colour) swapped: each seat sees the same."""
        swap = np.array([0, 3, 4, 1, 2], dtype=np.int8)  # each piece code -> the same piece of the other colour
        meta = state.meta.copy()
        meta[SEAT0_COLOUR] = 1 - meta[SEAT0_COLOUR]
        meta[PENDING] = swap[meta[PENDING]]
        return State(np.ascontiguousarray(swap[state.board][::-1, ::-1]), meta), (0, 1)

    def action_to_str(self, state: State, action: int) -> str:
        action = int(action)
        if action == PASS_ACTION:
            return PASS_TEXT
        frame = self._frame(state)
        if action >= PLACE_BASE:
            square = action - PLACE_BASE
            return "@" + square_name(*frame_to_board(square // SIZE, square % SIZE, frame, SIZE, SIZE))
        square, frame_dir, distance = action // 16, (action // 2) % 8, 1 + action % 2
        row, col = frame_to_board(square // SIZE, square % SIZE, frame, SIZE, SIZE)
        direction = opposite_direction(frame_dir) if frame == ROTATE_180 else frame_dir
        to_r, to_c = row + distance * int(DIRECTIONS[direction, 0]), col + distance * int(DIRECTIONS[direction, 1])
        if not (0 <= to_r < SIZE and 0 <= to_c < SIZE):
            return raw_id_text(action)  # leaves the board: no move has this notation
        return f"{square_name(row, col)}-{square_name(to_r, to_c)}"

    def str_to_action(self, state: State, text: str) -> int:
        move = text.strip().lower()
        frame = self._frame(state)
        if is_raw_id_text(move):
            return self.parse_raw_id(move)
        try:
            if move == PASS_TEXT:
                return PASS_ACTION
            if move.startswith("@"):
                row, col = frame_to_board(*parse_square(move[1:], SIZE, SIZE), frame, SIZE, SIZE)
                return PLACE_BASE + row * SIZE + col
            parts = move.split("-")
            if len(parts) != 2:
                raise ValueError("expected '<from>-<to>' such as 'a4-b5', '@a4' or 'pass'")
            (row, col), (to_r, to_c) = (parse_square(part, SIZE, SIZE) for part in parts)
            direction, distance = direction_between(row, col, to_r, to_c)
            if distance > 2:
                raise ValueError("a piece moves one square or jumps two")
        except ValueError as exc:
            raise IllegalActionError(f"{self.name}: cannot read move {text!r}: {exc}") from None
        frame_r, frame_c = frame_to_board(row, col, frame, SIZE, SIZE)
        frame_dir = opposite_direction(direction) if frame == ROTATE_180 else direction
        return ((frame_r * SIZE + frame_c) * 8 + frame_dir) * 2 + (distance - 1)

    # ----------------------------------------------------------------- position text
    def _extra_headers(self, state: State) -> list[tuple[str, str]]:
        code = int(state.meta[PENDING])
        if code == EMPTY:
            return []
        return [("pending", self.cell_letters[code]), ("jumper", self.colours[int(state.meta[JUMPER])])]

    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        letter = parsed.headers.get("pending")
        if letter is not None:
            self._load_pending(state, parsed, letter.strip())
        elif "jumper" in parsed.headers:
            raise parsed.error("jumper", "'jumper' belongs with 'pending' (a re-placement choice in progress)")
        winners = {
            colour_of(int(code))
            for (row, col), code in np.ndenumerate(board)
            if code != EMPTY and is_goal(int(code), row, col)
        }
        if len(winners) > 1:
            raise PositionTextError("pieces of both colours stand on their goal squares: only one side can have won")
        if winners:
            colour = "white" if winners.pop() == WHITE else "black"
            meta[st.STATUS] = st.STATUS_WIN_0 + self.colours.index(colour)
        elif passes_draw(meta) or meta[st.PLY] >= meta[MOVE_CAP]:
            meta[st.STATUS] = st.STATUS_DRAW
        self._check_pending_fits(state, parsed)

    def _load_pending(self, state: State, parsed: ParsedPosition, letter: str) -> None:
        codes = {v: k for k, v in self.cell_letters.items() if k != EMPTY}
        if letter not in codes:
            raise parsed.error("pending", f"{shorten(letter)} is not a piece letter ({', '.join(codes)})")
        code = codes[letter]
        owner = self.colours[self.current_player(state)]
        if ("white" if colour_of(code) == WHITE else "black") != owner:
            raise parsed.error("pending", f"the {owner} player is to move, so the lifted piece must be his")
        if vacant_homes(state.board, code) != 2:
            raise parsed.error("pending", "a choice is pending only while both home squares of the pair are empty")
        try:
            jumper = self.player_of_colour(parsed.headers.get("jumper", ""))
        except ValueError:
            raise parsed.error("jumper", "give the colour that jumped (white or black)") from None
        state.meta[PENDING] = code
        state.meta[JUMPER] = jumper

    def _check_pending_fits(self, state: State, parsed: ParsedPosition) -> None:
        """A pending choice follows a jump that neither won nor hit the cap (rule 6), and a jump ends a
        run of passes; without ``self_jump`` the jumper is the other side. Anything else no game reaches."""
        meta = state.meta
        if meta[PENDING] == EMPTY:
            return
        if meta[st.STATUS] != st.STATUS_PLAYING:
            raise parsed.error("pending", "the game is over in this position, so no re-placement is pending")
        if meta[st.PASSES]:
            raise parsed.error("passes", "a re-placement follows a jump, which ends a run of passes: give 0")
        seat = self.current_player(state)
        if not self.self_jump and meta[JUMPER] == seat:
            raise parsed.error(
                "jumper", f"with self_jump off no piece jumps its own side, so the jumper is {self.colours[1 - seat]}"
            )

    def end_cause(self, state: State) -> str:
        """docs/charing_cross.md: a piece reached its goal line; else two passes or the move cap."""
        if int(state.meta[st.STATUS]) == st.STATUS_DRAW:
            return super().end_cause(state) or f"the move cap ({self.move_cap} plies)"
        for (row, col), code in np.ndenumerate(state.board):
            if code != EMPTY and is_goal(int(code), row, col):
                colour = "white" if colour_of(int(code)) == WHITE else "black"
                kind = "knight" if is_knight(int(code)) else "rook"
                return f"the {colour} {kind} reached {goal_name(int(code))} on {square_name(row, col)}"
        return ""
