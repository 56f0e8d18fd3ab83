"""Checks on our compiled CUDA code, without a GPU: what the simulator cannot see.

The CUDA simulator runs the kernels as Python, so it checks their logic and never the code a card
runs. The faults a first contact with a card would have met were all in that code: an 8-byte load
from a mask row that starts at an odd byte (a misaligned-address error, sticky, the process dies),
an external C function that numba-cuda links from a ``.cu`` file (the kernel then cannot be cached,
and ``ptxas`` refuses it unlinked), NVVM's fused multiply-adds (other last bits than the CPU's).
Each check here reads the kernel as numba-cuda builds it for a named compute capability
(:class:`crossenvs.kernels.cuda.OfflineKernel`):

* **no external function**: the PTX declares no ``.extern .func``;
* **cacheable**: the kernel survives the pickling ``cuda.jit(cache=True)`` does;
* **assembles**: the ``ptxas`` of the ``cuda`` extra (nvidia-cuda-nvcc) assembles it, with no
  spills, within :data:`MAX_REGISTERS` registers and :data:`MAX_STACK_BYTES` of stack a thread;
* **byte arrays read byte-wise**: no load or store wider than a byte through a pointer that comes
  from an int8 array argument (masks, boards), since such an array's rows need not be aligned;
* **exact floats**: no ``fma`` instruction, so the card rounds as the CPU does.

``crossenvs doctor`` prints these figures; ``tests/test_compiled_code.py`` runs them for every game.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crossenvs.support.extras import install_hint

from ..kernels.cuda import CudaUnavailableError, OfflineKernel

#: a thread's registers: ptxas's ceiling is 255, and near it a kernel spills; the most today is 165 (the
#: Neo-Crossings search's backup_then_select; its step kernel took 250 before its symmetry test was rolled up)
MAX_REGISTERS = 192
#: a thread's stack (scratch arrays live there): 16 KB is the most a kernel may ask (portable.MAX_SCRATCH_BYTES)
MAX_STACK_BYTES = 16 * 1024
#: constant memory a kernel may use (what ptxas refuses beyond)
MAX_CONSTANT_BYTES = 64 * 1024


@dataclass
class KernelCheck:
    """What the checks found in one kernel (``problems`` empty when it passed every one)."""

    setup: str
    kernel: str
    registers: int | None = None
    stack_bytes: int | None = None
    spill_bytes: int | None = None
    constant_bytes: int = 0
    fma: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        figures = f"{self.registers} registers, {self.stack_bytes} B stack, {self.constant_bytes:,} B constants"
        verdict = "ok" if self.ok else "; ".join(self.problems)
        return f"{self.setup:<20} {self.kernel:<22} {figures}: {verdict}"


# ----------------------------------------------------------------------------- the checks, one by one
def external_functions(ptx: str) -> list[str]:
    """Functions the PTX calls but does not define (numba-cuda would have to link them from elsewhere)."""
    return re.findall(r"^\s*\.extern\s+\.func\s+(?:\([^)]*\)\s*)?(\w+)", ptx, flags=re.MULTILINE)


def serialisation_problem(kernel: Any) -> str | None:
    """Why ``cuda.jit(cache=True)`` could not save ``kernel`` to its disk cache, or None."""
    try:
        pickle.dumps(kernel)
    except Exception as exc:
        return f"cannot be cached ({exc})"
    return None


def constant_bytes(ptx: str) -> int:
    """Bytes of constant memory (rule tables) the PTX declares."""
    return sum(int(size) for size in re.findall(r"\.const (?:\.\w+ )*\.align \d+ \.b8 \S+\[(\d+)\]", ptx))


def fma_count(ptx: str) -> int:
    """Fused multiply-adds in the PTX (none when contraction is off, :func:`crossenvs.kernels.numba_internals.contraction_off`)."""
    return len(re.findall(r"^\s*(?:@!?%p\d+\s+)?fma\.", ptx, flags=re.MULTILINE))


@dataclass
class PtxasReport:
    registers: int | None
    stack_bytes: int | None
    spill_bytes: int | None
    error: str | None


def ptxas_path() -> Path:
    """The ``ptxas`` that the ``cuda`` extra installs (the nvidia-cuda-nvcc wheel), else a CUDA toolkit's (on the
    PATH, under ``CUDA_HOME``, or in /usr/local/cuda: a GPU machine's image may have only that one)."""
    spec = importlib.util.find_spec("nvidia.cuda_nvcc")
    folders = [Path(folder, "bin") for folder in (spec.submodule_search_locations or [])] if spec else []
    on_path = shutil.which("ptxas")
    folders += [Path(on_path).parent] if on_path else []
    folders += [Path(os.environ["CUDA_HOME"], "bin")] if os.environ.get("CUDA_HOME") else []
    for folder in [*folders, Path("/usr/local/cuda/bin")]:
        if (folder / "ptxas").is_file():
            return folder / "ptxas"
    raise CudaUnavailableError(f"ptxas not found: it comes with the cuda extra, {install_hint('cuda')}")


def run_ptxas(ptx: str, arch: str) -> PtxasReport:
    """Assemble ``ptx`` for ``arch`` (e.g. ``sm_90a``) and read what ptxas reports of the kernel."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "kernel.ptx")
        source.write_text(ptx)
        done = subprocess.run(
            [str(ptxas_path()), f"-arch={arch}", "-v", str(source), "-o", str(Path(folder, "kernel.cubin"))],
            capture_output=True,
            text=True,
            timeout=300,
        )
    log = done.stdout + done.stderr
    if done.returncode != 0:
        return PtxasReport(None, None, None, log.strip().splitlines()[-1] if log.strip() else "ptxas failed")
    registers = re.search(r"Used (\d+) registers", log)
    stack = re.search(r"(\d+) bytes stack frame", log)
    spills = [int(count) for count in re.findall(r"(\d+) bytes spill (?:stores|loads)", log)]
    return PtxasReport(
        int(registers.group(1)) if registers else None,
        int(stack.group(1)) if stack else 0,
        sum(spills),
        None,
    )


_WIDTHS = {"8": 1, "16": 2, "32": 4, "64": 8}
_REGISTER = re.compile(r"%[a-z]+\d+")


def _flat_arguments(signature: tuple[Any, ...]) -> list[Any]:
    """The kernel's arguments as numba-cuda passes them: a tuple (our kernels take a NamedTuple) as its fields, in order."""
    flat: list[Any] = []
    for argument in signature:
        fields = getattr(argument, "types", None)
        flat += _flat_arguments(tuple(fields)) if fields is not None else [argument]
    return flat


def _data_params(signature: tuple[Any, ...]) -> set[int]:
    """Kernel parameter numbers that carry the data pointer of an int8 array argument.

    numba-cuda passes an array as its fields, in order: meminfo, parent, nitems, itemsize, data,
    then one shape and one stride per dimension (5 + 2 ndim parameters); a scalar is one; a tuple
    is its fields, one after the other.
    """
    params, position = set(), 0
    for argument in _flat_arguments(signature):
        ndim = getattr(argument, "ndim", None)
        if ndim is None:
            position += 1
            continue
        if str(argument.dtype) == "int8":
            params.add(position + 4)
        position += 5 + 2 * ndim
    return params


def _access_width(opcode: str) -> int:
    parts = opcode.split(".")
    lanes = next((int(part[1:]) for part in parts if re.fullmatch(r"v\d", part)), 1)
    return lanes * _WIDTHS.get(parts[-1][1:], 1)


def wide_byte_array_accesses(ptx: str, signature: tuple[Any, ...]) -> list[str]:
    """Loads and stores wider than a byte through an address computed from an int8 array argument.

    A taint pass over the kernel body: registers loaded from those arrays' data-pointer parameters
    are tainted, and so is every register an instruction computes from a tainted one (a loaded
    value is not: it is data, not an address). An access of 2 or more bytes at a tainted address
    could be misaligned on a card (a mask row of 121 actions starts at byte 121 j). Our kernels are
    inlined into one ``.entry``; an access inside a separate ``.func`` is not followed.
    """
    data_params = _data_params(signature)
    body = [line.split("//")[0].strip() for line in ptx.splitlines()]
    body = [re.sub(r"^@!?%p\d+\s+", "", line) for line in body if line and not line.startswith((".", "$", "{", "}"))]
    tainted: set[str] = set()
    found: list[str] = []
    changed = True
    while changed:  # loops carry registers backwards: repeat until nothing new is tainted
        changed, found = False, []
        for line in body:
            opcode, _, operands = line.partition(" ")
            operands = operands.rstrip(";")
            if opcode.startswith("ld.param"):
                number = re.search(r"_param_(\d+)\]", operands)
                target = _REGISTER.findall(operands)
                if number and int(number.group(1)) in data_params and target and target[0] not in tainted:
                    tainted.add(target[0])
                    changed = True
                continue
            if opcode.startswith(("ld.", "st.")) and opcode.split(".")[1] not in ("param", "local", "shared", "const"):
                address = _REGISTER.findall(operands[operands.find("[") : operands.find("]") + 1])
                if any(register in tainted for register in address) and _access_width(opcode) > 1:
                    found.append(line)
                continue
            registers = _REGISTER.findall(operands)
            if len(registers) > 1 and registers[0] not in tainted and any(r in tainted for r in registers[1:]):
                tainted.add(registers[0])
                changed = True
    return found


# ----------------------------------------------------------------------------- one kernel, every check
def check_kernel(setup: str, function: Any, signature: tuple[Any, ...], cc: tuple[int, int]) -> KernelCheck:
    """Build ``function`` as numba-cuda would for a device of compute capability ``cc`` and run every check."""
    name = getattr(function, "__name__", str(function)).removesuffix("_cuda")  # the one-index kernel it runs
    report = KernelCheck(setup, name)
    try:
        offline = OfflineKernel(function, signature, cc)
    except Exception as exc:
        report.problems.append(f"does not compile for CUDA: {str(exc).splitlines()[0] if str(exc) else exc!r}")
        return report
    external = external_functions(offline.ptx)
    if external:
        report.problems.append(f"calls external functions {', '.join(external)} (numba-cuda would link a file)")
    unsaved = serialisation_problem(offline.kernel)
    if unsaved:
        report.problems.append(unsaved)
    report.constant_bytes = constant_bytes(offline.ptx)
    if report.constant_bytes > MAX_CONSTANT_BYTES:
        report.problems.append(f"{report.constant_bytes:,} bytes of constant tables (at most {MAX_CONSTANT_BYTES:,})")
    wide = wide_byte_array_accesses(offline.ptx, signature)
    if wide:
        report.problems.append(f"{len(wide)} accesses wider than a byte to an int8 array, e.g. {wide[0]!r}")
    report.fma = fma_count(offline.ptx)
    if report.fma:
        report.problems.append(f"{report.fma} fused multiply-adds (the CPU rounds twice)")
    _check_assembly(report, offline)
    return report


def _check_assembly(report: KernelCheck, offline: OfflineKernel) -> None:
    assembled = run_ptxas(offline.ptx, offline.arch)
    report.registers, report.stack_bytes, report.spill_bytes = (
        assembled.registers,
        assembled.stack_bytes,
        assembled.spill_bytes,
    )
    if assembled.error:
        report.problems.append(f"ptxas refuses it: {assembled.error}")
        return
    if assembled.spill_bytes:
        report.problems.append(f"{assembled.spill_bytes} bytes of register spills")
    if (assembled.registers or 0) > MAX_REGISTERS:
        report.problems.append(f"{assembled.registers} registers (at most {MAX_REGISTERS})")
    if (assembled.stack_bytes or 0) > MAX_STACK_BYTES:
        report.problems.append(f"{assembled.stack_bytes} bytes of stack (at most {MAX_STACK_BYTES})")


# ----------------------------------------------------------------------------- CUDA helpers run on the host
def host_callable(function: Any, argument_types: tuple[Any, ...]) -> Any:
    """``function`` (a jitted helper) compiled by numba-cuda for a GPU, then run here: its LLVM IR, with the
    libdevice functions it calls, JIT-compiled for the host CPU. Returns a Python callable.

    The CUDA versions of the bit helpers (``ffs``, ``popc``, ``brev``, the byte loops) never run under
    the simulator, which runs the CPU's; libdevice's integer functions are plain LLVM (``__nv_ffsll`` is
    a negate, an and and a count of leading zeros), so the very code a card would run is tested on
    edge inputs against the CPU's versions. Arguments: integers, and C-contiguous NumPy arrays.
    """
    import ctypes

    import llvmlite.binding as llvm

    from ..kernels.cuda import DEFAULT_PTX_CC, _import_numba_cuda
    from ..kernels.numba_internals import compile_device_function

    _import_numba_cuda()
    compiled = compile_device_function(function, argument_types, DEFAULT_PTX_CC)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine()
    module = _host_module(compiled.library.llvm_strs, target)
    engine = llvm.create_mcjit_compiler(module, target)
    engine.finalize_object()
    address = engine.get_function_address(compiled.fndesc.llvm_func_name)
    result_type = _ctype_of(compiled.signature.return_type)
    native = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(result_type), *_argument_ctypes(argument_types))(address)

    def call(*arguments: Any) -> Any:
        result = result_type()
        flat = [field for value, kind in zip(arguments, argument_types) for field in _fields_of(value, kind)]
        native(ctypes.byref(result), *flat)
        return tuple(result) if isinstance(result, ctypes.Array) else result.value

    call.engine = engine  # the compiled code lives as long as its engine
    return call


def _host_module(modules: list[str], target: Any, rewrite: Any = None) -> Any:
    """``modules`` (numba-cuda's LLVM IR) linked with the libdevice functions they call, for the host's triple and
    data layout; ``rewrite`` (text -> text) is applied to every module, libdevice's bodies included, before parsing
    (:mod:`crossenvs.selfcheck.host_run` maps the NVVM intrinsics there)."""
    import llvmlite.binding as llvm

    def for_host(text: str) -> str:
        text = rewrite(text) if rewrite is not None else text
        text = re.sub(r'^target triple = ".*"$', f'target triple = "{target.triple}"', text, flags=re.MULTILINE)
        return re.sub(r'^target datalayout = ".*"$', f'target datalayout = "{target.target_data}"', text, flags=re.M)

    linked = llvm.parse_assembly(for_host(modules[0]))
    for text in modules[1:]:
        linked.link_in(llvm.parse_assembly(for_host(text)))
    library = _libdevice()
    wanted = [f.name for f in linked.functions if f.is_declaration and f.name.startswith("__nv_")]
    if wanted:
        bodies = [
            re.sub(r"\)\s*(#\d+\s*)+(\{|$)", r") \2", str(library.get_function(name)), flags=re.M) for name in wanted
        ]
        used = set(re.findall(r"@(llvm\.[\w.]+)\(", "\n".join(bodies)))
        declarations = [re.sub(r"\s*#\d+\s*$", "", str(library.get_function(name)).strip()) for name in used]
        linked.link_in(llvm.parse_assembly(for_host("\n".join(declarations + bodies))))
    linked.verify()
    return linked


def _libdevice() -> Any:
    import llvmlite.binding as llvm

    spec = importlib.util.find_spec("nvidia.cuda_nvcc")
    for folder in list(spec.submodule_search_locations or []) if spec else []:
        for path in Path(folder, "nvvm", "libdevice").glob("libdevice*.bc"):
            return llvm.parse_bitcode(path.read_bytes())
    raise CudaUnavailableError(f"libdevice not found: it comes with the cuda extra, {install_hint('cuda')}")


def _ctype_of(numba_type: Any) -> Any:
    import ctypes

    if hasattr(numba_type, "count"):  # a UniTuple of integers
        return _ctype_of(numba_type.dtype) * numba_type.count
    name = str(numba_type)
    return {"int64": ctypes.c_int64, "uint64": ctypes.c_uint64, "int32": ctypes.c_int32, "uint32": ctypes.c_uint32,
            "int8": ctypes.c_int8, "bool": ctypes.c_bool, "boolean": ctypes.c_bool}[name]  # fmt: skip


def _argument_ctypes(argument_types: tuple[Any, ...]) -> list[Any]:
    """An array travels as its fields (meminfo, parent, nitems, itemsize, data, shapes, strides); a scalar as itself."""
    import ctypes

    flat = []
    for kind in argument_types:
        if hasattr(kind, "ndim"):
            flat += [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
            flat += [ctypes.c_int64] * (2 * kind.ndim)
        else:
            flat.append(_ctype_of(kind))
    return flat


def _fields_of(value: Any, kind: Any) -> list[Any]:
    if not hasattr(kind, "ndim"):
        return [value]

    assert value.flags.c_contiguous and str(value.dtype) == str(kind.dtype) and value.ndim == kind.ndim, (value, kind)
    return [None, None, value.size, value.itemsize, value.ctypes.data, *value.shape, *value.strides]
