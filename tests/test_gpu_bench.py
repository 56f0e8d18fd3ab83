"""benchmarks/gpu.py without a GPU: its plan (which parts run, on which games, at which batches) follows the
flags, a run does what the plan says, and asking for a run where there is no GPU is one line, not a traceback.

The rows themselves (timed on a card) are smoke-tested under the simulator in test_benchmark_smoke.py.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_device import NO_GPU

GPU_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu.py"


@pytest.fixture(scope="module")
def gpu():
    spec = importlib.util.spec_from_file_location("gpu_bench", GPU_BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def _plan(gpu, capsys, *argv: str) -> list[list[str]]:
    """The printed plan, each line split into its part, kind, game and size."""
    assert gpu.main([*argv, "--plan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("plan: ") for line in lines)
    return [line.removeprefix("plan: ").replace("crisscross ", "crisscross_").split() for line in lines]


def test_check_alone_plans_only_the_checks_of_the_named_games(gpu, capsys):
    assert _plan(gpu, capsys, "--check", "--games", "crossings") == [
        ["check", "env", "check", "crossings", "B=65,536"],
        ["check", "search", "check", "crossings", "positions=1,024"],
    ]
    smaller = _plan(gpu, capsys, "--check", "--games", "crosse", "--check-batch", "512", "--check-positions", "64")
    assert smaller == [
        ["check", "env", "check", "crosse", "B=512"],
        ["check", "search", "check", "crosse", "positions=64"],
    ]


def test_without_a_part_the_env_rows_run_and_with_several_each_part_follows_the_games(gpu, capsys):
    default = _plan(gpu, capsys)
    assert {line[0] for line in default} == {"env"}  # no check, no search rows
    assert [line[2] for line in default if line[1] == "crossenvs"] == [
        "crisscross_8x8", "crisscross_11x11", "charing_cross", "crosse", "crossings", "neo_crossings"] * 2  # fmt: skip
    assert [line[3] for line in default if line[1] == "pgx"] == ["B=4,096"] * 2 + ["B=65,536"] * 2
    both = _plan(gpu, capsys, "--check", "--env", "--search", "--games", "crosse", "--batches", "1024",
                 "--search-batches", "256")  # fmt: skip
    assert [line[0] for line in both] == ["check"] * 2 + ["env"] * 3 + ["search"] * 3  # checks first
    ours = [line for line in both if line[1] not in ("pgx", "mctx")]
    assert all("crosse" in line for line in ours) and len(ours) == 5
    assert ["search", "mctx", "othello", "B=256"] in both and ["env", "pgx", "hex", "B=1,024"] in both
    peerless = _plan(gpu, capsys, "--search", "--no-pgx", "--search-batches", "64")
    assert peerless == [
        ["search", "search", "crisscross_8x8", "B=64"],
        ["search", "training", "crisscross_8x8", "B=64"],
    ]


def test_a_run_does_what_its_plan_says(gpu, capsys, monkeypatch):
    """--check --games crossings, run with the GPU's parts replaced by recorders: both checks on Crossings
    alone, at the asked sizes, and nothing timed."""
    import torch

    ran = []
    monkeypatch.setattr(gpu, "gpu_missing", lambda: None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda: "a card")
    monkeypatch.setattr(gpu, "check", lambda *args: ran.append(("check", *args)) or [])
    monkeypatch.setattr(gpu, "search_check", lambda *args: ran.append(("search check", *args)) or [])
    for timed in ("ours", "pgx_loop", "search_rows"):
        monkeypatch.setattr(gpu, timed, lambda *args, name=timed: pytest.fail(f"{name} ran"))
    argv = ["--check", "--games", "crossings", "--check-batch", "256", "--check-steps", "7", "--check-positions", "9"]
    assert gpu.main(argv) == 0
    assert ran == [("check", 256, 7, [("crossings", {})]), ("search check", 9, [("crossings", {})])]
    assert "card: a card" in capsys.readouterr().out


def test_the_pgx_chain_defaults_to_the_baselines_own(gpu):
    """gpu.py keeps crossenvs out of its imports until it runs, so its --chain default is written there: it is
    the pgx baseline's (bench.py's is that constant itself)."""
    from crossenvs.integrations.pgx_peer import DEFAULT_CHAIN

    assert gpu.parse([]).chain == DEFAULT_CHAIN


def test_bad_flags_are_refused_by_name(gpu, capsys):
    for argv, message in ((["--games", "chess"], "argument --games: invalid choice: 'chess'"),
                          (["--check-batch", "0"], "argument --check-batch: a whole number above 0, not '0'"),
                          (["--no-env"], "unrecognized arguments: --no-env")):  # fmt: skip
        with pytest.raises(SystemExit) as stopped:
            gpu.main([*argv, "--plan"])
        assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_every_gpu_bench_command_in_the_docs_parses(gpu, capsys):
    """The command lines that the docs, the tests' docstrings and the script's own docstring show are ones the
    script takes (a flag that was renamed or dropped would leave a page telling users to run an error)."""
    import shlex

    root = GPU_BENCH.parent.parent
    texts = [path.read_text() for path in [*root.glob("docs/**/*.md"), root / "README.md", *root.glob("tests/*.py")]]
    found = {command.strip() for text in [*texts, gpu.__doc__] for command in re.findall(r"python benchmarks/gpu\.py"
             r"([^`\n#\"]*)", text)}  # fmt: skip
    assert "--search" in found and "--check" in found and "--check --env --json gpu.json" in found
    for command in sorted(found):
        assert gpu.main([*shlex.split(command), "--plan"]) == 0, command
        assert capsys.readouterr().out.startswith("plan: "), command


@NO_GPU
def test_a_run_without_a_gpu_is_one_line():
    done = subprocess.run([sys.executable, str(GPU_BENCH), "--check", "--games", "crisscross"], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "needs an NVIDIA GPU" in done.stderr
