"""The device env and search run on the host build of their CUDA kernels (:mod:`crossenvs.selfcheck.host_run`).

Here, above the engine, because it swaps the host stand-in into the device env's and the search's modules;
the kernel wing below knows neither (the layering of docs/architecture.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..kernels import cuda, launch
from .host_run import HostCuda


@contextlib.contextmanager
def host_device(
    plant: Callable[[str], str] | None = None, compiled: Mapping[Any, Any] | None = None
) -> Iterator[HostCuda]:
    """The device env and search, while this lasts, on :class:`HostCuda`: their kernels run as :class:`HostKernel`
    (``compiled``: numba-cuda's kernel objects already built, by kernel function, whose IR is taken as it is).

    The device path takes the simulator's branches (host arrays, stream 0), and ``cuda_module`` answers with
    the host stand-in; every kernel compiled meanwhile is forgotten after, so a later launch compiles anew.
    """

    cuda._import_numba_cuda()  # numba-cuda as a card gets it: its target, our tables shared, contraction off
    host = HostCuda(plant, compiled)
    patched = [(cuda, "simulated"), (cuda, "cuda_module")]
    saved = [getattr(owner, name) for owner, name in patched]
    kept = dict(launch._COMPILED)
    launch._COMPILED.clear()
    cuda.simulated, cuda.cuda_module = (lambda: True), (lambda: host)
    try:
        yield host
    finally:
        for (owner, name), value in zip(patched, saved):
            setattr(owner, name, value)
        launch._COMPILED.clear()
        launch._COMPILED.update(kept)
