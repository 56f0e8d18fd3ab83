"""Numba kernels over a batch of games that do not depend on the game: resets and per-game random streams.

The loops that call a game's own kernels over a batch are in :mod:`crossenvs.envs.game_batch`,
compiled once per game (see :mod:`crossenvs.core.specialize`); the random pick among legal actions is
the players' (:mod:`crossenvs.players.kernels`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def copy_position(board_from, meta_from, board_to, meta_to) -> None:
    """One position's board and meta copied cell by cell: a GPU thread cannot copy a slice (that allocates)."""
    for r in range(board_from.shape[0]):
        for c in range(board_from.shape[1]):
            board_to[r, c] = board_from[r, c]
    for k in range(meta_from.shape[0]):
        meta_to[k] = meta_from[k]


@njit(cache=True, inline="always")
def reset_game(boards, metas, i, initial_board, initial_meta) -> None:
    """Game ``i`` back to the initial position (on either target)."""
    copy_position(initial_board, initial_meta, boards[i], metas[i])


@njit(cache=True)
def reset_batch(boards, metas, ids, initial_board, initial_meta) -> None:
    """Games ``ids`` back to the initial position (a few bytes each: threads would cost more)."""
    for j in range(ids.shape[0]):
        reset_game(boards, metas, ids[j], initial_board, initial_meta)


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
    for j in range(ids.shape[0]):
        out[j] = next_uniform(keys, counters, ids[j])


@njit(cache=True, inline="always")
def next_uniform(keys, counters, i) -> float:
    """The next uniform in [0, 1) of game ``i``'s stream (its counter advanced): one game's draw, on either target."""
    counters[i] += np.uint64(1)
    bits = _splitmix64(keys[i] + counters[i] * np.uint64(0x9E3779B97F4A7C15))
    return (bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # 53 random bits


def game_keys(seed: int | None, num_games: int) -> np.ndarray:
    """One 64-bit key per game, derived from ``seed`` (fresh entropy when it is None)."""
    return np.random.SeedSequence(seed).generate_state(num_games, dtype=np.uint64)


def as_ids(indices: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(indices, dtype=np.int64)
