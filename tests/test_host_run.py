"""The CUDA build run on the CPU: every setup's env and search kernels, from the very LLVM IR numba-cuda hands NVVM
for a Hopper card, JIT-compiled for this machine and launched by the device env's and search's own code
(:mod:`crossenvs.kernels.host_run`), return what the CPU env and the CPU search return, step for step and bit for
bit. A fault planted in that IR is caught; an NVVM intrinsic the host cannot map and a raise reached in device
code are each one clear error.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import types

import crossenvs
from crossenvs.kernels.cuda import _import_numba_cuda
from crossenvs.kernels.host_run import HostKernel, HostRunError, host_device, map_intrinsics
from crossenvs.testing import check_device_env, check_device_search

cuda = _import_numba_cuda()  # numba-cuda's cuda.grid for the small kernels below (no card needed)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: the six built-in setups (the example Tic-tac-toe's env kernels run in the planted-fault test, with and without it)
SETUPS = [("crisscross", {}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
          ("crossings", {}), ("neo_crossings", {})]  # fmt: skip


def _game(name: str, options: dict) -> crossenvs.Game:
    if name == "tictactoe":
        sys.path.insert(0, str(EXAMPLES))
        import tictactoe

        return tictactoe.TicTacToe()
    return crossenvs.make_game(name, **options)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), SETUPS, ids=[f"{n}{o.get('size', '')}" for n, o in SETUPS])
def test_the_cuda_build_run_on_the_cpu_matches_the_cpu_env_and_search(name, options):
    game = _game(name, options)
    with host_device():
        env = check_device_env(game, num_envs=64, steps=64, seed=0)
        search = check_device_search(game, positions=8, simulations=8, searches=4, seed=0)
    assert env.mismatches == 0, env.first_mismatch
    assert env.illegal_tried > 0 and env.games_ended > 0  # the illegal-action and restart paths ran
    assert search.action_mismatches == 0, search.first_mismatch
    assert search.root_observation_mismatches == 0
    assert search.max_policy_gap == 0.0 and search.max_value_gap == 0.0


LOSS = re.compile(r"fptrunc double 0xBFF0000000000000 to float", re.IGNORECASE)


def _half_a_loss(text: str) -> str:
    """The planted fault: the step kernel scores a loss -0.5, not -1 (a constant of ``game_batch.play``)."""
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


VECTOR = (types.int64[::1],)


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
    with pytest.raises(HostRunError, match=r"thread 2 of block 0 reached a raise site in .*_plus_one"):
        kernel[1, 8, 0](np.array([0, 1, -1, 2], dtype=np.int64))
