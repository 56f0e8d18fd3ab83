"""Crosse's rules as numba kernels: ``apply_kernel``, ``mask_kernel`` and ``observe_kernel`` and what they
call (jumps, token moves on bitboards, the turn flow). Every kernel is a module-level function of this
module, which is how the generic batch loops and searches find them (:mod:`crossenvs.kernels.specialize`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.bits import cell_bits, lowest_square, popcount, reverse_bits
from crossenvs.kernels.conventions import count_pass, seat_colour
from crossenvs.kernels.observation import float32_copier, pass_and_cap_values

from ...kernels.portable import flat_view, scratch_array
from .tables import (
    BLACK,
    BLACK_STONE,
    BLOCK_DESTINATIONS,
    CELL_PREFIX_ROWS,
    CELLS,
    CORNERS,
    COVER_BEFORE,
    COVER_RULE,
    EMPTY,
    FULL_TOKENS,
    HOP_BASE,
    HOP_COUNT,
    HOP_FROM,
    HOP_OVER,
    HOP_TO,
    HOP_TWIN,
    HOPS_AT,
    IS_CORNER,
    JUMPING,
    JUMPS_LEFT,
    KEEP_ACTION,
    MAX_JUMP_DEPTH,
    MOVE_CAP,
    MOVE_FROM,
    MOVE_START,
    MOVE_TO,
    MOVE_TO_COL,
    MOVE_TO_ROW,
    MOVE_TOKEN,
    NUM_ACTIONS,
    NUM_MOVES,
    NUM_PLANES,
    ONE,
    OPTIONAL,
    PASS_ACTION,
    PASS_REFRESH,
    PREFIX_EMPTY,
    PREFIX_MINE,
    PREFIX_PLANES,
    PREFIX_THEIRS,
    REFRESH,
    REMOVAL_PENDING,
    REMOVE_ACTION,
    SEAT0_COLOUR,
    SIZE,
    STUCK_RULE,
    TOKEN_NAMES,
    TOKENS,
    WHITE,
    WHITE_STONE,
)

_copy_row = float32_copier(NUM_PLANES)
_copy_prefix = float32_copier(PREFIX_PLANES)


# ----------------------------------------------------------------------------- small kernels
@njit(cache=True, inline="always")
def stone_of(colour: int) -> int:
    return BLACK_STONE if colour == BLACK else WHITE_STONE


@njit(cache=True, inline="always")
def in_frame(square: int, colour: int) -> int:
    """A square between the board and ``colour``'s frame (White's is the half turn; an involution)."""
    return square if colour == BLACK else CELLS - 1 - square


#: each square's board row and column: two table loads cost less than numba's signed floor division
SQUARE_ROW, SQUARE_COL = np.arange(CELLS) // SIZE, np.arange(CELLS) % SIZE


@njit(cache=True, inline="always")
def cell(board: np.ndarray, square: int) -> int:
    return board[SQUARE_ROW[square], SQUARE_COL[square]]


@njit(cache=True, inline="always")
def set_cell(board: np.ndarray, square: int, code: int) -> None:
    board[SQUARE_ROW[square], SQUARE_COL[square]] = code


@njit(cache=True, inline="always")
def first_row(colour: int) -> int:
    """The board row of a colour's first row: rank 1 for Black, rank 10 for White."""
    return 0 if colour == BLACK else SIZE - 1


@njit(cache=True)
def holds_cover(board: np.ndarray, stone: int) -> bool:
    """Does ``stone``'s side hold all four ring corners?"""
    for i in range(CORNERS.shape[0]):
        if cell(board, CORNERS[i]) != stone:
            return False
    return True


@njit(cache=True)
def has_won(board: np.ndarray, stone: int) -> bool:
    """docs/crosse.md, rule 9: no stones left, or exactly four, on the four corners.

    Equivalently: the side holds none or all of the corners and has no stone elsewhere. Tested
    twice after every action, so the scan stops at the first stone off the corners, starting
    from the side's own first row, where its stones usually are.
    """
    held = 0
    for i in range(CORNERS.shape[0]):
        if cell(board, CORNERS[i]) == stone:
            held += 1
    if held != 0 and held != CORNERS.shape[0]:
        return False
    for i in range(SIZE):
        row = i if stone == BLACK_STONE else SIZE - 1 - i
        for col in range(SIZE):
            if board[row, col] == stone and not IS_CORNER[row * SIZE + col]:
                return False
    return True


# ----------------------------------------------------------------------------- jumps
@njit(cache=True, inline="always")
def hop_possible(board: np.ndarray, hop: int, enemy: int) -> bool:
    """The board-frame hop ``hop`` finds an enemy stone to jump and an empty landing cell."""
    return cell(board, HOP_OVER[hop]) == enemy and cell(board, HOP_TO[hop]) == EMPTY


_JUMP_STACK = scratch_array(MAX_JUMP_DEPTH + 1, np.int64)  # one entry a hop deep, and the next depth's start


@njit(cache=True)
def most_captures_from(board: np.ndarray, start: int, stone: int, enemy: int) -> int:
    """The most stones the ``stone`` on ``start`` can still capture in one sequence.

    A depth-first search over hop sequences, removing each jumped stone as it goes (docs/crosse.md, rule 6)
    and restoring the board before returning. Iterative with an explicit stack, so numba needs
    no recursion.
    """
    path = _JUMP_STACK()
    next_k = _JUMP_STACK()
    next_k[0] = 0
    depth, square, best = 0, start, 0
    while True:
        k = next_k[depth]
        if k < HOP_COUNT[square]:
            next_k[depth] = k + 1
            hop = HOPS_AT[square, k]
            if hop_possible(board, hop, enemy):
                set_cell(board, square, EMPTY)
                set_cell(board, HOP_OVER[hop], EMPTY)
                set_cell(board, HOP_TO[hop], stone)
                path[depth] = hop
                depth += 1
                next_k[depth] = 0
                square = HOP_TO[hop]
                best = max(best, depth)
        else:
            if depth == 0:
                return best
            depth -= 1
            hop = path[depth]
            set_cell(board, HOP_TO[hop], EMPTY)
            set_cell(board, HOP_OVER[hop], enemy)
            square = HOP_FROM[hop]
            set_cell(board, square, stone)


@njit(cache=True)
def most_captures(board: np.ndarray, stone: int, enemy: int) -> int:
    """The most stones any of ``stone``'s side can capture this turn (0: no jump exists)."""
    best = 0
    stones_low, stones_high = cell_bits(board, stone)  # the searches restore the board: the bits stay true
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            square = lowest_square(stones) + 64 * half
            stones &= stones - ONE
            for k in range(HOP_COUNT[square]):
                if hop_possible(board, HOPS_AT[square, k], enemy):
                    best = max(best, most_captures_from(board, square, stone, enemy))
                    break
    return best


@njit(cache=True)
def hop_is_best(board: np.ndarray, hop: int, stone: int, enemy: int, needed: int) -> bool:
    """Does the possible board-frame ``hop`` lie on a sequence making the ``needed`` captures?"""
    set_cell(board, HOP_FROM[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], EMPTY)
    set_cell(board, HOP_TO[hop], stone)
    rest = most_captures_from(board, HOP_TO[hop], stone, enemy)
    set_cell(board, HOP_TO[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], enemy)
    set_cell(board, HOP_FROM[hop], stone)
    return 1 + rest == needed


@njit(cache=True)
def scan_hops(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """Mark the hops the mask allows: from the jumping stone, or from any stone at a turn's start."""
    seat = meta[st.TO_MOVE]
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone, enemy = stone_of(colour), stone_of(1 - colour)
    needed = meta[JUMPS_LEFT]
    if meta[JUMPING] >= 0:  # the jumping stone hops on
        if cell(board, meta[JUMPING]) == stone:
            _mark_best_hops(board, meta[JUMPING], colour, stone, enemy, needed, out)
        return
    stones_low, stones_high = cell_bits(board, stone)
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            _mark_best_hops(board, lowest_square(stones) + 64 * half, colour, stone, enemy, needed, out)
            stones &= stones - ONE


@njit(cache=True, inline="always")
def _mark_best_hops(board, square, colour, stone, enemy, needed, out) -> None:
    """Mark the hops from ``square`` that start a sequence of the ``needed`` captures."""
    for k in range(HOP_COUNT[square]):
        hop = HOPS_AT[square, k]
        if hop_possible(board, hop, enemy) and hop_is_best(board, hop, stone, enemy, needed):
            out[HOP_BASE + (hop if colour == BLACK else HOP_TWIN[hop])] = 1


# ----------------------------------------------------------------------------- token moves
@njit(cache=True, inline="always")
def move_block(frame_square: int, token: int) -> tuple[int, int]:
    """The ids ``start..end-1`` of the token moves from ``frame_square`` with ``token``."""
    index = frame_square * len(TOKEN_NAMES) + token
    return MOVE_START[index], MOVE_START[index + 1]


@njit(cache=True, inline="always")
def frame_bits(board: np.ndarray, colour: int, stone: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Bitboards in ``colour``'s frame (bit ``s`` of the pair is frame square ``s``): ``stone``'s squares, the empty ones.

    Each as two words: squares 0-63 and 64-99. Built in the board's frame, eight cells at a time
    (:func:`~crossenvs.kernels.bits.cell_bits`), then turned for White (:func:`half_turn_bits`).
    """
    own_low, own_high = cell_bits(board, stone)
    empty_low, empty_high = cell_bits(board, EMPTY)
    if colour == BLACK:
        return own_low, own_high, empty_low, empty_high
    own_low, own_high = half_turn_bits(own_low, own_high)
    empty_low, empty_high = half_turn_bits(empty_low, empty_high)
    return own_low, own_high, empty_low, empty_high


#: the shifts that turn a 100-square bitboard, held in 128 bits, half round
HALF_TURN_DOWN, HALF_TURN_UP = np.uint64(128 - CELLS), np.uint64(CELLS - 64)


@njit(cache=True, inline="always")
def half_turn_bits(low: np.uint64, high: np.uint64) -> tuple[np.uint64, np.uint64]:
    """A 100-square bitboard turned half round: bit ``s`` goes to bit ``99 - s`` (:func:`in_frame` for White).

    As 128 bits: reversed, square s lands on bit 127 - s; shifted down by 28, on 99 - s.
    """
    reversed_low, reversed_high = reverse_bits(high), reverse_bits(low)
    return (reversed_low >> HALF_TURN_DOWN) | (reversed_high << HALF_TURN_UP), reversed_high >> HALF_TURN_DOWN


@njit(cache=True, inline="always")
def mark_open_moves(first: int, destinations: np.uint64, open_ones: np.uint64, out: np.ndarray) -> None:
    """Mark the moves ``first + k`` whose destination is the k-th set bit of ``destinations`` and is in ``open_ones``."""
    while open_ones:
        rest = open_ones & (open_ones - ONE)
        out[first + popcount(destinations & ((open_ones ^ rest) - ONE))] = 1
        open_ones = rest


@njit(cache=True)
def scan_moves(board: np.ndarray, meta: np.ndarray, tokens: int, out: np.ndarray) -> bool:
    """Mark the token moves of the player to act with ``tokens`` in ``out``; True if any.

    On bitboards in the player's frame (this loop is most of the mask's time): a move block's
    destinations (:data:`BLOCK_DESTINATIONS`) AND the empty squares are its legal moves, and
    since a block's ids ascend with their destination, the k-th destination bit is move
    ``first + k``.
    """
    colour = seat_colour(meta[SEAT0_COLOUR], meta[st.TO_MOVE])
    own_low, own_high, empty_low, empty_high = frame_bits(board, colour, stone_of(colour))
    found = False
    for half in range(2):
        stones = own_low if half == 0 else own_high
        while stones:
            frame_square = lowest_square(stones) + 64 * half
            stones &= stones - ONE
            for token in range(6):
                if not (tokens >> token) & 1:
                    continue
                block = frame_square * len(TOKEN_NAMES) + token
                low, high = BLOCK_DESTINATIONS[block, 0], BLOCK_DESTINATIONS[block, 1]
                open_low, open_high = low & empty_low, high & empty_high
                if not (open_low | open_high):
                    continue
                found = True
                first = MOVE_START[block]
                mark_open_moves(first, low, open_low, out)
                mark_open_moves(first + popcount(low), high, open_high, out)
    return found


@njit(cache=True)
def has_move(board: np.ndarray, meta: np.ndarray, tokens: int) -> bool:
    """Has the player to act any token move with ``tokens``?

    The own stones from their bitboard, then move by move: the first legal move usually comes
    early, before building the empty squares' bitboards would have paid off. The destinations'
    board rows and columns come from
    :data:`MOVE_TO_ROW` / :data:`MOVE_TO_COL` (no frame turn or division per move).
    """
    colour = seat_colour(meta[SEAT0_COLOUR], meta[st.TO_MOVE])
    stones_low, stones_high = cell_bits(board, stone_of(colour))
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            frame_square = in_frame(lowest_square(stones) + 64 * half, colour)
            stones &= stones - ONE
            for token in range(6):
                if not (tokens >> token) & 1:
                    continue
                first, end = move_block(frame_square, token)
                for move in range(first, end):
                    if board[MOVE_TO_ROW[colour, move], MOVE_TO_COL[colour, move]] == EMPTY:
                        return True
    return False


# ----------------------------------------------------------------------------- turn flow
@njit(cache=True)
def start_turn(board: np.ndarray, meta: np.ndarray) -> None:
    """What a turn's start settles before the mask: the captures owed, and a stuck token set.

    docs/crosse.md, rules 5-6: the captures this turn must make (compulsory maximum), and with
    ``stuck_tokens="refresh"`` a player with no jump and no move for his remaining tokens gets
    the full set at once (it persists even if he must then pass).
    """
    seat = meta[st.TO_MOVE]
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    meta[JUMPING] = -1
    meta[COVER_BEFORE] = 0
    meta[JUMPS_LEFT] = most_captures(board, stone_of(colour), stone_of(1 - colour))
    tokens = meta[TOKENS + seat]
    if meta[JUMPS_LEFT] == 0 and meta[STUCK_RULE] == REFRESH and tokens != FULL_TOKENS:
        if not has_move(board, meta, tokens):
            meta[TOKENS + seat] = FULL_TOKENS


@njit(cache=True)
def hand_turn(board: np.ndarray, meta: np.ndarray, next_seat: int) -> None:
    """Give the next turn (the same seat for an extra turn); the cap draws first (docs/crosse.md, rule 11)."""
    meta[st.TO_MOVE] = next_seat
    if meta[st.PLY] >= meta[MOVE_CAP]:
        meta[st.STATUS] = st.STATUS_DRAW
        return
    start_turn(board, meta)


@njit(cache=True)
def declare_win(board: np.ndarray, meta: np.ndarray, seat: int, winner: int) -> bool:
    """End the game if ``winner`` qualifies (docs/crosse.md, rule 9); True if it did. ``seat`` moved last."""
    if not has_won(board, stone_of(seat_colour(meta[SEAT0_COLOUR], winner))):
        return False
    meta[st.STATUS] = st.STATUS_WIN_0 + winner
    meta[st.TO_MOVE] = 1 - seat  # a finished game shows the mover's opponent to move
    return True


@njit(cache=True)
def settle(board: np.ndarray, meta: np.ndarray, seat: int, extra_turn: bool) -> None:
    """The win tests after an action (the mover's opponent first, docs/crosse.md, rule 9), then the next turn."""
    if not declare_win(board, meta, seat, 1 - seat) and not declare_win(board, meta, seat, seat):
        hand_turn(board, meta, seat if extra_turn else 1 - seat)


@njit(cache=True)
def remove_first_row(board: np.ndarray, colour: int) -> None:
    """Take ``colour``'s stones off its first row."""
    row, stone = first_row(colour), stone_of(colour)
    for col in range(SIZE):
        if board[row, col] == stone:
            board[row, col] = EMPTY


@njit(cache=True)
def has_first_row_stones(board: np.ndarray, colour: int) -> bool:
    row, stone = first_row(colour), stone_of(colour)
    for col in range(SIZE):
        if board[row, col] == stone:
            return True
    return False


@njit(cache=True)
def finish_action(board: np.ndarray, meta: np.ndarray, seat: int, final: int, cover_before: bool) -> None:
    """After a token move or the last hop: the ply, the corner cover (docs/crosse.md, rules 7-8), wins, next turn."""
    meta[st.PLY] += 1
    meta[st.PASSES] = 0
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone = stone_of(colour)
    extra_turn = False
    if holds_cover(board, stone):
        if not cover_before:  # the cover is completed: first-row stones go, and he moves again
            extra_turn = True
            if has_first_row_stones(board, colour):
                if meta[COVER_RULE] == OPTIONAL:
                    # The opponent's win comes first; otherwise the player answers remove / keep,
                    # and the win and cap tests wait for the answer (it may win on this ply).
                    if not declare_win(board, meta, seat, 1 - seat):
                        meta[REMOVAL_PENDING] = 1
                    return
                remove_first_row(board, colour)
        elif final // SIZE == first_row(colour):  # upkeep: a stone ending on the first row goes
            set_cell(board, final, EMPTY)
            extra_turn = True
    settle(board, meta, seat, extra_turn)


@njit(cache=True)
def _move(board: np.ndarray, meta: np.ndarray, seat: int, action: int) -> bool:
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone = stone_of(colour)
    tokens = meta[TOKENS + seat]
    token = MOVE_TOKEN[action]
    start, end = in_frame(MOVE_FROM[action], colour), in_frame(MOVE_TO[action], colour)
    if meta[JUMPS_LEFT] != 0 or not (tokens >> token) & 1:
        return False
    if cell(board, start) != stone or cell(board, end) != EMPTY:
        return False
    cover_before = holds_cover(board, stone)
    set_cell(board, start, EMPTY)
    set_cell(board, end, stone)
    tokens &= ~(1 << token)
    meta[TOKENS + seat] = tokens if tokens != 0 else FULL_TOKENS  # six moves used: a fresh set
    finish_action(board, meta, seat, end, cover_before)
    return True


@njit(cache=True)
def _hop(board: np.ndarray, meta: np.ndarray, seat: int, action: int) -> bool:
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone, enemy = stone_of(colour), stone_of(1 - colour)
    hop = action - HOP_BASE
    if colour == WHITE:
        hop = HOP_TWIN[hop]  # the same hop in board coordinates
    if meta[JUMPS_LEFT] == 0 or cell(board, HOP_FROM[hop]) != stone:
        return False
    if meta[JUMPING] >= 0 and HOP_FROM[hop] != meta[JUMPING]:
        return False
    if not hop_possible(board, hop, enemy) or not hop_is_best(board, hop, stone, enemy, meta[JUMPS_LEFT]):
        return False
    if meta[JUMPING] < 0:
        meta[COVER_BEFORE] = holds_cover(board, stone)
    set_cell(board, HOP_FROM[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], EMPTY)
    set_cell(board, HOP_TO[hop], stone)
    meta[JUMPS_LEFT] -= 1
    if meta[JUMPS_LEFT] > 0:
        meta[JUMPING] = HOP_TO[hop]  # the same stone hops on, and the same player acts
        return True
    cover_before = meta[COVER_BEFORE] == 1
    meta[JUMPING] = -1
    meta[COVER_BEFORE] = 0
    finish_action(board, meta, seat, HOP_TO[hop], cover_before)
    return True


@njit(cache=True)
def _pass(board: np.ndarray, meta: np.ndarray, seat: int) -> bool:
    if meta[JUMPS_LEFT] != 0 or has_move(board, meta, meta[TOKENS + seat]):
        return False
    meta[st.PLY] += 1
    if meta[STUCK_RULE] == PASS_REFRESH:
        meta[TOKENS + seat] = FULL_TOKENS
    if count_pass(meta):
        meta[st.TO_MOVE] = 1 - seat
        return True
    hand_turn(board, meta, 1 - seat)
    return True


@njit(cache=True)
def _decide_removal(board: np.ndarray, meta: np.ndarray, seat: int, remove: bool) -> None:
    """The answer to the cover's removal question (not a ply); the extra turn follows either way."""
    meta[REMOVAL_PENDING] = 0
    if remove:
        remove_first_row(board, seat_colour(meta[SEAT0_COLOUR], seat))
    settle(board, meta, seat, True)


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Play ``action`` in place for the player to act; False (nothing changed) if illegal."""
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= NUM_ACTIONS:
        return False
    seat = meta[st.TO_MOVE]
    if meta[REMOVAL_PENDING] == 1:
        if action != REMOVE_ACTION and action != KEEP_ACTION:
            return False
        _decide_removal(board, meta, seat, action == REMOVE_ACTION)
        return True
    if action < NUM_MOVES:
        return _move(board, meta, seat, action)
    if action < PASS_ACTION:
        return _hop(board, meta, seat, action)
    if action == PASS_ACTION:
        return _pass(board, meta, seat)
    return False  # remove / keep with no decision pending


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each legal action: the decision, the best hops, else token moves or pass."""
    out[:] = 0
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return
    if meta[REMOVAL_PENDING] == 1:
        out[REMOVE_ACTION] = 1
        out[KEEP_ACTION] = 1
    elif meta[JUMPS_LEFT] > 0:
        scan_hops(board, meta, out)
    elif not scan_moves(board, meta, meta[TOKENS + meta[st.TO_MOVE]], out):
        out[PASS_ACTION] = 1


_PLANE_ROW = scratch_array(NUM_PLANES, np.float32)


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """The 26 planes of the module docstring, in ``player``'s frame.

    Planes 7-25 but 21 are the same on every cell: they are built once as a row and copied to
    each cell, then each cell's first seven (its stone and the geometry, from
    :data:`CELL_PREFIXES`) are copied over them, and the jumping stone's plane-21 one is set.
    """
    colour = seat_colour(meta[SEAT0_COLOUR], player)
    mine, theirs = stone_of(colour), stone_of(1 - colour)
    row = _PLANE_ROW()
    row[:] = 0.0
    my_tokens, their_tokens = meta[TOKENS + player], meta[TOKENS + 1 - player]
    for token in range(6):
        row[7 + token] = (my_tokens >> token) & 1
        row[13 + token] = (their_tokens >> token) & 1
    row[19] = 1.0 if holds_cover(board, mine) else 0.0
    row[20] = 1.0 if holds_cover(board, theirs) else 0.0
    row[22] = 1.0 if meta[JUMPING] >= 0 and meta[COVER_BEFORE] == 1 else 0.0
    row[23] = 1.0 if meta[st.TO_MOVE] == player and meta[REMOVAL_PENDING] == 1 else 0.0
    row[24], row[25] = pass_and_cap_values(meta[st.PASSES], meta[st.PLY], meta[MOVE_CAP])
    flat = flat_view(out)
    prefixes = CELL_PREFIX_ROWS
    for square in range(CELLS):
        code = cell(board, in_frame(square, colour))
        holder = PREFIX_MINE if code == mine else (PREFIX_THEIRS if code == theirs else PREFIX_EMPTY)
        _copy_row(flat, square * NUM_PLANES, row, 0)
        _copy_prefix(flat, square * NUM_PLANES, prefixes, (holder * CELLS + square) * PREFIX_PLANES)
    if meta[JUMPING] >= 0:
        flat[in_frame(meta[JUMPING], colour) * NUM_PLANES + 21] = 1.0
