"""The command line a newcomer meets: defaults and an example in every help, forgiving game names, `check`."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from crossenvs.cli import EXAMPLES, build_parser, canonical_game
from crossenvs.cli import main as cli

EXAMPLE_GAME = Path(__file__).resolve().parent.parent / "examples" / "tictactoe.py"


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_every_command_shows_its_defaults_and_an_example(command, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = capsys.readouterr().out
    assert EXAMPLES[command] in text
    if command in ("eval", "gif", "play"):
        assert "(default: 0)" in text  # --seed
    if command == "gif":
        assert "(default: game.gif)" in text and "(default: ['random', 'random'])" in text
    if command == "eval":
        assert "(default: 20)" in text  # --games


@pytest.mark.parametrize("typed", ["Crisscross", "CRISSCROSS", "charing-cross", "Charing Cross", " crosse "])
def test_game_names_are_read_in_any_case(typed):
    assert canonical_game(typed) in ("crisscross", "charing_cross", "crosse")


def test_a_misspelt_game_gets_a_did_you_mean(capsys):
    assert cli(["gif", "crisscros"]) == 2
    assert "Did you mean 'crisscross'?" in capsys.readouterr().err


def test_a_capitalised_game_runs(tmp_path):
    out = io.StringIO()
    assert cli(["gif", "Crisscross", "--option", "size=3", "--out", str(tmp_path / "g.gif")], out=out) == 0
    assert (tmp_path / "g.gif").is_file()


def test_check_runs_the_contract_suite_on_a_users_game():
    out = io.StringIO()
    assert cli(["check", str(EXAMPLE_GAME), "tictactoe", "--plies", "60"], out=out) == 0
    assert "passed tictactoe: states 60" in out.getvalue()


def test_check_fails_with_the_suites_message_for_a_broken_game(tmp_path):
    """In a subprocess: the broken game must not stay registered beside the others in this one."""
    module = tmp_path / "check_me_broken_ttt.py"
    module.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(EXAMPLE_GAME.parent)!r})
            import tictactoe
            from crossenvs import register_game


            class Broken(tictactoe.TicTacToe):
                name = "broken_ttt"

                def action_to_str(self, state, action):
                    return "a1"  # every move claims the same square: notation does not read back


            register_game("broken_ttt", Broken)
            """
        )
    )
    run = subprocess.run(
        [sys.executable, "-m", "crossenvs.cli", "check", str(module), "--plies", "30"], capture_output=True, text=True
    )
    assert run.returncode == 1, run.stderr
    assert "FAILED broken_ttt: notation 'a1' does not read back" in run.stdout


def test_check_of_a_module_that_registers_nothing_says_so(tmp_path, capsys, monkeypatch):
    (tmp_path / "check_me_registers_nothing.py").write_text("x = 1\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "check_me_registers_nothing", raising=False)
    assert cli(["check", str(tmp_path / "check_me_registers_nothing.py")]) == 2
    assert "registers no new game" in capsys.readouterr().err


def test_check_of_a_missing_file_names_the_argument_not_a_flag_never_given(tmp_path, capsys):
    assert cli(["check", str(tmp_path / "missing.py")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: module {tmp_path / 'missing.py'}: no such file") and "--import" not in err, err
    assert cli(["--import", str(tmp_path / "missing.py"), "list"]) == 2
    assert f"--import {tmp_path / 'missing.py'}: no such file" in capsys.readouterr().err


def help_of(argv, capsys) -> str:
    """A command's help as one line of words (argparse wraps lines wherever the width falls)."""
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_a_default_is_shown_once_and_only_where_it_tells_something(command, capsys):
    text = help_of([command], capsys)
    assert "(default: None)" not in text and "(default: [])" not in text and "(default: False)" not in text
    assert not re.search(r"\(default[^)]*\) \(default", text), text  # e.g. (default: not written) (default: None)
    if command == "eval":
        assert "--players SPEC [SPEC ...] two or more of:" in text and "(default: not written) --json" in text
    if command == "rate":
        assert "(default: 100.0)" in text and "(default: the one shipped for the game)" in text


@pytest.mark.parametrize("command", ["eval", "play", "gif", "solve", "ladder"])
def test_a_commands_help_points_to_the_game_options_instead_of_listing_every_games(command, capsys):
    text = help_of([command], capsys)
    assert "stuck_tokens" not in text and "symmetry_rule" not in text and "size=8" not in text
    assert f"crossenvs {command} GAME --help lists that game's, crossenvs list every game's" in text


def test_help_after_a_game_lists_that_games_options_only(capsys):
    text = help_of(["eval", "Crosse"], capsys)
    assert "crosse options: first_player='black'" in text and "stuck_tokens='refresh'" in text
    assert "size=8" not in text and "symmetry_rule" not in text
    rate = help_of(["rate", "--game", "crisscross"], capsys)
    assert "crisscross options: size=8 (an integer from 3 to 19)" in rate and "move_cap" not in rate
    assert "crossenvs rate --game GAME --help lists that game's" in help_of(["rate"], capsys)
    assert "game options: unknown game 'crisscros'" in help_of(["gif", "crisscros"], capsys)


def test_solve_has_no_seed_since_it_draws_nothing_at_random(capsys):
    assert "--seed" not in help_of(["solve"], capsys)
    assert "--seed SEED seed of the players' random choices (default: 0)" in help_of(["eval"], capsys)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["solve", "crisscross", "--seed", "3"])
    assert "unrecognized arguments: --seed 3" in capsys.readouterr().err
