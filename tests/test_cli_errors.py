"""Every bad input to the ``crossenvs`` command ends in one line ``error: ...`` and exit code 2, before any game.

The checks come first: a command whose arguments are refused never makes a game (``make_game`` is
replaced by a tripwire below), so no arena is played only for its results to be lost at the end.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import crossenvs
from crossenvs import cli
from crossenvs.cli import common as cli_common
from crossenvs.eval.arena import round_robin
from crossenvs.players import GreedyPlayer, MCTSPlayer, RandomPlayer, make_player
from crossenvs.support import command_args as checks
from crossenvs.support.errors import InvalidOptionError, OutputPathError, UsageError


def run(arguments: list[str], capsys) -> tuple[int, str]:
    """The exit code and stderr of ``crossenvs <arguments>``."""
    code = cli.main(arguments, out=io.StringIO(), source=io.StringIO("quit\n"))
    return code, capsys.readouterr().err


def assert_one_line_error(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert message in err, err


@pytest.fixture
def no_game(monkeypatch):
    """A tripwire: the checks must refuse the arguments before any game is made."""

    def tripwire(*args, **kwargs):
        raise AssertionError("a game was made before the arguments were checked")

    monkeypatch.setattr(cli_common, "make_game", tripwire)  # where every command makes its game


@pytest.fixture
def run_dir(tmp_path) -> Path:
    """A folder shaped like a training run (checkpoints/), for rating-plot's argument checks."""
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    return tmp_path / "run"


# ----------------------------------------------------------------------------- seeds
@pytest.mark.parametrize(
    "arguments",
    [
        ["eval", "crisscross", "--players", "random", "greedy"],
        ["play", "crisscross"],
        ["gif", "crisscross"],
        ["rating-plot", "RUN"],
    ],
    ids=["eval", "play", "gif", "rating-plot"],
)
@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_every_command_refuses_a_seed_out_of_range(arguments, seed, capsys, no_game, run_dir):
    arguments = [str(run_dir) if word == "RUN" else word for word in arguments]
    code, err = run([*arguments, "--seed", seed], capsys)
    assert_one_line_error(code, err, f"--seed must be in 0..2**63-1, got {seed}")


def test_the_largest_seed_plays(capsys, tmp_path):
    biggest = str(2**63 - 1)
    arena = ["eval", "crisscross", "--option", "size=3", "--players", "random", "greedy", "--games", "2"]
    assert run([*arena, "--seed", biggest], capsys)[0] == 0
    gif = ["gif", "crisscross", "--option", "size=3", "--out", str(tmp_path / "g.gif"), "--seed", biggest]
    assert run(gif, capsys)[0] == 0


@pytest.mark.parametrize("seed", [-1, 2**63, True, 1.5, "7"])
def test_players_and_arenas_refuse_bad_seeds(seed):
    for make in (RandomPlayer, GreedyPlayer, lambda seed: MCTSPlayer(10, seed=seed)):
        with pytest.raises(InvalidOptionError, match="seed must be"):
            make(seed)
    with pytest.raises(InvalidOptionError, match="seed must be"):
        make_player("random", seed=seed)
    game = crossenvs.make_game("crisscross", size=3)
    with pytest.raises(InvalidOptionError, match="round_robin seed must be"):
        round_robin(game, [RandomPlayer(), GreedyPlayer()], 2, seed=seed)


def test_players_take_every_seed_in_range():
    for seed in (None, 0, 2**63 - 1, np.int64(5), np.uint32(7)):
        RandomPlayer(seed).seed(seed)
    game = crossenvs.make_game("crisscross", size=3)
    assert len(round_robin(game, [RandomPlayer(), GreedyPlayer()], 2, seed=2**63 - 1)) == 2
    with pytest.raises(InvalidOptionError, match="games_per_pair must be"):
        round_robin(game, [RandomPlayer(), GreedyPlayer()], 0)


# ----------------------------------------------------------------------------- numbers and their ranges
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["eval", "crisscross", "--players", "random", "greedy", "--games", "0"], "--games must be from 1 to 100000"),
        (["eval", "crisscross", "--players", "random", "greedy", "--games", "-4"], "--games must be from 1 to 100000"),
        (["eval", "crisscross", "--players", "random", "greedy", "--opening-plies", "-1"], "--opening-plies must be"),
        (["eval", "crisscross", "--players", "random"], "--players: an arena needs at least two players"),
        (["gif", "crisscross", "--ms", "-5"], "--ms (milliseconds per frame; GIFs keep hundredths of a second) must"),
        (["gif", "crisscross", "--ms", "0"], "must be from 10 to 655350, got 0"),
        (["rating-plot", "RUN", "--games", "0"], "--games must be from 1 to 100000, got 0"),
        (["rating-plot", "RUN", "--mcts", "0"], "--mcts must be at least 1, got 0"),
        (["rating-plot", "RUN", "--mcts", "-3"], "--mcts must be at least 1, got -3"),
        (["rating-plot", "RUN", "--simulations", "-1"], "--simulations must be at least 0, got -1"),
    ],
)
def test_numbers_out_of_range_name_the_flag_and_the_range(arguments, message, capsys, no_game, run_dir):
    arguments = [str(run_dir) if word == "RUN" else word for word in arguments]
    code, err = run(arguments, capsys)
    assert_one_line_error(code, err, message)
    assert "num_envs" not in err


# ----------------------------------------------------------------------------- output paths
def test_output_paths_are_checked_before_any_game(tmp_path, capsys, no_game, run_dir):
    arena = ["eval", "crisscross", "--players", "random", "greedy"]
    cases = [
        ([*arena, "--csv", str(tmp_path)], f"--csv {tmp_path} is a folder; give a file name in it"),
        ([*arena, "--json", str(tmp_path / "no" / "r.json")], f"the folder {tmp_path / 'no'} does not exist"),
        ([*arena, "--csv", str(tmp_path / "r.x"), "--json", str(tmp_path / "r.x")], "both name"),
        (["gif", "crisscross", "--out", str(tmp_path / "game.png")], "the name must end in .gif, e.g. game.gif"),
        (["gif", "crisscross", "--out", str(tmp_path)], f"--out {tmp_path} is a folder"),
        (["gif", "crisscross", "--out", str(tmp_path / "none" / "g.gif")], "does not exist; create it first"),
        (["rating-plot", str(run_dir), "--out", str(tmp_path / "plot.txt")], "must end in .png, .pdf, .svg"),
        (["rating-plot", str(run_dir), "--out", str(tmp_path / "none" / "p.png")], "does not exist"),
    ]
    for arguments, message in cases:
        code, err = run(arguments, capsys)
        assert_one_line_error(code, err, message)


def test_a_read_only_folder_is_refused_before_any_game(tmp_path, capsys, no_game, read_only):
    locked = tmp_path / "locked"
    locked.mkdir()
    read_only(locked)
    arguments = ["eval", "crisscross", "--players", "random", "greedy", "--csv", str(locked / "r.csv")]
    code, err = run(arguments, capsys)
    assert_one_line_error(code, err, f"--csv {locked / 'r.csv'}: cannot write in {locked} (read-only?)")
    code, err = run(["gif", "crisscross", "--out", str(locked / "g.gif")], capsys)
    assert_one_line_error(code, err, "cannot write in")


def test_check_output_file_accepts_a_new_or_existing_file(tmp_path):
    assert checks.check_output_file(tmp_path / "a.gif", "--out", (".gif",)) == tmp_path / "a.gif"
    (tmp_path / "b.csv").write_text("old")
    assert checks.check_output_file(tmp_path / "b.csv", "--csv").name == "b.csv"
    assert (tmp_path / "b.csv").read_text() == "old" and not list(tmp_path.glob(".crossenvs-*"))
    with pytest.raises(OutputPathError, match="is a file, not a folder"):
        checks.check_output_file(tmp_path / "b.csv" / "c.csv", "--csv")
    with pytest.raises(UsageError, match="must be a finite number of minutes above 0"):
        checks.check_minutes(float("inf"), "--max-minutes")


# ----------------------------------------------------------------------------- other bad inputs
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["eval", "crisscross", "--option", "colour=red", "--players", "random", "greedy"], "unknown option(s) colour"),
        (["eval", "crisscross", "--option", "size=abc", "--players", "random", "greedy"], "size must be an integer"),
        (["eval", "crisscross", "--option", "size", "--players", "random", "greedy"], "write key=value"),
        (
            ["eval", "crisscross", "--option", "size=5", "--option", "size=6", "--players", "random", "greedy"],
            "--option size is given twice (size=5, size=6); give it once",
        ),
        (["eval", "crisscross", "--players", "random", "nobody"], "unknown player 'nobody'"),
        (
            ["eval", "crisscross", "--option", "size=5", "--players", "pretrained", "random"],
            "no pretrained agent for crisscross size=5; available: crisscross size=6, crisscross (default options), ",
        ),
        (["rating-plot", "MISSING"], "no such folder"),
        (["rating-plot", "NOT_A_RUN"], "it has no checkpoints/ folder, so it is not a training run's folder"),
        (["rating-plot", "RUN"], "no checkpoints in"),
    ],
)
def test_other_bad_inputs_are_one_line(arguments, message, capsys, tmp_path, run_dir):
    folders = {"MISSING": tmp_path / "missing", "NOT_A_RUN": tmp_path, "RUN": run_dir}
    arguments = [str(folders.get(word, word)) for word in arguments]
    code, err = run(arguments, capsys)
    assert_one_line_error(code, err, message)


def test_rating_plot_of_a_run_with_a_missing_model_is_one_line(capsys, run_dir):
    meta = {"game": "crisscross", "options": {"size": 4}, "step": 5}
    (run_dir / "checkpoints" / "step_5.json").write_text(json.dumps(meta))
    code, err = run(["rating-plot", str(run_dir), "--games", "2"], capsys)
    assert_one_line_error(code, err, "step_5.zip does not exist")


def test_an_imported_file_with_a_syntax_error_is_one_line(capsys, tmp_path):
    (tmp_path / "broken_game.py").write_text("def (:\n")
    code, err = run(["--import", str(tmp_path / "broken_game.py"), "list"], capsys)
    assert_one_line_error(code, err, f"--import {tmp_path / 'broken_game.py'}: invalid syntax (")
    assert "line 1)" in err
