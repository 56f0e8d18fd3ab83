"""Where a batched job's arrays live and how its kernels run: one job, two backends.

A job over many games (the vector env's batch, the search's trees) is written once, against this small
interface, and given a backend:

* :class:`HostBackend`: NumPy arrays; a kernel runs as its CPU loop, serially or across numba's threads
  (:func:`crossenvs.kernels.threads.run`).
* :class:`DeviceBackend`: GPU memory shared with torch; a kernel is one CUDA launch, one thread an index,
  on torch's current stream (:mod:`crossenvs.kernels.launch`). Under numba's simulator the same Python runs
  on the CPU with NumPy arrays in place of tensors.

Both take a kernel by its name (``"step"``) and the NamedTuple of its arguments, built by the job from
buffers each backend allocated: so the job's Python (what to allocate, which kernel when, what to hand back)
is the same on both targets, and every CPU test runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from crossenvs.support.checks import check_memory
from crossenvs.support.errors import InvalidOptionError

from .threads import run

#: a kernel's CPU loops: (its body over every index, a :class:`~crossenvs.kernels.threads.SerialLoop`; its parallel loop,
#: taking the kernel's NamedTuple's fields in order, or None)
Loops = tuple[Callable[..., None], Callable[..., None] | None]
#: name -> (shape, dtype): the buffers a job keeps
Buffers = Mapping[str, tuple[tuple[int, ...], Any]]


def buffer_bytes(buffers: Buffers) -> int:
    """What ``buffers`` take in memory, counted before anything is allocated."""
    return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in buffers.values())


class HostBackend:
    """A job's arrays in host memory, its kernels run as their CPU loops (``loops``: name -> :data:`Loops`)."""

    device = "cpu"

    def __init__(self, loops: Mapping[str, Loops]) -> None:
        self.loops = dict(loops)

    def check_memory(self, buffers: Buffers, what: str, fix: str) -> None:
        check_memory(buffer_bytes(buffers), what, fix)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
        """(the kernels' view, the caller's view) of one zeroed buffer: on the host, one array."""
        array = np.zeros(shape, dtype=dtype)
        return array, array

    def launch(self, kernel: str, args: NamedTuple, size: int) -> None:
        """Kernel ``kernel`` over ``size`` indices: its serial loop, or its parallel one for a large batch."""
        serial, parallel = self.loops[kernel]
        run(serial, parallel, args, size)

    def copy_from_host(self, view: np.ndarray, array: np.ndarray) -> None:
        view[...] = array

    def to_host(self, view: np.ndarray) -> np.ndarray:
        return view.copy()

    def for_caller(self, view: np.ndarray) -> np.ndarray:
        return view

    def input(self, array: Any, dtype: Any) -> np.ndarray:
        """An argument the caller passed, as the kernels read it: a C-contiguous array of ``dtype``."""
        return np.ascontiguousarray(array, dtype=dtype)


class DeviceBackend:
    """A job's arrays on the GPU (torch's memory, numba's views of it), each kernel one CUDA launch.

    ``kernels``: name -> :class:`~crossenvs.kernels.launch.DeviceKernel`. Making one checks the GPU stack
    first (``crossenvs.kernels.cuda.cuda_module``): what is missing is the first thing said.
    """

    device = "cuda"

    def __init__(self, kernels: Mapping[str, Any]) -> None:
        from .cuda import DeviceArrays, cuda_module

        self.cuda = cuda_module()
        self.arrays = DeviceArrays(self.cuda)
        self.kernels = dict(kernels)

    @property
    def torch(self) -> Any:
        """torch on a GPU, None under numba's simulator (NumPy arrays stand in for tensors there)."""
        return self.arrays.torch

    def check_memory(self, buffers: Buffers, what: str, fix: str) -> None:
        from .cuda import check_device_memory

        check_device_memory(buffer_bytes(buffers), what, fix)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
        """(numba's view, the caller's view) of one zeroed device buffer. uint64 buffers (random streams' keys and
        counters) are numba's own arrays: torch has little uint64 support, and the caller never reads them."""
        if np.dtype(dtype) == np.uint64:
            array = self.cuda.device_array(shape, dtype=dtype)
            return array, array
        return self.arrays.zeros(shape, dtype)

    def launch(self, kernel: str, args: NamedTuple, size: int) -> None:
        """Kernel ``kernel``, one GPU thread an index, on torch's current stream (``size`` is read from ``args``)."""
        if kernel not in self.kernels:
            raise InvalidOptionError(f"{kernel} runs on the CPU only (device='cpu'); on a GPU: {sorted(self.kernels)}")
        self.kernels[kernel].launch(args, self.arrays.stream())

    def copy_from_host(self, view: Any, array: np.ndarray) -> None:
        self.arrays.copy_from_host(view, array)

    def to_host(self, view: Any) -> np.ndarray:
        return self.arrays.to_host(view)

    def for_caller(self, view: Any) -> Any:
        return self.arrays.for_caller(view)

    def input(self, array: Any, dtype: Any) -> Any:
        """A numba device view of ``array``: a CUDA tensor or device array in place, a host array copied up once."""
        torch = self.torch
        if torch is not None and isinstance(array, torch.Tensor):
            if not array.is_cuda:
                array = array.cuda()
            torch_dtype = getattr(torch, np.dtype(dtype).name)
            return self.arrays.view(array.detach().to(torch_dtype).contiguous())
        if hasattr(array, "copy_to_host"):  # numba's own device array (the simulator's too)
            return array
        if hasattr(array, "__cuda_array_interface__"):  # another library's GPU array (CuPy): its stream is waited for
            return self.cuda.as_cuda_array(array)
        return self.arrays.upload(np.ascontiguousarray(array, dtype=dtype))[0]  # on torch's stream, as every copy
