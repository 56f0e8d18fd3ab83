"""Charing Cross (BGDF, 2011, "Lokinervio"): full rules in ``docs/charing_cross.md``.

Rules in brief
--------------
8x8 board. Each side has two knights and two rooks. White's knights start on a4, a5 and race to
file h; White's rooks start on d8, e8 and race to rank 1. Black's knights start on h4, h5 (goal:
file a) and his rooks on d1, e1 (goal: rank 8). On his turn a player makes one action with one
piece:

* **forward move**: one square toward the piece's goal, straight or diagonal (three candidate
  squares), onto an empty square that is not an *edge* for that piece type (knights: ranks 1
  and 8; rooks: files a and h);
* **jump**: over an adjacent piece of either colour (with ``self_jump`` on, also one's own), in
  any of the 8 directions, onto the empty square directly beyond; no edge or direction limits.

A piece that ends its action on one of its goal squares wins at once. Otherwise, after a jump,
the jumped piece is lifted and its **owner** puts it back on a vacant home square of its pair
(the two squares where that colour's pieces of that type start): with both vacant the owner
chooses (a separate decision, ``@a4``), with one it goes there, with none it leaves the game for
good. If the owner was the jumper's opponent, he chooses and then plays his own turn; if he
jumped his own piece, he chooses and then the opponent moves. A player with no legal action
passes (two passes in a row draw), and the game is drawn once ``move_cap`` plies are played.
Re-placement choices are not plies.

Options
-------
``first_player`` (``"white"`` | ``"black"``, default ``"white"``): the colour of seat 0, which
moves first. ``self_jump`` (bool or ``"on"``/``"off"``, default on): may a piece jump its own
side's pieces. ``move_cap`` (int, default 200).

Players and frames
------------------
Observations and actions are egocentric (docs/README.md, conventions): Black sees the board turned
half a turn, so that in his frame, as in White's, his knights start on the left and run right
and his rooks start at the top and run down.

Action encoding
---------------
``num_actions = 1089``, all in the acting player's frame (``square = row * 8 + col``, row 0 is
the player's bottom rank; ``direction`` 0..7 = N, NE, E, SE, S, SW, W, NW in that frame):

* ``(square * 8 + direction) * 2 + 0``: forward move one square (ids 0..1023, even);
* ``(square * 8 + direction) * 2 + 1``: jump over the neighbour in ``direction`` (odd);
* ``1024 + square``: re-place the pending piece on ``square`` (only its two home squares can be
  legal, and only while a choice is pending);
* ``1088``: pass (legal only when nothing else is).

Notation (docs/charing_cross.md, action encoding): ``a4-b5`` (forward move), ``a4-a6`` (jump), ``@a4`` (re-placement),
``pass``.

Observation
-----------
float32 ``(8, 8, 17)`` in the observer's frame:

* planes 0-3: own knights, own rooks, opponent knights, opponent rooks;
* plane 4: the squares the pending piece may be re-placed on (all zero when no choice is pending);
* plane 5: all ones while a re-placement choice is pending and the observer owns that piece;
* planes 6-9: goal squares of own knights, own rooks, opponent knights, opponent rooks;
* plane 10: edge squares of knights (forbidden for their forward moves);
* plane 11: edge squares of rooks;
* planes 12-13: own home squares, opponent home squares;
* plane 14: all ones if the previous turn was a pass (one more pass draws);
* plane 15: plies played / ``move_cap`` in every cell;
* plane 16: all ones while the observer must re-place a piece that his opponent jumped, so
  that he also plays the next turn (after re-placing a piece he jumped himself, the opponent
  moves).

Rewards and end
---------------
+1 / -1 when a piece reaches its goal; 0 to both for two passes in a row or the move cap.

Position text
-------------
Cells ``.``, ``N``/``R`` (White knight/rook), ``n``/``r`` (Black). Headers ``to_move``
(required), ``ply``, ``passes``, and while a choice is pending ``pending`` (the letter of the
lifted piece; ``to_move`` is its owner, who decides) with ``jumper`` (the colour that jumped).
A piece standing on its goal square means its side has won.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core import state as st
from ..core.bits import cell_bits, lowest_square
from ..core.codec import DIRECTIONS, direction_between, opposite_direction
from ..core.conventions import count_pass, passes_draw, seat_colour
from ..core.errors import IllegalActionError, PositionTextError
from ..core.facts import GameFacts
from ..core.frames import IDENTITY, ROTATE_180, frame_to_board
from ..core.game import PASS_TEXT, Game, is_raw_id_text, raw_id_text
from ..core.geometry import parse_square, square_name
from ..core.observation import pass_and_cap_values
from ..core.options import first_player, flag, move_cap
from ..core.state import State
from ..core.text import ParsedPosition, shorten
from ..core.view import GameView

SIZE = 8
EMPTY, WHITE_KNIGHT, WHITE_ROOK, BLACK_KNIGHT, BLACK_ROOK = 0, 1, 2, 3, 4
WHITE, BLACK = 0, 1  # colour ids (not seats: seat 0 is whichever colour moves first)
NUM_MOVE_ACTIONS = SIZE * SIZE * 8 * 2  # 1024
PLACE_BASE = NUM_MOVE_ACTIONS
PASS_ACTION = PLACE_BASE + SIZE * SIZE  # 1088
NUM_ACTIONS = PASS_ACTION + 1
NUM_PLANES = 17

# Game slots of the meta vector (options live in the state, so kernels need only the arrays).
SEAT0_COLOUR = st.META_SIZE  # WHITE or BLACK: the colour of seat 0 (option first_player)
SELF_JUMP = st.META_SIZE + 1  # 1: pieces may jump their own side's pieces
MOVE_CAP = st.META_SIZE + 2
PENDING = st.META_SIZE + 3  # code of the lifted piece awaiting its owner's choice, else EMPTY
JUMPER = st.META_SIZE + 4  # seat that made the jump behind a pending choice
META_SIZE = st.META_SIZE + 5

# Per piece code (index 0 unused): its three forward directions (indices into DIRECTIONS, board
# frame), its two home squares, and its goal line (a row or a column).
FORWARD = np.array([[0, 0, 0], [2, 1, 3], [4, 3, 5], [6, 7, 5], [0, 1, 7]], dtype=np.int64)
HOME_ROWS = np.array([[0, 0], [3, 4], [7, 7], [3, 4], [0, 0]], dtype=np.int64)
HOME_COLS = np.array([[0, 0], [0, 0], [3, 4], [7, 7], [3, 4]], dtype=np.int64)
GOAL_IS_COL = np.array([False, True, False, True, False])  # knights race to a file, rooks to a rank
GOAL_LINE = np.array([0, 7, 0, 0, 7], dtype=np.int64)


# ----------------------------------------------------------------------------- pieces
@njit(cache=True, inline="always")
def colour_of(code: int) -> int:
    return WHITE if code <= WHITE_ROOK else BLACK


@njit(cache=True, inline="always")
def is_knight(code: int) -> bool:
    return code == WHITE_KNIGHT or code == BLACK_KNIGHT


@njit(cache=True, inline="always")
def frame_of(meta: np.ndarray, seat: int) -> int:
    """White plays in the board's frame, Black in the half-turned one."""
    return ROTATE_180 if seat_colour(meta[SEAT0_COLOUR], seat) == BLACK else IDENTITY


@njit(cache=True, inline="always")
def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@njit(cache=True)
def is_edge(code: int, row: int, col: int) -> bool:
    """Edge squares, forbidden to forward moves: ranks 1 and 8 for knights, files a and h for rooks."""
    line = row if is_knight(code) else col
    return line == 0 or line == SIZE - 1


@njit(cache=True)
def is_goal(code: int, row: int, col: int) -> bool:
    return (col if GOAL_IS_COL[code] else row) == GOAL_LINE[code]


@njit(cache=True)
def vacant_homes(board: np.ndarray, code: int) -> int:
    """How many of the two home squares of ``code``'s pair are empty."""
    count = 0
    for i in range(2):
        if board[HOME_ROWS[code, i], HOME_COLS[code, i]] == EMPTY:
            count += 1
    return count


# ----------------------------------------------------------------------------- move rules
@njit(cache=True, inline="always")
def legal_steps(board, meta, code, row, col, direction) -> tuple[bool, bool]:
    """docs/charing_cross.md, rules 3-4: ``(forward move legal, jump legal)`` for the piece ``code``
    on ``(row, col)`` toward board ``direction``.

    Both read the neighbour in that direction and at most one can hold (a move needs it empty, a
    jump needs a piece there), so the mask asks once for both.
    """
    dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
    over_r, over_c = row + dr, col + dc
    if not on_board(over_r, over_c):
        return False, False
    over = board[over_r, over_c]
    if over == EMPTY:
        forward = direction == FORWARD[code, 0] or direction == FORWARD[code, 1] or direction == FORWARD[code, 2]
        return forward and not is_edge(code, over_r, over_c), False
    land_r, land_c = over_r + dr, over_c + dc
    if not on_board(land_r, land_c) or board[land_r, land_c] != EMPTY:
        return False, False
    return False, meta[SELF_JUMP] == 1 or colour_of(over) != colour_of(code)


@njit(cache=True)
def is_legal_move(board, meta, row, col, direction, jump) -> bool:
    """Whether the piece on ``(row, col)`` of the player to move may step (or ``jump``) in board ``direction``."""
    code = board[row, col]
    if code == EMPTY or colour_of(code) != seat_colour(meta[SEAT0_COLOUR], meta[st.TO_MOVE]):
        return False
    move, jump_over = legal_steps(board, meta, code, row, col, direction)
    return jump_over if jump else move


@njit(cache=True)
def scan_moves(board, meta, out, first_only) -> bool:
    """Mark the legal moves and jumps of the player to move in ``out`` (zeroed); True if any.

    With ``first_only``, stop at the first and write nothing.
    """
    seat = meta[st.TO_MOVE]
    mine = seat_colour(meta[SEAT0_COLOUR], seat)
    frame = frame_of(meta, seat)
    knight = WHITE_KNIGHT if mine == WHITE else BLACK_KNIGHT
    pieces = cell_bits(board, knight)[0] | cell_bits(board, knight + 1)[0]  # at most four
    found = False
    while pieces:
        board_square = lowest_square(pieces)
        row, col = board_square >> 3, board_square & 7
        pieces &= pieces - np.uint64(1)
        code = board[row, col]
        frame_r, frame_c = frame_to_board(row, col, frame, SIZE, SIZE)
        square = frame_r * SIZE + frame_c
        for frame_dir in range(8):
            direction = opposite_direction(frame_dir) if frame == ROTATE_180 else frame_dir
            move, jump = legal_steps(board, meta, code, row, col, direction)
            if move or jump:
                if first_only:
                    return True
                found = True
                out[(square * 8 + frame_dir) * 2 + (1 if jump else 0)] = 1
    return found


@njit(cache=True)
def _end_turn(meta: np.ndarray, next_seat: int) -> None:
    """Hand the turn on, then the cap (docs/charing_cross.md, rule 8)."""
    meta[st.TO_MOVE] = next_seat
    if meta[st.STATUS] == st.STATUS_PLAYING and meta[st.PLY] >= meta[MOVE_CAP]:
        meta[st.STATUS] = st.STATUS_DRAW


@njit(cache=True)
def _replace_jumped(board, meta, code, jumper) -> None:
    """docs/charing_cross.md, rule 6: the owner's choice when both homes are vacant, else forced or removed."""
    owner = 0 if seat_colour(meta[SEAT0_COLOUR], 0) == colour_of(code) else 1
    vacant = vacant_homes(board, code)
    if vacant == 2 and meta[st.PLY] < meta[MOVE_CAP]:  # (at the cap the game is drawn: nothing to ask)
        meta[PENDING] = code
        meta[JUMPER] = jumper
        _end_turn(meta, owner)
        return
    if vacant == 1:
        for i in range(2):
            if board[HOME_ROWS[code, i], HOME_COLS[code, i]] == EMPTY:
                board[HOME_ROWS[code, i], HOME_COLS[code, i]] = code
    _end_turn(meta, 1 - jumper)


@njit(cache=True)
def _place(board, meta, action) -> bool:
    """The owner's re-placement choice (not a ply); then play goes on as the rules say."""
    if action < PLACE_BASE or action >= PASS_ACTION:
        return False
    seat = meta[st.TO_MOVE]
    square = action - PLACE_BASE
    row, col = frame_to_board(square // SIZE, square % SIZE, frame_of(meta, seat), SIZE, SIZE)
    code = meta[PENDING]
    is_home = (row == HOME_ROWS[code, 0] and col == HOME_COLS[code, 0]) or (
        row == HOME_ROWS[code, 1] and col == HOME_COLS[code, 1]
    )
    if not is_home or board[row, col] != EMPTY:
        return False
    board[row, col] = code
    meta[PENDING] = EMPTY
    meta[st.TO_MOVE] = seat if meta[JUMPER] != seat else 1 - seat
    meta[JUMPER] = 0
    return True


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Play ``action`` in place for the player to decide; False (nothing changed) if illegal."""
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= NUM_ACTIONS:
        return False
    if meta[PENDING] != EMPTY:
        return _place(board, meta, action)
    seat = meta[st.TO_MOVE]
    if action == PASS_ACTION:
        if scan_moves(board, meta, board[0, :0], True):
            return False
        meta[st.PLY] += 1
        count_pass(meta)
        _end_turn(meta, 1 - seat)
        return True
    if action >= NUM_MOVE_ACTIONS:
        return False
    square, frame_dir, jump = action // 16, (action // 2) % 8, action % 2 == 1
    frame = frame_of(meta, seat)
    row, col = frame_to_board(square // SIZE, square % SIZE, frame, SIZE, SIZE)
    direction = opposite_direction(frame_dir) if frame == ROTATE_180 else frame_dir
    if not is_legal_move(board, meta, row, col, direction, jump):
        return False
    dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
    distance = 2 if jump else 1
    code = board[row, col]
    land_r, land_c = row + distance * dr, col + distance * dc
    board[row, col] = EMPTY
    board[land_r, land_c] = code
    meta[st.PLY] += 1
    meta[st.PASSES] = 0
    if is_goal(code, land_r, land_c):
        meta[st.STATUS] = st.STATUS_WIN_0 + seat  # a win at once: no re-placement is asked
        meta[st.TO_MOVE] = 1 - seat
        return True
    if jump:
        jumped = board[row + dr, col + dc]
        board[row + dr, col + dc] = EMPTY  # lifted: vacancy is judged with it off the board
        _replace_jumped(board, meta, jumped, seat)
    else:
        _end_turn(meta, 1 - seat)
    return True


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each legal action: the two homes while a choice is pending, else moves or pass."""
    out[:] = 0
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return
    seat = meta[st.TO_MOVE]
    code = meta[PENDING]
    if code != EMPTY:
        frame = frame_of(meta, seat)
        for i in range(2):
            r, c = frame_to_board(HOME_ROWS[code, i], HOME_COLS[code, i], frame, SIZE, SIZE)
            if board[HOME_ROWS[code, i], HOME_COLS[code, i]] == EMPTY:
                out[PLACE_BASE + r * SIZE + c] = 1
        return
    if not scan_moves(board, meta, out, False):
        out[PASS_ACTION] = 1


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """The 17 planes of the module docstring, in ``player``'s frame."""
    mine = seat_colour(meta[SEAT0_COLOUR], player)
    own_knight = WHITE_KNIGHT if mine == WHITE else BLACK_KNIGHT
    own_rook = own_knight + 1
    their_knight = BLACK_KNIGHT if mine == WHITE else WHITE_KNIGHT
    their_rook = their_knight + 1
    pending = meta[PENDING]
    frame = frame_of(meta, player)
    passed, progress = pass_and_cap_values(meta[st.PASSES], meta[st.PLY], meta[MOVE_CAP])
    owns_pending = 1.0 if pending != EMPTY and colour_of(pending) == mine else 0.0
    moves_again = 1.0 if owns_pending == 1.0 and meta[JUMPER] != player else 0.0
    for r in range(SIZE):
        for c in range(SIZE):
            br, bc = frame_to_board(r, c, frame, SIZE, SIZE)
            cell = board[br, bc]
            out[r, c, 0] = 1.0 if cell == own_knight else 0.0
            out[r, c, 1] = 1.0 if cell == own_rook else 0.0
            out[r, c, 2] = 1.0 if cell == their_knight else 0.0
            out[r, c, 3] = 1.0 if cell == their_rook else 0.0
            is_pending_home = False
            if pending != EMPTY:
                for i in range(2):
                    if br == HOME_ROWS[pending, i] and bc == HOME_COLS[pending, i] and cell == EMPTY:
                        is_pending_home = True
            out[r, c, 4] = 1.0 if is_pending_home else 0.0
            out[r, c, 5] = owns_pending
            for plane in range(GEOMETRY_PLANES.shape[2]):
                out[r, c, 6 + plane] = GEOMETRY_PLANES[r, c, plane]
            out[r, c, 14] = passed
            out[r, c, 15] = progress
            out[r, c, 16] = moves_again


def _geometry_planes() -> np.ndarray:
    """Planes 6-13 (goals, edges, homes) as White sees them, which is how every player sees them.

    The frames make the geometry egocentric (Black's half-turned board puts his knights on the
    left and his rooks on top, like White's), so these planes are the same constant for both.
    """
    planes = np.zeros((SIZE, SIZE, 8), dtype=np.float32)
    for r in range(SIZE):
        for c in range(SIZE):
            for index, code in enumerate((WHITE_KNIGHT, WHITE_ROOK, BLACK_KNIGHT, BLACK_ROOK)):
                planes[r, c, index] = is_goal(code, r, c)
            planes[r, c, 4] = is_edge(WHITE_KNIGHT, r, c)
            planes[r, c, 5] = is_edge(WHITE_ROOK, r, c)
            for code in (WHITE_KNIGHT, WHITE_ROOK, BLACK_KNIGHT, BLACK_ROOK):
                home = any(r == HOME_ROWS[code, i] and c == HOME_COLS[code, i] for i in range(2))
                planes[r, c, 6 if colour_of(code) == WHITE else 7] += home
    return planes


# ----------------------------------------------------------------------------- the game
GEOMETRY_PLANES = _geometry_planes()


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


class CharingCross(Game):
    """Charing Cross (see the module docstring)."""

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

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        first = self.options["first_player"]
        self.self_jump = self.options["self_jump"]
        self.move_cap = self.options["move_cap"]
        self.colours = (first, "black" if first == "white" else "white")
        self.height = self.width = SIZE
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (SIZE, SIZE, NUM_PLANES)

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
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"{self.name}: action {action!r} is not an id in 0..{NUM_ACTIONS - 1}")
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
