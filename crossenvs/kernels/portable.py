"""What a rule kernel may use so that one source compiles for the CPU (numba) and for CUDA (numba-cuda).

The rules are written once, as ``@njit`` functions. A CUDA kernel (the device env's and the device
search's, launched by :mod:`crossenvs.kernels.launch`) calls them and numba-cuda compiles them again as
device functions. Device code cannot allocate, so a kernel
never calls ``np.empty``/``np.zeros``/``.copy()``: it takes fixed-size scratch space from
:func:`scratch_array`, which is stack memory on both targets (an ``alloca`` in the calling
function: cheaper than numba's heap arrays on the CPU, local memory or registers on the GPU).

Some primitives need a different instruction on each target (the bit counts of
:mod:`crossenvs.kernels.bits`). Their CPU versions are numba overloads registered at import; their CUDA
versions are registered by :func:`~crossenvs.kernels.targets.enable_cuda_target`, which
:func:`crossenvs.kernels.cuda.cuda_module` calls before it compiles anything: a CPU-only install never
imports ``numba.cuda``. A module adds its CUDA versions with :func:`~crossenvs.kernels.targets.on_cuda_target`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import from_dtype, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from crossenvs.kernels.targets import on_cuda_target

from . import numba_internals


def _strides(shape: tuple[int, ...], itemsize: int) -> list[int]:
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return strides[::-1]


def _stack_array_codegen(shape: tuple[int, ...], array_type: Any, cg: Any) -> Callable[..., Any]:
    """LLVM for a C-contiguous array of ``shape`` on the calling function's stack (no meminfo: never returned)."""
    count = int(np.prod(shape))

    def codegen(context, builder, signature, args):
        element = context.get_data_type(array_type.dtype)
        data = cg.alloca_once(builder, element, size=count)  # in the entry block: once per call, not per loop turn
        itemsize = context.get_abi_sizeof(element)
        array = context.make_array(array_type)(context, builder)
        intp = context.get_value_type(types.intp)
        context.populate_array(
            array,
            data=data,
            shape=[intp(extent) for extent in shape],
            strides=[intp(stride) for stride in _strides(shape, itemsize)],
            itemsize=intp(itemsize),
            meminfo=None,
        )
        return array._getvalue()

    return codegen


#: the largest scratch array a kernel may ask for: it lives on the stack of every GPU thread
MAX_SCRATCH_BYTES = 16 * 1024


def scratch_array(shape: int | tuple[int, ...], dtype: Any) -> Callable[[], np.ndarray]:
    """A function that gives fresh, uninitialised scratch space of a fixed ``shape``, in jitted code on either target.

    Declared once at module level (``_STACK = scratch_array(MAX_CELLS, np.int64)``), called in a
    kernel (``stack = _STACK()``). The array lives until the calling function returns, so a
    kernel must not return it or keep it; fill it before reading (``seen[:] = False``). Plain
    Python (``NUMBA_DISABLE_JIT=1``) gets a NumPy array.
    """
    shape = tuple(int(extent) for extent in np.atleast_1d(shape))
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes > MAX_SCRATCH_BYTES:
        raise ValueError(
            f"scratch_array{shape} of {dtype} is {nbytes:,} bytes; at most {MAX_SCRATCH_BYTES:,} fit a GPU thread"
        )
    array_type = types.Array(from_dtype(dtype), len(shape), "C")

    def scratch() -> np.ndarray:
        return np.empty(shape, dtype)

    @intrinsic
    def _on_cpu_stack(typingctx):
        return array_type(), _stack_array_codegen(shape, array_type, cgutils)

    @overload(scratch, target="cpu", inline="always")
    def _cpu_scratch():
        return lambda: _on_cpu_stack()

    @on_cuda_target
    def _register_cuda() -> None:
        _register_cuda_scratch(scratch, shape, dtype)

    scratch.__name__ = scratch.__qualname__ = f"scratch_{dtype.name}_{'x'.join(map(str, shape))}"
    return scratch


def _register_cuda_scratch(scratch: Callable[[], np.ndarray], shape: tuple[int, ...], dtype: np.dtype) -> None:
    """``scratch()`` typed and lowered in numba-cuda's own registries (an overload may not return a local array)."""
    from numba.cuda import cgutils as cuda_cgutils
    from numba.cuda import types as cuda_types
    from numba.cuda.cudadecl import registry as typing_registry
    from numba.cuda.cudaimpl import registry as lowering_registry
    from numba.cuda.np.numpy_support import from_dtype as cuda_from_dtype
    from numba.cuda.typing.templates import AbstractTemplate, signature

    array_type = cuda_types.Array(cuda_from_dtype(dtype), len(shape), "C")

    class _ScratchTyping(AbstractTemplate):
        key = scratch

        def generic(self, args, kws):
            return signature(array_type) if not args and not kws else None

    typing_registry.register_global(scratch, cuda_types.Function(_ScratchTyping))
    lowering_registry.lower(scratch)(_stack_array_codegen(shape, array_type, cuda_cgutils))


def sort_in_place(values: np.ndarray) -> None:
    """Sort a 1-d integer array in place, ascending (NumPy's sort on the CPU; insertion sort on a GPU thread).

    For the short, nearly sorted lists a kernel builds (a position's legal ids, gathered a few
    sorted runs at a time).
    """
    values.sort()


@overload(sort_in_place, target="cpu")
def _sort_in_place_cpu(values):
    def impl(values):
        values.sort()

    return impl


@on_cuda_target
def _register_cuda_sort() -> None:
    from numba.cuda.extending import overload as cuda_overload

    @cuda_overload(sort_in_place)
    def _sort_in_place_cuda(values):
        def impl(values):
            for i in range(1, values.shape[0]):
                value = values[i]
                j = i - 1
                while j >= 0 and values[j] > value:
                    values[j + 1] = values[j]
                    j -= 1
                values[j + 1] = value

        return impl


def flat_view(array: np.ndarray) -> np.ndarray:
    """A 1-d view of the C-contiguous ``array`` (same memory), in jitted code on either target.

    ``ndarray.reshape`` would do on the CPU, but numba-cuda compiles it to a call of an external C
    function (``numba_attempt_nocopy_reshape``) that it links into the kernel from a ``.cu`` file, and
    a kernel that links a file cannot be cached (``cuda.jit(cache=True)`` refuses to save it). A
    contiguous array needs no such search for strides: the view is its pointer and its length.
    """
    return array.reshape(-1)


def _flat_view_typing(array: Any) -> Any:
    if not (hasattr(array, "layout") and array.layout == "C"):
        raise TypeError(f"flat_view needs a C-contiguous array, got {array}")
    return array.copy(ndim=1, layout="C")(array)


def _flat_view_codegen(impl_ret_borrowed: Callable[..., Any]) -> Callable[..., Any]:
    def codegen(context, builder, signature, args):
        source_type, view_type = signature.args[0], signature.return_type
        source = context.make_array(source_type)(context, builder, args[0])
        view = context.make_array(view_type)(context, builder)
        context.populate_array(
            view,
            data=source.data,
            shape=[source.nitems],
            strides=[source.itemsize],
            itemsize=source.itemsize,
            meminfo=source.meminfo,
            parent=source.parent,
        )
        return impl_ret_borrowed(context, builder, view_type, view._getvalue())  # one more reference to the memory

    return codegen


@intrinsic
def _flat_view_cpu(typingctx, array):
    from numba.core.imputils import impl_ret_borrowed

    return _flat_view_typing(array), _flat_view_codegen(impl_ret_borrowed)


@overload(flat_view, target="cpu", inline="always")
def _flat_view_on_cpu(array):
    return lambda array: _flat_view_cpu(array)


numba_internals.declare_views("cpu", __name__, "flat_view", "_flat_view_cpu")


@on_cuda_target
def _register_cuda_flat_view() -> None:
    from numba.cuda.core.imputils import impl_ret_borrowed
    from numba.cuda.extending import intrinsic as cuda_intrinsic
    from numba.cuda.extending import overload as cuda_overload

    @cuda_intrinsic
    def _flat_view_cuda(typingctx, array):
        return _flat_view_typing(array), _flat_view_codegen(impl_ret_borrowed)

    @cuda_overload(flat_view, inline="always")
    def _flat_view_on_cuda(array):
        return lambda array: _flat_view_cuda(array)

    numba_internals.declare_views("cuda", __name__, "flat_view", "_flat_view_cuda")


def thread_index() -> int:
    """This GPU thread's index in its launch's 1-d grid (``cuda.grid(1)``): how a CUDA kernel of ours finds its
    game (:mod:`crossenvs.kernels.launch`), with no ``numba.cuda`` of its module's own, so a CPU-only process
    never imports numba-cuda. Compiled for CUDA by the overload registered with the other CUDA primitives;
    run as Python only under numba's simulator, which knows the simulated thread.
    """
    return numba_internals.simulated_thread_index()


@on_cuda_target
def _register_cuda_thread_index() -> None:
    from numba import cuda
    from numba.cuda.extending import overload as cuda_overload

    @cuda_overload(thread_index, inline="always")
    def _thread_index_cuda():
        return lambda: cuda.grid(1)
