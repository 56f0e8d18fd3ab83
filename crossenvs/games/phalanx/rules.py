"""The phalanx rules as generic numba kernels: sizes and meta slots, the bitboard tables (built once at
import from the geometry kernels), moves, turns and the shared observation planes. A game passes its rule
hooks to them (:mod:`crossenvs.games.crossings`, :mod:`crossenvs.games.neo_crossings`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.bits import cell_bits, lowest_square
from crossenvs.kernels.codec import DIRECTIONS, move_index, move_of, opposite_direction
from crossenvs.kernels.conventions import passes_draw
from crossenvs.kernels.frames import IDENTITY, ROTATE_180, frame_to_board
from crossenvs.kernels.observation import float32_copier, pass_and_cap_values

from ...kernels.portable import flat_view, scratch_array, sort_in_place

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
def stone_run(board: np.ndarray, row: int, col: int, dr: int, dc: int) -> int:
    """Consecutive stones of the colour at ``(row, col)``, from there onward (E of the rules; L from a tail)."""
    colour = board[row, col]
    run = 0
    while on_board(row, col) and board[row, col] == colour:
        run += 1
        row += dr
        col += dc
    return run


# ----------------------------------------------------------------------------- bitboards
# Tables built once at import; numba compiles module-level arrays in as constants. Bit
# ``row * 8 + col`` of a uint64 is square (row, col) of the board (not of a player's frame).
def _python(function):
    """The plain Python function of a kernel (tables are built at import, before anything is compiled)."""
    return getattr(function, "py_func", function)  # NUMBA_DISABLE_JIT=1 leaves plain functions


def _square_bits(predicate) -> np.uint64:
    """The bitboard of the squares ``(r, c)`` where ``predicate(r, c)`` holds."""
    return np.uint64(sum(1 << (r * SIZE + c) for r in range(SIZE) for c in range(SIZE) if predicate(r, c)))


#: FAR_RANK[colour]: the squares of that colour's far rank (index 0, empty, has none)
FAR_RANK = np.array([0, _square_bits(lambda r, c: r == SIZE - 1), _square_bits(lambda r, c: r == 0)], dtype=np.uint64)
#: SHIFTS[d]: how far a square's bit index moves for one step in direction d
SHIFTS = np.array([dr * SIZE + dc for dr, dc in DIRECTIONS], dtype=np.int64)
#: AHEAD_ON_BOARD[d, m]: the squares from which m steps in direction d stay on the board
AHEAD_ON_BOARD = np.array(
    [
        [_square_bits(lambda r, c, d=d, m=m: _python(on_board)(r + m * d[0], c + m * d[1])) for m in range(SIZE)]
        for d in DIRECTIONS
    ],
    dtype=np.uint64,
)


def _first_id(player: int, square: int, direction: int) -> int:
    """Id of the 1-square move of the tail on board ``square`` in board ``direction``, named in ``player``'s frame."""
    frame = _python(frame_of)(player)
    frame_r, frame_c = _python(frame_to_board)(square // SIZE, square % SIZE, frame, SIZE, SIZE)
    frame_dir = _python(opposite_direction)(direction) if frame == ROTATE_180 else direction
    return _python(move_index)(frame_r * SIZE + frame_c, frame_dir, 1, MAX_DISTANCE)


#: FIRST_IDS[player, square, d]: the action id of moving the tail on that board square by 1 in d
FIRST_IDS = np.array(
    [[[_first_id(p, sq, d) for d in range(8)] for sq in range(SIZE * SIZE)] for p in range(2)], dtype=np.int64
)
ONE = np.uint64(1)


@njit(cache=True, inline="always")
def ahead(bits: np.uint64, direction: int, steps: int) -> np.uint64:
    """Bit t set iff square ``t + steps * direction`` is on the board and set in ``bits``.

    One shift and one mask, whatever ``steps`` (at most 7): "is the square k ahead empty" for
    every tail at once.
    """
    shift = SHIFTS[direction] * steps
    moved = bits >> np.uint64(shift) if shift >= 0 else bits << np.uint64(-shift)
    return moved & AHEAD_ON_BOARD[direction, steps]


@njit(cache=True, inline="always")
def rotate(bits: np.uint64, shift: int) -> np.uint64:
    """``bits`` rotated left by ``shift`` (negative: right): bit t goes to ``t + shift`` (mod 64).

    A move of squares that stay on the board (masked beforehand) is one rotate, whichever its
    direction's sign: a single instruction, where a shift needs a branch on the sign.
    """
    left = np.uint64(shift & 63)
    return (bits << left) | (bits >> ((np.uint64(64) - left) & np.uint64(63)))


@njit(cache=True)
def stone_bits(board: np.ndarray, colour: int) -> tuple[np.uint64, np.uint64]:
    """``(stones of colour, stones of the other colour)`` as bitboards."""
    mine, _ = cell_bits(board, colour)
    empty, _ = cell_bits(board, EMPTY)
    return mine, ~(mine | empty)


@njit(cache=True)
def ray_stone_bits(board: np.ndarray, colour: int, row: int, col: int, direction: int) -> tuple[np.uint64, np.uint64]:
    """:func:`stone_bits` of the squares from ``(row, col)`` onward in ``direction`` only.

    All that decides the moves of the group of that tail in that direction: the apply kernel
    judges one action on these (at most 8 cells) instead of the whole board.
    """
    dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
    mine = np.uint64(0)
    occupied = np.uint64(0)
    while on_board(row, col):
        cell = board[row, col]
        square = np.uint64(row * SIZE + col)
        mine |= np.uint64(cell == colour) << square
        occupied |= np.uint64(cell != EMPTY) << square
        row += dr
        col += dc
    return mine, occupied & ~mine


@njit(cache=True)
def position_bits(own, enemy, colour, frozen_squares):
    """What :func:`direction_moves` needs to know of the stones ``own`` (of ``colour``, to move) and ``enemy``.

    ``(own, enemy, empty, capturable enemy stones, frozen own stones, own far rank)``.
    """
    empty = ~(own | enemy)
    capturable = enemy & ~frozen_squares(3 - colour)
    return own, enemy, empty, capturable, own & frozen_squares(colour), FAR_RANK[colour]


# ----------------------------------------------------------------------------- moves
@njit(cache=True)
def play_move(board, row, col, dr, dc, k, length, mine, capture) -> None:
    """Move the group (already checked legal) and make its capture, in place."""
    land_r, land_c = row + (length - 1 + k) * dr, col + (length - 1 + k) * dc
    if board[land_r, land_c] != EMPTY:
        capture(board, land_r, land_c, dr, dc, stone_run(board, land_r, land_c, dr, dc))
    for i in range(length):
        board[row + i * dr, col + i * dc] = EMPTY
    for i in range(length):
        board[row + (i + k) * dr, col + (i + k) * dc] = mine


MARK_MASK, FIRST_ONLY, LIST_IDS = 0, 1, 2  # what the scans do with each legal move they find


@njit(cache=True, inline="always")
def emit(tails, player, direction, k, mode, out, found) -> int:
    """Record the moves by ``k`` in board ``direction`` of the ``tails`` (a bitboard); returns ``found`` updated."""
    while tails:
        action = FIRST_IDS[player, lowest_square(tails), direction] + k - 1
        tails &= tails - ONE
        if mode == MARK_MASK:
            out[action] = 1
        elif mode == LIST_IDS:
            out[found] = action
        found += 1
    return found


@njit(cache=True)
def refuse_crossings(board, meta, crossing, direction, k, length, allowed) -> np.uint64:
    """The tails of ``crossing`` (moves onto the far rank) whose move the ``allowed`` hook refuses."""
    dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
    refused = np.uint64(0)
    while crossing:
        square = lowest_square(crossing)
        crossing &= crossing - ONE
        if not allowed(board, meta, square >> 3, square & 7, dr, dc, k, length):
            refused |= ONE << np.uint64(square)
    return refused


#: per distance k, the tails with a legal move by k in the direction being scanned (index 0 unused)
_BY_DISTANCE = scratch_array(SIZE, np.uint64)


@njit(cache=True, inline="always")
def direction_moves(board, meta, bits, direction, tails, only_k, mode, out, found, allowed) -> int:
    """The legal moves in board ``direction`` of the groups whose tail is in ``tails``, handed to :func:`emit`.

    ``bits`` is :func:`position_bits` for the player to move. Tails are taken by group length
    L (the run of own stones from the tail), all tails of one length at once; a group with a
    frozen stone may not move. Its move by k is legal where the k - 1 squares past the head are
    empty and the k-th is empty or holds a capturable enemy stone whose run is shorter than L
    (the group stops there), and ``allowed`` accepts it if it lands on the far rank. The scan
    follows the squares the heads would land on, one step further for each k (a longer move
    needs the shorter one's landing square empty), with no early exit but the last length: the
    loops' ends are then the same from one position to the next, which a CPU predicts. A
    move's id does not depend on L, so the legal tails are gathered by k over all lengths and
    recorded after. With ``only_k`` (> 0) only moves by that distance are recorded. Returns
    ``found`` updated; with ``FIRST_ONLY``, nonzero if there is a move.
    """
    own, enemy, empty, capturable, frozen, far = bits
    blocked = frozen  # tails whose run holds a frozen stone: the frozen ones and those behind them
    while frozen:
        frozen = own & ahead(frozen, direction, 1) & ~blocked
        blocked |= frozen
    shift = SHIFTS[direction]
    stays = AHEAD_ON_BOARD[direction, 1]  # squares whose next square in ``direction`` is on the board
    crosses = DIRECTIONS[direction, 0] != 0
    by_distance = _BY_DISTANCE()
    by_distance[:] = 0
    run = own  # tails of runs at least `length` long
    long_enemy = enemy  # enemy stones heading enemy runs at least `length` long
    for length in range(1, SIZE):
        longer = own & ahead(run, direction, 1)
        path = run & ~longer & tails & ~blocked  # the tails of groups of exactly `length`
        onto = empty | (capturable & ~long_enemy)  # where such a group may land
        landing = rotate(rotate(path, (length - 1) * shift) & stays, shift)  # one past each head
        for k in range(1, min(length, SIZE - length) + 1):
            back = -(length - 1 + k) * shift  # from a landing square to its tail
            legal = rotate(landing & onto, back)
            crossing = legal & rotate(far, back) if crosses else np.uint64(0)
            if crossing:
                refused = refuse_crossings(board, meta, crossing, direction, k, length, allowed)
                legal &= ~refused
                landing &= ~rotate(refused, -back)
            by_distance[k] |= legal
            landing = rotate(landing & empty & stays, shift)
        run = longer
        if not run & tails:
            break  # no tail of ``tails`` heads a longer group
        long_enemy = enemy & ahead(long_enemy, direction, 1)
    player = meta[st.TO_MOVE]
    for k in range(1, SIZE):
        if only_k <= 0 or k == only_k:
            if mode == FIRST_ONLY:
                found += by_distance[k] != 0
            else:
                found = emit(by_distance[k], player, direction, k, mode, out, found)
    return found


@njit(cache=True)
def scan_moves(board, meta, out, mode, frozen_squares, allowed) -> int:
    """Find the legal moves of the player to move; returns how many were found.

    ``MARK_MASK``: set ``out[id] = 1`` (``out`` zeroed); ``FIRST_ONLY``: stop at the first and
    write nothing; ``LIST_IDS``: write the ids into ``out`` in ascending order.
    """
    colour = meta[st.TO_MOVE] + 1
    own, enemy = stone_bits(board, colour)
    bits = position_bits(own, enemy, colour, frozen_squares)
    found = 0
    for direction in range(8):
        found = direction_moves(board, meta, bits, direction, bits[0], 0, mode, out, found, allowed)
        if mode == FIRST_ONLY and found:
            return found
    if mode == LIST_IDS:
        sort_in_place(out[:found])
    return found


@njit(cache=True)
def is_legal_move(board, meta, row, col, direction, k, frozen_squares, allowed) -> bool:
    """Whether the group of tail ``(row, col)`` may move ``k`` in board ``direction`` (the player to move's)."""
    colour = meta[st.TO_MOVE] + 1
    own, enemy = ray_stone_bits(board, colour, row, col, direction)
    bits = position_bits(own, enemy, colour, frozen_squares)
    tail = ONE << np.uint64(row * SIZE + col)
    return direction_moves(board, meta, bits, direction, tail, k, FIRST_ONLY, board[0, :0], 0, allowed) > 0


@njit(cache=True)
def legal_ids(board, meta, out, frozen_squares, allowed) -> int:
    """The legal action ids, ascending, into ``out`` (room for ``NUM_ACTIONS``); returns how many."""
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return 0
    count = scan_moves(board, meta, out, LIST_IDS, frozen_squares, allowed)
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
def start_turn(board, meta, frozen_squares, allowed) -> None:
    """The tests at the start of a turn, then the cap (turn order in docs/crossings.md, docs/neo_crossings.md)."""
    player = meta[st.TO_MOVE]
    if passes_draw(meta):
        meta[st.STATUS] = st.STATUS_DRAW
    elif far_rank_count(board, player + 1) > far_rank_count(board, 2 - player):
        meta[st.STATUS] = st.STATUS_WIN_0 + player
    elif meta[STALEMATE_LOSS] and scan_moves(board, meta, board[0, :0], FIRST_ONLY, frozen_squares, allowed) == 0:
        meta[st.STATUS] = st.STATUS_WIN_0 + (1 - player)
    elif meta[st.PLY] >= meta[MOVE_CAP]:
        meta[st.STATUS] = st.STATUS_DRAW


@njit(cache=True)
def apply_action(board, meta, action, frozen_squares, capture, allowed) -> bool:
    """Play ``action`` in place for the player to move; False (nothing changed) if illegal."""
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= NUM_ACTIONS:
        return False
    player = meta[st.TO_MOVE]
    if action == PASS_ACTION:
        if scan_moves(board, meta, board[0, :0], FIRST_ONLY, frozen_squares, allowed) > 0:
            return False  # passing is allowed only when nothing else is
        meta[st.PASSES] += 1
    else:
        row, col, direction, k = decode(player, action)
        if not is_legal_move(board, meta, row, col, direction, k, frozen_squares, allowed):
            return False
        dr, dc = DIRECTIONS[direction, 0], DIRECTIONS[direction, 1]
        length = stone_run(board, row, col, dr, dc)  # the group: the mover's run from the tail
        play_move(board, row, col, dr, dc, k, length, player + 1, capture)
        meta[st.PASSES] = 0
    meta[st.PLY] += 1
    meta[st.TO_MOVE] = 1 - player
    start_turn(board, meta, frozen_squares, allowed)
    return True


@njit(cache=True)
def legal_mask(board, meta, out, frozen_squares, allowed) -> None:
    """``out[a] = 1`` for each legal action; the pass is legal only when no move is."""
    out[:] = 0
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return
    if scan_moves(board, meta, out, MARK_MASK, frozen_squares, allowed) == 0:
        out[PASS_ACTION] = 1


#: the planes of a cell by what stands on it (0 empty, 1 the observer's, 2 the opponent's): a scratch
#: table filled once per observation, then copied whole to each cell (a few wide moves, see
#: :func:`~crossenvs.kernels.observation.float32_copier`), as storing the planes one by one costs more
_CELL_ROWS = scratch_array(3 * (SHARED_PLANES + 2), np.float32)
_copy_shared_row = float32_copier(SHARED_PLANES)
_copy_frozen_row = float32_copier(SHARED_PLANES + 2)


@njit(cache=True)
def observe(board, meta, player, out, frozen_squares, frozen_planes) -> None:
    """The shared planes 0-5 (see :mod:`crossenvs.games.phalanx`): each cell's planes copied from a row per holder.

    With ``frozen_planes``, also planes 6 and 7: the observer's and the opponent's frozen stones.
    """
    mine, theirs = player + 1, 2 - player
    planes = SHARED_PLANES + 2 if frozen_planes else SHARED_PLANES
    rows = _CELL_ROWS()
    rows[:] = 0.0
    own_far = far_rank_count(board, mine) / SIZE
    their_far = far_rank_count(board, theirs) / SIZE
    passed, progress = pass_and_cap_values(meta[st.PASSES], meta[st.PLY], meta[MOVE_CAP])
    for holder in range(3):
        rows[holder * planes + 2] = own_far
        rows[holder * planes + 3] = their_far
        rows[holder * planes + 4] = passed
        rows[holder * planes + 5] = progress
    rows[1 * planes + 0] = 1.0  # the observer's stone
    rows[2 * planes + 1] = 1.0  # the opponent's
    flat = flat_view(out)
    last = SIZE * SIZE - 1
    for square in range(SIZE * SIZE):  # in the observer's frame: White's is the board's, Black's its half turn
        board_square = square if player == 0 else last - square
        cell = board[board_square >> 3, board_square & 7]
        holder = EMPTY if cell == EMPTY else (1 if cell == mine else 2)
        if frozen_planes:
            _copy_frozen_row(flat, square * planes, rows, holder * planes)
        else:
            _copy_shared_row(flat, square * planes, rows, holder * planes)
    if frozen_planes:
        frame = frame_of(player)
        mark_frozen(board, frame, mine, frozen_squares(mine), out[:, :, 6])
        mark_frozen(board, frame, theirs, frozen_squares(theirs), out[:, :, 7])


@njit(cache=True)
def mark_frozen(board, frame, colour, squares, plane) -> None:
    """``plane`` (in ``frame``) gets a 1 on each stone of ``colour`` standing on one of its frozen ``squares``."""
    while squares:
        square = lowest_square(squares)
        squares &= squares - ONE
        row, col = square >> 3, square & 7
        if board[row, col] == colour:
            r, c = frame_to_board(row, col, frame, SIZE, SIZE)
            plane[r, c] = 1.0
