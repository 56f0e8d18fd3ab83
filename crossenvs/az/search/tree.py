"""Gumbel MuZero-style tree search over a batch of games, in numba (after mctx's ``gumbel_muzero_policy``).

A template module (see :mod:`crossenvs.kernels.specialize`): the copy for one game walks trees with
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

**One source, both targets.** The trees share nothing, so each step of the search is written for one tree
(:func:`init_root`, :func:`select`, compiled into the loops that call them) and run over a range of trees by
one body, ``<step>_trees(t, start, stop)``, over the :class:`~crossenvs.az.search.tree_math.Tree` of the whole
batch (as ``crossenvs.kernels.game_batch.step_games`` steps games). Its loops: on the CPU the body itself over
every tree (``crossenvs.kernels.threads.SerialLoop``) and :func:`search_parallel` (``crossenvs.kernels.threads.CHUNK``
trees a call, the step's code first), through :func:`crossenvs.kernels.threads.run`, and ``<step>_cuda``, one GPU
thread a tree; :class:`crossenvs.az.search.gumbel.GumbelSearch` runs them on either backend in the same order:
:func:`init_root_trees`, then per simulation :func:`backup_then_select_trees` (the last leaf's evaluation backed
up, the next leaf chosen), then the last backup and the answer
(:func:`crossenvs.az.search.tree_math.backup_then_answer_trees`, which no game changes, compiled once for all
games).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from crossenvs.az.search.tree_math import (
    ROOT,
    Tree,
    backup_then_answer_trees,
    child_visits,
    count_considered,
    expand_and_backup,
    interior_action,
    root_action,
)
from crossenvs.kernels import state as st
from crossenvs.kernels.batch_kernels import copy_position
from crossenvs.kernels.portable import thread_index
from crossenvs.kernels.specialize import game_kernels
from crossenvs.kernels.threads import chunk_bounds, chunk_count

apply_kernel, mask_kernel, observe_kernel = game_kernels()
COMPILING = "AlphaZero's tree search"  # in words, for the first-use notice (crossenvs.kernels.specialize)


@njit(cache=True, inline="always")
def init_root(t: Tree, b) -> None:
    """Tree b holds only its root (the game's position); the root's observation and mask (the first leaf to
    evaluate), and how many root actions sequential halving considers."""
    t.count[b] = 1
    copy_position(t.boards[b], t.metas[b], t.node_boards[b, 0], t.node_metas[b, 0])
    t.children[b, 0, :] = -1
    t.visits[b, 0] = 0
    t.value_sum[b, 0] = 0.0
    seat = np.int64(t.node_metas[b, 0, st.TO_MOVE])  # int64, as the vector env's seats: one compile of the kernel
    observe_kernel(t.node_boards[b, 0], t.node_metas[b, 0], seat, t.observations[b])
    mask_kernel(t.node_boards[b, 0], t.node_metas[b, 0], t.masks[b])
    count_considered(t, b)
    t.leaves[b] = 0


@njit(cache=True, inline="always")
def select(t: Tree, b) -> None:
    """One simulation in tree b: walk down to a new node (or a finished position); ``leaves[b]`` is it.

    A new node's observation and mask are written to row b of ``observations`` and ``masks`` for
    the network; a finished position needs no evaluation (its mask row is all zero). ``q_rows[b]``
    is the tree's own scratch row for sigma(Q) (the trees are walked on several threads, or GPU
    threads, and a kernel allocates nothing).
    """
    q = t.q_rows[b]
    node_boards, node_metas, children = t.node_boards, t.node_metas, t.children
    node = ROOT  # an int64, not the literal 0: every function it reaches compiles once
    while True:
        if node_metas[b, node, st.STATUS] != st.STATUS_PLAYING:
            t.masks[b, :] = 0
            break
        if node == 0:
            simulation = 0
            for a in range(children.shape[2]):
                simulation += child_visits(children, t.visits, b, ROOT, a)
            table = t.considered_table
            target = table[t.num_considered[b], min(simulation, table.shape[1] - 1)]
            action = root_action(
                node_metas, children, t.prior, t.visits, t.value_sum, t.raw_value, t.gumbel, target, b, q
            )
        else:
            action = interior_action(node_metas, children, t.prior, t.visits, t.value_sum, t.raw_value, b, node, q)
        child = children[b, node, action]
        if child < 0:
            child = t.count[b]
            t.count[b] += 1
            copy_position(node_boards[b, node], node_metas[b, node], node_boards[b, child], node_metas[b, child])
            apply_kernel(node_boards[b, child], node_metas[b, child], action)
            children[b, node, action] = child
            children[b, child, :] = -1
            t.parent[b, child] = node
            t.visits[b, child] = 0
            t.value_sum[b, child] = 0.0
            node = child
            meta = node_metas[b, node]
            observe_kernel(node_boards[b, node], meta, np.int64(meta[st.TO_MOVE]), t.observations[b])
            mask_kernel(node_boards[b, node], meta, t.masks[b])
            break
        node = child
    t.leaves[b] = node


# ----------------------------------------------------------------------------- the steps over a range of trees
@njit(cache=True)
def init_root_trees(t: Tree, start, stop) -> None:
    """:func:`init_root` for trees ``start`` to ``stop - 1``: the one body of every target's loop (a call per tree
    would count the references of the tuple's arrays, as ``crossenvs.kernels.game_batch.step_games`` says)."""
    for b in range(start, stop):
        init_root(t, b)


@njit(cache=True)
def backup_then_select_trees(t: Tree, start, stop) -> None:
    """For trees ``start`` to ``stop - 1``: the last leaf's evaluation backed up, then the next simulation's walk to
    a new leaf. The two steps a simulation boundary needs, in one pass (a search on a GPU is ``simulations + 2``
    launches); a tree reads its old leaf's mask before the walk writes the new one."""
    for b in range(start, stop):
        expand_and_backup(t, b)
        select(t, b)


# ----------------------------------------------------------------------------- the search's loops: CPU, then CUDA
#: the search's steps, in the order a search runs them: the parallel loop's first argument
INIT_ROOT, BACKUP_THEN_SELECT, BACKUP_THEN_ANSWER = 0, 1, 2


@njit(cache=True, inline="always")
def step_trees(t: Tree, step, start, stop) -> None:
    """Step ``step`` of the search for trees ``start`` to ``stop - 1``: what the parallel loop runs (the last step is
    :mod:`crossenvs.az.search.tree_math`'s, compiled once for every game)."""
    if step == INIT_ROOT:
        init_root_trees(t, start, stop)
    elif step == BACKUP_THEN_SELECT:
        backup_then_select_trees(t, start, stop)
    else:
        backup_then_answer_trees(t, start, stop)


@njit(cache=True, parallel=True)
def search_parallel(step, *fields) -> None:
    """Step ``step`` across numba's threads, ``crossenvs.kernels.threads.CHUNK`` trees a call."""
    t = Tree(*fields)
    trees = t.leaves.shape[0]
    for chunk in prange(chunk_count(trees)):
        start, stop = chunk_bounds(chunk, trees)
        step_trees(t, step, start, stop)


def init_root_cuda(t: Tree) -> None:
    b = thread_index()
    if b < t.leaves.shape[0]:
        init_root_trees(t, b, b + 1)


def backup_then_select_cuda(t: Tree) -> None:
    b = thread_index()
    if b < t.leaves.shape[0]:
        backup_then_select_trees(t, b, b + 1)
