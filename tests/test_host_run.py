"""The CUDA build without a card, for every setup: its launch, down to the driver call, and its code, run on the CPU.

**The launch.** ``DeviceKernel.launch`` runs as on a card: the device env's and search's very NamedTuples (of
numba device arrays over stand-in device pointers), numba-cuda's dispatcher (its typing of the NamedTuple, its
compile for compute capability 9.0, its argument preparation) and cuda-core's launch configuration and argument
packing, on the stream ``DeviceArrays.stream()`` makes of torch's current one. Only what a card's driver would do
is stubbed: the context lookup, the module load (``get_cufunc``) and the launch, which records what it is handed.
Every kernel's flattened arguments must match its PTX's parameters in count, order and width, on torch's current
stream (a non-default one).

**The code.** The kernels those launches compiled, as the LLVM IR numba-cuda hands NVVM, JIT-compiled for this
machine and launched by the device env's and search's own code (:mod:`crossenvs.selfcheck.host_run`), must return
what the CPU env and the CPU search return, step for step and bit for bit. A fault planted in that IR is caught;
an NVVM intrinsic the host cannot map and a raise reached in device code are each one clear error.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import types as numba_types

import crossenvs
from crossenvs.kernels import cuda as cuda_target
from crossenvs.kernels import launch, numba_internals
from crossenvs.kernels.cuda import DEFAULT_PTX_CC, DeviceArrays
from crossenvs.selfcheck import check_device_env, check_device_search
from crossenvs.selfcheck.host_device import host_device
from crossenvs.selfcheck.host_run import HostKernel, HostRunError, map_intrinsics, raise_sites_left

cuda = cuda_target._import_numba_cuda()  # numba-cuda's cuda.grid for the small kernels below (no card needed)
pytestmark = pytest.mark.filterwarnings("ignore:Grid size")  # numba-cuda's low-occupancy note on small launches

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: the six built-in setups (the example Tic-tac-toe's env kernels run in the planted-fault test, with and without it)
SETUPS = [("crisscross", {}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
          ("crossings", {}), ("neo_crossings", {})]  # fmt: skip
#: torch's current stream in these tests: a non-default stream's handle
TORCH_STREAM = 0x5EED_0000
#: a PTX parameter's bits -> bytes
PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


class Launches(list):
    """What the stubbed driver launch was handed: (stream, config, kernel, arguments) per launch."""


@contextlib.contextmanager
def stand_in_card(monkeypatch: pytest.MonkeyPatch) -> Iterator[Launches]:
    """numba-cuda as on a card of compute capability 9.0, the driver's calls stubbed; torch's stream a stand-in."""
    import torch
    from numba.cuda import codegen, dispatcher
    from numba.cuda.cudadrv import driver

    cuda = cuda_target._import_numba_cuda()
    launches = Launches()

    def launch(stream, config, kernel, *args):  # cuda-core's launch: the driver call, recorded
        launches.append((stream, config, kernel, args))

    monkeypatch.setattr(dispatcher, "launch", launch)
    monkeypatch.setattr(codegen.CUDACodeLibrary, "get_cufunc", _loaded)
    monkeypatch.setattr(dispatcher.CUDADispatcher, "enable_caching", lambda self: None)  # no disk cache: no card
    monkeypatch.setattr(cuda, "external_stream", lambda ptr: driver.Stream(driver.binding.CUstream(ptr), external=True))
    monkeypatch.setattr(cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuda_target, "gpu_absent", lambda: None)  # the driver library answers: a card is here
    monkeypatch.setattr(cuda_target, "check_driver", lambda cuda: None)
    monkeypatch.setattr(
        torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=TORCH_STREAM)
    )
    with numba_internals.named_compute_capability(DEFAULT_PTX_CC):
        yield launches


@pytest.fixture
def card(monkeypatch):
    with stand_in_card(monkeypatch) as launches:
        yield launches


def _loaded(library):
    """The stand-in for loading the kernel's module on the card (cuModuleLoadData), already initialised."""
    module = types.SimpleNamespace(initialized=True)
    return types.SimpleNamespace(kernel=library._entry_name, name=library._entry_name, module=module)


def _game(name: str, options: dict) -> crossenvs.Game:
    if name == "tictactoe":
        sys.path.insert(0, str(EXAMPLES))
        import tictactoe

        return tictactoe.TicTacToe()
    return crossenvs.make_game(name, **options)


class StandInMemory:
    """Device arrays over stand-in device pointers (host buffers' addresses: never read, only passed on)."""

    def __init__(self) -> None:
        self.kept: list[np.ndarray] = []

    def array(self, value: np.ndarray):
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        host = np.ascontiguousarray(value)
        self.kept.append(host)
        memory = types.SimpleNamespace(device_ctypes_pointer=ctypes.c_void_p(host.ctypes.data))
        return DeviceNDArray(host.shape, host.strides, host.dtype, gpu_data=memory)

    def arrays(self, buffers: dict) -> dict:
        return {name: self.array(np.zeros(shape, dtype)) for name, (shape, dtype) in buffers.items()}


def _env_launches(game: crossenvs.Game, memory: StandInMemory, games: int) -> dict:
    """Each env kernel's NamedTuple, as the device env makes it, over stand-in device memory."""
    from crossenvs.envs.batch import env_buffers, env_kernels, kernel_args

    return {name: (kernel, kernel_args(memory.arrays(env_buffers(game, games)))[name])
            for name, kernel in env_kernels(game).items()}  # fmt: skip


def _search_launches(game: crossenvs.Game, memory: StandInMemory, trees: int) -> dict:
    """Each search kernel's Tree, as the device search makes it, over stand-in device memory."""
    from crossenvs.az.search.gumbel import considered_table, search_kernels, tree_buffers, tree_math
    from crossenvs.kernels.launch import gather

    arrays = memory.arrays(tree_buffers(game, trees, 4))
    start = game.initial_state()
    arrays.update(
        boards=memory.array(np.repeat(start.board[None], trees, axis=0)),
        metas=memory.array(np.repeat(start.meta[None], trees, axis=0)),
        gumbel=arrays["no_noise"],
        considered_table=memory.array(considered_table(16, 4)),
        max_considered=np.int64(16),
    )
    tree = gather(tree_math.Tree, arrays)
    return {role: (kernel, tree) for role, kernel in search_kernels(game).items()}


def _ptx_parameters(ptx: str) -> list[tuple[str, int]]:
    """The kernel entry's parameters in order: (kind letter u/s/b/f, bytes)."""
    entry = ptx[ptx.index(".entry") :]
    entry = entry[: entry.index(")")]
    found = re.findall(r"\.param\s+\.([usbf])(8|16|32|64)\b[^,]*?_param_(\d+)", entry)
    assert [int(number) for _, _, number in found] == list(range(len(found))), "parameters out of order"
    return [(kind, PTX_BYTES[bits]) for kind, bits, _ in found]


def _expected_arguments(args) -> list[int]:
    """What numba-cuda must hand the driver for ``args``: an array as meminfo (0), parent (0), size, itemsize,
    data pointer, shape, strides; a scalar as itself; a tuple as its fields, in order."""
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    flat: list[int] = []
    for value in args:
        if isinstance(value, DeviceNDArray):
            flat += [0, 0, value.size, value.dtype.itemsize, value.device_ctypes_pointer.value]
            flat += [*value.shape, *value.strides]
        elif isinstance(value, tuple):
            flat += _expected_arguments(value)
        else:
            flat.append(int(value))
    return flat


def _as_the_driver_reads_them(arguments: tuple, parameters: list[tuple[str, int]]) -> list[int]:
    """The launch's arguments as cuda-core packs them for cuLaunchKernel (its ParamHolder: one pointer an
    argument), each read back at its PTX parameter's width."""
    import importlib

    from cuda.bindings import __version__ as bindings_version

    handler = importlib.import_module(f"cuda.core.cu{bindings_version.split('.')[0]}._kernel_arg_handler")
    holder = handler.ParamHolder(list(arguments))
    pointers = (ctypes.c_void_p * len(arguments)).from_address(holder.ptr)
    values = []
    for pointer, (kind, size) in zip(pointers, parameters):
        assert kind != "f", "no float parameter is expected of our kernels"
        values.append(int.from_bytes(ctypes.string_at(pointer, size), "little", signed=kind == "s"))
    return values


@dataclass
class Launched:
    """One setup's five kernels launched through the stand-in card: by role, the kernel, its arguments, what
    the driver was handed, and numba-cuda's compiled kernel (whose IR the host run takes)."""

    game: crossenvs.Game
    roles: dict[str, tuple[Any, Any, tuple, Any]]


@pytest.fixture(scope="module", params=SETUPS, ids=[f"{n}{o.get('size', '')}" for n, o in SETUPS])
def launched(request):
    """Each setup's kernels compiled once, by numba-cuda's dispatcher on launch, for both tests below."""
    game, memory = _game(*request.param), StandInMemory()
    with pytest.MonkeyPatch.context() as monkeypatch, stand_in_card(monkeypatch) as records:
        arrays = DeviceArrays(cuda_target._import_numba_cuda())
        roles = {}
        launches = {**_env_launches(game, memory, games=200), **_search_launches(game, memory, trees=3)}
        monkeypatch.setattr(launch, "_COMPILED", {})  # compiled here for the stand-in card, forgotten after
        for role, (kernel, args) in launches.items():
            kernel.launch(args, arrays.stream())
            compiled = next(iter(kernel.compiled().overloads.values()))
            roles[role] = (kernel, args, records[-1], compiled)
        assert len(records) == len(launches) == 5
        yield Launched(game, roles)


@pytest.mark.slow
def test_every_kernel_launches_with_the_ptxs_parameters_on_torchs_stream(launched):
    for role, (kernel, args, (stream, config, entry, arguments), compiled) in launched.roles.items():
        assert entry == compiled._codelibrary._entry_name, role
        assert int(stream.handle) == TORCH_STREAM, f"{role} launched on another stream than torch's current one"
        size, threads = kernel.size(args), kernel.threads_per_block
        assert tuple(config.grid) == (-(-size // threads), 1, 1) and tuple(config.block) == (threads, 1, 1), role
        parameters = _ptx_parameters(compiled._codelibrary.get_asm_str())
        expected = _expected_arguments(args)
        assert len(arguments) == len(parameters) == len(expected), (role, len(arguments), len(parameters))
        masks = [(1 << (8 * size)) - 1 for _, size in parameters]
        read = _as_the_driver_reads_them(arguments, parameters)
        assert [v & m for v, m in zip(read, masks)] == [v & m for v, m in zip(expected, masks)], role


@pytest.mark.slow
def test_no_kernel_can_drop_an_exception(launched):
    """numba-cuda drops a raise in device code on a card; LLVM's -O3 proves every raise site of ours unreachable."""
    for role, (_, _, _, compiled) in launched.roles.items():
        assert raise_sites_left(compiled) == [], role


@pytest.mark.slow
def test_the_cuda_build_run_on_the_cpu_matches_the_cpu_env_and_search(launched):
    """The kernels numba-cuda compiled at those launches, their IR run on the host by the device env and search."""
    compiled = {kernel.function: built for kernel, _, _, built in launched.roles.values()}
    with host_device(compiled=compiled):
        env = check_device_env(launched.game, num_envs=64, steps=64, seed=0)
        search = check_device_search(launched.game, positions=8, simulations=8, searches=4, seed=0)
    assert env.mismatches == 0, env.first_mismatch
    assert env.illegal_tried > 0 and env.games_ended > 0  # the illegal-action and restart paths ran
    assert search.action_mismatches == 0, search.first_mismatch
    assert search.root_observation_mismatches == 0
    assert search.max_policy_gap == 0.0 and search.max_value_gap == 0.0


def test_a_launch_follows_torchs_current_stream_when_it_changes(card, monkeypatch):
    """One stream object while torch's stays (numba caches launch configurations by it), a new one when it moves."""
    import torch

    arrays = DeviceArrays(cuda_target._import_numba_cuda())
    first = arrays.stream()
    assert arrays.stream() is first and int(first.handle) == TORCH_STREAM
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=0xBEEF))
    assert int(arrays.stream().handle) == 0xBEEF


class RecordingView:
    """A numba device array's stand-in that records the stream of each copy."""

    def __init__(self, streams: list) -> None:
        self.streams, self.dtype = streams, np.dtype(np.int64)

    def copy_to_device(self, array, stream=0):
        self.streams.append(("to device", stream))

    def copy_to_host(self, stream=0):
        self.streams.append(("to host", stream))
        return np.zeros(2, dtype=np.int64)


class RecordingStream:
    def __init__(self, streams: list) -> None:
        self.streams = streams

    def synchronize(self):
        self.streams.append(("synchronize", self))


def test_every_copy_goes_on_torchs_current_stream_and_a_host_copy_waits_for_it(monkeypatch):
    """Under a non-default torch stream: states() and the search's host inputs copy on it, not numba's default."""
    import torch

    from crossenvs.az.search.gumbel import GumbelSearch
    from crossenvs.envs.batch import GameBatch
    from crossenvs.kernels.backends import DeviceBackend

    streams: list = []
    stream = RecordingStream(streams)
    fake_cuda = types.SimpleNamespace(
        external_stream=lambda handle: stream, as_cuda_array=lambda t, sync=True: RecordingView(streams)
    )
    monkeypatch.setattr(
        torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=TORCH_STREAM)
    )
    monkeypatch.setattr(cuda_target, "simulated", lambda: False)
    arrays = DeviceArrays(fake_cuda)
    monkeypatch.setattr(arrays, "zeros", lambda shape, dtype: (RecordingView(streams), None))

    batch = object.__new__(GameBatch)  # its copies alone: no card to allocate its buffers on
    batch.backend = object.__new__(DeviceBackend)
    batch.backend.arrays, batch._views = (
        arrays,
        {"boards": (RecordingView(streams), None), "metas": (RecordingView(streams), None)},
    )
    batch.states()
    assert streams == [("to host", stream), ("synchronize", stream)] * 2

    streams.clear()
    search = object.__new__(GumbelSearch)
    search.backend = object.__new__(DeviceBackend)
    search.backend.arrays, search.backend.cuda = arrays, fake_cuda
    search.backend.input(np.zeros((2, 3), dtype=np.int8), np.int8)
    assert streams == [("to device", stream)]


# ----------------------------------------------------------------------------- the host run's own checks
LOSS = re.compile(r"fptrunc double 0xBFF0000000000000 to float", re.IGNORECASE)


def _half_a_loss(text: str) -> str:
    """The planted fault: the step kernel scores a loss -0.5, not -1 (a constant of ``game_batch.step_games``)."""
    return LOSS.sub("fptrunc double 0xBFE0000000000000 to float", text)


@pytest.mark.slow
def test_a_fault_planted_in_the_ir_is_caught():
    game = _game("tictactoe", {})
    with host_device(plant=_half_a_loss):
        planted = check_device_env(game, num_envs=64, steps=32, seed=0)
    assert planted.mismatches > 0 and "reward" in planted.first_mismatch, planted
    with host_device():  # the same run without the fault: the plant alone made the difference
        assert check_device_env(game, num_envs=64, steps=32, seed=0).mismatches == 0


def _one_thread_writes(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = i * 3


@cuda.jit(device=True)
def _plus_one(value):
    if value < 0:
        raise ValueError("negative")  # a device function returns the exception's status to its caller
    return value + 1


def _raises_on_a_negative(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = _plus_one(out[i])


VECTOR = (numba_types.int64[::1],)


def test_a_kernel_runs_every_thread_of_every_block_and_flattens_its_array():
    kernel = HostKernel(_one_thread_writes, VECTOR)
    out = np.full(300, -1, dtype=np.int64)
    kernel[3, 128, 0](out)  # 384 threads for 300 entries: the guard keeps the last 84 out
    assert out.tolist() == [3 * i for i in range(300)]


def test_an_intrinsic_the_host_cannot_map_fails_with_its_name():
    def lane_id(text: str) -> str:
        return text.replace('@"llvm.nvvm.read.ptx.sreg.tid.x"', '@"llvm.nvvm.read.ptx.sreg.laneid"')

    with pytest.raises(HostRunError, match=r"cannot map: llvm\.nvvm\.read\.ptx\.sreg\.laneid"):
        HostKernel(_one_thread_writes, VECTOR, plant=lane_id)
    assert "crossenvs_host.fmax.d" in map_intrinsics("call double @llvm.nvvm.fmax.d(double %a, double %b)")


def test_a_raise_reached_in_device_code_is_one_error_naming_it():
    """On a card numba-cuda drops it (the thread just stops); the host run surfaces it."""
    kernel = HostKernel(_raises_on_a_negative, VECTOR)
    fine = np.arange(5, dtype=np.int64)
    kernel[1, 8, 0](fine)
    assert fine.tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(HostRunError, match=r"thread 2 of block 0 reached a raise site in test_host_run\._plus_one"):
        kernel[1, 8, 0](np.array([0, 1, -1, 2], dtype=np.int64))


def test_a_raise_site_the_optimiser_cannot_remove_is_named():
    """The proof of the kernels' raise sites can fail: a raise on a value read from memory stays."""
    compiled, _ = numba_internals.build_kernel(_raises_on_a_negative, VECTOR, DEFAULT_PTX_CC)
    assert raise_sites_left(compiled) == ["test_host_run._plus_one (exception 1)"]
