"""``precision: auto`` decides from the hardware, never from a timing: one config and seed train in the same
number format in every run on a machine (a start-up race between float32 and bfloat16 picked float32 in one
run and bfloat16 in the next, at half the positions per second)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml
from conftest import AZ_TINY

from crossenvs.az import network
from crossenvs.az.network import AlphaZeroNet, auto_precision


def test_a_cpu_with_native_bfloat16_gets_it_and_one_without_gets_float32(monkeypatch):
    for features, expected in [
        ({"avx2", "avx512_f", "avx512_bf16"}, "bfloat16"),
        ({"avx2", "amx_tile", "amx_bf16"}, "bfloat16"),
        ({"avx2", "avx512_f"}, "float32"),  # bfloat16 would be emulated: several times slower
        (set(), "float32"),
    ]:
        monkeypatch.setattr(network, "cpu_features", lambda features=features: features)
        precision, reason = auto_precision("cpu")
        assert precision == expected, features
        assert reason.startswith(f"auto: {expected}")
        if expected == "bfloat16":
            assert "bf16" in reason  # names the feature that decided it


def test_a_gpu_gets_float32_whatever_it_supports(monkeypatch):
    """On an H100 these networks ran no faster in bfloat16 (docs/benchmarks.md): float32, without asking the card."""
    monkeypatch.setattr(network, "cpu_features", lambda: {"avx512_bf16"})  # what the host has does not matter
    precision, reason = auto_precision("cuda")
    assert precision == "float32" and "GPU" in reason


def opened(tmp_path: Path, precision: str, run_dir: str):
    """A new AlphaZero run of the tiny config in ``precision``, opened as ``crossenvs train alphazero --config``
    opens it (folder, network, precision; no training)."""
    from crossenvs.az.run import Run

    config = tmp_path / f"{precision}.yaml"
    config.write_text(yaml.safe_dump({**AZ_TINY, "precision": precision}))
    flags = {"resume": None, "game": None, "option": [], "settings": [], "max_minutes": None, "no_progress": True}
    return Run.open(argparse.Namespace(config=str(config), run_dir=str(tmp_path / run_dir), **flags), "cpu")


def test_the_same_config_and_seed_get_the_same_precision_in_every_run_without_a_timing(tmp_path, monkeypatch):
    """Two runs of one config open in the same precision, and opening one runs no forward pass to time."""

    def no_timing(self, observations):
        raise AssertionError("precision: auto ran the network to time it")

    monkeypatch.setattr(AlphaZeroNet, "forward", no_timing)
    chosen = [opened(tmp_path, "auto", name).precision for name in ("first", "second")]
    assert chosen[0] == chosen[1] == auto_precision("cpu")[0]


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_a_precision_the_config_names_is_kept(tmp_path, precision):
    run = opened(tmp_path, precision, "run")
    assert run.precision == precision and run.precision_reason == "set in the config"
