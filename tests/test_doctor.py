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
import time
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
    assert done.stdout.startswith("the GPU path cannot run here: device='cuda' needs an NVIDIA GPU"), done.stdout
    assert len(done.stdout.strip().splitlines()) == 1, done.stdout


def test_a_stack_that_cannot_load_is_named_as_such_not_as_a_missing_gpu(monkeypatch, capsys):
    """On a GPU machine whose numpy numba-cuda cannot work beside (numpy 2.5: Python 3.12's default), the doctor
    said "no GPU:", sending its reader after the card; it names what cannot run, with the pin that fixes it."""
    from crossenvs.cli import doctor

    def numpy_too_new():
        raise CudaUnavailableError('numba-cuda 0.30.4 does not work beside numpy 2.5.2 (...): pip install "numpy<2.5"')

    monkeypatch.setattr(doctor, "stack_lines", numpy_too_new)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert (
        out
        == 'the GPU path cannot run here: numba-cuda 0.30.4 does not work beside numpy 2.5.2 (...): pip install "numpy<2.5"\n'
    )


@pytest.mark.slow
def test_the_doctor_checks_every_setup_it_is_given_under_the_simulator():
    """The run docs/gpu.md quotes, by the command it quotes: the same lines, but for versions and timings."""
    from test_docs_output import doctor_block, doctor_shape

    quoted = doctor_block().source
    command = " ".join(line.strip().rstrip("\\") for line in quoted.splitlines()[:2]).removeprefix("$ ").split()
    env = dict(word.split("=", 1) for word in command[:2])
    assert env == {"NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"} and command[2] == "crossenvs", command
    done = _crossenvs(*command[3:], **env)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("card: none, numba's CUDA simulator") and "numba-cuda" in lines[1]
    rows = [line for line in lines if line.startswith(("crisscross size=3", "crossings"))]
    assert len(rows) == 2 and all(row.endswith("  ok") for row in rows), done.stdout
    assert lines[-1].startswith("2 of 2 setups passed")
    assert doctor_shape(done.stdout) == doctor_shape("\n".join(quoted.splitlines()[2:])), done.stdout


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


# ----------------------------------------------------------------------------- a doctor that cannot hang
#: a stand-in for the worker: crossings hangs, crosse dies; the others need the card to themselves (a lock file
#: stands for an exclusive-process card), and all but crisscross are refused a context the first time they try
STAND_IN = """
import json, os, sys, time
name = json.loads(sys.argv[1])[0]
folder = os.environ["DOCTOR_TEST_CARD"]
if name == "crossings":
    time.sleep(60)
if name == "crosse":
    sys.exit(139)
tried = os.path.join(folder, "tried-" + name)
refused = name != "crisscross" and not os.path.exists(tried)
open(tried, "w").close()
try:
    refused or os.close(os.open(os.path.join(folder, "card"), os.O_CREAT | os.O_EXCL))
except FileExistsError:
    refused = True
if refused:
    print("DOCTOR " + json.dumps({"setup": name, "error": "RuntimeError: CUDA error: CUDA-capable device(s) is/are "
                                  "busy or unavailable"}))
    sys.exit(0)
time.sleep(0.5)
os.remove(os.path.join(folder, "card"))
print("DOCTOR " + json.dumps({"setup": name, "compile_seconds": 0.1, "env_mismatches": 0, "search_mismatches": 0}))
"""


def _doctor_with(monkeypatch, tmp_path, *argv: str) -> tuple[int, list[str]]:
    import io

    from crossenvs.cli import doctor

    monkeypatch.setattr(doctor, "WORKER", STAND_IN)
    monkeypatch.setattr(doctor, "stack_lines", lambda: ["card: a stand-in"])
    monkeypatch.setenv("DOCTOR_TEST_CARD", str(tmp_path))
    out = io.StringIO()
    status = doctor.run(doctor_arguments(*argv), out, io.StringIO())
    return status, out.getvalue().splitlines()


def doctor_arguments(*argv: str):
    import argparse

    from crossenvs.cli import doctor

    parser = argparse.ArgumentParser()
    doctor.arguments(parser)
    args = parser.parse_args(list(argv))
    doctor.check(args)
    return args


def test_a_setup_that_hangs_is_stopped_and_one_that_dies_is_a_line_and_the_rest_are_printed(monkeypatch, tmp_path):
    started = time.perf_counter()
    status, lines = _doctor_with(monkeypatch, tmp_path, "--games", "crossings", "crosse", "--timeout", "2")
    assert time.perf_counter() - started < 20
    assert status == 1
    rows = {line.split()[0]: line for line in lines if line.startswith(("crossings", "crosse"))}
    assert "timed out after 2 s" in rows["crossings"] and rows["crossings"].split()[1] in ("2", "3")
    assert "the process ended with status 139" in rows["crosse"]
    assert lines[-1].startswith("0 of 2 setups passed")


def test_setups_refused_a_second_context_run_again_one_at_a_time(monkeypatch, tmp_path):
    """Run again together, the two refused setups would find the card taken; one at a time, both pass."""
    setups = ["crisscross", "charing_cross", "neo_crossings"]
    status, lines = _doctor_with(monkeypatch, tmp_path, "--games", *setups, "--jobs", "3", "--timeout", "30")
    assert status == 0, lines
    assert "checking 3 setups, 3 at a time" in lines[1]
    assert any("refused a CUDA context beside the others" in line and "one at a time" in line for line in lines)
    rows = [line for line in lines if line.split()[:1] and line.split()[0] in setups]
    assert len(rows) == 3 and all(row.endswith("  ok") for row in rows), lines
    assert lines[-1].startswith("3 of 3 setups passed")


def test_jobs_one_runs_the_setups_one_at_a_time_and_a_refused_context_is_a_failure(monkeypatch, tmp_path):
    """Alone on the card a setup refused a context has no one to blame: it fails, and is not run again."""
    setups = ["crisscross", "charing_cross", "neo_crossings"]
    status, lines = _doctor_with(monkeypatch, tmp_path, "--games", *setups, "--jobs", "1", "--timeout", "30")
    assert status == 1 and "checking 3 setups, 1 at a time" in lines[1], lines
    assert not any("beside the others" in line for line in lines)
    rows = {line.split()[0]: line for line in lines if line.split()[:1] and line.split()[0] in setups}
    assert rows["crisscross"].endswith("  ok") and "busy or unavailable" in rows["charing_cross"], lines
    assert lines[-1].startswith("1 of 3 setups passed")


def test_the_table_prints_each_setups_wall_seconds():
    from crossenvs.cli.doctor import HEADER, SetupResult, row

    line = row(SetupResult("crossings", compile_seconds=1.0, env_mismatches=0, search_mismatches=0, seconds=12.4))
    assert HEADER.split()[:2] == ["setup", "s"] and line.split()[:3] == ["crossings", "12", "1.0"]
