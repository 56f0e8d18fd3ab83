"""A batch of games of one kind stepped together: the game's kernels looped over a batch axis.

A template module (see :mod:`crossenvs.core.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. Every game's rules are three kernels with one
signature (:mod:`crossenvs.core.game`), so this one file drives any game.

Each loop comes twice, ``*_parallel`` over numba's threads and ``*_serial`` on the calling
thread; a :class:`crossenvs.core.threads.BatchRunner` chooses between them and sets how the
games are shared out among the threads. The same one-game steps also run as CUDA kernels, one
thread a game (:func:`device_kernels`, used by :mod:`crossenvs.envs.device`): one source for both.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from numba import njit, prange

from crossenvs.core import state as st
from crossenvs.core.specialize import game_kernels
from crossenvs.envs.batch_kernels import next_uniform, reset_game
from crossenvs.players.kernels import random_legal_action

apply_kernel, mask_kernel, observe_kernel = game_kernels()


@njit(cache=True, inline="always")
def _apply_one(boards, metas, ids, actions, ok, j) -> None:
    i = ids[j]
    ok[j] = apply_kernel(boards[i], metas[i], actions[j])


@njit(cache=True, inline="always")
def _play_one(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply, j) -> None:
    """Game j: its action applied, and what the step returns about it (see :func:`play_parallel`)."""
    mover = metas[j, st.TO_MOVE]
    legal = apply_kernel(boards[j], metas[j], actions[j])
    status = metas[j, st.STATUS]
    if legal:
        seat_rewards[j, 0] = st.SEAT_RETURNS[status, 0]
        seat_rewards[j, 1] = st.SEAT_RETURNS[status, 1]
    else:  # the game is untouched and lost by its mover
        seat_rewards[j, mover] = -1.0
        seat_rewards[j, 1 - mover] = 0.0
    over = not legal or status != st.STATUS_PLAYING
    ok[j], movers[j], rewards[j], ended[j] = legal, mover, seat_rewards[j, mover], over
    final_ply[j] = metas[j, st.PLY] if over else 0


@njit(cache=True, inline="always")
def _observe_one(boards, metas, ids, seats, observations, j) -> None:
    i = ids[j]
    observe_kernel(boards[i], metas[i], seats[j], observations[j])


@njit(cache=True, inline="always")
def _mask_one(boards, metas, ids, seats, masks, j) -> None:
    i = ids[j]
    if metas[i, st.TO_MOVE] == seats[j]:
        mask_kernel(boards[i], metas[i], masks[j])
    else:
        masks[j, :] = 0


@njit(cache=True, parallel=True)
def apply_parallel(boards, metas, ids, actions, ok) -> None:
    """Play ``actions[j]`` in game ``ids[j]``; ``ok[j]`` is False (game untouched) if it was illegal."""
    for j in prange(ids.shape[0]):
        _apply_one(boards, metas, ids, actions, ok, j)


@njit(cache=True)
def apply_serial(boards, metas, ids, actions, ok) -> None:
    """:func:`apply_parallel` on the calling thread."""
    for j in range(ids.shape[0]):
        _apply_one(boards, metas, ids, actions, ok, j)


@njit(cache=True, parallel=True)
def play_parallel(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply) -> None:
    """Every game plays ``actions[j]``; per game: ``ok`` (legal), ``movers`` (the seat that acted),
    ``seat_rewards`` (B, 2) and ``rewards`` (the mover's), ``ended`` (over or illegal) and
    ``final_ply`` (plies played where ended, else 0).

    The vector env's step in one pass: the bookkeeping done in NumPy after :func:`apply_parallel`
    cost a noticeable share of a large batch's step, and here it is a few loads per game.
    """
    for j in prange(boards.shape[0]):
        _play_one(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply, j)


@njit(cache=True)
def play_serial(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply) -> None:
    """:func:`play_parallel` on the calling thread."""
    for j in range(boards.shape[0]):
        _play_one(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply, j)


@njit(cache=True, parallel=True)
def view_parallel(boards, metas, ids, seats, observations, masks) -> None:
    """Observations of ``seats[j]`` and the legal mask of the player to act, for games ``ids``.

    ``observations`` and ``masks`` are indexed like ``ids`` (row j is game ``ids[j]``); masks
    are all zeros where ``seats[j]`` is not the player to act. All observations first, then all
    masks: game by game, each observation (10 KB for Crosse) pushed the move tables the mask
    reads out of the first-level cache and made the view slower.
    """
    for j in prange(ids.shape[0]):
        _observe_one(boards, metas, ids, seats, observations, j)
    for j in prange(ids.shape[0]):
        _mask_one(boards, metas, ids, seats, masks, j)


@njit(cache=True)
def view_serial(boards, metas, ids, seats, observations, masks) -> None:
    """:func:`view_parallel` on the calling thread."""
    for j in range(ids.shape[0]):
        _observe_one(boards, metas, ids, seats, observations, j)
    for j in range(ids.shape[0]):
        _mask_one(boards, metas, ids, seats, masks, j)


# ----------------------------------------------------------------------------- the same steps on a GPU
cuda: Any = None  # numba.cuda, bound by device_kernels(): a CPU-only process never imports it


@njit(cache=True, inline="always")
def _view_game(boards, metas, players, observations, masks, j) -> None:
    """Game j seen by the player to act: its seat, observation and legal mask."""
    seat = metas[j, st.TO_MOVE]
    players[j] = seat
    observe_kernel(boards[j], metas[j], seat, observations[j])
    mask_kernel(boards[j], metas[j], masks[j])


def _device_step(
    boards,
    metas,
    actions,
    initial_board,
    initial_meta,
    ok,
    movers,
    seat_rewards,
    rewards,
    ended,
    final_ply,
    players,
    observations,
    masks,
):
    """One thread a game: play, restart it if it ended, then the view of the player to act (the CPU env's step)."""
    j = cuda.grid(1)
    if j < boards.shape[0]:
        _play_one(boards, metas, actions, ok, movers, seat_rewards, rewards, ended, final_ply, j)
        if ended[j]:
            reset_game(boards, metas, j, initial_board, initial_meta)
        _view_game(boards, metas, players, observations, masks, j)


def _device_reset(boards, metas, restart, initial_board, initial_meta, players, observations, masks):
    """Games where ``restart[j]`` back to the start; every game's view of the player to act."""
    j = cuda.grid(1)
    if j < boards.shape[0]:
        if restart[j]:
            reset_game(boards, metas, j, initial_board, initial_meta)
        _view_game(boards, metas, players, observations, masks, j)


def _device_random_actions(masks, keys, counters, uniforms, out):
    """A uniform random legal action per game from its own stream (what the CPU's random player draws)."""
    j = cuda.grid(1)
    if j < masks.shape[0]:
        uniforms[j] = next_uniform(keys, counters, j)
        random_legal_action(masks, uniforms, out, j)


class DeviceKernels(NamedTuple):
    """This game's CUDA kernels, compiled on first launch."""

    step: Any
    reset: Any
    random_actions: Any


@functools.cache
def device_kernels() -> DeviceKernels:
    """The one-game steps above as CUDA kernels (raises CudaUnavailableError where no GPU or simulator can run them)."""
    global cuda
    from crossenvs.core.cuda import cuda_module, simulated

    cuda = cuda_module()
    compile_kernel = cuda.jit if simulated() else cuda.jit(cache=True)  # cached on disk beside the CPU loops
    return DeviceKernels(*(compile_kernel(f) for f in (_device_step, _device_reset, _device_random_actions)))
