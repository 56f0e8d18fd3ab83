"""benchmarks/gpu.py without a GPU: its plan (which parts run, on which games, at which batches) follows the
flags, a run does what the plan says, and asking for a run where there is no GPU is one line, not a traceback.

The rows themselves (timed on a card) are smoke-tested under the simulator in test_on_a_card.py (the device
session's script runs them).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import benchmark_script
from test_device import NO_GPU

GPU_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu.py"


@pytest.fixture(scope="module")
def gpu():
    with benchmark_script("gpu") as module:
        yield module


def _plan(gpu, capsys, *argv: str) -> list[list[str]]:
    """The printed plan, each line split into its part, kind, game and size."""
    assert gpu.main([*argv, "--plan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("plan: ") for line in lines)
    return [re.sub(r"(crisscross|hex) (\d)", r"\1_\2", line.removeprefix("plan: ")).split() for line in lines]


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
    assert [line[2] for line in default if line[1] == "crossenvs"] == ["hex_11x11", "connect_four", "crisscross_8x8",
            "crisscross_11x11", "charing_cross", "crosse", "crossings", "neo_crossings"] * 2  # fmt: skip
    assert [line[2:] for line in default if line[1] == "pgx"] == [
        [peer, f"B={batch}"] for batch in ("4,096", "65,536") for peer in ("hex", "connect_four", "othello")]  # fmt: skip
    both = _plan(gpu, capsys, "--check", "--env", "--search", "--games", "crosse", "--batches", "1024",
                 "--search-batches", "256")  # fmt: skip
    assert [line[0] for line in both] == ["check"] * 2 + ["env"] + ["search"] * 3  # checks first
    ours = [line for line in both if line[1] not in ("pgx", "mctx")]
    assert all("crosse" in line for line in ours) and len(ours) == 5
    assert ["search", "mctx", "othello", "B=256"] in both
    assert ["env", "pgx"] not in [line[:2] for line in both]  # pgx has no 10x10 game: no peer row beside Crosse
    peerless = _plan(gpu, capsys, "--search", "--no-pgx", "--search-batches", "64")
    assert peerless == [
        ["search", "search", "crisscross_8x8", "B=64"],
        ["search", "training", "crisscross_8x8", "B=64"],
    ]


def test_the_same_game_pairs_come_first_each_beside_its_pgx_row_and_the_nearest_peers_follow(gpu, capsys):
    """Ours on pgx's own game, then pgx's row of it, before any cross-game row; a game pgx lacks brings the
    nearest pgx game along (Crisscross 11x11: hex; the 8x8 games: othello), and only what is asked for runs."""
    rows = [line[1:3] for line in _plan(gpu, capsys, "--batches", "64")]
    assert rows[:4] == [
        ["crossenvs", "hex_11x11"],
        ["pgx", "hex"],
        ["crossenvs", "connect_four"],
        ["pgx", "connect_four"],
    ]
    assert rows[-1] == ["pgx", "othello"] and ["pgx", "hex"] not in rows[4:]  # hex's peer row is not timed twice
    hex_only = _plan(gpu, capsys, "--games", "crisscross", "--batches", "64")
    assert [line[1:3] for line in hex_only] == [["crossenvs", "crisscross_8x8"], ["crossenvs", "crisscross_11x11"],
                                                ["pgx", "hex"], ["pgx", "othello"]]  # fmt: skip
    four = _plan(gpu, capsys, "--games", "connect_four", "--batches", "64")
    assert [line[1:3] for line in four] == [["crossenvs", "connect_four"], ["pgx", "connect_four"]]


def test_ratios_name_the_same_game_pairs_apart_from_the_cross_game_context(gpu, capsys):
    rows = [gpu.Row("crossenvs hex 11x11", 64, [3.0]), gpu.Row("pgx hex 11x11", 64, [2.0]),
            gpu.Row("crossenvs crisscross 11x11", 64, [1.0])]  # fmt: skip
    found = gpu.ratios(rows)
    assert [(r["row"], r["kind"], r["ratio"]) for r in found] == [
        ("hex 11x11", "same game", 1.5), ("crisscross 11x11", "a different game", 0.5)]  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert out == ["hex 11x11 / pgx hex 11x11 at B=64: 1.50x (target >= 1.0, aim 2.0)",
                   "crisscross 11x11 / pgx hex 11x11 at B=64: 0.50x (context: a different game)"]  # fmt: skip


def test_the_same_game_pairs_are_the_pgx_baselines_own(gpu):
    """gpu.py keeps crossenvs out of its imports until it runs, so its pairs are written there: they must be
    the ones bench.py times on the CPU (pgx_peer.SAME_GAME), and ours must play pgx's rules."""
    from crossenvs.integrations.pgx_peer import SAME_GAME

    assert gpu.SAME_GAME == SAME_GAME and set(SAME_GAME) <= set(gpu.PEERS)
    assert SAME_GAME["hex"][1]["swap"] is True  # pgx's hex always offers the swap


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
