"""Numba kernels the players run over a batch of games: the uniform random pick among legal actions.

Owned by the players layer (random play is a player); the env layer imports from here.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..core.bits import byte_sum_8
from ..kernels.batched import batched, kernels_of


def random_legal_actions(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[j]``: the legal action of ``masks[j]`` at quantile ``uniforms[j]`` (a uniform random pick); -1 if none.

    Serially or across threads, whichever is faster now (:mod:`crossenvs.kernels.threads`).
    """
    kernels_of(sys.modules[__name__]).pick(Picks(masks, uniforms, out))


@njit(cache=True, inline="always")
def random_legal_action(masks, uniforms, out, j) -> None:
    """One row of :func:`random_legal_actions`.

    Masks are summed eight bytes at a time (:func:`~crossenvs.core.bits.byte_sum_8`: one word on
    the CPU, so counting a 3,585-action mask takes 449 multiplications; byte by byte on a GPU,
    where a row need not start at an 8-byte boundary).
    """
    row = masks[j]
    whole_words = row.shape[0] // 8
    count = np.int64(0)
    for w in range(whole_words):
        count += byte_sum_8(row, 8 * w)
    for a in range(whole_words * 8, row.shape[0]):
        count += row[a]
    out[j] = -1
    if count == 0:
        return
    target = min(np.int64(uniforms[j] * count), count - 1)
    start = 0
    for w in range(whole_words):  # skip whole words before the target
        in_word = byte_sum_8(row, 8 * w)
        if target < in_word:
            break
        target -= in_word
        start += 8
    for a in range(start, row.shape[0]):
        if row[a]:
            if target == 0:
                out[j] = a
                return
            target -= 1


class Picks(NamedTuple):
    """A random pick per row: the legal mask, the row's uniform draw, the pick (out)."""

    masks: Any  # (n, A) int8
    uniforms: Any  # (n,) float64 in [0, 1)
    actions: Any  # (n,) int64, out: the legal action at that quantile, -1 where none


@batched(over="actions")
@njit(cache=True)
def pick(a: Picks, j) -> None:
    """Row j of :func:`random_legal_actions`: a batched kernel (:mod:`crossenvs.kernels.batched`)."""
    random_legal_action(a.masks, a.uniforms, a.actions, j)
