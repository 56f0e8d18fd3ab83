"""A batch of games of one kind stepped together: the game's kernels looped over a batch axis.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. Every game's rules are three kernels with one
signature (:mod:`crossenvs.core.game`), so this one file drives any game.

Each kernel here is one game's work, ``one(a, j)``, over a NamedTuple of the batch's arrays
(:mod:`crossenvs.kernels.batch_kernels` names them), and the loops over it are beside it: on the CPU
``<name>_serial`` and ``<name>_parallel`` (run by :func:`crossenvs.kernels.threads.run`, each taking
the NamedTuple's fields in order), on a GPU ``<name>_cuda``, one thread a game (launched by
:mod:`crossenvs.kernels.launch`). One source for both targets, one argument list: a vector env's step
is :func:`step` on either (:class:`crossenvs.envs.batch.GameBatch` picks the loop or the kernel).

Two rules of numba 0.68 shape the loops. A ``prange`` body *calls* the kernel: numba drops the stores
of a function inlined into it through arrays taken from a tuple. A serial loop *inlines* it (the
``_inline`` twins, :func:`crossenvs.kernels.threads.inline_twin`): a call per game passes the whole
NamedTuple by value, a third of a small batch's step.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from crossenvs.kernels import state as st
from crossenvs.kernels.batch_kernels import PLAY, RESTART, Apply, Play, Step, View, reset_game
from crossenvs.kernels.portable import thread_index
from crossenvs.kernels.specialize import game_kernels
from crossenvs.kernels.threads import inline_twin

apply_kernel, mask_kernel, observe_kernel = game_kernels()
COMPILING = "the vector env's batch loops"  # in words, for the first-use notice (crossenvs.kernels.specialize)


@njit(cache=True)
def apply(a: Apply, j) -> None:
    """Play ``actions[j]`` in game ``ids[j]``; ``ok[j]`` is False (game untouched) if it was illegal."""
    i = a.ids[j]
    a.ok[j] = apply_kernel(a.boards[i], a.metas[i], a.actions[j])


@njit(cache=True)
def play(a: Play, j) -> None:
    """Game j plays ``actions[j]``, and what the step returns about it (see :class:`~crossenvs.kernels.batch_kernels.Play`).

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


@njit(cache=True)
def observe(a: View, j) -> None:
    """Row j of ``observations``: game ``ids[j]`` seen by ``seats[j]``.

    The vector env's view (:func:`view_serial`) runs :func:`observe` over every game, then :func:`mask`:
    game by game, each observation (10 KB for Crosse) pushed the move tables the mask reads out of the
    first-level cache and made the view slower.
    """
    i = a.ids[j]
    observe_kernel(a.boards[i], a.metas[i], a.seats[j], a.observations[j])


@njit(cache=True)
def mask(a: View, j) -> None:
    """Row j of ``masks``: the legal actions in game ``ids[j]`` if ``seats[j]`` is to act there, else zeros."""
    i = a.ids[j]
    if a.metas[i, st.TO_MOVE] == a.seats[j]:
        mask_kernel(a.boards[i], a.metas[i], a.masks[j])
    else:
        a.masks[j, :] = 0


# ----------------------------------------------------------------------------- the single-agent env's loops (CPU)
_apply_inline = inline_twin(apply)
_observe_inline, _mask_inline = inline_twin(observe), inline_twin(mask)


@njit(cache=True)
def apply_serial(*fields) -> None:
    """:func:`apply` for every index of ``ids`` (``fields``: those of :class:`~crossenvs.kernels.batch_kernels.Apply`)."""
    a = Apply(*fields)
    for j in range(a.ids.shape[0]):
        _apply_inline(a, j)


@njit(cache=True, parallel=True)
def apply_parallel(*fields) -> None:
    a = Apply(*fields)
    for j in prange(a.ids.shape[0]):
        apply(a, np.int64(j))  # int64, as range gives: one compile of apply serves both loops


@njit(cache=True)
def view_serial(*fields) -> None:
    """Every observation, then every mask (see :func:`observe`; ``fields``: those of
    :class:`~crossenvs.kernels.batch_kernels.View`)."""
    a = View(*fields)
    for j in range(a.ids.shape[0]):
        _observe_inline(a, j)
    for j in range(a.ids.shape[0]):
        _mask_inline(a, j)


@njit(cache=True, parallel=True)
def view_parallel(*fields) -> None:
    a = View(*fields)
    for j in prange(a.ids.shape[0]):
        observe(a, np.int64(j))
    for j in prange(a.ids.shape[0]):
        mask(a, np.int64(j))


# ----------------------------------------------------------------------------- a vector env's step and reset
@njit(cache=True)
def _final_views_and_restart(boards, metas, initial_board, initial_meta, final_observations, j) -> None:
    """Game j has ended: both seats' views of where it ended, then the game back to the start."""
    for seat in range(2):
        observe_kernel(boards[j], metas[j], np.int64(seat), final_observations[j, seat])
    reset_game(boards, metas, j, initial_board, initial_meta)


@njit(cache=True, inline="always")
def _play_and_restart(p: Play, initial_board, initial_meta, final_observations, j) -> None:
    """Game j plays; if that ended it, its final views and restart."""
    play(p, j)
    if p.ended[j]:
        _final_views_and_restart(p.boards, p.metas, initial_board, initial_meta, final_observations, j)


@njit(cache=True, inline="always")
def _observe_to_move(boards, metas, players, observations, j) -> None:
    """Game j seen by the player to act: its seat and observation."""
    seat = np.int64(metas[j, st.TO_MOVE])  # int64, as the view's seats: one compile of the observation
    players[j] = seat
    observe_kernel(boards[j], metas[j], seat, observations[j])


@njit(cache=True, inline="always")
def _play_of(a: Step) -> Play:
    """The :class:`~crossenvs.kernels.batch_kernels.Play` fields of a step, as :func:`play` takes them."""
    return Play(a.boards, a.metas, a.actions, a.ok, a.movers, a.seat_rewards, a.rewards, a.ended, a.final_ply)


@njit(cache=True)
def _restart_or_keep(boards, metas, ended, initial_board, initial_meta, what, j) -> None:
    """A reset's game j (``what``: RESTART or KEEP): back to the start, or as it is; no move, so nothing ended."""
    ended[j] = False
    if what == RESTART:
        reset_game(boards, metas, j, initial_board, initial_meta)


@njit(cache=True)
def step(a: Step, j) -> None:
    """A vector env's step for game j: play, the final views and a restart where it ended (a reset's game: restart
    or keep, see :data:`~crossenvs.kernels.batch_kernels.PLAY`), then the view of the player to act (every game is
    in play afterwards, so its mask is that player's)."""
    what = a.plays[j]
    if what == PLAY:
        _play_and_restart(_play_of(a), a.initial_board, a.initial_meta, a.final_observations, j)
    else:
        _restart_or_keep(a.boards, a.metas, a.ended, a.initial_board, a.initial_meta, what, j)
    _observe_to_move(a.boards, a.metas, a.players, a.observations, j)
    mask_kernel(a.boards[j], a.metas[j], a.masks[j])


_play_inline = inline_twin(play)


@njit(cache=True)
def step_serial(*fields) -> None:
    """:func:`step` for every game in one call, in passes: the plays, the ended games' final views and restarts
    (a call, not inlined: inlined into the plays' loop it made a large Connect Four batch's step a third slower),
    the observations, the masks (game by game, each observation pushed the move tables the mask reads out of the
    first-level cache).
    ``fields``: those of :class:`~crossenvs.kernels.batch_kernels.Step`."""
    a = Step(*fields)
    p = _play_of(a)
    for j in range(a.boards.shape[0]):
        if a.plays[j] == PLAY:
            _play_inline(p, j)
        else:
            _restart_or_keep(a.boards, a.metas, a.ended, a.initial_board, a.initial_meta, a.plays[j], j)
    for j in range(a.boards.shape[0]):
        if a.ended[j]:
            _final_views_and_restart(a.boards, a.metas, a.initial_board, a.initial_meta, a.final_observations, j)
    for j in range(a.boards.shape[0]):
        _observe_to_move(a.boards, a.metas, a.players, a.observations, j)
    for j in range(a.boards.shape[0]):
        mask_kernel(a.boards[j], a.metas[j], a.masks[j])


@njit(cache=True)
def _end_and_view(
    boards, metas, initial_board, initial_meta, final_observations, ended, players, observations, masks, j
):
    """Game j after its play: if it ended, its final views and restart; then its view of the player to act and its
    mask. The ``prange`` bodies below call functions of arrays, not of the step's NamedTuple: a call passes its
    fifteen fields by value, per game."""
    if ended[j]:
        _final_views_and_restart(boards, metas, initial_board, initial_meta, final_observations, j)
    _observe_to_move(boards, metas, players, observations, j)
    mask_kernel(boards[j], metas[j], masks[j])


@njit(cache=True, parallel=True)
def step_parallel(*fields) -> None:
    """:func:`step_serial`'s work across numba's threads in two passes, not four: each pass ends at a barrier of the
    threads, which a large batch of a light game (Connect Four) paid more for than the passes saved. The plays
    (or a reset's restarts) are one pass; an ended game's final views and restart, and every game's observation and
    mask, the other, so that the observation is compiled into one loop body only. A ``prange`` body may use a
    NamedTuple only where the function built it (numba's parallel lowering looks for the constructor call), so the
    play's is built here."""
    a = Step(*fields)
    p = Play(a.boards, a.metas, a.actions, a.ok, a.movers, a.seat_rewards, a.rewards, a.ended, a.final_ply)
    boards, metas, ended, players, observations, masks = a.boards, a.metas, a.ended, a.players, a.observations, a.masks
    initial_board, initial_meta, final_observations, plays = (
        a.initial_board,
        a.initial_meta,
        a.final_observations,
        a.plays,
    )
    for j in prange(boards.shape[0]):
        if plays[j] == PLAY:
            play(p, np.int64(j))
        else:
            _restart_or_keep(boards, metas, ended, initial_board, initial_meta, plays[j], np.int64(j))
    for j in prange(boards.shape[0]):
        _end_and_view(
            boards,
            metas,
            initial_board,
            initial_meta,
            final_observations,
            ended,
            players,
            observations,
            masks,
            np.int64(j),
        )


def step_cuda(a: Step) -> None:
    """A vector env's step on a GPU: one thread a game."""
    j = thread_index()
    if j < a.players.shape[0]:
        step(a, j)
