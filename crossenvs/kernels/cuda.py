"""The CUDA target: numba-cuda loaded with the rules' primitives, a check that a GPU is here, PTX without one.

Nothing here is imported by ``import crossenvs``: a CPU-only install never loads numba-cuda. The
device env (:mod:`crossenvs.envs.device`) calls :func:`cuda_module` first; the tests call
:func:`compile_ptx` to prove every game's kernels compile for a GPU on a machine that has none.
Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set before numba is imported) the
kernels run on the CPU, slowly, calling the CPU build of the rules.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from crossenvs.kernels.targets import enable_cuda_target
from crossenvs.support.checks import check_memory
from crossenvs.support.errors import CrossenvsError, InvalidArgumentError
from crossenvs.support.extras import install_hint

from . import numba_internals

#: the compute capability the PTX tests name when no GPU is here (Hopper: H100, H200)
DEFAULT_PTX_CC = (9, 0)


class CudaUnavailableError(CrossenvsError, RuntimeError):
    """A GPU path was asked for where none can run (no numba-cuda, no driver, or no device)."""


class CudaLaunchError(CrossenvsError, RuntimeError):
    """A kernel compiled, and the card or its driver refused or failed it: loading, launching or running it
    (an illegal address, out of memory, a launch configuration). The message carries CUDA's error name."""


#: the modules whose exceptions are the driver's answers, not numba's compiler's
_DRIVER_MODULES = ("numba.cuda.cudadrv.driver", "numba.cuda.cudadrv.error", "cuda.core", "cuda.bindings")


def cuda_error_name(exc: BaseException) -> str | None:
    """CUDA's name of the driver error ``exc`` reports (``CUDA_ERROR_ILLEGAL_ADDRESS``), ``"CUDA error <code>"``
    where it gives a code alone, or None where ``exc`` is no driver error (numba's compiler, say)."""
    named = re.search(r"\bCUDA_ERROR_[A-Z0-9_]+", str(exc))
    if named:
        return named.group(0)
    if type(exc).__module__.startswith(_DRIVER_MODULES) and type(exc).__name__ not in ("NvvmError", "LinkerError"):
        code = getattr(exc, "code", None)
        return f"CUDA error {code}" if code is not None else type(exc).__name__
    return None


def simulated() -> bool:
    """Whether numba's CUDA simulator stands in for a GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


#: what installs the GPU stack: numba-cuda with the CUDA toolkit's pip wheels, and torch (see the README)
INSTALL_LINE = f"pip install torch==2.13.0 (PyPI's build, with CUDA), then {install_hint('cuda')}"


def _import_numba_cuda() -> Any:
    """``numba.cuda`` from numba-cuda, with our CUDA primitives registered; one clear error where it is missing.

    numba itself still ships an old ``numba.cuda`` that imports without numba-cuda and then lacks
    what the rules' CUDA versions use, so numba-cuda is looked for by its own name first.
    """
    try:
        import numba_cuda  # noqa: F401  (numba-cuda replaces numba.cuda when it is installed)
        from numba import cuda
    except ImportError as exc:
        raise CudaUnavailableError(
            f"the GPU path needs numba-cuda, which is not installed ({exc}); {INSTALL_LINE}"
        ) from None
    if not simulated():
        try:
            from numba.cuda import cudaimpl  # noqa: F401  (numba-cuda's lowering, which names numpy functions)
        except AttributeError as exc:
            _refuse_numpy(exc)
        enable_cuda_target()
        numba_internals.share_constant_tables()
        numba_internals.contraction_off()
    return cuda


def _refuse_numpy(exc: AttributeError) -> None:
    """numba-cuda 0.30 registers ``numpy.row_stack``, which numpy 2.5 removed (Python 3.12 and newer get 2.5 by
    default): its CUDA lowering then does not import, which would be a traceback deep inside numba-cuda."""
    import numpy as np

    if "numpy" not in str(exc):
        raise exc
    raise CudaUnavailableError(
        f"numba-cuda {numba_internals.installed('numba-cuda')} does not work beside numpy {np.__version__} ({exc}): "
        f'pip install "numpy<2.5" (the cuda extra asks for it)'
    ) from None


def _require_python_stack() -> None:
    """numba-cuda and torch (the device env and search hand out torch CUDA tensors), every missing one named."""
    missing = [name for name in ("numba_cuda", "torch") if importlib.util.find_spec(name) is None]
    if missing:
        names = " and ".join(name.replace("_", "-") for name in missing)
        raise CudaUnavailableError(
            f"the GPU path needs {names}, which {'is' if len(missing) == 1 else 'are'} not installed: {INSTALL_LINE}"
        )


def gpu_absent() -> str | None:
    """Why no NVIDIA GPU can run here, asked of the driver library itself; None when a device answers.

    Checked before any Python package: no extra installs a card, so a user without one hears that first,
    not a request to install 500 MB of CUDA wheels.
    """
    names = ("nvcuda.dll",) if sys.platform == "win32" else ("libcuda.so.1", "libcuda.so", "libcuda.dylib")
    for name in names:
        try:
            driver = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        return "no NVIDIA driver was found here (its library, libcuda, does not load)"
    status = driver.cuInit(0)
    if status != 0:
        return f"the NVIDIA driver did not start (cuInit returned CUDA error {status})"
    count = ctypes.c_int(0)
    status = driver.cuDeviceGetCount(ctypes.byref(count))
    if status != 0 or count.value == 0:
        return "the NVIDIA driver sees no GPU"
    return None


def toolkit_version() -> tuple[int, int] | None:
    """The CUDA version of the NVVM that compiles our kernels (the nvidia-cuda-nvcc wheel), or None if not a wheel."""
    from importlib import metadata

    for wheel in ("nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvcc-cu13", "nvidia-cuda-nvcc"):
        try:
            major, minor = metadata.version(wheel).split(".")[:2]
            return int(major), int(minor)
        except (metadata.PackageNotFoundError, ValueError):
            continue
    return None


def driver_version(cuda: Any) -> tuple[int, int]:
    """The newest CUDA version the installed driver runs (cuDriverGetVersion)."""
    return tuple(cuda.cudadrv.driver.driver.get_version())[:2]


def check_driver(cuda: Any) -> None:
    """Refuse a driver too old for the code we give it, before the first launch fails.

    The toolkit 12.9 writes PTX ISA 8.8. Where the driver JIT-compiles it, the driver must be of
    that CUDA version or newer; where nvJitLink does (numba-cuda's choice when the wheel is
    installed), the driver only loads the machine code, which any driver of the same CUDA major
    version can (CUDA's minor version compatibility).
    """
    toolkit, have = toolkit_version(), driver_version(cuda)
    if toolkit is None:
        return
    needed = (toolkit[0], 0) if numba_internals.links_with_nvjitlink(cuda) else toolkit
    if have < needed:
        raise CudaUnavailableError(
            f"the NVIDIA driver here runs CUDA {have[0]}.{have[1]} code at most, and the kernels need CUDA "
            f"{needed[0]}.{needed[1]} (the CUDA toolkit that compiles them is {toolkit[0]}.{toolkit[1]}): update the "
            f"driver, or install the toolkit of the driver's version: "
            f'pip install "nvidia-cuda-nvcc-cu12=={have[0]}.{have[1]}.*" "nvidia-nvjitlink-cu12=={have[0]}.{have[1]}.*"'
        )


def cuda_module() -> Any:
    """``numba.cuda`` ready for the rules, after checking that a GPU can run them (or the simulator stands in).

    What the GPU path needs, checked in order before any work: a driver and a device (asked of the
    driver library, before anything is installed), numba-cuda and torch, and a driver new enough for the
    PTX our toolkit writes. Raises one
    :class:`CudaUnavailableError` saying what is missing and what would do instead.
    """
    if simulated():
        return _import_numba_cuda()
    absent = gpu_absent()
    if absent:
        raise CudaUnavailableError(
            f"device='cuda' needs an NVIDIA GPU with its driver: {absent}; use device='cpu' (the same games on the "
            "CPU), or NUMBA_ENABLE_CUDASIM=1 to simulate one slowly"
        )
    _require_python_stack()
    cuda = _import_numba_cuda()
    try:
        available = cuda.is_available()
    except Exception as exc:  # a broken driver install raises rather than answering
        raise CudaUnavailableError(f"CUDA is not usable here: {exc}; use device='cpu'") from None
    if not available:
        raise CudaUnavailableError(
            "device='cuda' needs an NVIDIA GPU with its driver, and none was found here; "
            "use device='cpu' (the same games on the CPU), or NUMBA_ENABLE_CUDASIM=1 to simulate one slowly"
        )
    check_driver(cuda)
    return cuda


class OfflineKernel:
    """A CUDA kernel built as numba-cuda builds it for a device of compute capability ``cc``, with no device.

    ``ptx`` is what the driver would be given; ``kernel`` is numba-cuda's own kernel object, the one
    ``cuda.jit(cache=True)`` pickles into its disk cache (:mod:`crossenvs.selfcheck.compiled_checks` checks both).
    """

    def __init__(self, function: Callable[..., Any], signature: tuple[Any, ...], cc: tuple[int, int]) -> None:
        if simulated():
            raise CudaUnavailableError(
                "kernels cannot be compiled under the CUDA simulator; unset NUMBA_ENABLE_CUDASIM"
            )
        _import_numba_cuda()
        self.name = getattr(function, "__name__", str(function))
        self.signature = tuple(signature)
        self.cc = tuple(cc)
        self.kernel, self.ptx = numba_internals.build_kernel(function, self.signature, self.cc)

    @property
    def arch(self) -> str:
        """The ``ptxas -arch`` this PTX was made for (``sm_90a`` for 9.0)."""
        return self.ptx.split(".target", 1)[1].split()[0].rstrip(",")


def compile_ptx(function: Callable[..., Any], signature: tuple[Any, ...], cc: tuple[int, int] = DEFAULT_PTX_CC) -> str:
    """PTX for the CUDA kernel ``function`` (a plain Python function) with argument types ``signature``.

    Needs numba-cuda and NVVM (the cuda extra: ``pip install -e ".[cuda]"`` in a checkout), not a GPU.
    """
    return OfflineKernel(function, signature, cc).ptx


class DeviceArrays:
    """Device arrays for numba and the same memory for the caller: torch tensors on a GPU, NumPy under the simulator."""

    def __init__(self, cuda: Any) -> None:
        self.cuda = cuda
        self.torch = None
        self._stream: Any = None
        self._stream_handle: int | None = None
        if not simulated():
            import torch

            self.torch = torch

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
        """(numba view, caller's view) of one zeroed device buffer."""
        if self.torch is None:
            device = self.cuda.to_device(np.zeros(shape, dtype=dtype))
            return device, device
        torch_dtype = {np.dtype(np.bool_): self.torch.bool}.get(np.dtype(dtype)) or getattr(
            self.torch, np.dtype(dtype).name
        )
        tensor = self.torch.zeros(shape, dtype=torch_dtype, device="cuda")
        return self.cuda.as_cuda_array(tensor), tensor

    def view(self, tensor: Any) -> Any:
        """numba's view of a torch CUDA tensor (it keeps the tensor alive).

        torch's array interface names no stream, and every kernel here is launched on torch's
        current stream (:meth:`stream`), so the kernels order with the torch work that made the
        tensor: no synchronisation is needed, and ``sync=False`` says so.
        """
        if hasattr(tensor, "detach"):
            tensor = tensor.detach()  # torch refuses the interface on a tensor that records gradients
        return self.cuda.as_cuda_array(tensor, sync=False)

    def upload(self, array: np.ndarray) -> tuple[Any, Any]:
        numba_view, caller_view = self.zeros(array.shape, array.dtype)
        self.copy_from_host(numba_view, array)
        return numba_view, caller_view

    def copy_from_host(self, view: Any, array: np.ndarray) -> None:
        """``array`` into the device buffer ``view``, on torch's current stream.

        On numba's default stream the copy would not wait for torch's work on a stream of its own (torch's
        streams do not block on the legacy one): the zeroing of a fresh buffer, or a queued kernel
        still reading the old contents, could run after it.
        """
        view.copy_to_device(np.ascontiguousarray(array, dtype=view.dtype), stream=self.stream())

    def to_host(self, view: Any) -> np.ndarray:
        """A host copy of the device buffer ``view``, copied on torch's current stream once the work queued there
        (the kernels that write it) is done; numba's default stream would not wait for that work."""
        stream = self.stream()
        host = view.copy_to_host(stream=stream)
        if self.torch is not None:
            stream.synchronize()
        return host

    def for_caller(self, view: Any) -> Any:
        """What a step returns: the live torch tensor on a GPU; a host copy under the simulator."""
        return view if self.torch is not None else view.copy_to_host()

    def stream(self) -> Any:
        """torch's current stream as a numba stream, so kernels order with the caller's torch work.

        The same numba object while torch's stream stays the same: numba caches a kernel's launch
        configuration by its stream object, and a new object every call missed that cache every launch.
        """
        if self.torch is None:
            return 0
        handle = self.torch.cuda.current_stream().cuda_stream
        if handle != self._stream_handle:
            self._stream, self._stream_handle = self.cuda.external_stream(handle), handle
        return self._stream


def check_device_memory(needed: int, what: str, fix: str) -> None:
    """Refuse, before allocating, what the GPU cannot hold now (host memory stands in under the simulator)."""
    if simulated():
        check_memory(needed, what, fix)
        return
    import torch

    if torch.cuda.is_available():
        free, _ = torch.cuda.mem_get_info()
        free += torch.cuda.memory_reserved() - torch.cuda.memory_allocated()  # held by torch's cache, free to reuse
        if needed > free:
            raise InvalidArgumentError(
                f"{what} needs {needed / 2**30:.1f} GiB of GPU memory, {free / 2**30:.1f} GiB free; {fix}"
            )
