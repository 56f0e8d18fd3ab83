"""``crossenvs train``: the trainers from the installed package, the configs it ships, a config of one's own,
changes on the command line, and a missing extra named in one line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
import yaml
from conftest import AZ_TINY

from crossenvs.az.network import auto_precision
from crossenvs.cli import main as cli
from crossenvs.trainer.command import new_run_config
from crossenvs.trainer.shipped import CONFIGS, shipped_configs

ROOT = Path(__file__).resolve().parent.parent


def flags(**given) -> argparse.Namespace:
    """The flags :func:`new_run_config` reads, as the parser leaves them."""
    return argparse.Namespace(**{"game": None, "config": None, "option": [], "settings": [], **given})


def test_the_configs_live_in_the_package_and_nowhere_else():
    assert CONFIGS == ROOT / "crossenvs" / "configs"
    top = ROOT / "configs"  # one copy: the checkout's configs/ is a link to the package's folder, not a second copy
    assert top.is_symlink() and top.resolve() == CONFIGS.resolve()
    assert {"crisscross6", "crossings", "crosse", "crossings_gpu"} <= set(shipped_configs("alphazero"))
    assert {"crisscross", "crossings", "crosse", "charing_cross", "neo_crossings", "hex", "connect_four"} == set(
        shipped_configs("ppo")
    )


@pytest.mark.parametrize(
    ("trainer", "given", "file", "options"),
    [
        (
            "alphazero",
            ["size=6"],
            "alphazero/crisscross6.yaml",
            {"size": 6},
        ),  # the shipped config at exactly those options
        ("alphazero", ["size=8"], "alphazero/crisscross.yaml", {"size": 8}),  # 8 is the default: the game's own config
        ("alphazero", [], "alphazero/crisscross.yaml", None),
        ("alphazero", ["size=5"], "alphazero/crisscross.yaml", {"size": 5}),  # none at size 5: the game's, changed
        ("ppo", [], "crisscross.yaml", None),  # MaskablePPO's crisscross config is the 6x6 one
        ("ppo", ["size=7"], "crisscross.yaml", {"size": 7}),
    ],
)
def test_game_picks_the_shipped_config_that_fits_its_options(trainer, given, file, options):
    path, changes = new_run_config(flags(game="crisscross", option=given), trainer, {"max_minutes": None})
    assert path == CONFIGS / file
    assert changes.get("options") == options


def test_option_changes_the_configs_options_and_set_its_keys(tmp_path):
    path, changes = new_run_config(
        flags(game="crossings", option=["move_cap=120"], settings=["eval_games=10", "precision=float32"]),
        "alphazero",
        {"max_minutes": 0.5},
    )
    assert path == CONFIGS / "alphazero" / "crossings.yaml"
    assert changes == {"eval_games": 10, "precision": "float32", "options": {"move_cap": 120}, "max_minutes": 0.5}
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({**AZ_TINY, "options": {"size": 4}}))
    path, changes = new_run_config(flags(config=str(mine), option=["size=5"]), "alphazero", {})
    assert path == mine and changes == {"options": {"size": 5}}
    assert (
        new_run_config(flags(config="crisscross6.yaml"), "alphazero", {})[0]
        == CONFIGS / "alphazero" / "crisscross6.yaml"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--config", "nope.yaml"], "--config nope.yaml: the file does not exist, nor is it the name of a shipped"),
        (["--config", "crisscross6", "--set", "eval_games"], "--set 'eval_games': write key=value"),
        (["--config", "crisscross6", "--set", "evalgames=3"], "unknown key(s) evalgames"),
        (["--game", "crisscross", "--option", "size=99"], "size"),
        (["--game", "tictac"], "unknown game 'tictac'"),
        (["--resume", "run", "--set", "eval_games=3"], "--set is for a new run (--game or --config)"),
    ],
)
def test_a_refused_train_command_is_one_line(argv, said, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli(["train", "alphazero", "--device", "cpu", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and said in err, err
    assert not (tmp_path / "runs").exists()  # refused before any run folder


@pytest.mark.parametrize(
    ("trainer", "hidden", "said"),
    [
        (
            "alphazero",
            "yaml",
            'crossenvs train alphazero: PyYAML is not installed; it comes with the train extra: pip install -e ".[train]"',
        ),
        (
            "ppo",
            "sb3_contrib",
            'crossenvs train ppo: sb3-contrib is not installed; it comes with the train extra: pip install -e ".[train]"',
        ),
        (
            "rllib",
            "ray",
            'crossenvs train rllib: ray[rllib] is not installed; it comes with the rllib extra: pip install -e ".[rllib]"',
        ),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(trainer, hidden, said, capsys, monkeypatch):
    """Was: ``No module named 'yaml'``, from deep inside the first import."""
    monkeypatch.setitem(sys.modules, hidden, None)  # as if it were not installed
    assert cli(["train", trainer, "--game", "crisscross"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {said} (in a crossenvs checkout)\n"


def test_a_config_of_ones_own_trains_is_recorded_and_resumes(tmp_path, monkeypatch, capsys):
    """The whole way through the command, in a folder of one's own: the run lands in ./runs, its config.yaml holds
    what the flags changed, the precision is said, and ``--resume`` goes on from it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({**AZ_TINY, "precision": "auto"}))
    argv = ["train", "alphazero", "--config", "mine.yaml", "--option", "size=5", "--set", "eval_games=2"]
    assert cli([*argv, "--device", "cpu", "--no-progress"]) == 0
    (run_dir,) = (tmp_path / "runs").glob("az-crisscross-*")
    recorded = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert recorded["options"] == {"size": 5} and recorded["eval_games"] == 2 and recorded["channels"] == 8
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["games"] == 2 and summary["precision"] == auto_precision("cpu")[0]
    assert (
        summary["precision_reason"] == auto_precision("cpu")[1]
        and summary["precision_reason"] in capsys.readouterr().out
    )
    resumed = ["train", "alphazero", "--resume", str(run_dir), "--max-minutes", "0.05", "--device", "cpu"]
    assert cli([*resumed, "--no-progress"]) == 0
    assert json.loads((run_dir / "summary.json").read_text())["positions"] > summary["positions"]


def test_rllib_is_a_trainer_of_the_command_too(capsys):
    """Its flags are checked before Ray starts, as the script's were."""
    assert cli(["train", "rllib", "--game", "crisscross", "--batch", "100", "--minibatch", "200"]) == 2
    assert "--minibatch 200 is larger than --batch 100" in capsys.readouterr().err


def test_the_checkout_scripts_are_the_command(capsys):
    """``make train`` and the README's ``python training/...`` lines run the installed command."""
    from conftest import training_script

    with pytest.raises(SystemExit):
        training_script("alphazero").main(["--help"])
    assert "usage: crossenvs train alphazero" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("simulatons=16", "error: --set simulatons=...: unknown key(s) simulatons; known keys: game,"),
        ("simulations=abc", "error: the command line (--set simulations=...): 'simulations' must be a whole number"),
        ("simulations=-4", "error: the command line (--set simulations=...): 'simulations' must be 0 or more, got -4"),
    ],
)
@pytest.mark.parametrize("trainer", ["alphazero", "ppo"])
def test_a_bad_set_is_blamed_on_the_command_line_not_the_shipped_config(trainer, setting, said, capsys):
    """Was: the errors named crossenvs/configs/alphazero/crisscross6.yaml, which the user never touched (the
    range check of a well-typed value did until 2026-12-02)."""
    if trainer == "ppo":  # the PPO config has no simulations: the same three faults on a key of its own
        setting, said = setting.replace("simulations", "num_envs"), said.replace("simulations", "num_envs")
        said = said.replace("0 or more", "at least 1").replace("simulatons", "num_env")
        setting = setting.replace("simulatons", "num_env")
    assert cli(["train", trainer, "--game", "crisscross", "--option", "size=6", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and "crisscross6.yaml" not in err, err


def test_a_file_at_fault_is_still_named_when_the_command_line_sets_other_keys(tmp_path, capsys):
    config = tmp_path / "mine.yaml"
    config.write_text("game: crisscross\nsimulations: -3\n")
    assert cli(["train", "alphazero", "--config", str(config), "--set", "seed=3"]) == 2
    assert capsys.readouterr().err.startswith(f"error: {config}: 'simulations' must be 0 or more, got -3")
