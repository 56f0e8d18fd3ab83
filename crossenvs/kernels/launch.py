"""Our CUDA kernels launched: compiled once (and cached on disk), one GPU thread an index, every failure named.

A CUDA kernel of ours is an ordinary function in the module whose one-index kernel it runs, beside
its CPU loops (the vector env's, the search's), and takes the same NamedTuple of arrays:

.. code-block:: python

    def step_cuda(a: Step) -> None:
        j = thread_index()
        if j < a.players.shape[0]:
            step(a, j)

``thread_index`` (``crossenvs.kernels.portable.thread_index``) is ``cuda.grid(1)`` without a
``numba.cuda`` global in the kernel's module: a CPU-only process never imports numba-cuda, and nothing
here rebinds another module's names. A :class:`DeviceKernel` names
the function, the field whose first axis is the grid, and the block size; :meth:`DeviceKernel.launch`
passes the NamedTuple whole (numba-cuda flattens it into the kernel's parameters), and the PTX
signature is ``numba.typeof`` of that very NamedTuple (:func:`signature`), so the types the offline
checks compile for are the types a launch passes.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from . import cuda as target

_LOCK = threading.Lock()
#: kernel function -> numba-cuda's kernel, compiled on its first launch (one for every env and search of a process)
_COMPILED: dict[Callable[..., Any], Any] = {}


def cuda_function(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, once numba-cuda is loaded with our CUDA primitives (``thread_index`` among them) registered:
    what numba-cuda compiles."""
    target._import_numba_cuda()
    return function


def gather(kind: type, arrays: Mapping[str, Any]) -> Any:
    """The NamedTuple ``kind`` with each field taken from ``arrays`` by its name: a kernel's arguments (on either
    target) from the named buffers of their owner (the device env, a search), so no call lists them."""
    return kind(*(arrays[field] for field in kind._fields))


def signature(args: NamedTuple) -> tuple[Any, ...]:
    """The argument types a launch with ``args`` compiles for: what to build PTX for without a GPU."""
    import numba

    return (numba.typeof(args),)


class DeviceKernel:
    """One CUDA kernel of ours: its function, the NamedTuple field whose first axis is the grid, its block size,
    and ``label`` (the game, in messages)."""

    def __init__(self, function: Callable[..., Any], over: str, threads_per_block: int = 128, label: str = "") -> None:
        self.function, self.over, self.threads_per_block = function, over, int(threads_per_block)
        self.name = function.__name__.removesuffix("_cuda")  # the one-index kernel it runs, in messages
        self.label = label or str(getattr(sys.modules[function.__module__], "SPECIALISED_FOR", function.__module__))

    @property
    def per_game(self) -> bool:
        """Whether this kernel is a game's own (defined in a per-game copy of a template), not one for every game."""
        return hasattr(sys.modules[self.function.__module__], "SPECIALISED_FOR")

    def size(self, args: NamedTuple) -> int:
        """How many GPU threads a launch runs: the first axis of the grid's field."""
        return len(getattr(args, self.over))

    def compiled(self) -> Any:
        """The CUDA kernel, compiled on first launch and cached on disk (checks for a GPU first)."""
        with _LOCK:
            kernel = _COMPILED.get(self.function)
            if kernel is None:
                cuda = target.cuda_module()
                compile_kernel = cuda.jit if target.simulated() else cuda.jit(cache=True)
                kernel = _COMPILED[self.function] = compile_kernel(cuda_function(self.function))
            return kernel

    def launch(self, args: NamedTuple, stream: Any = 0) -> None:
        """One GPU thread per index, on ``stream``. Each failure says what failed: the driver's (loading,
        launching, a fault) is one ``crossenvs.kernels.cuda.CudaLaunchError`` with CUDA's error name;
        numba's refusal to compile (on the first launch) is one ``KernelError``."""
        size = self.size(args)
        if size == 0:
            return
        threads = self.threads_per_block
        kernel = self.compiled()
        try:
            kernel[(size + threads - 1) // threads, threads, stream](args)
        except Exception as exc:
            failure = launch_failure(self.label, self.name, exc)
            if failure is exc:
                raise
            raise failure from exc


def launch_failure(label: str, kernel: str, exc: BaseException) -> BaseException:
    """What a failed launch of ``kernel`` raises: a driver error named as CUDA names it, numba's compile error as
    a :func:`kernel_error`, anything else (a bad argument of the caller's) as it came."""
    name = target.cuda_error_name(exc)
    if name is not None:
        return target.CudaLaunchError(
            f"{label}: {kernel} failed on the card: {name} ({first_lines(exc, 2)}). It compiled; the driver refused "
            "or faulted it at load, launch or run. A CUDA fault is sticky: this process cannot use the card again"
        )
    if type(exc).__module__.startswith("numba"):
        return kernel_error(label, kernel, exc)
    return exc


def kernel_error(label: str, kernel: str, exc: BaseException) -> Exception:
    """One :class:`~crossenvs.kernels.specialize.KernelError` naming the kernel and what numba-cuda refused in it."""
    from crossenvs.kernels.specialize import KernelError

    return KernelError(
        f"{label}: {kernel} does not compile for CUDA (a rule kernel that allocates, holds a Python object or "
        f"calls what numba-cuda cannot type; see crossenvs.kernels.portable): {first_lines(exc)}"
    )


def kernel_ptx(kernel: DeviceKernel, args: NamedTuple, cc: tuple[int, int]) -> str:
    """PTX of ``kernel`` launched with ``args`` for compute capability ``cc``, built without a GPU; a refusal is
    one :func:`kernel_error`."""
    try:
        return target.compile_ptx(cuda_function(kernel.function), signature(args), cc)
    except Exception as exc:
        raise kernel_error(kernel.label, kernel.name, exc) from exc


def first_lines(exc: BaseException, count: int = 8) -> str:
    """numba's message, shortened: its first lines, then where it stopped (the file and line of the construct)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    where = [line for line in lines[count:] if line.lstrip().startswith(("During: lowering", "During: typing of call"))]
    return "\n".join(lines[:count] + where[:4])
