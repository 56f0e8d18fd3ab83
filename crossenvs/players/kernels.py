"""Numba kernels the players run over a batch of games: the uniform random pick among legal actions.

Owned by the players layer (random play is a player); the env layer imports from here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.bits import byte_sum_8
from ..kernels.threads import BatchRunner


def random_legal_actions(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[j]``: the legal action of ``masks[j]`` at quantile ``uniforms[j]`` (a uniform random pick); -1 if none.

    Serially or across threads, whichever is faster now (:mod:`crossenvs.kernels.threads`).
    """
    _RANDOM_PICKS(masks.shape[0], masks, uniforms, out)


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


@njit(cache=True, parallel=True)
def _random_legal_actions_parallel(masks, uniforms, out) -> None:
    for j in prange(masks.shape[0]):
        random_legal_action(masks, uniforms, out, j)


@njit(cache=True)
def _random_legal_actions_serial(masks, uniforms, out) -> None:
    for j in range(masks.shape[0]):
        random_legal_action(masks, uniforms, out, j)


_RANDOM_PICKS = BatchRunner(_random_legal_actions_parallel, _random_legal_actions_serial)
