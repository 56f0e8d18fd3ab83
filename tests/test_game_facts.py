"""Game facts are declared with the game (OpenSpiel's model): its name as people write it, a paragraph
of rules, each option's label and whether forms fold it away, and the move tokens the page shows.
A game that declares none (a user's) reads well from its registration; nothing outside the game
keys them by its name."""

from __future__ import annotations

from pathlib import Path

import pytest
from tictactoe import TicTacToe

from crossenvs import GameFacts, GameSpec, InvalidOptionError, game_spec, list_games, make_game
from crossenvs.core.options import choice, first_player, integer, move_cap

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = ("crisscross", "crossings", "neo_crossings", "charing_cross", "crosse", "hex", "connect_four")


@pytest.mark.parametrize("name", list_games())
def test_every_game_has_a_display_name_and_a_paragraph_of_rules(name):
    facts = game_spec(name).facts
    assert facts.display_name and facts.rules_summary.endswith(".")


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_built_in_games_page_is_titled_by_its_display_name(name):
    title = (ROOT / "docs" / f"{name}.md").read_text().splitlines()[0]
    assert title == f"# {game_spec(name).facts.display_name}"


def test_a_game_that_declares_no_facts_gets_them_from_its_registration():
    class Plain(TicTacToe):
        """Noughts and crosses, plainly."""

        facts = GameFacts()

    facts = GameSpec("plain_noughts", Plain, "PlainNoughts", "three in a row on a 3x3 board").facts
    assert facts == GameFacts("Plain noughts", "Three in a row on a 3x3 board.")
    assert game_spec("tictactoe").facts.display_name == "Tic-tac-toe"  # the example declares its own


def test_facts_that_are_not_game_facts_are_refused_when_the_class_is_defined():
    with pytest.raises(InvalidOptionError, match=r"facts must be a crossenvs\.GameFacts"):

        class Loose(TicTacToe):
            facts = {"display_name": "Loose"}


def test_an_option_is_labelled_by_its_name_unless_it_declares_a_label():
    assert integer("board_size", 8, 3, 19, "the side").label == "Board size"
    assert not integer("board_size", 8, 3, 19, "the side").advanced
    assert choice("rule", "a", ("a", "b"), "which", label="The rule", advanced=True).describe() == {
        "name": "rule",
        "kind": "choice",
        "default": "a",
        "help": "which",
        "choices": ["a", "b"],
        "label": "The rule",
        "advanced": True,
    }
    assert move_cap(10).advanced and first_player("red", ("red", "blue")).label == "Colour that moves first"


def test_the_view_shows_move_tokens_only_in_a_game_that_has_them():
    crosse = make_game("crosse", first_player="white")
    state = crosse.initial_state()
    assert crosse.view.move_tokens(state) == {colour: crosse.tokens(state, colour) for colour in crosse.colours}
    assert list(crosse.view.move_tokens(state)) == ["white", "black"]
    assert make_game("crisscross").view.move_tokens(make_game("crisscross").initial_state()) is None


def test_the_web_layer_keys_nothing_by_a_games_name():
    for module in ("board.py", "sessions.py", "app.py"):
        source = (ROOT / "crossenvs" / "web" / module).read_text()
        assert not [name for name in BUILT_IN if f'"{name}"' in source], module
