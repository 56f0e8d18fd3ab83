"""A batch of games of one kind stepped together: the game's kernels looped over a batch axis.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. Every game's rules are three kernels with one
signature (:mod:`crossenvs.core.game`), so this one file drives any game.

Each kernel here is declared once with :func:`~crossenvs.kernels.batched.batched`: one game's
work, ``one(args, j)``, over a NamedTuple of the batch's arrays (:mod:`crossenvs.envs.batch_kernels`
names them). :func:`~crossenvs.kernels.batched.kernels_of` gives its CPU loops (serial and over
numba's threads) and its CUDA kernel (one thread a game, :mod:`crossenvs.envs.device`): one source
for both targets, one argument list.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.core import state as st
from crossenvs.envs.batch_kernels import Apply, DeviceReset, DeviceStep, Play, View, reset_game
from crossenvs.kernels.batched import batched
from crossenvs.kernels.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()


@batched(over="ids")
@njit(cache=True)
def apply(a: Apply, j) -> None:
    """Play ``actions[j]`` in game ``ids[j]``; ``ok[j]`` is False (game untouched) if it was illegal."""
    i = a.ids[j]
    a.ok[j] = apply_kernel(a.boards[i], a.metas[i], a.actions[j])


@batched(over="boards")
@njit(cache=True)
def play(a: Play, j) -> None:
    """Game j plays ``actions[j]``, and what the step returns about it (see :class:`~crossenvs.envs.batch_kernels.Play`).

    The vector env's step in one pass: the bookkeeping done in NumPy after :func:`apply` cost a
    noticeable share of a large batch's step, and here it is a few loads per game.
    """
    mover = a.metas[j, st.TO_MOVE]
    legal = apply_kernel(a.boards[j], a.metas[j], a.actions[j])
    status = a.metas[j, st.STATUS]
    if legal:
        a.seat_rewards[j, 0] = st.SEAT_RETURNS[status, 0]
        a.seat_rewards[j, 1] = st.SEAT_RETURNS[status, 1]
    else:  # the game is untouched and lost by its mover
        a.seat_rewards[j, mover] = -1.0
        a.seat_rewards[j, 1 - mover] = 0.0
    over = not legal or status != st.STATUS_PLAYING
    a.ok[j], a.movers[j], a.rewards[j], a.ended[j] = legal, mover, a.seat_rewards[j, mover], over
    a.final_ply[j] = a.metas[j, st.PLY] if over else 0


@batched(over="ids")
@njit(cache=True)
def observe(a: View, j) -> None:
    """Row j of ``observations``: game ``ids[j]`` seen by ``seats[j]``.

    The vector env's view runs :func:`observe` over every game, then :func:`mask`: game by game,
    each observation (10 KB for Crosse) pushed the move tables the mask reads out of the first-level
    cache and made the view slower.
    """
    i = a.ids[j]
    observe_kernel(a.boards[i], a.metas[i], a.seats[j], a.observations[j])


@batched(over="ids")
@njit(cache=True)
def mask(a: View, j) -> None:
    """Row j of ``masks``: the legal actions in game ``ids[j]`` if ``seats[j]`` is to act there, else zeros."""
    i = a.ids[j]
    if a.metas[i, st.TO_MOVE] == a.seats[j]:
        mask_kernel(a.boards[i], a.metas[i], a.masks[j])
    else:
        a.masks[j, :] = 0


# ----------------------------------------------------------------------------- the device env's two kernels
@njit(cache=True, inline="always")
def _view_to_move(boards, metas, players, observations, masks, j) -> None:
    """Game j seen by the player to act: its seat, observation and legal mask."""
    seat = np.int64(metas[j, st.TO_MOVE])  # int64, as the CPU env's seats: one compile of the kernel
    players[j] = seat
    observe_kernel(boards[j], metas[j], seat, observations[j])
    mask_kernel(boards[j], metas[j], masks[j])


@batched(over="players")
@njit(cache=True)
def step(a: DeviceStep, j) -> None:
    """Play, restart the game if it ended, then the view of the player to act: the CPU env's step, for one game."""
    p = a.play
    play(p, j)
    if p.ended[j]:
        reset_game(p.boards, p.metas, j, a.initial_board, a.initial_meta)
    _view_to_move(p.boards, p.metas, a.players, a.observations, a.masks, j)


@batched(over="restart")
@njit(cache=True)
def restart(a: DeviceReset, j) -> None:
    """Game j back to the start if ``restart[j]``; every game's view of the player to act."""
    if a.restart[j]:
        reset_game(a.boards, a.metas, j, a.initial_board, a.initial_meta)
    _view_to_move(a.boards, a.metas, a.players, a.observations, a.masks, j)
