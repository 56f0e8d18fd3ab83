"""Exact game values by negamax with alpha-beta and a transposition table, in numba, for every game.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)`` binds
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

from crossenvs.kernels import state as st
from crossenvs.kernels.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()
COMPILING = "the exact solver"  # in words, for the first-use notice (crossenvs.kernels.specialize)

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


#: the fields of a frame of the search's stack (one per position on the path from the root)
ALPHA, BETA, ALPHA_IN, BEST, DEPTH, SLOT, HORIZONS, NEXT, SAME = range(9)
_FIELDS = 9
#: the search's steps: enter a position, try its next action, take a child's value in, finish it, return
_ENTER, _NEXT, _TAKE, _DONE, _RETURN = 10, 11, 12, 13, 14
#: what :func:`_settled` returns for a position that its actions must decide
_OPEN = 15
#: frames the solver allocates at first (the stack doubles when a line of play goes deeper)
FIRST_CAPACITY = 64


@njit(cache=True)
def _grown(array: np.ndarray) -> np.ndarray:
    """``array`` with its first axis doubled, the old entries kept (the rest uninitialised)."""
    bigger = np.empty((2 * array.shape[0],) + array.shape[1:], dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@njit(cache=True)
def negamax(
    board, meta, alpha, beta, keys, values, flags, counters, node_limit, num_actions, depth, root, horizon, capacity
) -> int:
    """The value of the position for the player to move, within ``alpha..beta``; :data:`ABORT` past the budget.

    ``counters[0]`` counts the nodes visited (shared across calls, so one budget covers a whole solve),
    ``counters[1]`` the horizon leaves met. ``depth < 0`` searches to the end of the game; otherwise
    see the module's note on bounded searches (``root`` is the root's player, ``horizon`` its leaf score).

    The search keeps its own stack of frames (position, legal actions, window, best value, next
    action) instead of recursing: numba caches a recursive function badly (it crashes when loaded
    back), so a recursive solver would compile again in every process. The stack starts with
    ``capacity`` frames and doubles whenever a line of play goes deeper.
    """
    boards = np.empty((capacity,) + board.shape, dtype=board.dtype)
    metas = np.empty((capacity, meta.shape[0]), dtype=meta.dtype)
    legal = np.empty((capacity, num_actions), dtype=np.int8)
    frames = np.empty((capacity, _FIELDS), dtype=np.int64)
    hashes = np.empty(capacity, dtype=np.uint64)
    boards[0] = board
    metas[0] = meta
    frames[0, ALPHA], frames[0, BETA], frames[0, DEPTH] = alpha, beta, depth
    slot_mask = np.uint64(keys.shape[0] - 1)
    # level as an int64 from the start: a literal 0 would have numba compile _settled and _next_child a second time
    # for the literal (it types a call with the literal first), and they are most of the solver's compile
    level, value, step = np.int64(0), 0, _ENTER
    while True:
        if step == _ENTER:  # a new position at ``level``: settled at once, or its loop over actions set up
            if level + 1 >= frames.shape[0]:  # room for its children (and the scratch of its win test)
                boards, metas, legal = _grown(boards), _grown(metas), _grown(legal)
                frames, hashes = _grown(frames), _grown(hashes)
            value = _settled(boards, metas, legal, frames, hashes, level, keys, values, flags, counters,
                             node_limit, slot_mask, root, horizon)  # fmt: skip
            if value == ABORT:
                return ABORT
            step = _NEXT if value == _OPEN else _RETURN
        elif step == _TAKE:  # ``value`` came back from the child at ``level + 1``, in its mover's sign
            step = _after_child(frames, level, value if frames[level, SAME] else -value)
        elif step == _NEXT:
            step = _next_child(boards, metas, legal, frames, level, num_actions)
            if step == _ENTER:
                level += 1
        else:  # _DONE: every action tried, or a cut-off
            value = _store(frames, hashes, level, keys, values, flags, counters)
            step = _RETURN
        if step == _RETURN:
            if level == 0:
                return value
            level -= 1
            step = _TAKE


@njit(cache=True)
def _settled(boards, metas, legal, frames, hashes, level, keys, values, flags, counters, node_limit, slot_mask, root,
             horizon) -> int:  # fmt: skip
    """A new position's value when the table, the horizon or a win in one move settles it, else :data:`_OPEN`
    with its loop set up; :data:`ABORT` past the budget."""
    counters[0] += 1
    if counters[0] > node_limit:
        return ABORT
    board, meta, depth = boards[level], metas[level], frames[level, DEPTH]
    alpha, beta = frames[level, ALPHA], frames[level, BETA]
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
    mask_kernel(board, meta, legal[level])
    if _wins_at_once(board, meta, legal[level], boards[level + 1], metas[level + 1], mover):  # the cheapest proof
        keys[slot], values[slot], flags[slot] = key, 1, EXACT
        return 1
    hashes[level] = key
    frames[level, ALPHA], frames[level, BETA], frames[level, ALPHA_IN] = alpha, beta, alpha
    frames[level, BEST], frames[level, SLOT], frames[level, HORIZONS] = -2, slot, counters[1]
    frames[level, NEXT] = 0
    return _OPEN


@njit(cache=True)
def _after_child(frames, level, value) -> int:
    """A child's value (in the sign of the position at ``level``) taken in: :data:`_DONE` on a cut-off,
    else :data:`_NEXT`."""
    if value > frames[level, BEST]:
        frames[level, BEST] = value
    if frames[level, BEST] > frames[level, ALPHA]:
        frames[level, ALPHA] = frames[level, BEST]
    return _DONE if frames[level, ALPHA] >= frames[level, BETA] else _NEXT


@njit(cache=True)
def _next_child(boards, metas, legal, frames, level, num_actions) -> int:
    """Play the next legal action at ``level`` into ``level + 1``: :data:`_ENTER` when that child is to be
    searched (its window and depth set), :data:`_DONE` when the actions ran out or a finished child cut
    off the rest (a finished child is scored from the mover's seat at once)."""
    board, meta, mover = boards[level], metas[level], metas[level, st.TO_MOVE]
    child_board, child_meta = boards[level + 1], metas[level + 1]
    for action in range(frames[level, NEXT], num_actions):
        if not legal[level, action]:
            continue
        child_board[:] = board
        child_meta[:] = meta
        apply_kernel(child_board, child_meta, action)
        frames[level, NEXT] = action + 1
        if child_meta[st.STATUS] != st.STATUS_PLAYING:
            if _after_child(frames, level, np.int64(st.SEAT_RETURNS[child_meta[st.STATUS], mover])) == _DONE:
                return _DONE
            continue
        same = child_meta[st.TO_MOVE] == mover  # the same player decides again: same sign, same window
        alpha, beta, depth = frames[level, ALPHA], frames[level, BETA], frames[level, DEPTH]
        frames[level, SAME] = same
        frames[level + 1, ALPHA] = alpha if same else -beta
        frames[level + 1, BETA] = beta if same else -alpha
        frames[level + 1, DEPTH] = depth - 1 if depth > 0 else depth
        return _ENTER
    frames[level, NEXT] = num_actions
    return _DONE


@njit(cache=True)
def _store(frames, hashes, level, keys, values, flags, counters) -> int:
    """The value of the position at ``level`` once its loop is over, recorded in the table where it is true."""
    best, alpha_in, beta = frames[level, BEST], frames[level, ALPHA_IN], frames[level, BETA]
    slot, key = frames[level, SLOT], hashes[level]
    flag = UPPER if best <= alpha_in else (LOWER if best >= beta else EXACT)
    if frames[level, DEPTH] < 0:
        keys[slot], values[slot], flags[slot] = key, best, flag
    elif counters[1] == frames[level, HORIZONS] and (
        flag == EXACT or (flag == LOWER and best == 1) or (flag == UPPER and best == -1)
    ):  # no horizon below: a true value, and exact (a bound at a win or a loss has nothing beyond it)
        keys[slot], values[slot], flags[slot] = key, best, EXACT
    return best
