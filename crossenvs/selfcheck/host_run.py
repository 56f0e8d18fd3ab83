"""The CUDA build, run on this CPU: every kernel from the very LLVM IR numba-cuda hands NVVM, JIT-compiled for
the host and launched by the device env's and the device search's own code, so they can be checked against the
CPU env and the CPU search with no card (``tests/test_host_run.py``).

The simulator runs the kernels' Python; what a card runs is the code numba-cuda lowers for it. This module
takes that code, ``_Kernel._codelibrary.llvm_strs`` of a kernel built for compute capability 9.0 (our
constant tables shared, contraction off: :mod:`crossenvs.kernels.numba_internals`), and makes it run here:

* the target triple and data layout become the host's; the constant tables (address space 4) ordinary memory;
* the thread and block registers (``llvm.nvvm.read.ptx.sreg.*``) become globals that :class:`HostKernel` sets
  thread by thread, block by block (each thread runs to its end before the next starts);
* the libdevice functions the kernels call are linked in, and the few NVVM intrinsics they use are mapped to
  LLVM's own (:data:`NVVM_ON_HOST`); one the table lacks is a :class:`HostRunError` naming it, raised before
  LLVM sees the module (LLVM would abort the process);
* every raise site (a device function returning an exception's status, which numba-cuda drops on a card) counts
  into a global: a raise reached is a :class:`HostRunError` naming the function; :func:`raise_sites_left`
  runs LLVM's -O3 over the same IR and names the sites it cannot prove unreachable;
* the arguments travel as numba-cuda's ``_prepare_args`` flattens them (an array as meminfo, parent, size,
  itemsize, data, shape, strides; a tuple as its fields).

:func:`host_device` puts this in place of numba-cuda for the device env and search (host NumPy arrays stand in
for device memory), so :func:`~crossenvs.selfcheck.check_device_env` and
:func:`~crossenvs.selfcheck.check_device_search` run unchanged: the buffers, argument tuples and launch order are
the product's own.

What it cannot see: NVVM's optimiser and code generation, ptxas (``compiled_checks`` runs it), alignment (an
x86 load need not be aligned; ``compiled_checks`` finds wide loads of byte rows), races and the order of threads
(threads run one after another), the driver (``tests/test_host_run.py`` runs the launch with the driver's calls
stubbed), and what the mapped intrinsics do differently on a card (only ``fmax``/``fmin`` of signed zeros could).
"""

from __future__ import annotations

import bisect
import ctypes
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from crossenvs.support.errors import CrossenvsError

#: each NVVM intrinsic the kernels' IR uses (through libdevice's ``__nv_fmax``, ``__nv_fmin`` and ``__nv_ldexp``), as
#: host IR: name -> (signature, body computing ``%r``)
NVVM_ON_HOST: dict[str, tuple[str, str]] = {
    "llvm.nvvm.fmax.d": ("double (double %a, double %b)", "%r = call double @llvm.maxnum.f64(double %a, double %b)"),
    "llvm.nvvm.fmin.d": ("double (double %a, double %b)", "%r = call double @llvm.minnum.f64(double %a, double %b)"),
    "llvm.nvvm.fabs.f64": ("double (double %a)", "%r = call double @llvm.fabs.f64(double %a)"),
    "llvm.nvvm.lohi.i2d": (
        "double (i32 %lo, i32 %hi)",
        "%l = zext i32 %lo to i64\n%h = zext i32 %hi to i64\n%s = shl i64 %h, 32\n%w = or i64 %s, %l\n"
        "%r = bitcast i64 %w to double",
    ),
}
_REGISTERS = [f"{register}.{axis}" for register in ("tid", "ntid", "ctaid", "nctaid") for axis in "xyz"]
_INTRINSIC = re.compile(r'@"?(llvm\.nvvm\.[\w.]+?)"?(?=[\s(,)])')
_RAISE = re.compile(r"^(\s*)ret i32 ([1-9]\d*)\s*$", re.MULTILINE)
_DEFINE = re.compile(r'^define [^@]*@"?([^"(]+)"?\(', re.MULTILINE)


class HostRunError(CrossenvsError, RuntimeError):
    """The CUDA build cannot run on the host (an NVVM intrinsic not mapped), or it raised while running there."""


def _host_name(intrinsic: str) -> str:
    return "crossenvs_host." + intrinsic.removeprefix("llvm.nvvm.")


def _support_module() -> str:
    """Host IR for the thread registers (globals) and each mapped intrinsic, and the raise counter."""
    lines = ["@crossenvs_host.raised = global i64 0", "@crossenvs_host.raise_site = global i64 0"]
    for register in _REGISTERS:
        lines.append(f"@crossenvs_host.{register} = global i32 0")
        lines.append(
            f'define i32 @"{_host_name("llvm.nvvm.read.ptx.sreg." + register)}"() {{\n'
            f"  %r = load i32, i32* @crossenvs_host.{register}\n  ret i32 %r\n}}"
        )
    for intrinsic, (signature, body) in NVVM_ON_HOST.items():
        result, _, parameters = signature.partition(" ")
        indented = "\n".join("  " + line for line in body.splitlines())
        lines.append(f'define {result} @"{_host_name(intrinsic)}"{parameters} {{\n{indented}\n  ret {result} %r\n}}')
    lines += [
        "define void @crossenvs_host.raise(i64 %site) noinline {\n  %n = load i64, i64* @crossenvs_host.raised\n"
        "  %m = add i64 %n, 1\n  store i64 %m, i64* @crossenvs_host.raised\n"
        "  store i64 %site, i64* @crossenvs_host.raise_site\n  ret void\n}",
        "declare double @llvm.maxnum.f64(double, double)",
        "declare double @llvm.minnum.f64(double, double)",
        "declare double @llvm.fabs.f64(double)",
    ]
    return "\n\n".join(lines) + "\n"


def map_intrinsics(text: str) -> str:
    """``text`` with every NVVM intrinsic renamed to its host function; one not mapped raises, naming it."""
    known = {f"llvm.nvvm.read.ptx.sreg.{register}" for register in _REGISTERS} | set(NVVM_ON_HOST)
    used = set(_INTRINSIC.findall(text))
    unknown = sorted(used - known)
    if unknown:
        raise HostRunError(
            f"NVVM intrinsics the host run cannot map: {', '.join(unknown)} (add them to "
            "crossenvs.selfcheck.host_run.NVVM_ON_HOST)"
        )
    return _INTRINSIC.sub(lambda m: f'@"{_host_name(m.group(1))}"', text)


def _constants_as_memory(text: str) -> str:
    """Constant memory (address space 4) as ordinary memory: the tables' globals and their casts."""
    text = re.sub(r"addrspacecast ([^,\n]*?) addrspace\(4\)\*", r"bitcast \1*", text)
    return text.replace(" addrspace(4) ", " ").replace(" addrspace(4)*", "*")


def readable(mangled: str) -> str:
    """numba's mangled name as the dotted path it spells (``_ZN8__main__9_plus_oneB2v2...`` -> ``__main__._plus_one``)."""
    parts, at = [], 3 if mangled.startswith("_ZN") else len(mangled)
    while at < len(mangled) and mangled[at].isdigit():
        digits = re.match(r"\d+", mangled[at:]).group(0)
        at += len(digits)
        parts.append(mangled[at : at + int(digits)])
        at += int(digits)
    return ".".join(parts) or mangled


def _count_raises(text: str, sites: list[str]) -> str:
    """Each ``ret i32 <status>`` of a raise site first calls the raise counter with the site's number in ``sites``."""
    starts = [(m.start(), m.group(1)) for m in _DEFINE.finditer(text)]
    positions = [start for start, _ in starts]

    def counted(match: re.Match[str]) -> str:
        function = readable(starts[bisect.bisect(positions, match.start()) - 1][1]) if starts else "?"
        sites.append(f"{function} (exception {match.group(2)})")
        indent = match.group(1)
        site = len(sites) - 1
        return f"{indent}call void @crossenvs_host.raise(i64 {site})\n{indent}ret i32 {match.group(2)}"

    counted_text, count = _RAISE.subn(counted, text)
    return counted_text + "\ndeclare void @crossenvs_host.raise(i64)\n" if count else counted_text


def _host_target(opt: int) -> Any:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(opt=opt)


def host_module(compiled: Any, target: Any, raise_sites: list[str], plant: Callable[[str], str] | None = None) -> Any:
    """numba-cuda's kernel object ``compiled``, its IR made ready for the host (see the module docstring) and linked
    with libdevice and the host's stand-ins, as one llvmlite module; ``raise_sites`` gets each raise site's name."""
    import llvmlite.binding as llvm

    from .compiled_checks import _host_module

    modules = [plant(text) if plant else text for text in compiled._codelibrary.llvm_strs]
    modules = [_count_raises(_constants_as_memory(text), raise_sites) for text in modules]
    module = _host_module(modules, target, rewrite=map_intrinsics)
    module.link_in(llvm.parse_assembly(_support_module()))
    return module


def raise_sites_left(compiled: Any, plant: Callable[[str], str] | None = None) -> list[str]:
    """The raise sites of numba-cuda's kernel ``compiled`` that LLVM's -O3 cannot prove unreachable.

    On a card numba-cuda drops an exception raised in device code: the thread stops there, silently. Most raise
    sites in our kernels are numba's own checks (a ``range`` step of zero, an integer division by zero) on values
    that are constants once inlined. LLVM's optimiser deletes only code no run can reach (a run free of undefined
    behaviour, as NVVM, itself LLVM, assumes too), so a site it deletes cannot raise; an empty list proves the
    kernel never drops an exception. The counting call is kept out of line so that a site left stays visible.
    """
    import llvmlite.binding as llvm

    sites: list[str] = []
    target = _host_target(opt=3)
    module = host_module(compiled, target, sites, plant)
    builder = llvm.create_pass_builder(target, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    left = re.findall(r"call void @\"?crossenvs_host\.raise\"?\(i64 (?:noundef )?(\S+)\)", str(module))
    return [sites[int(site)] if site.isdigit() else f"a site LLVM merged ({site})" for site in left]


class HostKernel:
    """One CUDA kernel built as numba-cuda builds it for a card (``cc``), JIT-compiled for this CPU.

    ``compiled``: numba-cuda's kernel object (``_Kernel``) of ``function`` for ``signature``, already built (by
    a dispatcher's launch, say); built here when None. ``plant`` (IR text -> IR text) changes numba-cuda's IR
    first: the tests plant a fault with it. ``kernel[blocks, threads, stream](args)`` runs it as a launch would.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        signature: tuple[Any, ...],
        cc: tuple[int, int] | None = None,
        plant: Callable[[str], str] | None = None,
        compiled: Any = None,
    ) -> None:
        import llvmlite.binding as llvm

        from ..kernels.cuda import DEFAULT_PTX_CC, _import_numba_cuda
        from ..kernels.numba_internals import build_kernel

        _import_numba_cuda()
        self.name = getattr(function, "__name__", str(function)).removesuffix("_cuda")
        self.signature = tuple(signature)
        if compiled is None:
            compiled, _ = build_kernel(function, self.signature, cc or DEFAULT_PTX_CC)
        library = compiled._codelibrary
        self.raise_sites: list[str] = []
        target = _host_target(opt=0)  # far quicker to JIT than opt=1, and the run is short
        module = host_module(compiled, target, self.raise_sites, plant)
        self._engine = llvm.create_mcjit_compiler(module, target)
        self._engine.finalize_object()
        self._entry = self._engine.get_function_address(library._entry_name)
        self._registers = {
            register: ctypes.c_int32.from_address(self._engine.get_global_value_address(f"crossenvs_host.{register}"))
            for register in _REGISTERS
        }
        self._raised = ctypes.c_int64.from_address(self._engine.get_global_value_address("crossenvs_host.raised"))
        self._site = ctypes.c_int64.from_address(self._engine.get_global_value_address("crossenvs_host.raise_site"))

    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]:
        blocks, threads = int(config[0]), int(config[1])
        return lambda *args: self.launch(blocks, threads, args)

    def launch(self, blocks: int, threads: int, args: tuple[Any, ...]) -> None:
        """Every thread of ``blocks`` x ``threads``, one after the other, on the flattened ``args``."""
        flat: list[Any] = []
        for kind, value in zip(self.signature, args):
            flatten(kind, value, flat)
        entry = ctypes.CFUNCTYPE(None, *(type(value) for value in flat))(self._entry)
        registers, self._raised.value = self._registers, 0
        for register in _REGISTERS:
            registers[register].value = 1 if register.startswith("n") else 0
        registers["nctaid.x"].value, registers["ntid.x"].value = blocks, threads
        for block in range(blocks):
            registers["ctaid.x"].value = block
            for thread in range(threads):
                registers["tid.x"].value = thread
                entry(*flat)
                if self._raised.value:
                    site = self.raise_sites[self._site.value]
                    raise HostRunError(
                        f"{self.name}: thread {thread} of block {block} reached a raise site in {site}; "
                        "on a card numba-cuda drops it and the thread stops there"
                    )


def flatten(kind: Any, value: Any, flat: list[Any]) -> None:
    """``value`` of numba type ``kind`` as ctypes values, in numba-cuda's order (``_Kernel._prepare_args``)."""
    from numba.core import types

    if isinstance(kind, types.Array):
        array = np.asarray(value)
        flat += [ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_int64(array.size), ctypes.c_int64(array.itemsize)]
        flat.append(ctypes.c_void_p(array.ctypes.data))
        flat += [ctypes.c_int64(extent) for extent in (*array.shape, *array.strides)]
    elif isinstance(kind, types.BaseTuple):
        for field_kind, field in zip(kind, value):
            flatten(field_kind, field, flat)
    elif isinstance(kind, types.Boolean):
        flat.append(ctypes.c_bool(bool(value)))
    elif isinstance(kind, types.Integer):
        flat.append(getattr(ctypes, f"c_{kind}")(int(value)))
    elif isinstance(kind, types.Float):
        flat.append((ctypes.c_double if kind.bitwidth == 64 else ctypes.c_float)(float(value)))
    else:
        raise HostRunError(f"the host run cannot pass an argument of type {kind}")


# ----------------------------------------------------------------------------- in place of numba-cuda
class HostArray(np.ndarray):
    """Host memory standing in for a device array: what the device env and search call on numba's arrays."""

    def copy_to_host(self, stream: Any = 0) -> np.ndarray:
        return np.array(self)

    def copy_to_device(self, array: Any, stream: Any = 0) -> None:
        np.copyto(self, np.asarray(array))


#: (kernel function, argument types) -> its host build, for the whole process (the generated functions are
#: made once per game, so a key names one game's kernel, or one that every game shares)
_BUILT: dict[tuple[Any, ...], HostKernel] = {}


class _Jitted:
    """What ``cuda.jit`` returns here: a kernel compiled for the argument types of its first launch."""

    def __init__(self, function: Callable[..., Any], host: HostCuda) -> None:
        self.function, self.host = function, host

    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]:
        def launch(*args: Any) -> None:
            import numba

            signature = tuple(numba.typeof(argument) for argument in args)
            key = (self.function, signature)
            shared = not (self.host.plant or self.host.compiled)
            built = _BUILT if shared else self.host.built  # a kernel every game shares is built once
            if key not in built:
                compiled = self.host.compiled.get(self.function)
                built[key] = HostKernel(self.function, signature, plant=self.host.plant, compiled=compiled)
            built[key][config](*args)

        return launch


class HostCuda:
    """The few names of ``numba.cuda`` the device env and search use, on host memory and :class:`HostKernel`."""

    def __init__(self, plant: Callable[[str], str] | None = None, compiled: Mapping[Any, Any] | None = None) -> None:
        self.plant = plant
        #: kernel function -> numba-cuda's kernel object already compiled for it (its IR is taken, not rebuilt)
        self.compiled = dict(compiled or {})
        #: the kernels built with ``plant`` or from ``compiled``: never shared with another host run
        self.built: dict[tuple[Any, ...], HostKernel] = {}

    @staticmethod
    def to_device(array: Any) -> HostArray:
        return np.array(array, copy=True).view(HostArray)

    @staticmethod
    def device_array(shape: Any, dtype: Any) -> HostArray:
        return np.zeros(shape, dtype=dtype).view(HostArray)

    def jit(self, function: Callable[..., Any]) -> _Jitted:
        return _Jitted(function, self)
