"""Numba kernels over a batch of games that do not depend on the game: resets and random picks.

The loops that call a game's own kernels over a batch are in :mod:`crossenvs.envs.game_batch`,
compiled once per game (see :mod:`crossenvs.core.specialize`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.threads import BatchRunner


@njit(cache=True)
def reset_batch(boards, metas, ids, initial_board, initial_meta) -> None:
    """Games ``ids`` back to the initial position (a few bytes each: threads would cost more)."""
    for j in range(ids.shape[0]):
        boards[ids[j]] = initial_board
        metas[ids[j]] = initial_meta


def random_legal_actions(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[j]``: the legal action of ``masks[j]`` at quantile ``uniforms[j]`` (a uniform random pick); -1 if none.

    Serially or across threads, whichever is faster now (:mod:`crossenvs.core.threads`).
    """
    _RANDOM_PICKS(masks.shape[0], masks, uniforms, out)


@njit(cache=True, inline="always")
def _random_legal_action(masks, uniforms, out, j) -> None:
    """One row of :func:`random_legal_actions`.

    Masks are read eight bytes at a time: a word of 0/1 bytes times 0x0101010101010101 holds its
    byte sum in the top byte, so counting a 3,585-action mask takes 449 multiplications.
    """
    words_per_row = masks.shape[1] // 8
    ones, top_byte = np.uint64(0x0101010101010101), np.uint64(56)
    row = masks[j]
    words = row[: words_per_row * 8].view(np.uint64)
    count = np.int64(0)  # counts stay int64: numba turns int64 + uint64 into a float
    for w in range(words_per_row):
        count += np.int64((words[w] * ones) >> top_byte)
    for a in range(words_per_row * 8, row.shape[0]):
        count += row[a]
    out[j] = -1
    if count == 0:
        return
    target = min(np.int64(uniforms[j] * count), count - 1)
    start = 0
    for w in range(words_per_row):  # skip whole words before the target
        in_word = np.int64((words[w] * ones) >> top_byte)
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
        _random_legal_action(masks, uniforms, out, j)


@njit(cache=True)
def _random_legal_actions_serial(masks, uniforms, out) -> None:
    for j in range(masks.shape[0]):
        _random_legal_action(masks, uniforms, out, j)


_RANDOM_PICKS = BatchRunner(_random_legal_actions_parallel, _random_legal_actions_serial)


@njit(cache=True, inline="always")
def _splitmix64(x: np.uint64) -> np.uint64:
    """SplitMix64's output function: a well-mixed 64-bit value from a counter."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def per_game_uniforms(keys, counters, ids, out) -> None:
    """``out[j]``: the next uniform in [0, 1) of game ``ids[j]``'s own random stream.

    Each game's stream depends only on its key and how many numbers it has drawn, so a game
    plays the same whatever the other games in the batch do (counter-based, like JAX's keys).
    """
    golden = np.uint64(0x9E3779B97F4A7C15)
    for j in range(ids.shape[0]):
        i = ids[j]
        counters[i] += np.uint64(1)
        bits = _splitmix64(keys[i] + counters[i] * golden)
        out[j] = (bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # 53 random bits


def game_keys(seed: int | None, num_games: int) -> np.ndarray:
    """One 64-bit key per game, derived from ``seed`` (fresh entropy when it is None)."""
    return np.random.SeedSequence(seed).generate_state(num_games, dtype=np.uint64)


def as_ids(indices: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(indices, dtype=np.int64)
