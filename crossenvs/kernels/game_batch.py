"""A batch of games of one kind stepped together: the game's kernels looped over a batch axis.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. Every game's rules are three kernels with one
signature (:mod:`crossenvs.core.game`), so this one file drives any game.

Each kernel here is the work of a range of games, ``<name>_games(a, start, stop)``, over a NamedTuple of the
batch's arrays (:mod:`crossenvs.kernels.batch_kernels` names them), and the loops that run it are beside it:
on the CPU the range function itself over every game (:class:`~crossenvs.kernels.threads.SerialLoop`) and
``<name>_parallel`` (:data:`~crossenvs.kernels.threads.CHUNK` games a call across numba's threads, taking the
NamedTuple's fields in order), run by :func:`crossenvs.kernels.threads.run`; on a GPU ``<name>_cuda``, one thread a
game (a range of one), launched by
:mod:`crossenvs.kernels.launch`. One source for both targets, one argument list: a vector env's step is
:func:`step_games` on either (:class:`crossenvs.envs.batch.GameBatch` picks the loop or the kernel).

What a call per game costs shaped the code (numba 0.68; the figures are on docs/benchmarks.md). numba counts an
array in and out (an atomic reference count) where a function takes it, and prunes the counts only within one
function: the game's kernel called per game with views of the batch costs more in counts than a light game's
move, an inlined helper given the step's NamedTuple more again (the tuple is built again per game). So the game's
kernels are compiled into the range's loops (``inline="always"`` twins), a move's bookkeeping is written in the
loop, and every loop calls the range function: numba 0.68 drops stores through arrays taken from a tuple in
a function inlined with them (seen in ``prange`` bodies first, then in this step compiled into its serial loop:
the moves' legality flags were lost, which ``tests/test_vector.py``'s parallel/serial check caught).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from crossenvs.kernels import state as st
from crossenvs.kernels.batch_kernels import PLAY, RESTART, Apply, Step, View, reset_game
from crossenvs.kernels.portable import thread_index
from crossenvs.kernels.specialize import game_kernels
from crossenvs.kernels.threads import chunk_bounds, chunk_count, inline_twin

apply_kernel, mask_kernel, observe_kernel = game_kernels()
COMPILING = "the vector env's batch loops"  # in words, for the first-use notice (crossenvs.kernels.specialize)


#: the game's own kernels compiled into each loop that calls them (a call per game passing views of the batch's
#: arrays cost about 25 ns in reference counts alone, more than a Connect Four move)
_apply_game, _mask_game, _observe_game = (
    inline_twin(apply_kernel),
    inline_twin(mask_kernel),
    inline_twin(observe_kernel),
)


# ----------------------------------------------------------------------------- a vector env's step and reset
@njit(cache=True)
def step_games(a: Step, start, stop) -> None:
    """A vector env's step for games ``start`` to ``stop - 1``, the one body of every target's step: each game plays
    (a reset's game restarts or keeps, see :data:`~crossenvs.kernels.batch_kernels.PLAY`), an ended game's final
    views are written and it restarts, then every game's view of the player to act and its mask (every game is in
    play afterwards, so the mask is that player's). In passes, each over the range: the game's kernel of a pass
    stays in the first-level cache (game by game, each observation pushed the move tables the mask reads out of
    it, for Crosse)."""
    for j in range(start, stop):
        if a.plays[j] == PLAY:  # the move, and what the step returns about it (no NumPy pass over the batch after)
            mover = a.metas[j, st.TO_MOVE]
            legal = _apply_game(a.boards[j], a.metas[j], a.actions[j])
            status = a.metas[j, st.STATUS]
            if legal:
                a.seat_rewards[j, 0] = st.SEAT_RETURNS[status, 0]
                a.seat_rewards[j, 1] = st.SEAT_RETURNS[status, 1]
            else:  # the game is untouched and lost by its mover
                a.seat_rewards[j, mover] = -1.0
                a.seat_rewards[j, 1 - mover] = 0.0
            over = not legal or status != st.STATUS_PLAYING
            a.illegal[j], a.movers[j], a.rewards[j], a.ended[j] = not legal, mover, a.seat_rewards[j, mover], over
            a.final_ply[j] = a.metas[j, st.PLY] if over else 0
        else:  # a reset's game: back to the start (RESTART) or as it is (KEEP); no move, so nothing ended
            a.ended[j] = False
            if a.plays[j] == RESTART:
                reset_game(a.boards, a.metas, j, a.initial_board, a.initial_meta)
    for j in range(start, stop):
        if a.ended[j]:  # both seats' views of where it ended, then back to the start
            for seat in range(2):
                _observe_game(a.boards[j], a.metas[j], np.int64(seat), a.final_observations[j, seat])
            reset_game(a.boards, a.metas, j, a.initial_board, a.initial_meta)
    for j in range(start, stop):
        seat = np.int64(a.metas[j, st.TO_MOVE])  # int64, as the view's seats: one compile of the observation
        a.players[j] = seat
        _observe_game(a.boards[j], a.metas[j], seat, a.observations[j])
    for j in range(start, stop):
        _mask_game(a.boards[j], a.metas[j], a.masks[j])


@njit(cache=True, parallel=True)
def step_parallel(*fields) -> None:
    """:func:`step_games` across numba's threads, :data:`~crossenvs.kernels.threads.CHUNK` games a call, one pass
    of the threads (each pass ends at a barrier, which a large batch of a light game paid for). A ``prange`` body may
    use a NamedTuple only where the function built it (numba's parallel lowering looks for the constructor call)."""
    a = Step(*fields)
    games = a.boards.shape[0]
    for chunk in prange(chunk_count(games)):
        start, stop = chunk_bounds(chunk, games)
        step_games(a, start, stop)


def step_cuda(a: Step) -> None:
    """A vector env's step on a GPU: one thread a game."""
    j = thread_index()
    if j < a.players.shape[0]:
        step_games(a, j, j + 1)


# ----------------------------------------------------------------------------- the single-agent env's loops (CPU)
@njit(cache=True)
def apply_games(a: Apply, start, stop) -> None:
    """Play ``actions[j]`` in game ``ids[j]`` for j from ``start`` to ``stop - 1``; ``ok[j]`` is False (game untouched)
    if it was illegal."""
    for j in range(start, stop):
        i = a.ids[j]
        a.ok[j] = _apply_game(a.boards[i], a.metas[i], a.actions[j])


@njit(cache=True)
def view_games(a: View, start, stop) -> None:
    """Rows ``start`` to ``stop - 1`` of ``observations`` and ``masks``: game ``ids[j]`` seen by ``seats[j]``, and its
    legal actions if that seat is to act there, else zeros. Every observation, then every mask (see
    :func:`step_games`)."""
    for j in range(start, stop):
        i = a.ids[j]
        _observe_game(a.boards[i], a.metas[i], a.seats[j], a.observations[j])
    for j in range(start, stop):
        i = a.ids[j]
        if a.metas[i, st.TO_MOVE] == a.seats[j]:
            _mask_game(a.boards[i], a.metas[i], a.masks[j])
        else:
            a.masks[j, :] = 0
