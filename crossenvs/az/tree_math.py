"""Gumbel MuZero's arithmetic on one tree, which no game changes: selection scores, sigma(Q), backup, the answer.

Split from the per-game template (:mod:`crossenvs.az.tree`, which steps positions with a game's
kernels) so that numba compiles and caches these once, not once per game: a first search of five
games compiled them five times. Node and action indices are int64 throughout (``ROOT`` rather than
a literal 0): numba types a literal argument as ``Literal[int]`` and would compile a function a
second time for it. The module docstring of :mod:`crossenvs.az.tree` describes the search.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from crossenvs.core import state as st
from crossenvs.core.floats import exact_exp

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


@njit(cache=True)
def count_considered_one(masks, max_considered, num_considered, b) -> None:
    """How many root actions sequential halving starts from: the legal ones, at most ``max_considered``."""
    legal = 0
    for a in range(masks.shape[1]):
        legal += masks[b, a] != 0
    num_considered[b] = min(max_considered, legal)


@njit(cache=True)
def count_considered(masks, max_considered, num_considered) -> None:
    """:func:`count_considered_one` for every root (``masks`` holds the roots' legal masks)."""
    for b in range(masks.shape[0]):
        count_considered_one(masks, max_considered, num_considered, b)


@njit(cache=True)
def expand_and_backup_one(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b):
    """Store the network's priors and value at tree b's leaf and back the leaf's value up to its root."""
    node = leaves[b]
    if node_metas[b, node, st.STATUS] != st.STATUS_PLAYING:
        value = terminal_value(node_metas[b, node])
    elif visits[b, node] == 0:
        value = values[b]
        raw_value[b, node] = value
        for a in range(logits.shape[1]):
            prior[b, node, a] = logits[b, a] if masks[b, a] else -np.inf
    else:  # cannot happen: a playing leaf is always new
        value = raw_value[b, node]
    while node >= 0:
        visits[b, node] += 1
        value_sum[b, node] += value
        up = parent[b, node] if node > 0 else -1
        if up >= 0 and node_metas[b, up, st.TO_MOVE] != node_metas[b, node, st.TO_MOVE]:
            value = -value
        node = up


@njit(cache=True, parallel=True)
def expand_and_backup_parallel(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks):
    """Every tree's leaf expanded and backed up, across numba's threads."""
    for b in prange(leaves.shape[0]):  # b as int64: see crossenvs.az.tree.init_roots_parallel
        expand_and_backup_one(
            node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, np.int64(b)
        )


@njit(cache=True)
def expand_and_backup_serial(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks):
    """:func:`expand_and_backup_parallel` on the calling thread."""
    for b in range(leaves.shape[0]):
        expand_and_backup_one(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b)


@njit(cache=True)
def root_result_one(
    node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows, b
):
    """Tree b's answer: the chosen action (most-visited considered actions, best score), the improved policy, the root value."""
    q = q_rows[b]
    most = 0
    for a in range(children.shape[2]):
        most = max(most, child_visits(children, visits, b, ROOT, a))
    actions[b] = root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, most, b, q)
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
    root_values[b] = value_sum[b, 0] / max(1, visits[b, 0])


@njit(cache=True)
def root_results(
    node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows
):
    """Every tree's answer (:func:`root_result_one`), on the calling thread."""
    for b in range(children.shape[0]):
        root_result_one(
            node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows, b
        )
