"""``crossenvs doctor`` and the ways of asking for the GPU without its stack: each is one clear error.

The doctor runs here under numba's CUDA simulator (the same code as on a card, as Python, on tiny
batches), and without it says in one line that there is no GPU. Missing numba-cuda or torch is
simulated in a subprocess whose imports of them fail; a driver older than the toolkit, with a
stand-in for the driver's answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest
from test_device import NO_GPU

from crossenvs.cli import main
from crossenvs.kernels import cuda as cuda_target
from crossenvs.kernels.cuda import CudaUnavailableError


def _crossenvs(*argv: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from crossenvs.cli import main; sys.exit(main())", *argv]
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, timeout=900)


@NO_GPU
def test_without_a_gpu_the_doctor_says_so_in_one_line():
    done = _crossenvs("doctor")
    assert done.returncode == 1
    assert done.stdout.startswith("no GPU: ") and len(done.stdout.strip().splitlines()) == 1, done.stdout


@pytest.mark.slow
def test_the_doctor_checks_every_setup_it_is_given_under_the_simulator():
    done = _crossenvs(
        "doctor", "--games", "crisscross:size=3", "crossings", "--envs", "4", "--steps", "3", "--compare", "4",
        "--trees", "2", "--simulations", "2", NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("card: none, numba's CUDA simulator") and "numba-cuda" in lines[1]
    rows = [line for line in lines if line.startswith(("crisscross size=3", "crossings"))]
    assert len(rows) == 2 and all(row.endswith("  ok") for row in rows), done.stdout
    assert lines[-1].startswith("2 of 2 setups passed")


def test_the_doctor_refuses_an_unknown_setup_before_any_work(capsys):
    assert main(["doctor", "--games", "crisscross:size=99"]) == 2
    assert "size" in capsys.readouterr().err


BLOCKED = """
import sys
sys.modules[{blocked!r}] = None  # as if it were not installed
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.kernels import cuda
cuda.gpu_absent = lambda: None  # as if a card answered: the packages are asked for next
try:
    CrossVectorEnv("crisscross", num_envs=4, device="cuda")
except cuda.CudaUnavailableError as exc:
    print("refused:", exc)
"""


@pytest.mark.parametrize("blocked", ["numba_cuda", "torch"])
def test_asking_for_the_gpu_without_numba_cuda_or_torch_is_one_clear_error(blocked):
    done = subprocess.run([sys.executable, "-c", BLOCKED.format(blocked=blocked)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"refused: the GPU path needs {blocked.replace('_', '-')}, which is not"), done.stdout
    assert cuda_target.INSTALL_LINE in done.stdout


def _driver_of(version: tuple[int, int], nvjitlink: bool) -> types.SimpleNamespace:
    answer = types.SimpleNamespace(get_version=lambda: version)
    driver = types.SimpleNamespace(driver=answer, _have_nvjitlink=lambda: nvjitlink)
    return types.SimpleNamespace(cudadrv=types.SimpleNamespace(driver=driver))


def test_a_driver_older_than_the_toolkit_is_one_clear_error(monkeypatch):
    """The driver JIT-compiles our PTX: it must be as new as the toolkit (12.9 writes ISA 8.8)."""
    monkeypatch.setattr(cuda_target, "toolkit_version", lambda: (12, 9))
    with pytest.raises(CudaUnavailableError, match=r"runs CUDA 12\.4 code at most.*nvidia-cuda-nvcc-cu12==12\.4\.\*"):
        cuda_target.check_driver(_driver_of((12, 4), nvjitlink=False))
    cuda_target.check_driver(_driver_of((12, 9), nvjitlink=False))  # as new as the toolkit: accepted
    cuda_target.check_driver(_driver_of((13, 0), nvjitlink=False))


def test_with_nvjitlink_any_driver_of_the_toolkits_major_version_will_do(monkeypatch):
    """nvJitLink makes the machine code in user space; the driver only loads it (minor version compatibility)."""
    monkeypatch.setattr(cuda_target, "toolkit_version", lambda: (12, 9))
    cuda_target.check_driver(_driver_of((12, 2), nvjitlink=True))
    with pytest.raises(CudaUnavailableError, match=r"runs CUDA 11\.8 code at most, and the kernels need CUDA 12\.0"):
        cuda_target.check_driver(_driver_of((11, 8), nvjitlink=True))
