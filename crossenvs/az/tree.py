"""Gumbel MuZero-style tree search over a batch of games, in numba (after mctx's ``gumbel_muzero_policy``).

A template module (see :mod:`crossenvs.core.specialize`): the copy for one game walks trees with
that game's own kernels, so the real rules are the model. One tree per game of the batch; node 0
is the root. Per node: its position, visit count, value total and network value (all from the
point of view of the node's player to move), its parent, and per action the child node and the
network's prior logit (-inf for an illegal action).

**Values per mover.** A child's value turns into the parent's Q by the sign of "same player to
move": +1 when the parent's mover also moves in the child (Crosse hops and extra turns, Charing
Cross re-placements), -1 otherwise. Backing up does the same at every step.

**Selection.** At the root, Gumbel sampling with sequential halving: the simulation goes to the
considered action (visit count equal to the table's target for this simulation) with the best
``gumbel + logit + sigma(completed Q)``. Inside the tree, the deterministic rule of Gumbel MuZero:
``argmax softmax(logits + sigma(completed Q)) - N(a) / (1 + sum N)``. Completed Q fills unvisited
actions with the mixed value, Q is min-max rescaled over the node's legal actions, and
``sigma(q) = (c_visit + max N) * c_scale * q``.

**Threads.** The trees share nothing, so the batched steps (roots, selection, backup) come twice,
``*_parallel`` over numba's threads and ``*_serial``, as the vector env's loops do, and
:class:`crossenvs.az.search.GumbelSearch` lets a :class:`crossenvs.core.threads.BatchRunner` choose.
With the network on a GPU the tree walk is most of self-play's time.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import njit, prange

from crossenvs.core import state as st
from crossenvs.core.floats import exact_exp
from crossenvs.core.specialize import game_kernels
from crossenvs.envs.batch_kernels import copy_position

apply_kernel, mask_kernel, observe_kernel = game_kernels()

C_VISIT = 50.0
C_SCALE = 0.1
LOW_LOGIT = -1e9


@njit(cache=True)
def _q_sign(node_metas, b, parent, child) -> float:
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
            q = _q_sign(node_metas, b, node, child) * value_sum[b, child] / visits[b, child]
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
            q = _q_sign(node_metas, b, node, child) * value_sum[b, child] / visits[b, child]
        out[a] = q
        low, high = min(low, q), max(high, q)
    scale = (C_VISIT + max_visits) * C_SCALE / max(high - low, 1e-8)
    for a in range(actions):
        if prior[b, node, a] > -np.inf:
            out[a] = (out[a] - low) * scale


@njit(cache=True)
def _child_visits(children, visits, b, node, a) -> int:
    child = children[b, node, a]
    return visits[b, child] if child >= 0 else 0


@njit(cache=True)
def _root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, considered_visit, b, q) -> int:
    """Sequential halving: among actions with ``considered_visit`` visits, the best gumbel + logit + sigma(Q)."""
    sigma_q(node_metas, children, prior, visits, value_sum, raw_value, b, 0, q)
    top = -np.inf
    for a in range(children.shape[2]):
        top = max(top, prior[b, 0, a])
    best, best_score = -1, -np.inf
    for a in range(children.shape[2]):
        if prior[b, 0, a] == -np.inf:
            continue
        score = max(LOW_LOGIT, gumbel[b, a] + prior[b, 0, a] - top + q[a])
        if _child_visits(children, visits, b, 0, a) != considered_visit:
            score = -np.inf
        if best < 0 or score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def _interior_action(node_metas, children, prior, visits, value_sum, raw_value, b, node, q) -> int:
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
            sum_visits += _child_visits(children, visits, b, node, a)
    best, best_score = -1, -np.inf
    for a in range(children.shape[2]):
        if prior[b, node, a] == -np.inf:
            continue
        prob = exact_exp(prior[b, node, a] + q[a] - top) / total
        score = prob - _child_visits(children, visits, b, node, a) / (1.0 + sum_visits)
        if score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def _init_root(boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks, b):
    """Tree b holds only its root (the game's position); the root's observation and mask to evaluate."""
    count[b] = 1
    copy_position(boards[b], metas[b], node_boards[b, 0], node_metas[b, 0])
    children[b, 0, :] = -1
    visits[b, 0] = 0
    value_sum[b, 0] = 0.0
    observe_kernel(node_boards[b, 0], node_metas[b, 0], node_metas[b, 0, st.TO_MOVE], observations[b])
    mask_kernel(node_boards[b, 0], node_metas[b, 0], masks[b])


@njit(cache=True)
def _count_considered_one(masks, max_considered, num_considered, b) -> None:
    """How many root actions sequential halving starts from: the legal ones, at most ``max_considered``."""
    legal = 0
    for a in range(masks.shape[1]):
        legal += masks[b, a] != 0
    num_considered[b] = min(max_considered, legal)


@njit(cache=True)
def count_considered(masks, max_considered, num_considered) -> None:
    """:func:`_count_considered_one` for every root (``masks`` holds the roots' legal masks)."""
    for b in range(masks.shape[0]):
        _count_considered_one(masks, max_considered, num_considered, b)


@njit(cache=True, parallel=True)
def init_roots_parallel(
    boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks
):
    """Every tree reset to its root, across numba's threads."""
    # prange's index is a uint64 and range's an int64: handed on as int64, the serial and parallel walks share one
    # compile of each per-tree function (_init_root, _select_one, ... and what they call), not one each
    for b in prange(boards.shape[0]):
        _init_root(
            boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks, np.int64(b)
        )


@njit(cache=True)
def init_roots_serial(boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks):
    """:func:`init_roots_parallel` on the calling thread."""
    for b in range(boards.shape[0]):
        _init_root(boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks, b)


@njit(cache=True)
def _select_one(
    node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows, b,
):  # fmt: skip
    """One simulation in tree b: walk down to a new node (or a finished position); ``leaves[b]`` is it.

    A new node's observation and mask are written to row b of ``observations`` and ``masks`` for
    the network; a finished position needs no evaluation (its mask row is all zero). ``q_rows[b]``
    is the tree's own scratch row for sigma(Q) (the trees are walked on several threads, or GPU
    threads, and a kernel allocates nothing).
    """
    q = q_rows[b]
    node = 0
    while True:
        if node_metas[b, node, st.STATUS] != st.STATUS_PLAYING:
            masks[b, :] = 0
            break
        if node == 0:
            simulation = 0
            for a in range(children.shape[2]):
                simulation += _child_visits(children, visits, b, 0, a)
            target = considered_table[num_considered[b], min(simulation, considered_table.shape[1] - 1)]
            action = _root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, target, b, q)
        else:
            action = _interior_action(node_metas, children, prior, visits, value_sum, raw_value, b, node, q)
        child = children[b, node, action]
        if child < 0:
            child = count[b]
            count[b] += 1
            copy_position(node_boards[b, node], node_metas[b, node], node_boards[b, child], node_metas[b, child])
            apply_kernel(node_boards[b, child], node_metas[b, child], action)
            children[b, node, action] = child
            children[b, child, :] = -1
            parent[b, child] = node
            visits[b, child] = 0
            value_sum[b, child] = 0.0
            node = child
            meta = node_metas[b, node]
            observe_kernel(node_boards[b, node], meta, meta[st.TO_MOVE], observations[b])
            mask_kernel(node_boards[b, node], meta, masks[b])
            break
        node = child
    leaves[b] = node


@njit(cache=True, parallel=True)
def select_parallel(
    node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows,
):  # fmt: skip
    """One simulation per tree (:func:`_select_one`), the trees shared out among numba's threads."""
    for b in prange(node_boards.shape[0]):  # b as int64: see init_roots_parallel
        _select_one(node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
                    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows, np.int64(b))  # fmt: skip


@njit(cache=True)
def select_serial(
    node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows,
):  # fmt: skip
    """:func:`select_parallel` on the calling thread."""
    for b in range(node_boards.shape[0]):
        _select_one(node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
                    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows, b)  # fmt: skip


@njit(cache=True)
def _expand_and_backup_one(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b):
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
    for b in prange(leaves.shape[0]):  # b as int64: see init_roots_parallel
        _expand_and_backup_one(
            node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, np.int64(b)
        )


@njit(cache=True)
def expand_and_backup_serial(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks):
    """:func:`expand_and_backup_parallel` on the calling thread."""
    for b in range(leaves.shape[0]):
        _expand_and_backup_one(
            node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b
        )


@njit(cache=True)
def _root_result_one(
    node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows, b
):
    """Tree b's answer: the chosen action (most-visited considered actions, best score), the improved policy, the root value."""
    q = q_rows[b]
    most = 0
    for a in range(children.shape[2]):
        most = max(most, _child_visits(children, visits, b, 0, a))
    actions[b] = _root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, most, b, q)
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
    """Every tree's answer (:func:`_root_result_one`), on the calling thread."""
    for b in range(children.shape[0]):
        _root_result_one(
            node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows, b
        )


# ----------------------------------------------------------------------------- the same search on a GPU
cuda: Any = None  # numba.cuda, bound by device_kernels(): a CPU-only process never imports it


def _device_init_roots(
    boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks,
    max_considered, num_considered, leaves,
):  # fmt: skip
    """One thread a tree: reset to its root, the root's observation and mask (the first leaf to evaluate), and
    the root actions sequential halving considers."""
    b = cuda.grid(1)
    if b < boards.shape[0]:
        _init_root(boards, metas, node_boards, node_metas, children, visits, value_sum, count, observations, masks, b)
        _count_considered_one(masks, max_considered, num_considered, b)
        leaves[b] = 0


def _device_expand_and_backup(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks):
    """One thread a tree: the network's answer stored at the leaf and backed up (:func:`_expand_and_backup_one`)."""
    b = cuda.grid(1)
    if b < leaves.shape[0]:
        _expand_and_backup_one(
            node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b
        )


def _device_backup_then_select(
    node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
    gumbel, considered_table, num_considered, leaves, logits, values, observations, masks, q_rows,
):  # fmt: skip
    """One thread a tree: the last leaf's evaluation backed up, then the next simulation's walk to a new leaf.

    The two steps a simulation boundary needs, in one launch instead of two (a search is ``simulations + 3``
    launches): the thread reads the old leaf's mask before the walk writes the new one.
    """
    b = cuda.grid(1)
    if b < leaves.shape[0]:
        _expand_and_backup_one(
            node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b
        )
        _select_one(node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
                    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows, b)  # fmt: skip


def _device_root_results(
    node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows
):
    """One thread a tree: the chosen action, the improved policy and the root value (:func:`_root_result_one`)."""
    b = cuda.grid(1)
    if b < children.shape[0]:
        _root_result_one(
            node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows, b
        )


#: the device kernels above, by role (what :class:`crossenvs.az.device_search.DeviceGumbelSearch` launches)
DEVICE_KERNELS = {
    "init_roots": _device_init_roots,
    "backup_then_select": _device_backup_then_select,
    "expand_and_backup": _device_expand_and_backup,
    "root_results": _device_root_results,
}


@functools.cache
def device_kernels() -> dict[str, Any]:
    """The search's steps as CUDA kernels, one thread a tree (raises CudaUnavailableError where none can run)."""
    global cuda
    from crossenvs.core.cuda import cuda_module, simulated

    cuda = cuda_module()
    compile_kernel = cuda.jit if simulated() else cuda.jit(cache=True)
    return {role: compile_kernel(function) for role, function in DEVICE_KERNELS.items()}
