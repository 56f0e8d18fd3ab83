"""Every place crossenvs reaches into numba's or numba-cuda's internals, in one room, with the versions checked.

numba offers no public hook for what these do, so each one uses an internal name. They were written
and checked against the versions in :data:`CHECKED`; each looks its names up through :func:`internal`,
which raises one :class:`NumbaInternalsError` naming the missing name, the versions installed and the
versions checked, rather than an ``AttributeError`` from deep inside a compile.

What each is for:

* :func:`declare_views`: numba's dead-code elimination must know that ``flat_view`` returns a view
  (``ir_utils.alias_func_extensions``, on both targets), or a store through it is dropped.
* :func:`share_constant_tables`: one copy of each rule table per CUDA kernel
  (``CUDATargetContext.make_constant_array``), not one per place that reads it.
* :func:`contraction_off`: our kernels compile with NVVM's ``-fma=0`` (``nvvm.compile_ir``), so the
  floats are the CPU's bit for bit.
* :func:`simulated_thread_index`: ``cuda.grid(1)`` of the thread numba's CUDA simulator is running
  (``simulator.kernel._get_kernel_context``): the simulator swaps its fake ``numba.cuda`` into a
  kernel's own globals only, and our kernels name no ``numba.cuda`` of their own.
* :func:`cached_signatures`: what the disk cache holds of a function (a test counts compiles).
* :func:`compiled_entry`: the machine code compiled for given arguments' types, called without the dispatcher's
  type search (a compile result's ``entry_point``): the single-game stepper and every serial loop.
* :func:`links_with_nvjitlink`: which CUDA version the driver must run (the driver check).
* :func:`named_compute_capability` and :func:`build_kernel`: a kernel built as numba-cuda would build
  it for a card of a given compute capability, with no card here (``dispatcher._Kernel``,
  ``dispatcher.get_current_device``, ``CUDACodeLibrary._ensure_cc``, ``compiler.compile_cuda``).

One known numba fault shapes our code rather than a patch: numba 0.68 drops the stores of a function
inlined into a ``prange`` body through arrays taken from a tuple, so every loop calls its range function
(``step_games``, the search's ``<step>_trees``), never an inlined copy of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import types as pytypes
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

import numpy as np

from crossenvs.support.errors import CrossenvsError

#: the versions these internals were checked against (tests/test_kernel_wing.py checks the installed ones)
CHECKED = {"numba": "0.68.1", "numba-cuda": "0.30.4"}


class NumbaInternalsError(CrossenvsError, RuntimeError):
    """A numba or numba-cuda internal that crossenvs relies on is not where it was (another version)."""


def installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def internal(owner: Any, name: str, purpose: str) -> Any:
    """``owner.name``, or one clear error saying what it was for and which versions it was checked against."""
    try:
        return getattr(owner, name)
    except AttributeError:
        versions = ", ".join(f"{d} {installed(d)} (checked: {v})" for d, v in CHECKED.items())
        raise NumbaInternalsError(
            f"{getattr(owner, '__name__', owner)}.{name} is gone ({purpose}); installed: {versions}. "
            f'Install the checked versions: pip install "numba=={CHECKED["numba"]}" '
            f'"numba-cuda[cu12]=={CHECKED["numba-cuda"]}"'
        ) from None


def simulated_thread_index() -> int:
    """The running simulated GPU thread's index in its 1-d grid, under numba's CUDA simulator."""
    from numba.cuda.simulator import kernel

    context = internal(kernel, "_get_kernel_context", "the simulated thread's index")()
    if context is None:
        raise NumbaInternalsError("thread_index() is for a CUDA kernel; it was called outside one")
    return context.grid(1)


# ----------------------------------------------------------------------------- both targets: views
def declare_views(target: str, module: str, *names: str) -> None:
    """Tell numba's dead-code elimination on ``target`` ("cpu" or "cuda") that what the functions ``names`` of
    ``module`` return is a view of their first argument.

    numba drops a store into an array it thinks is fresh and never read again; the result of a
    call it does not know looks fresh, so ``flat = flat_view(out); if j >= 0: flat[j] = 1.0``
    lost its store (Crosse's jumping-stone plane, found by its worked example). numba's own views
    (``reshape``, ``ravel``, slices) are known to it; this names ours.
    """
    if target == "cpu":
        from numba.core import ir_utils
    else:
        from numba.cuda.core import ir_utils
    registry = internal(ir_utils, "alias_func_extensions", "declaring flat_view a view")

    def returns_a_view(lhs: str, args: list, alias_map: dict, arg_aliases: set) -> None:
        source = args[0].name
        if source in arg_aliases:
            arg_aliases.add(lhs)
            return
        alias_map.setdefault(source, set()).add(lhs)
        alias_map.setdefault(lhs, set()).add(source)

    for name in names:
        registry[(name, module)] = returns_a_view


# ----------------------------------------------------------------------------- the CPU cache
def cached_signatures(dispatcher: Any) -> list[tuple[Any, ...]]:
    """Every argument-type signature numba has compiled ``dispatcher`` for into the disk cache of this version.

    What a process loads from the cache never compiles the functions the loaded code calls, so a
    process's own ``dispatcher.signatures`` miss them; the cache's index (``FunctionCache._cache_file``)
    holds one entry per compile, whichever process made it.
    """
    cache = internal(dispatcher, "_cache", "reading the cache's index")
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is None:  # not a cached function
        return list(dispatcher.signatures)
    index = internal(cache_file, "_load_index", "reading the cache's index")()
    return [key[0] for key in index]


def compiled_entry(function: Any, *arguments: Any) -> Callable[..., Any]:
    """What calls ``function``'s machine code for the types of ``arguments`` straight away (the compile result's
    ``entry_point``: it still converts the arguments, but skips the dispatcher's search for the version to run,
    microseconds for a tuple of a dozen arrays); ``function`` itself where numba has no such version (not
    compiled for these types yet, or numba off). The caller keeps to those types: the entry point checks none."""
    import numba

    compiled = getattr(function, "overloads", {}).get(tuple(numba.typeof(argument) for argument in arguments))
    return getattr(compiled, "entry_point", None) or function


# ----------------------------------------------------------------------------- CUDA: codegen
_tables_shared = False


def share_constant_tables() -> None:
    """Emit each rule table once per kernel, not once per place that reads it.

    numba-cuda puts a global array a kernel reads into constant memory (64 KB a kernel), and as it
    stands makes a new copy wherever a function reads it: Crosse's ``cell`` helper, inlined into
    dozens of places, made its 800-byte row table 72 copies and the step kernel 213 KB. Named by
    its content and linked ``linkonce_odr``, every reader of one table shares one copy.
    """
    global _tables_shared
    if _tables_shared:
        return
    from llvmlite import ir
    from numba.cuda import target
    from numba.cuda import types as cuda_types
    from numba.cuda.cudadrv import nvvm

    context = internal(target, "CUDATargetContext", "sharing rule tables")
    internal(context, "make_constant_array", "sharing rule tables")
    constant_space = internal(nvvm, "ADDRSPACE_CONSTANT", "sharing rule tables")

    def make_constant_array(self, builder, aryty, arr):
        arr = np.ascontiguousarray(arr)
        data = arr.tobytes()
        name = "_crossenvs_table_" + hashlib.sha1(data + str(arr.dtype).encode()).hexdigest()[:20]
        module = builder.module
        table = module.globals.get(name)
        if table is None:
            initial = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), bytearray(data))
            table = ir.GlobalVariable(module, initial.type, name, addrspace=constant_space)
            table.linkage = "linkonce_odr"
            table.global_constant = True
            table.initializer = initial
            table.align = 2 ** (arr.dtype.itemsize - 1).bit_length()
        pointer = builder.addrspacecast(table, ir.PointerType(ir.IntType(8)), "generic")
        array = self.make_array(aryty)(self, builder)
        self.populate_array(
            array,
            data=builder.bitcast(pointer, array.data.type),
            shape=[self.get_constant(cuda_types.intp, extent) for extent in arr.shape],
            strides=[self.get_constant(cuda_types.intp, stride) for stride in arr.strides],
            itemsize=array.itemsize,
            parent=array.parent,
            meminfo=None,
        )
        return array._getvalue()

    context.make_constant_array = make_constant_array
    _tables_shared = True


#: a word every kernel of ours has in its LLVM IR (its functions' mangled module paths), and no one else's
OUR_CODE = "crossenvs"
_contraction_turned_off = False


def contraction_off() -> None:
    """Compile our kernels with ``-fma=0``: a multiply and an add stay two roundings, as on the CPU.

    NVVM fuses ``a * b + c`` into one FMA by default (one rounding), so the same source computed
    different last bits on the card and the CPU, and the device search, which must pick what the
    CPU search picks, would flip near-ties and walk other trees. numba-cuda offers no per-kernel
    switch, so its NVVM call gets the option for IR that holds our code; other users' kernels in
    the same process keep NVVM's default. With :func:`crossenvs.kernels.floats.exact_exp` for the
    one transcendental the search uses, the search's floats are the same on both targets.
    """
    global _contraction_turned_off
    if _contraction_turned_off:
        return
    from numba.cuda.cudadrv import nvvm

    compile_ir = internal(nvvm, "compile_ir", "compiling our kernels without FMA")

    def compile_ir_exact(llvmir: Any, **options: Any) -> Any:
        modules = [llvmir] if isinstance(llvmir, str) else llvmir
        if not options.get("fastmath") and any(OUR_CODE in module for module in modules):
            options.setdefault("fma", False)
        return compile_ir(llvmir, **options)

    nvvm.compile_ir = compile_ir_exact
    _contraction_turned_off = True


def links_with_nvjitlink(cuda: Any) -> bool:
    """Whether numba-cuda turns PTX into machine code with nvJitLink (the toolkit's own, from its wheel) rather
    than with the driver's JIT (``driver._have_nvjitlink``); an older numba-cuda without the question: the driver."""
    try:
        return bool(cuda.cudadrv.driver._have_nvjitlink())
    except Exception:
        return False


# ----------------------------------------------------------------------------- CUDA: kernels without a card
@contextlib.contextmanager
def named_compute_capability(cc: tuple[int, int]) -> Iterator[None]:
    """Compile as numba-cuda would on a device of compute capability ``cc``, with no device here.

    numba-cuda asks the current device's compute capability when it builds a kernel and when it
    makes the kernel's PTX; both questions get ``cc`` (with Hopper's ``a`` suffix from 9.0 on, as
    numba-cuda gives a real device).
    """
    import numba.cuda.dispatcher as dispatcher
    from numba.cuda import codegen

    library = internal(codegen, "CUDACodeLibrary", "compiling for a named compute capability")
    full_cc = (*cc, "a" if tuple(cc) >= (9, 0) else "")
    original_device = internal(dispatcher, "get_current_device", "compiling for a named compute capability")
    original_cc = internal(library, "_ensure_cc", "compiling for a named compute capability")
    dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=tuple(cc))
    library._ensure_cc = lambda self, asked: full_cc if asked is None else asked
    try:
        yield
    finally:
        dispatcher.get_current_device, library._ensure_cc = original_device, original_cc


def build_kernel(function: Callable[..., Any], signature: tuple[Any, ...], cc: tuple[int, int]) -> tuple[Any, str]:
    """numba-cuda's own kernel object for ``function`` (what ``cuda.jit(cache=True)`` pickles) and its PTX."""
    import numba.cuda.dispatcher as dispatcher

    kernel_class = internal(dispatcher, "_Kernel", "building a kernel without a GPU")
    with named_compute_capability(cc):
        kernel = kernel_class(function, signature)
        return kernel, internal(kernel, "_codelibrary", "reading a kernel's PTX").get_asm_str()


def compile_device_function(function: Any, argument_types: tuple[Any, ...], cc: tuple[int, int]) -> Any:
    """numba-cuda's compile of a device function (its LLVM IR in ``.library``), for a card of ``cc``."""
    from numba.cuda import compiler

    compile_cuda = internal(compiler, "compile_cuda", "compiling a device function for the host checks")
    with named_compute_capability(cc):
        return compile_cuda(function, None, argument_types, cc=cc)
