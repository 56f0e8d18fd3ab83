"""Shared phalanx mechanics of Crossings and Neo-Crossings (docs/crossings.md, docs/neo_crossings.md).

Both games move lines of stones the same way; they differ only in three rule hooks that each
game module supplies as numba functions and passes to the generic kernels below:

* ``frozen_squares(colour) -> uint64``: the squares (a bitboard, bit ``row * 8 + col``) on which
  a stone of ``colour`` is frozen: it never moves and is never captured. Crossings: its far
  rank. Neo-Crossings: none.
* ``capture(board, row, col, dr, dc, run)``: take the captured stones off the board once a group
  moving by ``(dr, dc)`` has landed on the enemy stone at ``(row, col)``, the first of an enemy
  run of ``run`` stones. Crossings takes that one stone, Neo-Crossings the whole run. Whether
  the capture is legal is the same in both games and decided here: the run is shorter than the
  group and the landed-on stone is not frozen.
* ``allowed(board, meta, row, col, dr, dc, k, length) -> bool``: called for a move (the group
  of ``length`` stones from tail ``(row, col)``, moving ``k`` by ``(dr, dc)``) that brings one of
  the mover's stones onto his far rank from another rank; False makes it illegal (Neo-Crossings'
  symmetry rule, which plays the move on a copy with :func:`play_move` to judge the result;
  Crossings allows every such move).

Movement (written once, here): a *tail* stone and a direction define the group, the run of
consecutive friendly stones from the tail forward; its front stone is the *head*. The group moves
``k`` squares, ``1 <= k <= L`` (its length); the squares the head passes over must be empty, and
it lands on an empty square or on an enemy stone (a capture attempt, legal as said above).
A single stone steps one square and never captures (no enemy run is shorter than one).

Legality is computed on bitboards (:func:`direction_moves`), for every tail at once: the mask of
3,585 ids has a few dozen ones, and finding them stone by stone cost more than the rest of a
batched step. The apply kernel asks the same function about its one tail, so the mask and
:func:`apply_action` cannot disagree.

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
from ..core.bits import cell_bits, lowest_square
from ..core.codec import DIRECTION_NAMES, DIRECTIONS, direction_between, move_index, move_of, opposite_direction
from ..core.conventions import passes_draw
from ..core.errors import IllegalActionError
from ..core.frames import IDENTITY, ROTATE_180, frame_to_board
from ..core.game import PASS_TEXT, Game, is_raw_id_text, raw_id_text
from ..core.geometry import parse_square, square_name
from ..core.observation import float32_copier, pass_and_cap_values
from ..core.options import choice
from ..core.state import State
from ..core.text import ParsedPosition
from ..core.view import GameView
from ..kernels.portable import flat_view, scratch_array, sort_in_place

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
#: :func:`~crossenvs.core.observation.float32_copier`), as storing the planes one by one costs more
_CELL_ROWS = scratch_array(3 * (SHARED_PLANES + 2), np.float32)
_copy_shared_row = float32_copier(SHARED_PLANES)
_copy_frozen_row = float32_copier(SHARED_PLANES + 2)


@njit(cache=True)
def observe(board, meta, player, out, frozen_squares, frozen_planes) -> None:
    """The shared planes 0-5 (see the module docstring): each cell's planes copied from a row per holder.

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


# ----------------------------------------------------------------------------- the game class
#: the stalemate rule both phalanx games take as an option
STALEMATE = choice(
    "stalemate",
    "pass",
    ("pass", "loss"),
    "a player without a legal move passes (two in a row draw), or loses",
    label="When a player cannot move",
    advanced=True,
)


class PhalanxView(GameView):
    """How Crossings and Neo-Crossings look: a checkered board of white and black stones."""

    piece_colours = {WHITE: (238, 236, 228), BLACK: (40, 40, 40)}

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        return (214, 190, 150) if (row + col) % 2 == 0 else (240, 222, 186)

    def piece_kind(self, code: int) -> str:
        return "stone"


class PhalanxGame(Game):
    """What Crossings and Neo-Crossings share: setup, options, notation, position text.

    A subclass names the game, sets its ``OPTION_SCHEMA`` (:data:`STALEMATE` and a move cap, plus its own) and its three kernels (thin numba wrappers
    that pass its rule hooks to the generic kernels above) and ``start_turn_kernel``.
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
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"{self.name}: action {action!r} is not an id in 0..{NUM_ACTIONS - 1}")
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
