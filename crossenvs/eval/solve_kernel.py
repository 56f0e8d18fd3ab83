"""Exact game values by negamax with alpha-beta and a transposition table, in numba, for every game.

A template module (see :mod:`crossenvs.core.specialize`): ``specialize(__name__, GameClass)`` binds
it to one game's kernels, so it solves any registered game, a user's included. Values are those of
the player to move: +1 a forced win, 0 a draw, -1 a forced loss. A player who decides twice in a
row (Charing Cross re-placements, Crosse's jump sequences) keeps the sign, so the search needs no
knowledge of turn order beyond ``meta[TO_MOVE]``. A finished child is scored from the mover's seat
directly, whatever the game leaves in ``TO_MOVE`` once it is over.

The transposition table is open-addressed by a 64-bit hash of board and meta (FNV-1a), one slot per
hash, always replaced, holding the value and whether it is exact or a bound from a cut-off.

A search may be *bounded* (``depth >= 0``): a position that many decisions down is a horizon leaf
scored ``horizon`` for the root's player (``-horizon`` for the other). With ``horizon = -1`` the
result is a lower bound on the root's true value, with ``+1`` an upper bound, so two bounded
searches that agree have proven it, often far sooner than a full search (a win three moves away
among hundreds of moves). The table only ever holds true values: a bounded search stores a
position's value only when its subtree met no horizon leaf and the value is exact, and reads only
exact entries, so its entries serve every later search, bounded or not.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.core import state as st
from crossenvs.core.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()

#: returned when the node budget ran out: no value is known
ABORT = -9
EXACT, LOWER, UPPER = 1, 2, 3
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True)
def position_hash(board: np.ndarray, meta: np.ndarray) -> np.uint64:
    """FNV-1a over the board's cells and the meta slots (never 0: 0 marks an empty table slot)."""
    h = _FNV_OFFSET
    for value in board.ravel():
        h = (h ^ np.uint64(value & 0xFF)) * _FNV_PRIME
    for value in meta:
        h = (h ^ np.uint64(value & 0xFFFFFFFF)) * _FNV_PRIME
    return h | np.uint64(1)


@njit(cache=True)
def _wins_at_once(board, meta, legal, child_board, child_meta, mover) -> bool:
    """Whether some legal action ends the game in the mover's favour (tried before any deeper search)."""
    for action in range(legal.shape[0]):
        if legal[action]:
            child_board[:] = board
            child_meta[:] = meta
            apply_kernel(child_board, child_meta, action)
            if child_meta[st.STATUS] != st.STATUS_PLAYING and st.SEAT_RETURNS[child_meta[st.STATUS], mover] > 0:
                return True
    return False


@njit  # not cached: numba's cache of a recursive function crashes when it is loaded back (it compiles per process)
def negamax(
    board, meta, alpha, beta, keys, values, flags, counters, node_limit, num_actions, depth, root, horizon
) -> int:
    """The value of the position for the player to move, within ``alpha..beta``; :data:`ABORT` past the budget.

    ``counters[0]`` counts the nodes visited (shared across calls, so one budget covers a whole solve),
    ``counters[1]`` the horizon leaves met. ``depth < 0`` searches to the end of the game; otherwise
    see the module's note on bounded searches (``root`` is the root's player, ``horizon`` its leaf score).
    """
    counters[0] += 1
    if counters[0] > node_limit:
        return ABORT
    slot_mask = np.uint64(keys.shape[0] - 1)
    key = position_hash(board, meta)
    slot = np.int64(key & slot_mask)
    if keys[slot] == key:
        stored, flag = np.int64(values[slot]), flags[slot]
        if flag == EXACT:
            return stored
        if depth < 0:  # a bound is a bound of the true value, which only an unbounded search computes
            if flag == LOWER and stored > alpha:
                alpha = stored
            elif flag == UPPER and stored < beta:
                beta = stored
            if alpha >= beta:
                return stored
    mover = meta[st.TO_MOVE]
    if depth == 0:
        counters[1] += 1
        return horizon if mover == root else -horizon
    alpha_in = alpha
    horizons_before = counters[1]
    legal = np.zeros(num_actions, dtype=np.int8)
    mask_kernel(board, meta, legal)
    child_board = np.empty_like(board)
    child_meta = np.empty_like(meta)
    if _wins_at_once(board, meta, legal, child_board, child_meta, mover):  # the cheapest proof first
        keys[slot], values[slot], flags[slot] = key, 1, EXACT
        return 1
    best = -2
    for action in range(num_actions):
        if not legal[action]:
            continue
        child_board[:] = board
        child_meta[:] = meta
        apply_kernel(child_board, child_meta, action)
        if child_meta[st.STATUS] != st.STATUS_PLAYING:
            value = np.int64(st.SEAT_RETURNS[child_meta[st.STATUS], mover])
        elif child_meta[st.TO_MOVE] == mover:  # the same player decides again: same sign, same window
            value = negamax(
                child_board, child_meta, alpha, beta, keys, values, flags, counters, node_limit, num_actions,
                depth - 1 if depth > 0 else depth, root, horizon,
            )  # fmt: skip
            if value == ABORT:
                return ABORT
        else:
            value = negamax(
                child_board, child_meta, -beta, -alpha, keys, values, flags, counters, node_limit, num_actions,
                depth - 1 if depth > 0 else depth, root, horizon,
            )  # fmt: skip
            if value == ABORT:
                return ABORT
            value = -value
        if value > best:
            best = value
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    flag = UPPER if best <= alpha_in else (LOWER if best >= beta else EXACT)
    if depth < 0:
        keys[slot], values[slot], flags[slot] = key, best, flag
    elif counters[1] == horizons_before and (
        flag == EXACT or (flag == LOWER and best == 1) or (flag == UPPER and best == -1)
    ):  # no horizon below: a true value, and exact (a bound at a win or a loss has nothing beyond it)
        keys[slot], values[slot], flags[slot] = key, best, EXACT
    return best
