"""What Crossings and Neo-Crossings share as a game class: :class:`PhalanxGame` (setup, options, notation,
position text) and the :data:`STALEMATE` option. The rules it plays are the kernels of :mod:`.rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.codec import (
    DIRECTION_NAMES,
    DIRECTIONS,
    direction_between,
    move_index,
    move_of,
    opposite_direction,
)
from crossenvs.kernels.frames import ROTATE_180, frame_to_board
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError

from ...core.game import PASS_TEXT, Game, is_raw_id_text, raw_id_text
from ...core.geometry import parse_square, square_name
from ...core.options import choice
from ...core.text import ParsedPosition
from .rules import (
    BLACK,
    EMPTY,
    MAX_DISTANCE,
    META_SIZE,
    MOVE_CAP,
    NUM_ACTIONS,
    PASS_ACTION,
    SHARED_PLANES,
    SIZE,
    STALEMATE_LOSS,
    WHITE,
    decode,
    far_rank_count,
    frame_of,
    stone_run,
)
from .view import PhalanxView

#: the stalemate rule both phalanx games take as an option
STALEMATE = choice(
    "stalemate",
    "pass",
    ("pass", "loss"),
    "a player without a legal move passes (two in a row draw), or loses",
    label="When a player cannot move",
    advanced=True,
)


class PhalanxGame(Game):
    """What Crossings and Neo-Crossings share: setup, options, notation, position text.

    A subclass names the game, sets its ``OPTION_SCHEMA`` (:data:`STALEMATE` and a move cap, plus its own) and its three kernels (thin numba wrappers
    that pass its rule hooks to the generic kernels of :mod:`.rules`) and ``start_turn_kernel``.
    """

    colours = ("white", "black")
    view_class = PhalanxView
    cell_letters = {EMPTY: ".", WHITE: "W", BLACK: "B"}
    owner_colour = {WHITE: "white", BLACK: "black"}
    #: the generic start-of-turn tests bound to the game's hooks (used on positions read from text)
    start_turn_kernel: Callable[[np.ndarray, np.ndarray], None]
    #: observation planes of the game (the shared six plus its own)
    num_planes: int = SHARED_PLANES
    #: what the far-rank win test counts, as :meth:`end_cause` names it
    crossed_stones: str = "stones on his far rank"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.stalemate = self.options["stalemate"]
        self.move_cap = self.options["move_cap"]
        self.height = self.width = SIZE
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (SIZE, SIZE, self.num_planes)

    @property
    def max_game_length(self) -> int:
        """Every action is a ply (a pass too), and the game is drawn at ``move_cap`` plies."""
        return self.move_cap

    def initial_state(self) -> State:
        board = np.zeros((SIZE, SIZE), dtype=np.int8)
        board[:2] = WHITE
        board[-2:] = BLACK
        meta = np.zeros(META_SIZE, dtype=np.int32)
        meta[MOVE_CAP] = self.move_cap
        meta[STALEMATE_LOSS] = self.stalemate == "loss"
        return State(board, meta)

    # ----------------------------------------------------------------- notation
    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """Colours swapped and the board turned half a turn: Black's view is White's of the twin."""
        swapped = np.where(state.board == 0, 0, 3 - state.board).astype(np.int8)
        return State(np.ascontiguousarray(swapped[::-1, ::-1]), state.meta.copy()), (1, 0)

    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The identity and the left-right mirror: the start, the far-rank win, captures and the
        Neo-Crossings symmetry rule all look the same mirrored (its half turn commutes with the
        mirror). The mirror keeps a move's distance and flips its direction's east-west part."""
        grid = np.arange(SIZE * SIZE).reshape(SIZE, SIZE)
        mirrored_square = grid[:, ::-1].ravel()
        mirrored = np.arange(NUM_ACTIONS)
        for action in range(PASS_ACTION):
            square, direction, k = move_of(action, MAX_DISTANCE)
            mirrored[action] = move_index(mirrored_square[square], (8 - direction) % 8, k, MAX_DISTANCE)
        return [(grid.ravel().copy(), np.arange(NUM_ACTIONS)), (mirrored_square.copy(), mirrored)]

    def action_to_str(self, state: State, action: int) -> str:
        action = int(action)
        if action == PASS_ACTION:
            return PASS_TEXT
        row, col, direction, k = decode(self.current_player(state), action)
        dr, dc = int(DIRECTIONS[direction, 0]), int(DIRECTIONS[direction, 1])
        # the tail's run of stones along the direction (one square for an empty tail)
        length = 1 if state.board[row, col] == EMPTY else int(stone_run(state.board, row, col, dr, dc))
        head_r, head_c = row + (length - 1) * dr, col + (length - 1) * dc
        land_r, land_c = head_r + k * dr, head_c + k * dc
        tail = square_name(row, col)
        if not (0 <= land_r < SIZE and 0 <= land_c < SIZE):
            return raw_id_text(action)  # the head would leave the board: no move has this notation
        head = "" if length == 1 else square_name(head_r, head_c) + "-"
        return f"{tail}-{head}{square_name(land_r, land_c)}"

    def str_to_action(self, state: State, text: str) -> int:
        if text.strip().lower() == PASS_TEXT:
            return PASS_ACTION
        if is_raw_id_text(text):
            return self.parse_raw_id(text)
        parts = [part.strip() for part in text.strip().lower().split("-")]
        try:
            if len(parts) not in (2, 3):
                raise ValueError("expected a move such as 'd5-d6', a line move such as 'c2-c4-c6', or 'pass'")
            squares = [parse_square(part, SIZE, SIZE) for part in parts]
            direction, k = direction_between(*squares[-2], *squares[-1])
            if len(parts) == 3 and direction_between(*squares[0], *squares[1])[0] != direction:
                raise ValueError("the tail, head and destination are not on one line in that order")
        except ValueError as exc:
            raise IllegalActionError(f"{self.name}: cannot read move {text!r}: {exc}") from None
        if k > MAX_DISTANCE:
            raise IllegalActionError(f"{self.name}: cannot read move {text!r}: a group moves at most {MAX_DISTANCE}")
        player = self.current_player(state)
        if state.board[squares[0]] != player + 1:
            raise IllegalActionError(f"{self.name}: {text!r}: there is no {self.colours[player]} stone on {parts[0]}")
        frame = frame_of(player)
        frame_r, frame_c = frame_to_board(squares[0][0], squares[0][1], frame, SIZE, SIZE)
        frame_dir = opposite_direction(direction) if frame == ROTATE_180 else direction
        action = move_index(frame_r * SIZE + frame_c, frame_dir, k, MAX_DISTANCE)
        canonical = self.action_to_str(state, action)
        if canonical != "-".join(parts):
            raise IllegalActionError(
                f"{self.name}: {text!r} does not describe a group here: the group from {parts[0]} "
                f"moving {DIRECTION_NAMES[direction]} by {k} is written {canonical!r}"
            )
        return action

    # ----------------------------------------------------------------- text and rendering
    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        """The start-of-turn tests (``passes`` is 0..2 already, see ``Game.MAX_PASSES``)."""
        type(self).start_turn_kernel(state.board, state.meta)

    def end_cause(self, state: State) -> str:
        """The start-of-turn tests (docs/crossings.md, docs/neo_crossings.md): far ranks, stalemate, cap."""
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_DRAW:
            return super().end_cause(state) or f"the move cap ({self.move_cap} plies)"
        winner = 0 if status == st.STATUS_WIN_0 else 1
        ahead, behind = far_rank_count(state.board, winner + 1), far_rank_count(state.board, 2 - winner)
        if ahead > behind:
            name = self.colours[winner].capitalize()
            return f"{name} starts his turn with more {self.crossed_stones} ({ahead} to {behind})"
        return f"{self.colours[1 - winner].capitalize()} has no legal move (stalemate=loss)"
