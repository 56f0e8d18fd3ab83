"""The benchmark script runs end to end (tiny budget; speed itself is never asserted in tests)."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def test_benchmark_runs_and_reports_ratios(tmp_path, capsys):
    """A tiny run (Crisscross only, no pgx) has every row, ratio and target; timings are not checked."""
    out = tmp_path / "bench.json"
    bench = runpy.run_path(str(BENCH))
    argv = ["--seconds", "0.05", "--rounds", "2", "--no-pgx", "--games", "crisscross", "--sizes", "6", "8"]
    report = bench["main"]([*argv, "--batch-sizes", "4", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "Ratios (medians of this run):" in printed and "target >= 1.5" in printed
    judged = [entry["met"] for entry in report["ratios"].values() if entry["met"] is not None]
    missed = [name for name, entry in report["ratios"].items() if entry["met"] is False]
    assert f"Targets met in this run: {len(judged) - len(missed)} of {len(judged)}" in printed
    assert all(f"missed: {name}" in printed for name in missed)
    figures = json.loads(out.read_text())
    assert figures == json.loads(json.dumps(report))
    for api in bench["ENGINE_APIS"]:
        assert f"crossenvs crisscross 6x6 engine ({api})" in figures["rates"]
        pair = figures["ratios"][f"crisscross 8x8 engine ({api}) / OpenSpiel hex 8x8"]
        if api == bench["FAST_PATH"]:  # the target is the fast path's
            assert pair["target"] == 1.5 and pair["met"] is (pair["value"] >= 1.5)
        else:
            assert pair["target"] is None and pair["met"] is None and pair["value"] > 0
    for name in ("crossenvs crisscross 6x6 AEC env", "crossenvs crisscross 6x6 vector B=4", "OpenSpiel hex 6x6"):
        assert len(figures["rounds"][name]) == 2 and figures["rates"][name] > 0
    assert "PettingZoo connect_four_v3 AEC env" in figures["rates"]
    assert figures["ratios"]["crisscross 6x6 AEC env / PettingZoo connect_four_v3"]["target"] == 4
    vector = figures["ratios"]["crisscross 6x6 vector B=4 / pgx othello B=4 (16 steps a call)"]
    assert vector == {"value": None, "target": None, "met": None}  # no pgx row in this run
    assert not any(name.startswith("pgx") for name in figures["rates"]) and "load_ratios" not in figures


def test_benchmark_same_game_pairs_lead(capsys):
    """Hex and Connect Four alone: the same-game table with its targets and OpenSpiel's bare loop, and no
    cross-game table (no cross game was asked for)."""
    bench = runpy.run_path(str(BENCH))
    argv = ["--seconds", "0.05", "--rounds", "1", "--no-pgx", "--games", "connect_four", "hex"]
    report = bench["main"]([*argv, "--pair-batch-sizes", "4"])
    printed = capsys.readouterr().out
    assert printed.startswith("# ") and "cores" in printed.splitlines()[0]  # date, machine, command
    assert "Same game, same machine (medians of this run):" in printed and "Ratios (medians" not in printed
    same = report["same_game_ratios"]
    assert same["hex 11x11 engine (fused) / OpenSpiel hex 11x11"]["target"] == 2
    assert same["connect_four 7x6 engine (fused) / OpenSpiel connect_four 7x6"]["target"] == 2
    assert same["connect_four 7x6 AEC env / PettingZoo connect_four_v3"]["target"] == 4
    ceiling = same["hex 11x11 engine (fused) / OpenSpiel hex 11x11 bare (no observation)"]
    assert ceiling["target"] is None and ceiling["value"] > 0
    vector = same["connect_four 7x6 vector B=4 / pgx connect_four B=4 (CPU JAX, 16 steps a call)"]
    assert vector == {"value": None, "target": None, "met": None}  # no pgx row in this run, no target at B=4
    targets = {spec.name: spec.target for spec in bench["same_game_specs"](["hex"], [64, 1024], 16)}
    assert targets["hex 11x11 swap vector B=1024 / pgx hex B=1024 (CPU JAX, 16 steps a call)"] == 2.0
    assert targets["hex 11x11 swap vector B=64 / pgx hex B=64 (CPU JAX, 16 steps a call)"] is None
    assert report["ratios"] == {} and report["rates"]["crossenvs hex 11x11 swap vector B=4"] > 0


def test_benchmark_under_load(tmp_path):
    """--busy measures the marked rows idle and beside a busy process, in alternating rounds: loaded / idle."""
    bench = runpy.run_path(str(BENCH))
    argv = ["--seconds", "0.05", "--rounds", "2", "--no-pgx", "--games", "crisscross", "--sizes", "6"]
    report = bench["main"]([*argv, "--batch-sizes", "4", "--busy", "--train-steps", "0"])
    load = report["load_ratios"]
    assert "crossenvs crisscross 6x6 vector B=4: loaded / idle" in load
    assert "crossenvs crisscross 6x6 engine (apply/observe): loaded / idle" in load
    assert all(entry["target"] == 0.45 for entry in load.values())
    for name, idle in report["load_idle_rates"].items():  # the ratio's idle rate is its own rounds' median
        entry = load[f"{name}: loaded / idle"]
        assert entry["idle"] == idle and entry["value"] == pytest.approx(report["loaded_rates"][name] / idle)


def test_busy_process_is_killed_on_interrupt():
    bench = runpy.run_path(str(BENCH))
    with pytest.raises(KeyboardInterrupt), bench["busy_process"]() as spinner:
        assert spinner.poll() is None
        raise KeyboardInterrupt
    assert spinner.poll() is not None


def test_training_speed_benchmark_runs(tmp_path):
    out = tmp_path / "train.json"
    bench = runpy.run_path(str(BENCH.parent / "train_speed.py"))
    rates = bench["main"](["--steps", "256", "--json", str(out)])
    assert len(rates) == 3 and all(rate > 0 for rate in rates.values())
    assert json.loads(out.read_text()) == rates


def test_alphazero_benchmarks_run(tmp_path):
    speed = runpy.run_path(str(BENCH.parent / "az_speed.py"))
    figures = speed["main"](
        ["--seconds", "0.2", "--batch", "4", "--simulations", "2", "--channels", "8", "--blocks", "1"]
    )
    assert figures["positions_per_second"] > 0 and figures["network_evaluations_per_second"] > 0
    assert 0.0 < figures["network_share"] < 1.0
    network = runpy.run_path(str(BENCH.parent / "az_network.py"))
    variants = ["baseline", "channels_last", "contiguous", "narrow"]  # "compiled" takes ~30 s to compile
    out = tmp_path / "network.json"
    found = network["main"](
        ["--batch", "4", "--train-batch", "8", "--channels", "8", "--blocks", "1", "--rounds", "1", "--repeats", "1"]
        + ["--variants", *variants, "--json", str(out)]
    )
    assert list(found["variants"]) == variants and found["variants"]["baseline"]["forward_speedup"] == 1.0
    assert all(row["forward_ms"] > 0 and row["train_ms"] > 0 for row in found["variants"].values())
    assert json.loads(out.read_text()) == found
    table = runpy.run_path(str(BENCH.parent / "pretrained.py"))
    out = tmp_path / "pretrained.json"
    scores = table["main"](["--games", "2", "--simulations", "2", "--baselines", "random", "--json", str(out)])
    assert len(scores) >= 5 and all(row["random"] in (0.0, 0.25, 0.5, 0.75, 1.0) for row in scores.values())
    assert np.mean([row["random"] for row in scores.values()]) >= 0.75  # the shipped agents beat random
    assert json.loads(out.read_text())["games"] == 2


def test_cold_start_benchmark_runs():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(BENCH.parent / "cold_start.py")], capture_output=True, text=True, check=True
    )
    seconds = [float(value) for value in out.stdout.split()]
    assert len(seconds) == 4 and all(value > 0 for value in seconds)


def test_alphazero_rate_runs_in_a_fresh_process():
    bench = runpy.run_path(str(BENCH))
    assert bench["alphazero_rate"](0.5) > 0


@pytest.mark.slow
def test_the_ray_benchmark_runs_both_paths_and_its_parts(tmp_path):
    pytest.importorskip("ray", reason='needs the rllib extra: pip install -e ".[rllib]"')
    from conftest import AZ_TINY

    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps(AZ_TINY))
    bench = runpy.run_path(str(BENCH.parent / "az_ray.py"))
    parts = bench["main"](["--parts", "--config", str(config), "--seconds", "0.2"])
    assert parts["actor"]["float32"] > 0 and parts["learner_updates"]["float32"] > 0
    table = bench["main"](["--config", str(config), "--actors", "0", "1", "--minutes", "0.05", "--rounds", "1"])
    assert set(table) == {0, 1} and all(row["positions_per_second"] > 0 for row in table.values())
    assert all(row["startup_seconds"] > 0 for row in table.values())


def test_the_core_sweep_runs_and_reports_rows_spreads_and_scaling(tmp_path):
    """benchmarks/cores.py end to end on one core (a fresh pinned process), tiny rounds; speed is not checked."""
    import subprocess
    import sys

    out = tmp_path / "cores.json"
    command = [sys.executable, str(BENCH.parent / "cores.py"), "--cores", "1", "--games", "crisscross", "--batches",
               "8", "--search-batch", "4", "--repeats", "2", "--seconds", "0.02", "--json", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "random play crisscross 8x8 B=8" in done.stdout and "tree walk crisscross 11x11 B=4" in done.stdout
    report = json.loads(out.read_text())
    assert {(row["kind"], row["batch"], row["cores"]) for row in report["results"]} == {
        ("random play", 8, 1),
        ("tree walk", 4, 1),
    }
    assert all(len(row["rounds"]) == 2 and row["median"] > 0 and row["spread"] >= 0 for row in report["results"])
    assert len(report["scaling"]) == 4 and all(entry["scaling_over_2"] is None for entry in report["scaling"])


def test_the_kernel_split_optimal_moves_and_ladder_fits_scripts_run(monkeypatch, capsys):
    split = runpy.run_path(str(BENCH.parent / "kernel_split.py"))["main"](["crisscross", "--rounds", "1"])
    assert list(split) == ["crisscross"] and all(
        split["crisscross"][kernel] > 0 for kernel in ("mask", "apply", "observe")
    )
    optimal = runpy.run_path(str(BENCH.parent / "optimal_moves.py"))["main"](
        ["--agents", "crisscross", "--games", "1", "--simulations", "2", "--tail", "2", "--nodes", "20000"]
    )
    assert sorted(optimal) == ["crisscross", "crisscross size=6"]
    for row in optimal.values():  # one game, its agent's last two positions each decided or counted undecided
        assert row["decided"] + row["undecided"] == 2 and row["optimal"] + row["blunders"] <= row["decided"]
    capsys.readouterr()
    monkeypatch.setattr("sys.argv", ["ladder_fits.py", "--builds", "2"])
    runpy.run_path(str(BENCH.parent / "ladder_fits.py"))["main"]()
    shipped = sorted(path.stem for path in (BENCH.parent.parent / "crossenvs" / "ladders").glob("*.json"))
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split(",")[0] for line in lines] == shipped and all("all rungs" in line for line in lines)


def test_the_rating_agreement_script_reads_what_crossenvs_rate_prints(monkeypatch, capsys):
    script = runpy.run_path(str(BENCH.parent / "rating_agreement.py"))
    ladder = BENCH.parent.parent / "crossenvs" / "ladders" / "crisscross_size6.json"
    rating, low, high, command = script["rate_by_command"](ladder, "random", 1)
    assert low <= 0.0 <= high and abs(rating) < 150  # random, rated on a ladder anchored at random
    assert command.startswith("crossenvs rate random --game crisscross --option=size=6 --ladder ")
    assert script["check_ladder"](ladder, [1], ["mcts:8"]) == []  # --rungs: none of the pretrained rungs chosen
    monkeypatch.setattr("sys.argv", ["rating_agreement.py", "--fit-only", "--only", "crisscross_size6"])
    script["main"]()
    rows = capsys.readouterr().out.splitlines()
    assert rows[-1].startswith("| crisscross_size6 | 600 | ") and rows[-1].endswith(" | 10 of 10 |")
    monkeypatch.setattr("sys.argv", ["rating_agreement.py", "--only", "crisscross_size6", "--rungs", "pretrained:32"])
    with pytest.raises(
        SystemExit, match=r"--rungs pretrained:32: not a pretrained rung of crisscross_size6 \(pretrained:0"
    ):
        script["main"]()  # refused before any game


@pytest.mark.parametrize(
    "argv",
    [["steps", "crisscross", "4", "3"], ["search", "crisscross", "2", "4", "1"], ["aec", "crisscross", "1"],
     ["cold-vector", "crisscross"], ["cold-search", "crisscross"]],
    ids=lambda argv: argv[0],
)  # fmt: skip
def test_the_whole_process_timer_runs_each_mode_and_prints_its_seconds(argv, capsys):
    """benchmarks/whole_process.py, each mode at a smoke size (the paired runs of the benchmarks page time it)."""
    timer = runpy.run_path(str(BENCH.parent / "whole_process.py"))
    timer["main"](argv)
    assert re.fullmatch(rf"{argv[0]} crisscross {' '.join(argv[2:])}: \d+\.\d{{3}} s\n", capsys.readouterr().out)


@pytest.mark.parametrize("argv", [["step-rate", "crisscross", "4"], ["search-rate", "crisscross", "2", "4"]])
def test_the_whole_process_rates_print_a_positive_figure(argv, capsys):
    """The in-process rates (a step's microseconds, a search's milliseconds) that the paired tables quote."""
    timer = runpy.run_path(str(BENCH.parent / "whole_process.py"))
    timer["main"](argv)
    assert float(capsys.readouterr().out) > 0


def test_another_checkout_is_imported_from_its_own_folder(tmp_path):
    """--checkout puts another checkout's package first, past an editable install's finder (PYTHONPATH cannot)."""
    fake = tmp_path / "crossenvs"
    fake.mkdir()
    (fake / "__init__.py").write_text("WHERE = 'the other checkout'\n")
    code = (
        f"import runpy, sys; timer = runpy.run_path({str(BENCH.parent / 'whole_process.py')!r}); "
        f"timer['use_checkout']({str(tmp_path)!r}); import crossenvs; print(crossenvs.WHERE)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "the other checkout", done.stderr[-2000:]


def test_the_whole_process_timer_refuses_an_unknown_mode():
    timer = runpy.run_path(str(BENCH.parent / "whole_process.py"))
    with pytest.raises(SystemExit, match="unknown mode 'walk'"):
        timer["main"](["walk", "crisscross"])


def test_the_paired_runner_times_a_row_in_another_process_and_refuses_a_base_without_the_package(tmp_path):
    """benchmarks/paired.py: one figure is one process of whole_process.py on the checkout named (here this one);
    a --base that holds no crossenvs package stops before any run."""
    paired = runpy.run_path(str(BENCH.parent / "paired.py"))
    assert paired["figure"](BENCH.parent.parent, ("aec", "crisscross", "1")) > 0
    with pytest.raises(SystemExit):
        paired["main"](["--base", str(tmp_path)])
