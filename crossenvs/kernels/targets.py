"""The second target's hooks: CUDA versions of the primitives the rules use, registered only when CUDA is first used.

The rules are ``@njit`` functions written once; a few primitives need another instruction on a GPU
(the bit counts of :mod:`crossenvs.kernels.bits`, the scratch arrays and views of
:mod:`crossenvs.kernels.portable`). Their CPU versions are numba overloads registered at import;
their CUDA versions are functions handed to :func:`on_cuda_target`, run by :func:`enable_cuda_target`
when the CUDA target first loads (:func:`crossenvs.kernels.cuda.cuda_module`): a CPU-only install
never imports numba-cuda.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_CUDA_REGISTRATIONS: list[Callable[[], None]] = []
_cuda_enabled = False
_lock = threading.Lock()


def on_cuda_target(register: Callable[[], None]) -> Callable[[], None]:
    """Run ``register`` (which adds CUDA implementations with ``numba.cuda.extending``) when CUDA is enabled.

    A decorator: at once if :func:`enable_cuda_target` has run, else the first time it does.
    """
    with _lock:
        if _cuda_enabled:
            register()
        else:
            _CUDA_REGISTRATIONS.append(register)
    return register


def enable_cuda_target() -> None:
    """Register every primitive's CUDA implementation (imports ``numba.cuda``; idempotent)."""
    global _cuda_enabled
    with _lock:
        if _cuda_enabled:
            return
        for register in _CUDA_REGISTRATIONS:
            register()
        _CUDA_REGISTRATIONS.clear()
        _cuda_enabled = True
