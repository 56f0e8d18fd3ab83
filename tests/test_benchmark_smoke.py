"""The benchmark script runs end to end (tiny budget; speed itself is never asserted in tests)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import crossenvs

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def test_benchmark_runs_and_reports_ratios(tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench = runpy.run_path(str(BENCH))
    bench["main"](["--seconds", "0.05", "--size", "6", "--batch-sizes", "4", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "AEC env / PettingZoo connect_four_v3" in printed
    figures = json.loads(out.read_text())
    for label in ("crisscross 6x6", "crossings", "neo_crossings", "charing_cross", "crosse"):
        assert figures["rates"][f"crossenvs {label} engine"] > 0
        assert figures["rates"][f"crossenvs {label} AEC env()"] > 0
    assert "crossings: engine loop / OpenSpiel breakthrough (target >= 1)" in figures["ratios"]
    assert "crisscross 6x6: engine loop / OpenSpiel hex 11x11 (target >= 1)" in figures["ratios"]
    assert figures["rates"]["crossenvs crossings vector B=4"] > 0
    assert figures["rates"]["pgx othello B=4 (CPU JAX)"] > 0  # pgx is part of the bench extra
    assert "crossings: vector B=4 / pgx othello B=4" in figures["ratios"]
    assert "crosse: engine loop / OpenSpiel checkers (target >= 1)" in figures["ratios"]
    assert "crosse: AEC env / PettingZoo connect_four_v3 (target >= 2)" in figures["ratios"]
    others = [game for game in crossenvs.list_games() if game not in bench["PEER_OF"]]
    assert "tictactoe" in others and figures["rates"]["crossenvs tictactoe engine"] > 0  # rows follow the registry
    assert len(figures["ratios"]) == 4 * 5 + 3 * len(others)  # four per game with a peer, three otherwise


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
    table = runpy.run_path(str(BENCH.parent / "pretrained.py"))
    out = tmp_path / "pretrained.json"
    scores = table["main"](["--games", "2", "--simulations", "2", "--baselines", "random", "--json", str(out)])
    assert scores and all(0.0 <= row["random"] <= 1.0 for row in scores.values())
    assert json.loads(out.read_text())["games"] == 2


def test_cold_start_benchmark_runs():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(BENCH.parent / "cold_start.py")], capture_output=True, text=True, check=True
    )
    seconds = [float(value) for value in out.stdout.split()]
    assert len(seconds) == 4 and all(value > 0 for value in seconds)
