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
from crossenvs.core.specialize import game_kernels

apply_kernel, mask_kernel, observe_kernel = game_kernels()


@njit(cache=True, inline="always")
def _legal_ids(mask, ids) -> int:
    """Write the ids of the ones of ``mask`` into ``ids``, ascending; returns how many.

    The mask is read eight bytes at a time, so the few dozen legal ids among thousands of action
    ids cost a pass over 450 words rather than 3,585 bytes.
    """
    count = 0
    words = mask.shape[0] // 8
    packed = mask[: words * 8].view(np.uint64)
    for w in range(words):
        if packed[w] != 0:
            for a in range(w * 8, w * 8 + 8):
                if mask[a]:
                    ids[count] = a
                    count += 1
    for a in range(words * 8, mask.shape[0]):
        if mask[a]:
            ids[count] = a
            count += 1
    return count


@njit(cache=True)
def step(board, meta, action, mask, ids, observation) -> int:
    """Play ``action`` in place (none if negative), then fill the next decision's buffers.

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
