"""A batch of games of one kind stepped in parallel: the game's kernels looped over a batch axis.

A template module (see :mod:`crossenvs.core.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. Every game's rules are three kernels with one
signature (:mod:`crossenvs.core.game`), so this one file drives any game.
"""

from __future__ import annotations

from numba import njit, prange

from crossenvs.core import state as st
from crossenvs.core.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()


@njit(cache=True, parallel=True)
def apply_batch(boards, metas, ids, actions, ok) -> None:
    """Play ``actions[j]`` in game ``ids[j]``; ``ok[j]`` is False (game untouched) if it was illegal."""
    for j in prange(ids.shape[0]):
        i = ids[j]
        ok[j] = apply_kernel(boards[i], metas[i], actions[j])


@njit(cache=True, parallel=True)
def view_batch(boards, metas, ids, seats, observations, masks) -> None:
    """Observations of ``seats[j]`` and the legal mask of the player to act, for games ``ids``.

    ``observations`` and ``masks`` are indexed like ``ids`` (row j is game ``ids[j]``); masks
    are all zeros where ``seats[j]`` is not the player to act.
    """
    for j in prange(ids.shape[0]):
        i = ids[j]
        observe_kernel(boards[i], metas[i], seats[j], observations[j])
        if metas[i, st.TO_MOVE] == seats[j]:
            mask_kernel(boards[i], metas[i], masks[j])
        else:
            masks[j, :] = 0
