"""Connect Four solved exactly, with the distance to the end: a bitboard negamax in numba.

Why a second solver beside :mod:`crossenvs.eval.solver`: that one works for every game through the
three kernels and proves win, draw or loss; the mistake rates on the Connect Four page need more
(how many plies a position has left under perfect play, which sorts positions into easy, medium
and hard) and the ``perfect`` player needs the fastest win and the slowest loss, on positions a
generic search takes minutes over. This is the classic Connect Four solver (as Pascal Pons
describes his): the grid as two 64-bit boards, a null-window search on the score, a transposition
table, the moves that hand the opponent a win pruned, and the moves that make the most threats tried
first.

Scores follow that convention, for the player to move: a win with one's ``k``-th-from-last disc
(counting from a full grid) is ``+k``, so the sooner the larger; a loss is the negative of the
opponent's; a draw is 0. On the standard grid the start scores +1: Red wins with his last disc.
The board layout: column ``c`` holds bits ``c*(rows+1) .. c*(rows+1)+rows-1``, bottom first, and one
spare bit on top, so ``(rows+1) * columns`` must fit in 64 bits (7x6 uses 49).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: positions visited and the node budget, in ``counters``
VISITED, BUDGET = 0, 1
#: what a search returns when the node budget ran out before a score was proven
ABORTED = -1000
#: a transposition-table slot: empty, or what its score is of the position whose key it holds
EMPTY_SLOT, UPPER_BOUND, LOWER_BOUND = 0, 1, 2


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:
    """Set bits, counted in parallel within the word (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def geometry(columns: int, rows: int) -> np.ndarray:
    """``[bottom, board, column_0 .. column_{n-1}]`` masks: each column's lowest bit, every playable bit,
    and each column's bits."""
    out = np.zeros(2 + columns, dtype=np.uint64)
    for col in range(columns):
        column_bits = ((np.uint64(1) << np.uint64(rows)) - np.uint64(1)) << np.uint64(col * (rows + 1))
        out[2 + col] = column_bits
        out[0] |= np.uint64(1) << np.uint64(col * (rows + 1))
        out[1] |= column_bits
    return out


@njit(cache=True, inline="always")
def winning_cells(position: np.uint64, mask: np.uint64, rows: int, board: np.uint64) -> np.uint64:
    """The empty cells (reachable or not) where one more disc of ``position``'s owner makes four."""
    h1 = np.uint64(rows + 1)
    # vertical: three above each other, the cell on top
    r = (position << np.uint64(1)) & (position << np.uint64(2)) & (position << np.uint64(3))
    for shift in (h1, h1 - np.uint64(1), h1 + np.uint64(1)):  # across, one diagonal, the other
        two = shift + shift
        p = (position << shift) & (position << two)
        r |= p & (position << (two + shift))
        r |= p & (position >> shift)
        p = (position >> shift) & (position >> two)
        r |= p & (position << shift)
        r |= p & (position >> (two + shift))
    return r & (board ^ mask)


@njit(cache=True, inline="always")
def _possible(mask: np.uint64, bottom: np.uint64, board: np.uint64) -> np.uint64:
    return (mask + bottom) & board


@njit(cache=True, inline="always")
def can_win_next(position: np.uint64, mask: np.uint64, rows: int, bottom: np.uint64, board: np.uint64) -> bool:
    return (winning_cells(position, mask, rows, board) & _possible(mask, bottom, board)) != np.uint64(0)


@njit(cache=True, inline="always")
def _non_losing_moves(position: np.uint64, mask: np.uint64, rows: int, bottom: np.uint64, board: np.uint64):
    """The playable cells that neither leave an immediate win of the opponent's open nor sit under one."""
    possible = _possible(mask, bottom, board)
    opponent_wins = winning_cells(position ^ mask, mask, rows, board)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - np.uint64(1)):
            return np.uint64(0)  # two threats at once: every move loses
        possible = forced
    return possible & ~(opponent_wins >> np.uint64(1))


@njit(cache=True)
def _table_slot(key: np.uint64, size: int) -> int:
    return int(key % np.uint64(size))


@njit(cache=True)
def negamax(position: np.uint64, mask: np.uint64, moves: int, alpha: int, beta: int, grid: tuple, table: tuple) -> int:
    """The score of a position with no immediate win for the player to move, within ``[alpha, beta]``
    (fail-hard: a bound outside it); ``ABORTED`` once ``counters[BUDGET]`` positions were visited.

    ``grid``: ``(columns, rows, masks, order)``, the board's size, its :func:`geometry` and the columns in the
    order they are tried. ``table``: ``(keys, values, bounds, counters, move_scratch, score_scratch)``, the transposition table's
    three arrays, the node counters, and each ply's candidate moves and their threat counts (so the search
    allocates nothing per position)."""
    columns, rows, masks, order = grid
    keys, values, bounds, counters, move_scratch, score_scratch = table
    counters[VISITED] += 1
    if counters[VISITED] > counters[BUDGET]:
        return ABORTED
    cells = columns * rows
    bottom, board = masks[0], masks[1]
    following = _non_losing_moves(position, mask, rows, bottom, board)
    if following == np.uint64(0):
        return -((cells - moves) // 2)
    if moves >= cells - 2:
        return 0
    low = -((cells - 2 - moves) // 2)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (cells - 1 - moves) // 2
    key = position + mask
    slot = _table_slot(key, keys.size)
    if bounds[slot] != EMPTY_SLOT and keys[slot] == key:
        if bounds[slot] == LOWER_BOUND:
            low = int(values[slot])
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        else:
            high = int(values[slot])
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    # The moves, those making the most threats first (columns from the centre out break ties).
    candidate_moves = move_scratch[moves]
    candidate_scores = score_scratch[moves]
    count = 0
    for i in range(columns):
        move = following & masks[2 + order[i]]
        if move:
            score = _popcount(winning_cells(position | move, mask | move, rows, board))
            j = count
            while j > 0 and candidate_scores[j - 1] < score:
                candidate_moves[j] = candidate_moves[j - 1]
                candidate_scores[j] = candidate_scores[j - 1]
                j -= 1
            candidate_moves[j] = move
            candidate_scores[j] = score
            count += 1
    for i in range(count):
        move = candidate_moves[i]
        child_mask = mask | move
        value = negamax(position ^ mask, child_mask, moves + 1, -beta, -alpha, grid, table)
        if value == ABORTED:
            return ABORTED
        value = -value
        if value >= beta:
            keys[slot], values[slot], bounds[slot] = key, value, LOWER_BOUND
            return value
        if value > alpha:
            alpha = value
    keys[slot], values[slot], bounds[slot] = key, alpha, UPPER_BOUND
    return alpha


@njit(cache=True)
def solve_score(position: np.uint64, mask: np.uint64, moves: int, grid: tuple, table: tuple) -> int:
    """The exact score of a position that is not over, for the player to move (``ABORTED`` past the budget):
    null-window searches narrow ``[low, high]`` until it closes."""
    columns, rows, masks, _ = grid
    cells = columns * rows
    if can_win_next(position, mask, rows, masks[0], masks[1]):
        return (cells + 1 - moves) // 2
    low = -((cells - moves) // 2)
    high = (cells + 1 - moves) // 2
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and low // 2 < middle:
            middle = low // 2
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        value = negamax(position, mask, moves, middle, middle + 1, grid, table)
        if value == ABORTED:
            return ABORTED
        if value <= middle:
            high = value
        else:
            low = value
    return low


@njit(cache=True)
def move_scores(position: np.uint64, mask: np.uint64, moves: int, grid: tuple, table: tuple, out: np.ndarray) -> bool:
    """``out[c]``: the exact score of dropping into column ``c`` for the player to move (``ABORTED`` for a full
    column). False when the budget ran out."""
    columns, rows, masks, _ = grid
    cells = columns * rows
    bottom, board = masks[0], masks[1]
    wins = winning_cells(position, mask, rows, board)
    possible = _possible(mask, bottom, board)
    for col in range(columns):
        move = possible & masks[2 + col]
        if not move:
            out[col] = ABORTED
        elif move & wins:
            out[col] = (cells + 1 - moves) // 2
        elif moves + 1 == cells:
            out[col] = 0
        else:
            value = solve_score(position ^ mask, mask | move, moves + 1, grid, table)
            if value == ABORTED:
                return False
            out[col] = -value
    return True
