"""Output arrays that are fresh to the caller yet cost no fresh memory: recycled once released.

A batched step returns arrays of megabytes (1024 Crosse observations are 10.6 MB). Allocating
them anew each step is not only a copy's worth of work: NumPy asks the kernel for huge pages
for large arrays, and the fresh pages fault and are zeroed on every step, a large share of a
Crosse vector step. Handing out one buffer again and again would be cheap but
wrong: a caller keeping last step's observations would see them change.

:class:`RecyclingBuffers` keeps the arrays it handed out and gives one back out only when
nothing else refers to it any more (its reference count says so: no variable, no view, no
slice of it is alive). So every step's arrays are the caller's to keep, as with ``np.empty``.
"""

from __future__ import annotations

import sys

import numpy as np

KEEP = 4  # buffers kept per shape; a caller holding more than this gets plain new arrays
_UNREFERENCED = 3  # getrefcount of a kept buffer nobody else holds: the list, the loop name, the argument


class RecyclingBuffers:
    """``take()`` gives an uninitialised array of one shape and dtype, reusing one the caller let go of."""

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype | type) -> None:
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self._kept: list[np.ndarray] = []

    def take(self) -> np.ndarray:
        for buffer in self._kept:
            if sys.getrefcount(buffer) <= _UNREFERENCED:
                return buffer
        buffer = np.empty(self.shape, dtype=self.dtype)
        if len(self._kept) < KEEP:
            self._kept.append(buffer)
        return buffer
