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

from crossenvs.az.tree_math import (
    ROOT,
    child_visits,
    count_considered_one,
    expand_and_backup_one,
    interior_action,
    root_action,
    root_result_one,
)
from crossenvs.core import state as st
from crossenvs.core.specialize import game_kernels
from crossenvs.envs.batch_kernels import copy_position

apply_kernel, mask_kernel, observe_kernel = game_kernels()


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
                simulation += child_visits(children, visits, b, ROOT, a)
            target = considered_table[num_considered[b], min(simulation, considered_table.shape[1] - 1)]
            action = root_action(node_metas, children, prior, visits, value_sum, raw_value, gumbel, target, b, q)
        else:
            action = interior_action(node_metas, children, prior, visits, value_sum, raw_value, b, node, q)
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
        count_considered_one(masks, max_considered, num_considered, b)
        leaves[b] = 0


def _device_expand_and_backup(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks):
    """One thread a tree: the network's answer stored at the leaf and backed up (:func:`expand_and_backup_one`)."""
    b = cuda.grid(1)
    if b < leaves.shape[0]:
        expand_and_backup_one(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b)


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
        expand_and_backup_one(node_metas, parent, prior, visits, value_sum, raw_value, leaves, logits, values, masks, b)
        _select_one(node_boards, node_metas, children, parent, prior, visits, value_sum, raw_value, count,
                    gumbel, considered_table, num_considered, leaves, observations, masks, q_rows, b)  # fmt: skip


def _device_root_results(
    node_metas, children, prior, visits, value_sum, raw_value, gumbel, actions, policies, root_values, q_rows
):
    """One thread a tree: the chosen action, the improved policy and the root value (:func:`root_result_one`)."""
    b = cuda.grid(1)
    if b < children.shape[0]:
        root_result_one(
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
