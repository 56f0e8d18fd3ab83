"""What the batch of games' kernels take, and their kernels that do not depend on the game.

The NamedTuples below are the kernels' arguments, named once: the batch on either target
(:class:`crossenvs.envs.batch.GameBatch`), the kernels' definitions and their PTX signatures all use
them (:mod:`crossenvs.kernels.launch`). The kernels that call a game's own kernels are in
:mod:`crossenvs.kernels.game_batch`, compiled once per game; the ones here (resets, per-game random
streams, the random pick of a batch) are compiled once for all.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from crossenvs.kernels.portable import thread_index
from crossenvs.kernels.random_pick import legal_at_quantile

Array = Any  # a NumPy array on the CPU; a numba device array (a view of a torch tensor) on a GPU


class Apply(NamedTuple):
    """One action in each game of ``ids``."""

    boards: Array  # (B, H, W) int8
    metas: Array  # (B, META) int32
    ids: Array  # (n,) int64: the games
    actions: Array  # (n,) int64
    ok: Array  # (n,) bool, out: the action was legal (else the game is untouched)


class View(NamedTuple):
    """Observations of ``seats[j]`` and masks (zeros where that seat is not to act) for games ``ids``."""

    boards: Array  # (B, H, W) int8
    metas: Array  # (B, META) int32
    ids: Array  # (n,) int64
    seats: Array  # (n,) int64
    observations: Array  # (n, H, W, C) float32, out
    masks: Array  # (n, A) int8, out


#: what game j does in a call of the step kernel (``Step.plays``): a step's games PLAY their actions; a reset's
#: RESTART (back to the start) or KEEP (as they are), neither with a move: each then shows its view and mask
PLAY, RESTART, KEEP = 0, 1, 2


class Step(NamedTuple):
    """A vector env's step: one action in every game and what it did to each, both seats' views of a game that ended
    and its restart, then every game's view of the player to act. Flat, no tuple inside: numba types an array
    argument in C and a tuple's fields in Python, which cost a share of a one-game step. A reset is the same
    kernel, its ``plays`` not PLAY: one compiled kernel for both (a second parallel loop compiled as long as the
    first)."""

    boards: Array  # (B, H, W) int8
    metas: Array  # (B, META) int32
    plays: Array  # (B,) int8: PLAY, RESTART or KEEP (above)
    actions: Array  # (B,) int64
    illegal: Array  # (B,) bool, out: the action was illegal (the game is untouched, and lost by its mover)
    movers: Array  # (B,) int64, out: the seat that acted
    seat_rewards: Array  # (B, 2) float32, out: both seats' rewards
    rewards: Array  # (B,) float32, out: the mover's reward
    ended: Array  # (B,) bool, out: the game is over (or the action was illegal)
    final_ply: Array  # (B,) int64, out: plies the ended games lasted, 0 elsewhere
    initial_board: Array  # (H, W) int8
    initial_meta: Array  # (META,) int32
    final_observations: (
        Array  # (B, 2, H, W, C) float32, out: both seats' views where a game ended (rows stale elsewhere)
    )
    players: Array  # (B,) int64, out: the seat to act
    observations: Array  # (B, H, W, C) float32, out
    masks: Array  # (B, A) int8, out


class RandomPick(NamedTuple):
    """A uniform random legal action per game from its own random stream."""

    masks: Array  # (B, A) int8
    keys: Array  # (B,) uint64: each game's stream
    counters: Array  # (B,) uint64: draws so far
    uniforms: Array  # (B,) float64, out: the draw
    actions: Array  # (B,) int64, out: the pick (-1 where no action is legal)


@njit(cache=True, inline="always")
def random_pick(a: RandomPick, j) -> None:
    """Game j's next uniform from its own stream, and the legal action at that quantile (-1 where none)."""
    a.uniforms[j] = next_uniform(a.keys, a.counters, j)
    a.actions[j] = legal_at_quantile(a.masks[j], a.uniforms[j])


@njit(cache=True)
def random_actions_games(a: RandomPick, start, stop) -> None:
    """:func:`random_pick` for games ``start`` to ``stop - 1`` on the CPU (a few loads each: threads would cost more),
    written out: an inlined helper given the batch's arrays counts them in and out per game (numba's reference
    counts)."""
    for j in range(start, stop):
        a.uniforms[j] = next_uniform(a.keys, a.counters, j)
        a.actions[j] = legal_at_quantile(a.masks[j], a.uniforms[j])


def random_actions_cuda(a: RandomPick) -> None:
    """:func:`random_pick` on a GPU: one thread a game."""
    j = thread_index()
    if j < a.actions.shape[0]:
        random_pick(a, j)


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


# SplitMix64 wraps modulo 2**64 by design. Compiled, it does so silently; under the CUDA simulator these functions
# run as Python on numpy scalars, which warn at every wrap: warnings about intended arithmetic, so not shown.
warnings.filterwarnings("ignore", "overflow encountered in scalar (multiply|add)", RuntimeWarning, __name__)


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
