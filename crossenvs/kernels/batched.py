"""A batched kernel, declared once for both targets: ``one(args, i)`` over a NamedTuple of arrays.

A kernel of ours does the same small job for every game (or tree) of a batch. It is written once,
as an ``@njit`` function of the batch's arrays and one index, and declared with :func:`batched`::

    class Play(NamedTuple):          # the kernel's arguments, named once
        boards: np.ndarray           # (B, H, W) int8
        metas: np.ndarray            # (B, META) int32
        actions: np.ndarray          # (B,) int64
        ...

    @batched(over="boards")          # i runs over the first axis of args.boards
    @njit(cache=True)
    def play(args: Play, i: int) -> None:
        ...

The parallel loop calls the kernel, never inlines it (so ``inline="always"`` is refused on a
declaration): numba 0.68 drops every store through a NamedTuple's array inside a ``prange`` body that
a function was inlined into (the parallel loop then returned the buffers untouched;
``tests/test_kernel_wing.py`` keeps the check). As a call, the kernel is compiled on its own and its
stores stay. The serial loop, where there is no ``prange``, inlines a twin of it: a call per index
passes the whole NamedTuple, and on small batches that cost a third of a step.

The arguments travel as one NamedTuple, which numba passes on both targets (numba-cuda flattens it
into the kernel's parameters), so no argument list is ever written out again. :func:`kernels_of`
generates, from the declarations of a module, everything else a kernel needs, in files beside the
numba cache (generated code must live in a file for numba to cache it):

* the **CPU loops**, ``<name>_serial`` (``range``) and ``<name>_parallel`` (``prange``, the index
  handed on as int64 so both loops share one compile of ``one``), run by a
  :class:`~crossenvs.kernels.threads.BatchRunner` that picks the faster;
* the **CUDA kernel**, one thread an index, in a module of its own that only a process asking for
  a GPU imports (a CPU-only process never loads numba-cuda);
* its **launch** on a stream, and its **PTX signature**, which is ``numba.typeof`` of the very
  NamedTuple the caller passes: the signature cannot drift from the launch.

A declaring module is either a template (:mod:`crossenvs.kernels.specialize`: one copy per game,
each with its own loops) or an ordinary module whose kernels do not depend on the game (the search's
backup, :mod:`crossenvs.az.tree_math`): those are compiled once for every game.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

from ..core.errors import CrossenvsError
from .cache import digest, generated_module
from .threads import SERIAL_BELOW, BatchRunner


class KernelDeclarationError(CrossenvsError, TypeError):
    """A batched kernel declared or called in a way its loops cannot serve."""


@dataclass(frozen=True)
class Declaration:
    """What :func:`batched` records of a kernel: its name, the field whose first axis is the batch, its block size."""

    name: str
    over: str
    threads_per_block: int
    parallel: bool


#: module name -> kernel name -> declaration, filled as modules are imported
_DECLARED: dict[str, dict[str, Declaration]] = {}


def batched(over: str, threads_per_block: int = 128, parallel: bool = True) -> Any:
    """Declare ``one(args, i)`` a batched kernel: ``i`` runs over ``args.<over>.shape[0]``.

    ``threads_per_block``: the CUDA launch's block size (one thread an index). ``parallel=False``: a kernel
    too cheap for numba's threads (run once a search) gets its serial CPU loop only, and one compile less.
    The function must be a module-level ``@njit`` function whose first argument is a NamedTuple of arrays
    and scalars.
    """
    if not isinstance(over, str) or not over.isidentifier():
        raise KernelDeclarationError(f"over must name a field of the kernel's NamedTuple, got {over!r}")

    def declare(one: Any) -> Any:
        function = getattr(one, "py_func", one)
        if "." in function.__qualname__:
            raise KernelDeclarationError(f"{function.__qualname__}: a batched kernel must be a module-level function")
        if getattr(one, "targetoptions", {}).get("inline", "never") != "never":
            raise KernelDeclarationError(
                f"{function.__qualname__}: a batched kernel must not be inline: its parallel loop calls it (numba "
                "drops stores through a NamedTuple inlined into a prange body); use @njit(cache=True)"
            )
        declaration = Declaration(function.__name__, over, int(threads_per_block), bool(parallel))
        _DECLARED.setdefault(function.__module__, {})[function.__name__] = declaration
        return one

    return declare


# ----------------------------------------------------------------------------- generated code
_LOOPS_HEADER = """# The CPU loops of the batched kernels of {module}: generated by crossenvs.kernels.batched, do not edit.
import numpy as np
from numba import njit, prange

"""

_LOOPS = """from {module} import {name} as _{name}_one
from {kind_module} import {kind} as _{name}_args

_{name}_inlined = njit(inline="always")(getattr(_{name}_one, "py_func", _{name}_one))


@njit(cache=True)
def {name}_serial(args):
    for i in range(args.{over}.shape[0]):
        _{name}_inlined(args, i)  # inlined: no call, no copy of the arguments, per index


@njit(cache=True)
def {name}_fields({fields}):
    {name}_serial(_{name}_args({fields}))  # small batches: numba types positional arrays in C, a tuple's in Python


"""

_PARALLEL_LOOP = """@njit(cache=True, parallel=True)
def {name}_parallel(args):
    for i in prange(args.{over}.shape[0]):
        _{name}_one(args, np.int64(i))  # int64 as range gives: one compile of {name} serves both loops


"""

_CUDA_HEADER = """# The CUDA kernels of the batched kernels of {module}: generated by crossenvs.kernels.batched, do not edit.
from numba import cuda

"""

_CUDA = """from {module} import {name} as _{name}_one


def {name}(args):
    i = cuda.grid(1)
    if i < args.{over}.shape[0]:
        _{name}_one(args, i)


"""


def argument_kind(module: ModuleType, name: str) -> type:
    """The NamedTuple class a declared kernel takes: the annotation of its first parameter."""
    import inspect
    import typing

    one = getattr(module, name)
    function = getattr(one, "py_func", one)
    first = next(iter(inspect.signature(function).parameters))
    kind = typing.get_type_hints(function, globalns=vars(module)).get(first)
    if not (isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")):
        raise KernelDeclarationError(
            f"{module.__name__}.{name}: annotate its first parameter with its NamedTuple class"
        )
    clash = set(kind._fields) & {"args", "i", "np", "njit", "prange"}
    if clash:
        raise KernelDeclarationError(
            f"{kind.__name__}: the generated loops need the names {sorted(clash)}; rename them"
        )
    return kind


def _generated(module: ModuleType, kind: str, header: str, body: str, parallel_body: str = "") -> ModuleType:
    """The generated ``kind`` module of ``module``'s declarations, written once beside the numba cache.

    The CPU loops take the NamedTuple's fields one by one and rebuild it inside: numba types positional
    arrays in C, and a NamedTuple's fields in Python, a quarter of a microsecond each, per call.
    """
    declared = declarations(module)
    text = header.format(module=module.__name__)
    for d in declared.values():
        args = argument_kind(module, d.name)
        fields = ", ".join(args._fields)
        names = {"module": module.__name__, "name": d.name, "over": d.over, "fields": fields}
        names.update(kind_module=args.__module__, kind=args.__qualname__)
        text += body.format(**names)
        text += parallel_body.format(**names) if d.parallel else ""
    source = getattr(module, "__file__", None) or module.__name__
    stem = f"{module.__name__.rpartition('.')[2]}__{kind}__{digest(text.encode(), str(source).encode())}"
    return generated_module(stem, text)


def declarations(module: ModuleType) -> dict[str, Declaration]:
    """The batched kernels ``module`` declares, by name (an error if it declares none)."""
    declared = _DECLARED.get(module.__name__, {})
    if not declared:
        raise KernelDeclarationError(f"{module.__name__} declares no batched kernel (see crossenvs.kernels.batched)")
    return declared


def gather(kind: type, arrays: Mapping[str, Any]) -> Any:
    """The NamedTuple ``kind`` with each field taken from ``arrays`` by its name: a kernel's arguments from the
    named buffers of their owner (a vector env, a search), so no call lists them."""
    return kind(*(arrays[field] for field in kind._fields))


# ----------------------------------------------------------------------------- one kernel, both targets
class BatchedKernel:
    """One declared kernel: call it on the CPU, :meth:`launch` it on a GPU, :meth:`signature` for its PTX."""

    def __init__(self, module: ModuleType, declaration: Declaration, loops: ModuleType) -> None:
        self.module = module
        self.declaration = declaration
        self.name = declaration.name
        self.label = str(getattr(module, "SPECIALISED_FOR", module.__name__))  # the game, in messages
        #: the two CPU loops, each taking the kernel's NamedTuple (the runner picks one per call)
        self.serial = getattr(loops, f"{self.name}_serial")
        #: a kernel declared ``parallel=False`` has the serial loop only: compiled once, never timed against itself
        self.parallel = getattr(loops, f"{self.name}_parallel", self.serial)
        #: the serial loop taking the NamedTuple's fields in order: what a small batch calls
        self.serial_fields = getattr(loops, f"{self.name}_fields")
        self._runner = BatchRunner(self.parallel, self.serial) if declaration.parallel else None
        self._lock = threading.Lock()
        self._cuda_kernel: Any = None

    @property
    def per_game(self) -> bool:
        """Whether this kernel is a game's own (declared in a per-game copy of a template), not one for every game."""
        return hasattr(self.module, "SPECIALISED_FOR")

    def size(self, args: NamedTuple) -> int:
        """How many indices a call runs: the first axis of the declared field."""
        return len(getattr(args, self.declaration.over))

    def __call__(self, args: NamedTuple) -> None:
        """Run on the CPU, serially or across numba's threads (:class:`~crossenvs.kernels.threads.BatchRunner`)."""
        size = len(getattr(args, self.declaration.over))
        if self._runner is None or size < SERIAL_BELOW:  # small batches on this thread, as the runner would
            self.serial_fields(*args)
        else:
            self._runner(size, args)

    @property
    def runner(self) -> BatchRunner | None:
        """What picks the serial or the parallel loop per call (None for a kernel declared ``parallel=False``)."""
        return self._runner

    # ---------------------------------------------------------------- CUDA
    def cuda_function(self) -> Any:
        """The CUDA kernel as a plain Python function (what numba-cuda compiles; imports numba-cuda)."""
        cuda_module = _generated(self.module, "cuda", _CUDA_HEADER, _CUDA)
        return getattr(cuda_module, self.name)

    def cuda_kernel(self) -> Any:
        """The CUDA kernel, compiled on first launch and cached on disk (checks for a GPU first)."""
        with self._lock:
            if self._cuda_kernel is None:
                from .cuda import cuda_module, simulated

                cuda = cuda_module()
                compile_kernel = cuda.jit if simulated() else cuda.jit(cache=True)
                self._cuda_kernel = compile_kernel(self.cuda_function())
            return self._cuda_kernel

    def launch(self, args: NamedTuple, stream: Any = 0) -> None:
        """One GPU thread per index, on ``stream``; numba's refusal to compile is one :class:`KernelError`."""
        size = self.size(args)
        if size == 0:
            return
        threads = self.declaration.threads_per_block
        kernel = self.cuda_kernel()
        try:
            kernel[(size + threads - 1) // threads, threads, stream](args)
        except Exception as exc:
            if not type(exc).__module__.startswith("numba"):
                raise
            raise kernel_error(self.label, self.name, exc) from exc

    @staticmethod
    def signature(args: NamedTuple) -> tuple[Any, ...]:
        """The argument types a launch with ``args`` compiles for: what to build PTX for without a GPU."""
        import numba

        return (numba.typeof(args),)


_CHAIN = """# {names} of {module}, one after the other: generated by crossenvs.kernels.batched, do not edit.
from numba import njit

from {loops} import {imports}
from {kind_module} import {kind}


@njit(cache=True)
def chain_serial(args):
{serial}

@njit(cache=True)
def chain_fields({fields}):
    chain_serial({kind}({fields}))


@njit(cache=True)
def chain_parallel(args):
{parallel}
"""


class KernelChain:
    """Several batched kernels over the same arguments, each over the whole batch before the next, as one call.

    Their loops are called from one generated function (one dispatch of the arguments, not one a kernel),
    and one :class:`~crossenvs.kernels.threads.BatchRunner` decides serial or parallel for the chain: in
    Python, a dispatch and a runner call each cost about a microsecond, as much as a small batch's work.
    """

    def __init__(self, kernels: list[BatchedKernel], loops: ModuleType) -> None:
        names = [k.name for k in kernels]
        if not all(k.declaration.parallel for k in kernels):
            raise KernelDeclarationError(f"a chain runs parallel loops: {names} has a kernel declared parallel=False")
        kinds = {argument_kind(k.module, k.name) for k in kernels}
        if len(kinds) != 1:
            raise KernelDeclarationError(f"a chain's kernels take one NamedTuple: {names} take {len(kinds)}")
        kind = kinds.pop()
        fields = ", ".join(kind._fields)
        text = _CHAIN.format(
            kind_module=kind.__module__,
            kind=kind.__qualname__,
            names=", ".join(names),
            module=kernels[0].module.__name__,
            loops=loops.__name__,
            imports=", ".join(f"{name}_serial, {name}_parallel" for name in names),
            fields=fields,
            serial="\n".join(f"    {name}_serial(args)" for name in names),
            parallel="\n".join(f"    {name}_parallel(args)" for name in names),
        )
        stem = f"{loops.__name__.rpartition('.')[2]}__chain__{digest(text.encode())}"
        chain = generated_module(stem, text)
        self.kernels, self._size = kernels, kernels[0].size
        self.serial, self.parallel, self.serial_fields = chain.chain_serial, chain.chain_parallel, chain.chain_fields
        self._runner = BatchRunner(self.parallel, self.serial)

    def __call__(self, args: NamedTuple) -> None:
        size = self._size(args)
        if size < SERIAL_BELOW:  # small batches on this thread, as the runner would
            self.serial_fields(*args)
        else:
            self._runner(size, args)


class KernelSet(Mapping[str, BatchedKernel]):
    """The batched kernels of one module, by name and as attributes (``kernels.play(args)``)."""

    def __init__(self, module: ModuleType) -> None:
        self.loops = loops = _generated(module, "loops", _LOOPS_HEADER, _LOOPS, _PARALLEL_LOOP)
        self.module = module
        self._kernels = {name: BatchedKernel(module, d, loops) for name, d in declarations(module).items()}

    def __getitem__(self, name: str) -> BatchedKernel:
        return self._kernels[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kernels)

    def __len__(self) -> int:
        return len(self._kernels)

    def __getattr__(self, name: str) -> BatchedKernel:
        try:
            return self.__dict__["_kernels"][name]
        except KeyError:
            raise AttributeError(name) from None

    def chain(self, *names: str) -> KernelChain:
        """The kernels ``names``, one after the other over the whole batch, as one call (:class:`KernelChain`)."""
        return KernelChain([self[name] for name in names], self.loops)


_SETS_LOCK = threading.Lock()


def kernels_of(module: ModuleType | str) -> KernelSet:
    """The batched kernels ``module`` declares (a per-game copy, or an ordinary module by name), made once."""
    if isinstance(module, str):
        import importlib

        module = importlib.import_module(module)
    with _SETS_LOCK:
        return _kernel_set(module)


@functools.cache
def _kernel_set(module: ModuleType) -> KernelSet:
    return KernelSet(module)


def chosen_kernels(kernels: Mapping[str, BatchedKernel], which: str) -> dict[str, BatchedKernel]:
    """``kernels`` of one kind: "all", "per game" (a game's own) or "shared" (compiled once for every game)."""
    if which not in ("all", "per game", "shared"):
        raise KernelDeclarationError(f"which must be 'all', 'per game' or 'shared', got {which!r}")
    return {name: k for name, k in kernels.items() if which == "all" or k.per_game == (which == "per game")}


def kernel_error(label: str, kernel: str, exc: BaseException) -> Exception:
    """One :class:`~crossenvs.kernels.specialize.KernelError` naming the kernel and what numba-cuda refused in it."""
    from .specialize import KernelError

    return KernelError(
        f"{label}: {kernel} does not compile for CUDA (a rule kernel that allocates, holds a Python object or "
        f"calls what numba-cuda cannot type; see crossenvs.kernels.portable): {first_lines(exc)}"
    )


def kernel_ptx(function: Any, signature: tuple[Any, ...], cc: tuple[int, int], label: str, kernel: str) -> str:
    """PTX of a kernel for compute capability ``cc``, built without a GPU; a refusal is one :func:`kernel_error`."""
    from .cuda import compile_ptx

    try:
        return compile_ptx(function, signature, cc)
    except Exception as exc:
        raise kernel_error(label, kernel, exc) from exc


def first_lines(exc: BaseException, count: int = 8) -> str:
    """numba's message, shortened: its first lines, then where it stopped (the file and line of the construct)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    where = [line for line in lines[count:] if line.lstrip().startswith(("During: lowering", "During: typing of call"))]
    return "\n".join(lines[:count] + where[:4])
