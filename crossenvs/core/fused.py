"""One game stepped in place by one numba call: apply, next mask, legal ids, observation.

A template module (see :mod:`crossenvs.core.specialize`): ``specialize(__name__, GameClass)``
gives the copy bound to one game's kernels. :class:`crossenvs.core.stepper.Stepper` drives it.
Fusing the four steps matters because each numba call from Python costs about a microsecond of
argument checking, as much as a whole move of the small games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.core import state as st
from crossenvs.core.bits import lowest_square, nonzero_byte_bits
from crossenvs.core.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()


_WORDS_PER_BLOCK = 8  # 64 mask bytes: most blocks of a large mask are all zeros and skipped at once


@njit(cache=True, inline="always")
def _legal_ids(mask, ids) -> int:
    """Write the ids of the ones of ``mask`` into ``ids``, ascending; returns how many.

    The legal ids are a few dozen of up to thousands of action ids, clustered (Crossings' moves
    of one tail are 56 neighbouring ids). So the mask is read 64 bytes at a time to skip empty
    blocks, and in a nonzero word the ones are found with bit tricks rather than byte by byte.
    """
    count = 0
    packed = mask[: mask.shape[0] // 8 * 8].view(np.uint64)
    whole_blocks = packed.shape[0] // _WORDS_PER_BLOCK * _WORDS_PER_BLOCK
    for block in range(0, whole_blocks, _WORDS_PER_BLOCK):
        any_set = packed[block]
        for w in range(block + 1, block + _WORDS_PER_BLOCK):
            any_set |= packed[w]
        if not any_set:
            continue
        for w in range(block, block + _WORDS_PER_BLOCK):
            ones = nonzero_byte_bits(packed[w])
            while ones:
                ids[count] = w * 8 + (lowest_square(ones) >> 3)
                ones &= ones - np.uint64(1)
                count += 1
    for a in range(whole_blocks * 8, mask.shape[0]):
        if mask[a]:
            ids[count] = a
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
    if action >= 0 and not apply_kernel(board, meta, action):
        return -1
    mask_kernel(board, meta, mask)
    observe_kernel(board, meta, meta[st.TO_MOVE], observation)
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return 0
    return _legal_ids(mask, ids)
