"""Position text round trips and every kind of bad input getting a clear error."""

from __future__ import annotations

import pickle

import pytest

import crossenvs
from crossenvs import IllegalActionError, InvalidOptionError, PositionTextError, UnknownGameError, make_game


def test_unknown_game_names_the_choices():
    with pytest.raises(UnknownGameError, match=r"unknown game 'crisscros'.*Did you mean 'crisscross'"):
        make_game("crisscros")
    with pytest.raises(UnknownGameError):
        crossenvs.envs.make_env("chess")


@pytest.mark.parametrize("size", [2, 20, 0, -1, 8.0, "8", True])
def test_board_size_out_of_range(size):
    with pytest.raises(InvalidOptionError, match="size must be an integer from 3 to 19"):
        make_game("crisscross", size=size)


def test_unknown_option():
    with pytest.raises(InvalidOptionError, match=r"unknown option.*colour.*known options: size=8"):
        make_game("crisscross", colour="red")


@pytest.mark.parametrize("size", [3, 10, 19])
def test_every_size_from_3_to_19_builds(size):
    game = make_game("crisscross", size=size)
    assert game.num_actions == size * size and game.observation_shape == (size, size, 2)


def test_illegal_action_names_the_move(crisscross8):
    game = crisscross8
    state = game.from_text("to_move: blue\n4 . . R . . . . .\n")
    with pytest.raises(IllegalActionError, match="illegal move c4"):
        game.apply(state, game.str_to_action(state, "c4"))
    with pytest.raises(IllegalActionError, match=r"not an id in 0\.\.63"):
        game.apply(state, 64)
    with pytest.raises(IllegalActionError, match="off the 8x8 board"):
        game.str_to_action(state, "i1")
    with pytest.raises(IllegalActionError, match="not a square name"):
        game.str_to_action(state, "pass")
    finished = game.from_text("to_move: blue\n" + "".join(f"{r} . R . . . . . .\n" for r in range(8, 0, -1)))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(finished, 0)


@pytest.mark.parametrize(
    "text, message",
    [
        ("8 . . . . . . . .\n", "header 'to_move' is missing"),
        ("to_move: green\n", r"line 1: to_move: 'green' is not a colour of crisscross \(red or blue\)"),
        ("to_move: red\nply: many\n", "line 2: ply: 'many' is not an integer"),
        ("to_move: red\nply: -3\n", "line 2: ply: -3 is below 0"),
        ("to_move: red\nmood: happy\n", "line 2: unknown header 'mood'"),
        ("to_move: red\nto_move: blue\n", "line 2: header 'to_move' given twice"),
        ("to_move: red\n9 . . . . . . . .\n", r"line 2: rank 9 is off the board \(ranks 1..8\)"),
        ("to_move: red\n4 . . . . . . .\n", "line 2: rank 4 has 7 cells, expected 8"),
        ("to_move: red\n4 . . X . . . . .\n", "line 2: cell c4 is 'X'; expected one of . R B"),
        ("to_move: red\n3 . . . . . . . .\n4 . . . . . . . .\n", "line 3: rank 4 after rank 3"),
        ("to_move: red\nhello world\n", "line 2: cannot read 'hello world'"),
        ("4 . . . . . . . .\nto_move: red\n", "line 2: header 'to_move: red' after the board"),
    ],
)
def test_malformed_position_text(crisscross8, text, message):
    with pytest.raises(PositionTextError, match=message):
        crisscross8.from_text(text)


def test_text_round_trip_and_layout(crisscross6):
    game = crisscross6
    state = game.from_text("to_move: blue\nply: 7\n6 R . . . . B\n1 . . B . . .\n")
    text = game.to_text(state)
    assert text.splitlines()[:3] == ["to_move: blue", "ply: 7", "6 R . . . . B"]
    assert text.splitlines()[-1] == "  a b c d e f"
    assert game.from_text(text) == state
    assert pickle.loads(pickle.dumps(state)) == state


def test_full_board_without_winner_is_a_draw(crisscross6):
    # Rows alternate colour in pairs of columns: neither side can cross.
    text = "to_move: red\n" + "".join(f"{6 - i} {row}\n" for i, row in enumerate(DRAWN_6X6))
    state = crisscross6.from_text(text)
    assert crisscross6.outcome(state) == (0.0, 0.0)


DRAWN_6X6 = ["R R B B R R", "B B R R B B"] * 3


def test_last_empty_square_can_end_in_a_draw(crisscross6):
    """The kernel's draw branch: Red fills a6 last; c6-d6 flip but nobody connects."""
    rows = ["." + DRAWN_6X6[0][1:]] + DRAWN_6X6[1:]
    text = "to_move: red\nply: 35\n" + "".join(f"{6 - i} {row}\n" for i, row in enumerate(rows))
    before = crisscross6.from_text(text)
    assert crisscross6.outcome(before) is None
    after = crisscross6.apply(before, crisscross6.str_to_action(before, "a6"))
    assert crisscross6.to_text(after).splitlines()[2] == "6 R R R R R R"
    assert crisscross6.outcome(after) == (0.0, 0.0)
    assert not crisscross6.legal_mask(after).any()


def test_blue_win_is_read_from_text(crisscross6):
    state = crisscross6.from_text("to_move: red\n3 B B B B B B\n")
    assert crisscross6.outcome(state) == (-1.0, 1.0)


def test_passes_round_trip_through_text(crisscross6):
    state = crisscross6.from_text("to_move: red\npasses: 1\n")
    assert state.meta[3] == 1
    assert "passes: 1" in crisscross6.to_text(state)
    assert crisscross6.from_text(crisscross6.to_text(state)) == state
    assert "passes" not in crisscross6.to_text(crisscross6.initial_state())


def test_bad_arguments_to_engine_functions(crisscross6):
    state = crisscross6.initial_state()
    with pytest.raises(IllegalActionError, match="not an id"):
        crisscross6.apply(state, True)
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        crisscross6.observe(state, 2)
