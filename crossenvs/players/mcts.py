"""UCT Monte-Carlo tree search with random rollouts, all in numba, for every game.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels, so the search needs nothing but the state arrays. Each node keeps
its own copy of the state, the legal actions not expanded yet, and visit and value totals; the
value of a node is counted for the player who made the move into it, which is what lets the
same code handle a player deciding twice in a row (Charing Cross re-placements).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.random_pick import count_legal, nth_legal
from crossenvs.kernels.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()
COMPILING = "the MCTS search"  # in words, for the first-use notice (crossenvs.kernels.specialize)


@njit(cache=True)
def _random_legal(mask: np.ndarray) -> int:
    """A uniform random legal action of ``mask`` from numba's own stream (seeded by the player), -1 if none."""
    count = count_legal(mask)
    return -1 if count == 0 else nth_legal(mask, np.random.randint(count))


@njit(cache=True)
def rollout(board: np.ndarray, meta: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """Play random legal actions to the end (the move caps end every game); per-seat returns (2,)."""
    while meta[st.STATUS] == st.STATUS_PLAYING:
        mask_kernel(board, meta, scratch)
        apply_kernel(board, meta, _random_legal(scratch))
    return st.SEAT_RETURNS[meta[st.STATUS]]


@njit(cache=True, nogil=True)  # releases the GIL: a server searching in a thread stays responsive
def search(board, meta, num_actions, simulations, exploration, seed, stop) -> int:
    """The root action with the most visits after ``simulations`` UCT simulations.

    ``stop`` is one byte that another thread may set while this runs without the GIL: the search
    then ends after the simulation under way (the first one always runs, so a move is returned).
    """
    np.random.seed(seed)
    nodes = simulations + 1
    boards = np.empty((nodes, board.shape[0], board.shape[1]), dtype=np.int8)
    metas = np.empty((nodes, meta.shape[0]), dtype=np.int32)
    untried = np.zeros((nodes, num_actions), dtype=np.int8)
    untried_count = np.zeros(nodes, dtype=np.int64)
    visits = np.zeros(nodes, dtype=np.float64)
    value = np.zeros(nodes, dtype=np.float64)
    parent = np.full(nodes, -1, dtype=np.int64)
    first_child = np.full(nodes, -1, dtype=np.int64)
    next_sibling = np.full(nodes, -1, dtype=np.int64)
    action_of = np.full(nodes, -1, dtype=np.int64)
    mover = np.zeros(nodes, dtype=np.int64)
    scratch = np.empty(num_actions, dtype=np.int8)
    rollout_board = np.empty_like(board)
    rollout_meta = np.empty_like(meta)

    boards[0] = board
    metas[0] = meta
    mask_kernel(boards[0], metas[0], untried[0])
    untried_count[0] = untried[0].sum()
    used = 1
    for simulation in range(simulations):
        if simulation > 0 and stop[0] != 0:
            break
        node = 0
        # selection: descend through fully expanded nodes by UCB1
        while untried_count[node] == 0 and first_child[node] != -1:
            best, best_score = -1, -np.inf
            child = first_child[node]
            log_visits = math.log(visits[node])
            while child != -1:
                score = value[child] / visits[child] + exploration * math.sqrt(log_visits / visits[child])
                if score > best_score:
                    best, best_score = child, score
                child = next_sibling[child]
            node = best
        # expansion: one untried action of a live node
        if untried_count[node] > 0 and used < nodes:
            action = _random_legal(untried[node])
            untried[node, action] = 0
            untried_count[node] -= 1
            new = used
            used += 1
            boards[new] = boards[node]
            metas[new] = metas[node]
            mover[new] = metas[node, st.TO_MOVE]
            apply_kernel(boards[new], metas[new], action)
            mask_kernel(boards[new], metas[new], untried[new])
            untried_count[new] = untried[new].sum()
            parent[new], action_of[new] = node, action
            next_sibling[new], first_child[node] = first_child[node], new
            node = new
        # simulation and backpropagation
        rollout_board[:] = boards[node]
        rollout_meta[:] = metas[node]
        result = rollout(rollout_board, rollout_meta, scratch)
        while node != -1:
            visits[node] += 1.0
            value[node] += result[0] if mover[node] == 0 else result[1]
            node = parent[node]
    best, most = -1, -1.0
    child = first_child[0]
    while child != -1:
        if visits[child] > most:
            best, most = action_of[child], visits[child]
        child = next_sibling[child]
    return best
