"""Charing Cross's rules as numba kernels, and the tables they read: sizes, piece codes, the meta slots,
each piece's forward directions, homes and goals, and the observation's constant planes. Every kernel is a
module-level function of this module, which is how the generic batch loops and searches find them
(:mod:`crossenvs.kernels.specialize`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.bits import cell_bits, lowest_square
from crossenvs.kernels.codec import DIRECTIONS, opposite_direction
from crossenvs.kernels.conventions import count_pass, seat_colour
from crossenvs.kernels.frames import IDENTITY, ROTATE_180, frame_to_board
from crossenvs.kernels.observation import pass_and_cap_values

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


GEOMETRY_PLANES = _geometry_planes()
