"""The package's one uniform random pick among legal actions, in the kernel ground.

:func:`count_legal` and :func:`nth_legal` are the pick; everything random stands on them: the random player
(:func:`random_legal_actions` over a batch, one row for one position), MCTS's rollouts, and the vector env's
per-game random actions (:func:`crossenvs.kernels.batch_kernels.random_pick`, its uniforms from each game's
own stream, on both targets).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from crossenvs.kernels.bits import byte_sum_8
from crossenvs.kernels.threads import chunk_bounds, chunk_count, run, serial_loop


def random_legal_actions(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[j]``: the legal action of ``masks[j]`` at quantile ``uniforms[j]`` (a uniform random pick); -1 if none.

    Serially, or across numba's threads for a large batch (:mod:`crossenvs.kernels.threads`).
    """
    run(serial_loop(pick_rows), pick_parallel, Picks(masks, uniforms, out), len(out))


@njit(cache=True, inline="always")
def count_legal(row) -> int:
    """The legal actions of one mask row (1-d C-contiguous int8 of 0/1).

    Summed eight bytes at a time (:func:`~crossenvs.kernels.bits.byte_sum_8`: one word on the CPU, so
    counting a 3,585-action mask takes 449 multiplications; byte by byte on a GPU, where a row need
    not start at an 8-byte boundary).
    """
    whole_words = row.shape[0] // 8
    count = np.int64(0)
    for w in range(whole_words):
        count += byte_sum_8(row, 8 * w)
    for a in range(whole_words * 8, row.shape[0]):
        count += row[a]
    return count


@njit(cache=True, inline="always")
def nth_legal(row, target) -> int:
    """The legal action of index ``target`` (0-based, in id order) of one mask row, or -1 past the last.

    The one random legal pick of the package: every random move (the random player, the vector envs'
    ``random_actions`` on either target, MCTS rollouts and expansions) draws an index below
    :func:`count_legal` its own way and asks this for the action; whole words before the target
    are skipped by their byte sums.
    """
    whole_words = row.shape[0] // 8
    start = 0
    for w in range(whole_words):
        in_word = byte_sum_8(row, 8 * w)
        if target < in_word:
            break
        target -= in_word
        start += 8
    for a in range(start, row.shape[0]):
        if row[a]:
            if target == 0:
                return a
            target -= 1
    return -1


@njit(cache=True, inline="always")
def legal_at_quantile(row, uniform) -> int:
    """The legal action of the mask row ``row`` at quantile ``uniform`` in [0, 1) (a uniform random pick for a
    uniform draw), -1 if none: the one pick every batched loop calls. It takes the row and the draw, not the
    batch's arrays: an inlined helper given the arrays counts each in and out per call (numba's reference
    counts, more than the pick itself for a light game)."""
    count = count_legal(row)
    return -1 if count == 0 else nth_legal(row, min(np.int64(uniform * count), count - 1))


class Picks(NamedTuple):
    """A random pick per row: the legal mask, the row's uniform draw, the pick (out)."""

    masks: Any  # (n, A) int8
    uniforms: Any  # (n,) float64 in [0, 1)
    actions: Any  # (n,) int64, out: the legal action at that quantile, -1 where none


@njit(cache=True)
def pick_rows(a: Picks, start, stop) -> None:
    """Rows ``start`` to ``stop - 1`` of :func:`random_legal_actions`: the one body of both loops."""
    for j in range(start, stop):
        a.actions[j] = legal_at_quantile(a.masks[j], a.uniforms[j])


@njit(cache=True, parallel=True)
def pick_parallel(*fields) -> None:
    """:func:`random_legal_actions` across numba's threads, :data:`~crossenvs.kernels.threads.CHUNK` rows a call."""
    a = Picks(*fields)
    rows = a.actions.shape[0]
    for chunk in prange(chunk_count(rows)):
        start, stop = chunk_bounds(chunk, rows)
        pick_rows(a, start, stop)
