"""Every registered game, built-in or example, through the one contract suite (crossenvs.testing).

A game registered anywhere joins this test: the cases come from the registry (each game's
defaults plus the ``test_options`` it declared), so a new game needs no edit here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crossenvs import UsageError, game_spec, list_games, make_game
from crossenvs.testing import check_game

GOLDEN = Path(__file__).parent / "golden"
CASES = [(name, options) for name in list_games() for options in [{}, *game_spec(name).test_options]]


def case_id(name: str, options: dict) -> str:
    return name + "".join(f"-{key}={value}" for key, value in options.items())


@pytest.mark.parametrize("name, options", CASES, ids=[case_id(*case) for case in CASES])
def test_game_keeps_the_contract(name, options):
    golden = GOLDEN if not options else None  # the golden files of a game are replayed once
    report = check_game(name, golden_dir=golden, **options)
    assert report.states == 600 and report.ids_checked > report.states
    assert report.games_finished >= 1, "no random game finished within 600 plies"
    assert report.twins_checked == report.states, "every game defines its egocentric twin"
    assert report.vector_steps > 0 and report.numba_parity
    if len(make_game(name, **options).symmetries()) > 1:
        assert report.symmetries_checked > 100, "the declared symmetries were compared on too few positions"
    if golden is not None:
        assert report.golden_files >= 1, f"no golden playthrough of {name} in {GOLDEN}"


def test_the_registry_lists_the_example_game_too():
    assert {"crosse", "crossings", "neo_crossings", "charing_cross", "crisscross", "tictactoe"} <= set(list_games())


def test_golden_files_are_never_regenerated_under_ci(monkeypatch, tmp_path):
    """A rewritten golden file is compared with itself: CI refuses the rewrite, a local run makes it."""
    from crossenvs.testing.contract import _check_golden

    original = (GOLDEN / "crisscross_size5_seed0.txt").read_text()
    golden = tmp_path / "crisscross_size5_seed0.txt"
    golden.write_text(original.splitlines(keepends=True)[0] + "a changed playthrough\n")
    monkeypatch.setenv("CROSSENVS_REGENERATE_GOLDEN", "1")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(UsageError, match="refused when CI is set"):
        _check_golden("crisscross", tmp_path)
    assert golden.read_text().endswith("a changed playthrough\n")  # nothing rewritten
    monkeypatch.delenv("CROSSENVS_REGENERATE_GOLDEN")
    with pytest.raises(AssertionError, match="no longer replays"):
        _check_golden("crisscross", tmp_path)
    monkeypatch.delenv("CI")
    monkeypatch.setenv("CROSSENVS_REGENERATE_GOLDEN", "1")
    assert _check_golden("crisscross", tmp_path) == 1 and golden.read_text() == original
