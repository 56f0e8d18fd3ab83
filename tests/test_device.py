"""The rules on a GPU without a GPU: a kernel that cannot compile for CUDA is one clear error, and the device
env matches the CPU env step for step under numba's CUDA simulator.

The compiled code itself (PTX, ptxas, the disk cache) is checked for every setup in tests/test_compiled_code.py. The simulator runs the device env's own kernels one
Python thread a game, with numba off (it cannot hand its arrays to compiled functions), in a
subprocess because both switches must be set before numba is imported. On a GPU the same check
runs at 65,536 games: ``python benchmarks/gpu.py --check``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import crossenvs
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.kernels.cuda import CudaUnavailableError
from crossenvs.kernels.specialize import KernelError
from crossenvs.selfcheck import DeviceReport, _count

ROOT = Path(__file__).resolve().parent.parent


def _gpu_here() -> bool:
    import torch

    return torch.cuda.is_available()


#: the tests of what happens without a GPU, skipped where there is one (there the GPU path runs instead)
NO_GPU = pytest.mark.skipif(_gpu_here(), reason="this machine has a GPU")
EXAMPLES = ROOT / "examples"
GAMES = [("crisscross", {}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
         ("crossings", {}), ("neo_crossings", {}), ("tictactoe", {}), ("hex", {"size": 5, "swap": True}),
         ("connect_four", {"columns": 4, "rows": 4})]  # fmt: skip
# (Connect Four on 4x4: columns fill within 40 steps, so illegal drops are tried too)


BAD_GAME = """
import numpy as np
from numba import njit
import tictactoe


@njit(cache=False)
def apply_kernel(board, meta, action):
    scratch = np.zeros(9, dtype=np.int8)  # a heap allocation: a GPU thread cannot make one
    return tictactoe.apply_kernel(board, meta, action + scratch[0])


class Allocating(tictactoe.TicTacToe):
    name = "allocating_tictactoe"
    apply_kernel = staticmethod(apply_kernel)
"""


def test_a_kernel_that_cannot_run_on_a_gpu_is_one_error_naming_it(tmp_path, monkeypatch):
    (tmp_path / "allocating.py").write_text(BAD_GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import allocating

    from crossenvs.envs.device import device_ptx

    with pytest.raises(KernelError, match=r"allocating_tictactoe: step does not compile for CUDA") as caught:
        device_ptx(allocating.Allocating())
    assert "zeros" in str(caught.value)


@NO_GPU
def test_asking_for_the_gpu_where_there_is_none_is_one_clear_error():
    with pytest.raises(CudaUnavailableError, match="device='cpu'"):
        CrossVectorEnv("crisscross", num_envs=4, device="cuda")
    with pytest.raises(crossenvs.CrossenvsError, match="device must be one of"):
        CrossVectorEnv("crisscross", num_envs=4, device="gpu")


NUMPY_2_5 = """
import numpy
del numpy.row_stack  # what numpy 2.5 removed, and numba-cuda 0.30's lowering still names
from crossenvs.kernels.cuda import _import_numba_cuda
_import_numba_cuda()
"""


def test_a_numpy_that_numba_cuda_cannot_import_beside_is_one_error_with_the_pin():
    """With numpy 2.5 (Python 3.12's default, and a GPU machine's image) numba-cuda 0.30's CUDA lowering does not
    import: one CudaUnavailableError saying which numpy would do, before any kernel, not a traceback from inside
    numba-cuda at the first game registered (found preparing the on-a-card session, 2026-11-29)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", NUMPY_2_5], capture_output=True, text=True, timeout=300)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith("crossenvs.kernels.cuda.CudaUnavailableError: numba-cuda"), last
    assert 'pip install "numpy<2.5"' in last and "row_stack" in last


SIMULATED = """
import json, sys, warnings
import numpy as np
np.seterr(over="ignore")  # numba off: the random streams' 64-bit products wrap, as they do compiled
warnings.simplefilter("ignore", RuntimeWarning)
sys.path.insert(0, {examples!r})
import tictactoe
from crossenvs.selfcheck import check_device_env
report = check_device_env({name!r}, num_envs=8, steps=40, seed=5, **{options!r})
print(json.dumps(report.__dict__))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), GAMES, ids=[f"{n}{o.get('size', '')}" for n, o in GAMES])
def test_the_device_env_matches_the_cpu_env_step_for_step_under_the_simulator(name, options):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"}
    script = SIMULATED.format(examples=str(EXAMPLES), name=name, options=options)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = DeviceReport(**json.loads(done.stdout.strip().splitlines()[-1]))
    assert report.mismatches == 0, report.first_mismatch
    assert report.illegal_tried > 0 and report.steps == 40


def test_the_comparison_sees_a_game_that_differs():
    """The differential check must be able to fail: one differing cell of one game is one mismatch."""
    report = DeviceReport(num_envs=3, steps=1, games_ended=0, illegal_tried=0, mismatches=0)
    expected = np.zeros((3, 2, 2), dtype=np.float32)
    got = expected.copy()
    got[1, 0, 1] = 1.0
    _count(report, 0, "observation", expected, got)
    assert report.mismatches == 1 and report.first_mismatch.startswith("step 0, game 1: observation")
