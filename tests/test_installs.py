"""The base install, seen from this checkout: with every package that no extra named is installed hidden.

Was: ``crossenvs --help`` crashed with ``No module named 'yaml'`` for every user of the README's install line,
while the suite passed, because the test environment has every extra. Here each check runs in a fresh
process that can import only what the base requirements (and the extras a case names) pull in
(``tests/without_extras.py``), so a stray import of an extra's package fails in the default tier. The
wheel installed with its real dependencies is ``tests/test_wheel.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from without_extras import PRELUDE

from crossenvs.cli import COMMANDS

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "crossenvs"

#: the modules that are an extra's feature and may refuse to import without it, with that extra
EXTRA_MODULES = {
    "crossenvs.az.": "agents",  # the AlphaZero network and trainer; crossenvs.az.search.gumbel and .tree are numba only
    "crossenvs.ppo.": "train",
    "crossenvs.checkpoints.board_cnn": "train",
    "crossenvs.integrations.rllib": "rllib",
    "crossenvs.integrations.torchrl": "torchrl",
    "crossenvs.integrations.openspiel": "openspiel",
    "crossenvs.web.app": "web",
}
#: modules of ``crossenvs.az`` that the base install runs (the CPU search and its tree)
BASE_AZ = {"crossenvs.az", "crossenvs.az.search.gumbel", "crossenvs.az.search.tree", "crossenvs.az.search.tree_math"}


def in_base_process(code: str, extras: str = "") -> subprocess.CompletedProcess:
    """``code`` in a fresh process that sees the base install and ``extras`` only."""
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + code, extras, str(TESTS)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS.parent,
    )


def public_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts[1:]):
            names.append(".".join(parts))
    return names


IMPORT_ALL = """
import importlib, json
report = {}
for name in json.loads(sys.argv[3]):
    try:
        importlib.import_module(name)
    except BaseException as exc:
        report[name] = [type(exc).__name__, str(exc)]
print(json.dumps(report))
"""


def test_without_extras_every_module_imports_or_names_its_extra():
    modules = public_modules()
    assert "crossenvs.cli.train" in modules and "crossenvs.trainer.folders" in modules
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + IMPORT_ALL, "", str(TESTS), json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=TESTS.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    refused = json.loads(done.stdout.splitlines()[-1])
    for name, (kind, message) in refused.items():
        extra = next((extra for prefix, extra in EXTRA_MODULES.items() if name.startswith(prefix.rstrip("."))), None)
        assert extra and name not in BASE_AZ, f"{name} does not import in the base install: {kind}: {message}"
        assert kind == "MissingExtraError", f"{name}: {kind}: {message}"
        assert 'pip install -e ".[' in message and "\n" not in message, message
    # the extras' own modules do refuse (so the blocker works), and everything else imported
    assert "crossenvs.az.network" in refused and "crossenvs.web.app" in refused
    assert not {"crossenvs", "crossenvs.cli", "crossenvs.cli.train", "crossenvs.trainer.folders"} & set(refused)


RUN_COMMANDS = """
import contextlib, io, json
from crossenvs.cli import main
report = []
for argv in json.loads(sys.argv[3]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv, source=io.StringIO("quit\\n"))
        except SystemExit as exc:
            code = exc.code
    report.append([argv, code, err.getvalue()])
print(json.dumps(report))
"""

#: commands that need an extra, with the extra their one line must name
NEEDS = [
    (["play", "crisscross", "--option", "size=6", "--opponent", "pretrained"], "agents"),
    (["train", "alphazero", "--game", "crisscross", "--max-minutes", "0.1"], "train"),
    (["train", "ppo", "--game", "crisscross"], "train"),
    (["train", "rllib", "--game", "crisscross"], "train,rllib"),
    (["serve"], "web"),
    (["rate", "az:final.pt", "--game", "crisscross"], "agents"),
]


def test_without_extras_every_command_starts_or_names_its_extra():
    argvs = [["--help"], ["list"], *([command.name, "--help"] for command in COMMANDS)]
    argvs += [argv for argv, _ in NEEDS]
    done = in_base_process(RUN_COMMANDS.replace("sys.argv[3]", repr(json.dumps(argvs))))
    assert done.returncode == 0, done.stderr[-3000:]
    results = {tuple(argv): (code, err) for argv, code, err in json.loads(done.stdout.splitlines()[-1])}
    for argv in argvs[: 2 + len(COMMANDS)]:
        code, err = results[tuple(argv)]
        assert code in (0, None), f"crossenvs {' '.join(argv)} exit {code}: {err[-2000:]}"
    for argv, extra in NEEDS:
        code, err = results[tuple(argv)]
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, f"crossenvs {' '.join(argv)} exit {code}:\n{err[-2000:]}"
        assert f'pip install -e ".[{extra}]"' in lines[0] and "Traceback" not in err, lines[0]


@pytest.mark.parametrize("extra", ["agents", "eval", "web"])
def test_with_one_extra_the_package_and_command_line_import(extra: str):
    done = in_base_process("import crossenvs, crossenvs.cli; print(len(crossenvs.cli.COMMANDS))", extra)
    assert done.returncode == 0 and int(done.stdout) == len(COMMANDS), done.stderr[-3000:]


NO_NUMBA_CUDA_GPU_ASKED = """
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.kernels import cuda
for gpu in (cuda.gpu_absent(), None):  # this machine as it is, then as if a card answered
    cuda.gpu_absent = lambda gpu=gpu: gpu
    try:
        CrossVectorEnv("crisscross", 4, device="cuda")
    except cuda.CudaUnavailableError as exc:
        print(exc)
"""


def test_without_the_cuda_extra_a_gpu_request_names_the_card_first_then_each_missing_package():
    """Was: no numba-cuda meant 'install torch and crossenvs[cuda]' (500 MB) before 'there is no GPU here'."""
    from crossenvs.kernels.cuda import gpu_absent

    if gpu_absent() is None:
        pytest.skip("a GPU answers here: the first line would be the second")
    done = in_base_process(NO_NUMBA_CUDA_GPU_ASKED)
    assert done.returncode == 0, done.stderr[-3000:]
    no_card, no_stack = done.stdout.strip().splitlines()
    assert "needs an NVIDIA GPU with its driver: no NVIDIA driver" in no_card and "pip install" not in no_card
    assert "needs numba-cuda and torch, which are not installed" in no_stack, no_stack
    assert 'pip install -e ".[cuda]"' in no_stack and no_stack.index("torch==2.13.0") < no_stack.index(".[cuda]")


def test_the_gpu_pages_imports_need_torch_and_the_cuda_extra_only():
    """Was: docs/gpu.md's search example imported crossenvs.az.device_selfplay (now az.pending), whose config reader needed PyYAML
    (the train extra), for a reader who installed what the page says: torch and the cuda extra."""
    page = (TESTS.parent / "docs" / "gpu.md").read_text()
    imports = sorted(set(re.findall(r"^from crossenvs[\w.]* import [\w, ]+$", page, re.M)))
    assert any("az.pending" in line for line in imports), imports
    done = in_base_process("\n".join(imports) + "\nprint('imported')", "agents,cuda")  # agents: torch alone
    assert done.returncode == 0 and "imported" in done.stdout, done.stderr[-3000:]
