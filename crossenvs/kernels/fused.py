"""One game stepped in place by one numba call: apply, next mask, legal ids, observation.

A template module (see :mod:`crossenvs.kernels.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. :class:`crossenvs.core.stepper.Stepper` drives it.
Fusing the four steps matters because each numba call from Python costs about a microsecond of
argument checking, as much as a whole move of the small games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.bits import lowest_square, nonzero_bytes
from crossenvs.kernels.specialize import game_kernels
from crossenvs.kernels.threads import inline_twin

apply_kernel, mask_kernel, observe_kernel = game_kernels()
#: the game's kernels compiled into the step (a call with arrays costs numba's reference counts, see
#: :mod:`crossenvs.kernels.game_batch`)
_apply_game, _mask_game, _observe_game = (
    inline_twin(apply_kernel),
    inline_twin(mask_kernel),
    inline_twin(observe_kernel),
)
COMPILING = "the single-game stepper"  # in words, for the first-use notice (crossenvs.kernels.specialize)


_BLOCK = 64  # mask bytes tested at once: a few SIMD instructions, and most blocks of a large mask are zeros


@njit(cache=True, inline="always")
def _legal_ids(mask, ids) -> int:
    """Write the ids of the ones of ``mask`` into ``ids``, ascending; returns how many.

    The legal ids are a few dozen of up to thousands of action ids (Crossings: about 80 of
    3,585). So the mask is read 64 bytes at a time as one 64-bit word of its nonzero bytes
    (:func:`~crossenvs.kernels.bits.nonzero_bytes`), whose ones are found with bit tricks; the
    bytes after the last whole block are read as the mask's last 64, less those already read (a
    mask of 121 cells would otherwise take 57 of them one at a time).
    """
    size = mask.shape[0]
    if size < _BLOCK:  # no block to read
        count = 0
        for a in range(size):
            if mask[a]:
                ids[count] = a
                count += 1
        return count
    whole = size // _BLOCK * _BLOCK
    count = 0
    for block in range(0, whole, _BLOCK):
        count = _block_ids(nonzero_bytes(mask, block), block, ids, count)
    rest = size - whole
    if rest:
        count = _block_ids(nonzero_bytes(mask, size - _BLOCK) >> np.uint64(_BLOCK - rest), whole, ids, count)
    return count


@njit(cache=True, inline="always")
def _block_ids(ones, start, ids, count) -> int:
    """The ids of the set bits of ``ones`` (bit i: action ``start + i``) written from ``ids[count]``; the new count."""
    while ones:
        ids[count] = start + lowest_square(ones)
        ones &= ones - np.uint64(1)
        count += 1
    return count


@njit(cache=True)
def step(board, meta, mask, ids, observation, action) -> int:
    """Play ``action`` in place (none if negative), then fill the next decision's buffers.

    ``action`` comes last so that a caller can bind the five arrays once (see
    :func:`crossenvs.core.stepper.bind_buffers`).

    Returns the number of legal ids written into ``ids`` (0 once the game is over), or -1 if
    ``action`` was illegal, in which case nothing was changed.
    """
    if action >= 0 and not _apply_game(board, meta, action):
        return -1
    _mask_game(board, meta, mask)
    _observe_game(board, meta, meta[st.TO_MOVE], observation)
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return 0
    return _legal_ids(mask, ids)
