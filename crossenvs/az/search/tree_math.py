"""Gumbel MuZero's arithmetic on one tree, which no game changes: selection scores, sigma(Q), backup, the answer.

Split from the per-game template (:mod:`crossenvs.az.search.tree`, which steps positions with a game's
kernels) so that numba compiles and caches these once, not once per game: a first search of five
games compiled them five times. Node and action indices are int64 throughout (``ROOT`` rather than
a literal 0): numba types a literal argument as ``Literal[int]`` and would compile a function a
second time for it. The module docstring of :mod:`crossenvs.az.search.tree` describes the search.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.floats import exact_exp
from crossenvs.kernels.portable import thread_index

Array = Any  # a NumPy array on the CPU; a numba device array on a GPU

#: the root's node index, an int64 (see the module docstring)
ROOT = np.int64(0)

C_VISIT = 50.0
C_SCALE = 0.1
LOW_LOGIT = -1e9


@njit(cache=True)
def q_sign(node_metas, b, parent, child) -> float:
    return 1.0 if node_metas[b, parent, st.TO_MOVE] == node_metas[b, child, st.TO_MOVE] else -1.0


@njit(cache=True)
def terminal_value(meta) -> float:
    """The return of a finished game for the node's player to move."""
    return st.SEAT_RETURNS[meta[st.STATUS], meta[st.TO_MOVE]]


@njit(cache=True)
def sigma_q(node_metas, children, prior, visits, value_sum, raw_value, b, node, out) -> None:
    """``out[a] = sigma(completed, rescaled Q(node, a))`` for legal actions (0 for illegal ones)."""
    actions = children.shape[2]
    # prior probabilities over legal actions
    top = -np.inf
    for a in range(actions):
        if prior[b, node, a] > top:
            top = prior[b, node, a]
    total = 0.0
    for a in range(actions):
        if prior[b, node, a] > -np.inf:
            total += exact_exp(prior[b, node, a] - top)
    # mixed value: the network's value and the prior-weighted Q of the visited children
    visited_prob = 0.0
    weighted_q = 0.0
    sum_visits = 0
    max_visits = 0
    for a in range(actions):
        child = children[b, node, a]
        if child >= 0 and visits[b, child] > 0:
            prob = max(exact_exp(prior[b, node, a] - top) / total, 1e-30)
            q = q_sign(node_metas, b, node, child) * value_sum[b, child] / visits[b, child]
            visited_prob += prob
            weighted_q += prob * q
            sum_visits += visits[b, child]
            max_visits = max(max_visits, visits[b, child])
    mixed = raw_value[b, node]
    if sum_visits > 0:
        mixed = (raw_value[b, node] + sum_visits * weighted_q / visited_prob) / (sum_visits + 1)
    low, high = np.inf, -np.inf
    for a in range(actions):
        out[a] = 0.0
        if prior[b, node, a] == -np.inf:
            continue
        child = children[b, node, a]
        q = mixed
        if child >= 0 and visits[b, child] > 0:
            q = q_sign(node_metas, b, node, child) * value_sum[b, child] / visits[b, child]
        out[a] = q
        low, high = min(low, q), max(high, q)
    scale = (C_VISIT + max_visits) * C_SCALE / max(high - low, 1e-8)
    for a in range(actions):
        if prior[b, node, a] > -np.inf:
            out[a] = (out[a] - low) * scale


@njit(cache=True)
def child_visits(children, visits, b, node, a) -> int:
    child = children[b, node, a]
    return visits[b, child] if child >= 0 else 0


@njit(cache=True)
def root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, considered_visit, b, q) -> int:
    """Sequential halving: among actions with ``considered_visit`` visits, the best gumbel + logit + sigma(Q)."""
    sigma_q(node_metas, children, prior, visits, value_sum, raw_value, b, ROOT, q)
    top = -np.inf
    for a in range(children.shape[2]):
        top = max(top, prior[b, 0, a])
    best, best_score = -1, -np.inf
    for a in range(children.shape[2]):
        if prior[b, 0, a] == -np.inf:
            continue
        score = max(LOW_LOGIT, gumbel[b, a] + prior[b, 0, a] - top + q[a])
        if child_visits(children, visits, b, ROOT, a) != considered_visit:
            score = -np.inf
        if best < 0 or score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def interior_action(node_metas, children, prior, visits, value_sum, raw_value, b, node, q) -> int:
    sigma_q(node_metas, children, prior, visits, value_sum, raw_value, b, node, q)
    top = -np.inf
    for a in range(children.shape[2]):
        if prior[b, node, a] > -np.inf:
            top = max(top, prior[b, node, a] + q[a])
    total = 0.0
    sum_visits = 0
    for a in range(children.shape[2]):
        if prior[b, node, a] > -np.inf:
            total += exact_exp(prior[b, node, a] + q[a] - top)
            sum_visits += child_visits(children, visits, b, node, a)
    best, best_score = -1, -np.inf
    for a in range(children.shape[2]):
        if prior[b, node, a] == -np.inf:
            continue
        prob = exact_exp(prior[b, node, a] + q[a] - top) / total
        score = prob - child_visits(children, visits, b, node, a) / (1.0 + sum_visits)
        if score > best_score:
            best, best_score = a, score
    return best


class Tree(NamedTuple):
    """A batch of search trees, one per position, and everything a step of the search reads or writes.

    Every search kernel (here and in :mod:`crossenvs.az.search.tree`) takes it whole, on the CPU and on a GPU:
    row b of each array is tree b's. Per node: its position, children (-1: not expanded), parent,
    priors (-inf: illegal), visit count, value total and network value.
    """

    boards: Array  # (n, H, W) int8: the positions searched
    metas: Array  # (n, META) int32
    node_boards: Array  # (n, nodes, H, W) int8
    node_metas: Array  # (n, nodes, META) int32
    children: Array  # (n, nodes, A) int32
    parent: Array  # (n, nodes) int32
    prior: Array  # (n, nodes, A) float32
    visits: Array  # (n, nodes) int32
    value_sum: Array  # (n, nodes) float32
    raw_value: Array  # (n, nodes) float32
    count: Array  # (n,) int32: nodes in use
    gumbel: Array  # (n, A) float32: the root noise (zeros: deterministic play)
    considered_table: Array  # (max_considered + 1, simulations) int64: sequential halving's visit targets
    max_considered: Any  # int64
    num_considered: Array  # (n,) int64
    leaves: Array  # (n,) int64: each tree's leaf being evaluated
    logits: Array  # (n, A) float32: the network's answer for the leaves
    values: Array  # (n,) float32
    observations: Array  # (n, H, W, C) float32: the leaves' observations, for the network
    masks: Array  # (n, A) int8: the leaves' legal actions
    q_rows: Array  # (n, A) float64: each tree's sigma(Q) scratch (a kernel allocates nothing)
    actions: Array  # (n,) int64, out: the chosen action
    policies: Array  # (n, A) float32, out: the improved policy
    root_values: Array  # (n,) float32, out: the root value for the position's player to move


@njit(cache=True, inline="always")
def count_considered(t: Tree, b) -> None:
    """How many root actions sequential halving starts from: the legal ones, at most ``max_considered``."""
    legal = 0
    for a in range(t.masks.shape[1]):
        legal += t.masks[b, a] != 0
    t.num_considered[b] = min(t.max_considered, legal)


@njit(cache=True, inline="always")
def expand_and_backup(t: Tree, b) -> None:
    """Store the network's priors and value at tree b's leaf and back the leaf's value up to its root."""
    node = t.leaves[b]
    if t.node_metas[b, node, st.STATUS] != st.STATUS_PLAYING:
        value = terminal_value(t.node_metas[b, node])
    elif t.visits[b, node] == 0:
        value = t.values[b]
        t.raw_value[b, node] = value
        for a in range(t.logits.shape[1]):
            t.prior[b, node, a] = t.logits[b, a] if t.masks[b, a] else -np.inf
    else:  # cannot happen: a playing leaf is always new
        value = t.raw_value[b, node]
    while node >= 0:
        t.visits[b, node] += 1
        t.value_sum[b, node] += value
        up = t.parent[b, node] if node > 0 else -1
        if up >= 0 and t.node_metas[b, up, st.TO_MOVE] != t.node_metas[b, node, st.TO_MOVE]:
            value = -value
        node = up


@njit(cache=True, inline="always")
def root_result(t: Tree, b) -> None:
    """Tree b's answer: the chosen action (most-visited considered actions, best score), the improved policy, the root value."""
    q = t.q_rows[b]
    children, prior, policies = t.children, t.prior, t.policies
    most = np.int64(0)
    for a in range(children.shape[2]):
        most = max(most, child_visits(children, t.visits, b, ROOT, a))
    t.actions[b] = root_action(t.node_metas, children, prior, t.visits, t.value_sum, t.raw_value, t.gumbel, most, b, q)
    top = -np.inf
    for a in range(children.shape[2]):
        if prior[b, 0, a] > -np.inf:
            top = max(top, prior[b, 0, a] + q[a])
    total = 0.0
    for a in range(children.shape[2]):
        policies[b, a] = exact_exp(prior[b, 0, a] + q[a] - top) if prior[b, 0, a] > -np.inf else 0.0
        total += policies[b, a]
    for a in range(children.shape[2]):
        policies[b, a] /= total
    t.root_values[b] = t.value_sum[b, 0] / max(1, t.visits[b, 0])


# ----------------------------------------------------------------------------- the last step over a range of trees
@njit(cache=True)
def backup_then_answer_trees(t: Tree, start, stop) -> None:
    """Trees ``start`` to ``stop - 1``: the last leaf's evaluation backed up, then the tree's answer
    (:func:`root_result`). The one body of every target's loop (as ``crossenvs.kernels.game_batch.step_games``:
    a call per tree would count the references of the tuple's arrays); its CPU loops are itself over every tree
    and the search's parallel one (``crossenvs.az.search.tree.search_parallel``)."""
    for b in range(start, stop):
        expand_and_backup(t, b)
        root_result(t, b)


# ----------------------------------------------------------------------------- its CUDA kernel (its CPU loops: the
# search's, in crossenvs.az.search.tree)
def backup_then_answer_cuda(t: Tree) -> None:
    b = thread_index()
    if b < t.leaves.shape[0]:
        backup_then_answer_trees(t, b, b + 1)
