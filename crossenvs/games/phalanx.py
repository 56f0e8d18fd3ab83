"""Shared phalanx mechanics of Crossings and Neo-Crossings (docs/crossings.md, docs/neo_crossings.md).

Both games move lines of stones the same way; they differ only in three rule hooks that each
game module supplies as numba functions and passes to the generic kernels below:

* ``frozen(board, row, col) -> bool``: may this stone never move (and never be captured)?
  Crossings: a stone on its far rank. Neo-Crossings: never.
* ``capture(board, row, col, dr, dc, movers, remove) -> bool``: the head of a group of
  ``movers`` stones moving by ``(dr, dc)`` lands on the enemy stone at ``(row, col)``; is that a
  legal capture? With ``remove`` set, also take the captured stones off the board.
* ``allowed(board, meta, row, col, dr, dc, k, length) -> bool``: called for a move (the group
  of ``length`` stones from tail ``(row, col)``, moving ``k`` by ``(dr, dc)``) that brings one of
  the mover's stones onto his far rank from another rank; False makes it illegal (Neo-Crossings'
  symmetry rule, which plays the move on a copy with :func:`play_move` to judge the result;
  Crossings allows every such move).

Movement (written once, here): a *tail* stone and a direction define the group, the run of
consecutive friendly stones from the tail forward; its front stone is the *head*. The group moves
``k`` squares, ``1 <= k <= L`` (its length); the squares the head passes over must be empty, and
it lands on an empty square or on an enemy stone (a capture attempt, judged by ``capture``).
A single stone steps one square and never captures (no enemy run is shorter than one).

The win test is shared too: at the start of his turn, a player with more stones on his far rank
than the opponent has on his wins (in Crossings those stones are exactly the frozen ones). A
player without a legal move passes (``stalemate="pass"``; two passes in a row draw) or loses
(``stalemate="loss"``), and reaching ``move_cap`` plies without a result draws (docs/README.md, conventions).

Action encoding (both games)
----------------------------
Actions are named in the acting player's frame: White sees the board as it is, Black turned
half a turn (docs/README.md, conventions), so both push their stones "up" from row 0. With ``square =
row * 8 + col`` of the tail in that frame, ``direction`` in ``0..7`` (N, NE, E, SE, S, SW, W, NW
in that frame) and ``distance`` ``k`` in ``1..7``::

    action = (square * 8 + direction) * 7 + (k - 1)        # 0 .. 3583
    action = 3584                                          # pass (only when nothing else is legal)

``num_actions = 3585``. Notation (both pages, action encoding): a single stone ``d5-d6``; a line
``<tail>-<head>-<destination of the head>``, e.g. ``c2-c4-c6``; ``pass``. (An id whose head would
leave the board names no move; it is written ``#<id>``, e.g. ``#3583``, which reads back.)

Observation (shared planes; a game may append its own)
------------------------------------------------------
float32 ``(8, 8, C)`` in the observer's frame (row 0 is the observer's home rank):

* plane 0: the observer's stones;
* plane 1: the opponent's stones;
* plane 2: the observer's stones on his far rank, as a count / 8 in every cell;
* plane 3: the opponent's stones on his far rank, as a count / 8 in every cell;
* plane 4: all ones if the previous turn was a pass (one more pass draws);
* plane 5: plies played / ``move_cap`` in every cell (how near the draw by the cap is).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from ..core import state as st
from ..core.codec import DIRECTION_NAMES, DIRECTIONS, direction_between, move_index, move_of, opposite_direction
from ..core.errors import IllegalActionError
from ..core.frames import IDENTITY, ROTATE_180, frame_to_board
from ..core.game import PASS_TEXT, Game, is_raw_id_text, raw_id_text
from ..core.geometry import parse_square, square_name
from ..core.observation import pass_and_cap_values
from ..core.options import choice_option, int_option
from ..core.state import State
from ..core.text import ParsedPosition

SIZE = 8
MAX_DISTANCE = SIZE - 1
EMPTY, WHITE, BLACK = 0, 1, 2
NUM_MOVE_ACTIONS = SIZE * SIZE * 8 * MAX_DISTANCE  # 3584
PASS_ACTION = NUM_MOVE_ACTIONS
NUM_ACTIONS = NUM_MOVE_ACTIONS + 1
SHARED_PLANES = 6

# Game slots of the meta vector, after the common ones. Options live in the state so that the
# kernels (and a batch of games) need nothing but the two arrays.
MOVE_CAP = st.META_SIZE  # draw once this many plies are played
STALEMATE_LOSS = st.META_SIZE + 1  # 1: a player without a move loses; 0: he passes
SYMMETRY_RULE = st.META_SIZE + 2  # 1: Neo-Crossings' symmetry restriction is on
META_SIZE = st.META_SIZE + 3


# ----------------------------------------------------------------------------- geometry
@njit(cache=True, inline="always")
def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@njit(cache=True, inline="always")
def far_row(colour: int) -> int:
    """Board row of a colour's far rank: rank 8 for White, rank 1 for Black."""
    return SIZE - 1 if colour == WHITE else 0


@njit(cache=True, inline="always")
def frame_of(player: int) -> int:
    """White (seat 0) plays in the board's frame, Black (seat 1) in the half-turned one."""
    return ROTATE_180 if player == 1 else IDENTITY


@njit(cache=True)
def far_rank_count(board: np.ndarray, colour: int) -> int:
    """Stones of ``colour`` on its far rank (the win test counts these)."""
    row = far_row(colour)
    count = 0
    for col in range(SIZE):
        if board[row, col] == colour:
            count += 1
    return count


@njit(cache=True)
def enemy_run(board: np.ndarray, row: int, col: int, dr: int, dc: int) -> int:
    """Consecutive stones of the colour at ``(row, col)``, from there onward (E of the rules on an enemy stone)."""
    colour = board[row, col]
    run = 0
    while on_board(row, col) and board[row, col] == colour:
        run += 1
        row += dr
        col += dc
    return run


# ----------------------------------------------------------------------------- moves
@njit(cache=True, inline="always")
def group_length(board: np.ndarray, row: int, col: int, dr: int, dc: int, mine: int, frozen) -> int:
    """L: the friendly run from the tail forward; 0 if the tail is not ``mine`` or any member is frozen."""
    length = 0
    while on_board(row, col) and board[row, col] == mine:
        if frozen(board, row, col):
            return 0
        length += 1
        row += dr
        col += dc
    return length


@njit(cache=True)
def play_move(board, row, col, dr, dc, k, length, mine, capture) -> None:
    """Move the group (already checked legal) and make its capture, in place."""
    land_r, land_c = row + (length - 1 + k) * dr, col + (length - 1 + k) * dc
    if board[land_r, land_c] != EMPTY:
        capture(board, land_r, land_c, dr, dc, length, True)
    for i in range(length):
        board[row + i * dr, col + i * dc] = EMPTY
    for i in range(length):
        board[row + (i + k) * dr, col + (i + k) * dc] = mine


@njit(cache=True, inline="always")
def legal_distances(board, meta, row, col, direction, frozen, capture, allowed) -> int:
    """How far the group of tail ``(row, col)`` may move in board ``direction``: the legal ``k`` are ``1..K``.

    Legality is monotone in ``k`` (a longer move would take the head over the square that
    stopped a shorter one), so one count describes every distance. The player to move is the
    mover; 0 if the tail is not his or his group cannot move that way.
    """
    mine = meta[st.TO_MOVE] + 1
    dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
    length = group_length(board, row, col, dr, dc, mine, frozen)
    head_r, head_c = row + (length - 1) * dr, col + (length - 1) * dc
    for k in range(1, length + 1):
        land_r, land_c = head_r + k * dr, head_c + k * dc
        if not on_board(land_r, land_c):
            return k - 1
        target = board[land_r, land_c]
        if target == mine or (target != EMPTY and not capture(board, land_r, land_c, dr, dc, length, False)):
            return k - 1
        crossing = land_r == far_row(mine) and dr != 0  # a stone arrives on the far rank from another rank
        if crossing and not allowed(board, meta, row, col, dr, dc, k, length):
            return k - 1
        if target != EMPTY:
            return k  # the head stops on the first enemy stone it meets
    return length


MARK_MASK, FIRST_ONLY, LIST_IDS = 0, 1, 2  # what scan_moves does with each legal move it finds


@njit(cache=True)
def scan_moves(board, meta, out, mode, frozen, capture, allowed) -> int:
    """Find the legal moves of the player to move; returns how many were found.

    ``MARK_MASK``: set ``out[id] = 1`` (``out`` zeroed); ``FIRST_ONLY``: stop at the first and
    write nothing; ``LIST_IDS``: write the ids into ``out`` in ascending order (the squares are
    visited in the mover's frame, which orders the ids).
    """
    player = meta[st.TO_MOVE]
    mine = player + 1
    frame = frame_of(player)
    found = 0
    for frame_r in range(SIZE):
        for frame_c in range(SIZE):
            row, col = frame_to_board(frame_r, frame_c, frame, SIZE, SIZE)
            if board[row, col] != mine:
                continue  # (a frozen tail gives groups of length 0 below)
            square = frame_r * SIZE + frame_c
            for frame_dir in range(8):
                direction = opposite_direction(frame_dir) if frame == ROTATE_180 else frame_dir
                count = legal_distances(board, meta, row, col, direction, frozen, capture, allowed)
                if count == 0:
                    continue
                if mode == FIRST_ONLY:
                    return 1
                first = move_index(square, frame_dir, 1, MAX_DISTANCE)
                for k in range(count):
                    if mode == LIST_IDS:
                        out[found + k] = first + k
                    else:
                        out[first + k] = 1
                found += count
    return found


@njit(cache=True)
def legal_ids(board, meta, out, frozen, capture, allowed) -> int:
    """The legal action ids, ascending, into ``out`` (room for ``NUM_ACTIONS``); returns how many."""
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return 0
    count = scan_moves(board, meta, out, LIST_IDS, frozen, capture, allowed)
    if count == 0:
        out[0] = PASS_ACTION
        count = 1
    return count


@njit(cache=True)
def decode(player: int, action: int) -> tuple[int, int, int, int]:
    """``(row, col, direction, k)`` on the board of a move action named in ``player``'s frame."""
    square, frame_dir, k = move_of(action, MAX_DISTANCE)
    frame = frame_of(player)
    row, col = frame_to_board(square // SIZE, square % SIZE, frame, SIZE, SIZE)
    direction = opposite_direction(frame_dir) if frame == ROTATE_180 else frame_dir
    return row, col, direction, k


# ----------------------------------------------------------------------------- turns
@njit(cache=True)
def start_turn(board, meta, frozen, capture, allowed) -> None:
    """The tests at the start of a turn, then the cap (turn order in docs/crossings.md, docs/neo_crossings.md)."""
    player = meta[st.TO_MOVE]
    if meta[st.PASSES] >= 2:
        meta[st.STATUS] = st.STATUS_DRAW
    elif far_rank_count(board, player + 1) > far_rank_count(board, 2 - player):
        meta[st.STATUS] = st.STATUS_WIN_0 + player
    elif meta[STALEMATE_LOSS] and scan_moves(board, meta, board[0, :0], FIRST_ONLY, frozen, capture, allowed) == 0:
        meta[st.STATUS] = st.STATUS_WIN_0 + (1 - player)
    elif meta[st.PLY] >= meta[MOVE_CAP]:
        meta[st.STATUS] = st.STATUS_DRAW


@njit(cache=True)
def apply_action(board, meta, action, frozen, capture, allowed) -> bool:
    """Play ``action`` in place for the player to move; False (nothing changed) if illegal."""
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= NUM_ACTIONS:
        return False
    player = meta[st.TO_MOVE]
    if action == PASS_ACTION:
        if scan_moves(board, meta, board[0, :0], FIRST_ONLY, frozen, capture, allowed) > 0:
            return False  # passing is allowed only when nothing else is
        meta[st.PASSES] += 1
    else:
        row, col, direction, k = decode(player, action)
        if k > legal_distances(board, meta, row, col, direction, frozen, capture, allowed):
            return False
        dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
        length = group_length(board, row, col, dr, dc, player + 1, frozen)
        play_move(board, row, col, dr, dc, k, length, player + 1, capture)
        meta[st.PASSES] = 0
    meta[st.PLY] += 1
    meta[st.TO_MOVE] = 1 - player
    start_turn(board, meta, frozen, capture, allowed)
    return True


@njit(cache=True)
def legal_mask(board, meta, out, frozen, capture, allowed) -> None:
    """``out[a] = 1`` for each legal action; the pass is legal only when no move is."""
    out[:] = 0
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return
    if scan_moves(board, meta, out, MARK_MASK, frozen, capture, allowed) == 0:
        out[PASS_ACTION] = 1


@njit(cache=True)
def observe_shared(board, meta, player, out) -> None:
    """The shared planes 0-5 (see the module docstring), in one pass over the cells."""
    mine, theirs = player + 1, 2 - player
    own_far = far_rank_count(board, mine) / SIZE
    their_far = far_rank_count(board, theirs) / SIZE
    passed, progress = pass_and_cap_values(meta[st.PASSES], meta[st.PLY], meta[MOVE_CAP])
    frame = frame_of(player)
    for r in range(SIZE):
        for c in range(SIZE):
            br, bc = frame_to_board(r, c, frame, SIZE, SIZE)
            cell = board[br, bc]
            out[r, c, 0] = 1.0 if cell == mine else 0.0
            out[r, c, 1] = 1.0 if cell == theirs else 0.0
            out[r, c, 2] = own_far
            out[r, c, 3] = their_far
            out[r, c, 4] = passed
            out[r, c, 5] = progress


# ----------------------------------------------------------------------------- the game class
class PhalanxGame(Game):
    """What Crossings and Neo-Crossings share: setup, options, notation, position text.

    A subclass names the game, sets its ``OPTIONS`` and its three kernels (thin numba wrappers
    that pass its rule hooks to the generic kernels above) and ``start_turn_kernel``.
    """

    colours = ("white", "black")
    cell_letters = {EMPTY: ".", WHITE: "W", BLACK: "B"}
    owner_colour = {WHITE: "white", BLACK: "black"}
    piece_colours = {WHITE: (238, 236, 228), BLACK: (40, 40, 40)}
    #: the generic start-of-turn tests bound to the game's hooks (used on positions read from text)
    start_turn_kernel: Callable[[np.ndarray, np.ndarray], None]
    #: observation planes of the game (the shared six plus its own)
    num_planes: int = SHARED_PLANES
    #: what the far-rank win test counts, as :meth:`end_cause` names it
    crossed_stones: str = "stones on his far rank"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.stalemate = choice_option(self.name, "stalemate", self.options["stalemate"], ("pass", "loss"))
        self.move_cap = int_option(self.name, "move_cap", self.options["move_cap"], 1, 1_000_000)
        self.options.update(stalemate=self.stalemate, move_cap=self.move_cap)
        self.height = self.width = SIZE
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (SIZE, SIZE, self.num_planes)

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

    def action_to_str(self, state: State, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"{self.name}: action {action!r} is not an id in 0..{NUM_ACTIONS - 1}")
        if action == PASS_ACTION:
            return PASS_TEXT
        row, col, direction, k = decode(self.current_player(state), action)
        dr, dc = int(DIRECTIONS[direction, 0]), int(DIRECTIONS[direction, 1])
        # the tail's run of stones along the direction (one square for an empty tail)
        length = 1 if state.board[row, col] == EMPTY else int(enemy_run(state.board, row, col, dr, dc))
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

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        return (214, 190, 150) if (row + col) % 2 == 0 else (240, 222, 186)

    def piece_kind(self, code: int) -> str:
        return "stone"

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
