"""More of what a newcomer meets (issue: first contact): each case here failed once, in the words quoted."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import yaml

import crossenvs
from crossenvs import list_games
from crossenvs.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_a_bad_opponent_is_named_once_not_twice():
    """Was: "opponent 'mcts:abc': player 'mcts:abc': ..." (the prefix repeated)."""
    with pytest.raises(crossenvs.CrossenvsError) as caught:
        gymnasium.make("crossenvs/Crisscross-v0", size=4, opponent="mcts:abc")
    assert str(caught.value).count("abc") == 1 and "not a whole number" in str(caught.value)


def test_unicode_digits_on_the_command_line_are_one_clear_error(capsys):
    """Was: `--players 'mcts:²'` passed str.isdigit and ended in int()'s raw ValueError."""
    assert main(["eval", "crisscross", "--option", "size=4", "--players", "mcts:²", "random"], out=io.StringIO()) == 2
    error = capsys.readouterr().err
    assert "'²' is not a whole number" in error and "Traceback" not in error


def test_unicode_digits_in_a_training_config_stop_the_run_before_any_folder(tmp_path):
    config = {"game": "crisscross", "options": {"size": 4}, "eval_opponent": "mcts:²", "max_minutes": 0.05}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    run = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, str(ROOT / "training" / "alphazero.py"), "--config", str(tmp_path / "config.yaml"),
         "--run-dir", str(run), "--no-progress"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "'²' is not a whole number" in result.stderr and "Traceback" not in result.stderr
    assert not run.exists()


def test_gif_says_where_it_wrote(tmp_path):
    """Was: `crossenvs gif crisscross` wrote ./game.gif without a word."""
    out, target = io.StringIO(), tmp_path / "one.gif"
    assert main(["gif", "crisscross", "--option", "size=4", "--out", str(target)], out=out) == 0
    assert re.fullmatch(rf"wrote {re.escape(str(target))} \(\d+ frames\)\n", out.getvalue())
    assert target.stat().st_size > 0


@pytest.mark.slow
def test_an_mcts_arena_on_a_cold_cache_says_it_is_compiling(tmp_path):
    """Was: `crossenvs eval crossings --players mcts:50 random --games 4` sat silent for 19 s."""
    command = [sys.executable, "-m", "crossenvs.cli", "eval", "crisscross", "--option", "size=4",
               "--players", "mcts:20", "greedy", "--games", "2"]  # fmt: skip
    env = {**os.environ, "CROSSENVS_CACHE_DIR": str(tmp_path), "CROSSENVS_COMPILE_NOTICE": "1"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "compiling the MCTS search for crisscross, first use only" in result.stderr


def test_a_crafted_zip_given_to_crossenvs_eval_is_refused_without_unpickling(tmp_path, capsys):
    from test_faults import crafted_zip

    marker = tmp_path / "pwned"
    evil = crafted_zip(tmp_path / "step_64.zip", marker)
    argv = ["eval", "crisscross", "--option", "size=4", "--players", str(evil), "random", "--games", "2"]
    assert main(argv, out=io.StringIO()) == 2
    assert "pickle:" in capsys.readouterr().err and not marker.exists()


def test_the_security_page_says_what_is_trusted_and_is_in_the_site():
    page = (DOCS / "security.md").read_text()
    for words in ("pickle:", "rllib:", "--trust-pickles", "az:", "weights"):
        assert words in page, f"docs/security.md does not mention {words}"
    assert "security" in (DOCS / "index.md").read_text()


def test_every_games_start_view_screenshot_is_in_the_docs():
    evaluation = (DOCS / "evaluation.md").read_text()
    for name in [game for game in list_games() if game != "tictactoe"]:
        image = DOCS / "images" / f"serve_{name}.png"
        assert image.is_file() and image.stat().st_size > 10_000, image
        assert f"images/serve_{name}.png" in evaluation
