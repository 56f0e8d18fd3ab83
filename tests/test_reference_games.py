"""The reference games' rules on worked positions (docs/hex.md, docs/connect_four.md): Hex's six neighbours and
its swap, Connect Four's gravity, lines, full columns and draws, and the texts each refuses."""

from __future__ import annotations

import numpy as np
import pytest

from crossenvs import IllegalActionError, PositionTextError, make_game

HEX_4 = "to_move: black\nply: 6\n4 . B . .\n3 . B W .\n2 W W . .\n1 . . B .\n"


def test_hex_cells_touch_along_one_diagonal_only():
    """c2 joins c1 to b3 (rank + 1, file - 1): Black wins; d2's chain reaches no stone on rank 4."""
    game = make_game("hex", size=4)
    state = game.from_text(HEX_4)
    assert game.outcome(game.apply(state, game.str_to_action(state, "c2"))) == (1.0, -1.0)
    assert game.outcome(game.apply(state, game.str_to_action(state, "d2"))) is None
    small = make_game("hex", size=2)
    assert small.outcome(small.from_text("to_move: white\nply: 2\n2 . B\n1 B .\n")) is None  # a1, b2: no touch
    assert small.outcome(small.from_text("to_move: white\nply: 2\n2 B .\n1 . B\n")) == (1.0, -1.0)  # b1, a2


def test_white_joins_the_files_and_plays_in_the_transposed_frame():
    game = make_game("hex", size=3)
    state = game.from_text("to_move: white\nply: 4\n3 B . .\n2 W W .\n1 B . .\n")
    action = game.str_to_action(state, "c2")
    assert action == 2 * 3 + 1  # White's frame: row = file c (2), col = rank 2 - 1
    won = game.apply(state, action)
    assert (
        game.outcome(won) == (-1.0, 1.0) and game.end_reason(won) == "White wins: White joined the left and right files"
    )


def test_the_swap_takes_over_blacks_stone_mirrored_and_is_open_on_whites_first_turn_only():
    game = make_game("hex", size=5, swap=True)
    start = game.initial_state()
    assert game.legal_mask(start)[25] == 0
    after = game.apply(start, game.str_to_action(start, "b4"))
    assert game.legal_mask(after)[25] == 1 and game.observe(after, 1)[:, :, 2].min() == 1.0
    swapped = game.apply(after, 25)
    assert game.to_text(swapped) == game.to_text(
        game.from_text("to_move: black\nply: 2\n2 . . . W .\n")
    )  # b4 (rank 4, file b) -> d2 (rank 2, file d), White's
    assert game.legal_mask(swapped)[25] == 0 and game.observe(swapped, 0)[:, :, 2].max() == 0.0
    assert game.legal_mask(game.apply(after, 0))[25] == 0  # a stone instead: no swap later


def test_the_swap_on_a_text_board_recolours_and_mirrors_every_stone():
    game = make_game("hex", size=3, swap=True)
    state = game.from_text("to_move: white\nply: 1\n3 . . B\n2 W . .\n1 B . .\n")
    swapped = game.apply(state, 9)
    expected = game.from_text("to_move: black\nply: 2\n3 . . W\n2 . . .\n1 W B .\n")
    assert swapped == expected


def test_hex_without_the_swap_rule_refuses_the_word():
    game = make_game("hex", size=5)
    with pytest.raises(IllegalActionError, match="'swap' needs the swap rule"):
        game.str_to_action(game.initial_state(), "swap")
    assert game.num_actions == 25 and game.observation_shape == (5, 5, 2)


def test_connect_four_discs_fall_and_a_full_column_is_refused():
    game = make_game("connect_four")
    state = game.initial_state()
    for _ in range(6):
        state = game.apply(state, 3)
    assert "".join(game.to_text(state).split("\n")[2:8]).count("R") == 3  # d1..d6 alternate R, Y
    assert game.legal_mask(state).tolist() == [1, 1, 1, 0, 1, 1, 1]
    with pytest.raises(IllegalActionError, match="illegal move d"):
        game.apply(state, 3)
    assert game.action_cells(state, 3) == [] and game.action_cells(state, 0) == [(0, 0)]


@pytest.mark.parametrize(
    ("moves", "winner"),
    [("ddcceef", (1.0, -1.0)), ("abababa", (1.0, -1.0)), ("gabbccdcdddd", None), ("abcdbcdcdd", None)],
    ids=["across", "up", "none-yet", "none"],
)
def test_connect_four_lines(moves, winner):
    game = make_game("connect_four")
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, game.str_to_action(state, move))
    assert game.outcome(state) == winner


def test_connect_four_diagonal_for_yellow():
    game = make_game("connect_four")
    text = "to_move: yellow\nply: 9\n4 . . . . . . .\n3 . . Y R . . .\n2 . Y R R . . .\n1 Y R R Y . . .\n"
    state = game.from_text(text)
    won = game.apply(state, game.str_to_action(state, "d"))
    assert game.outcome(won) == (-1.0, 1.0) and game.end_reason(won) == "Yellow wins: Yellow made four in a line"


def test_a_full_grid_without_a_line_is_a_draw():
    game = make_game("connect_four", columns=4, rows=4)
    rows = ["R R Y Y", "Y Y R R", "R R Y Y", "Y Y R ."]  # rank 1 first
    text = "to_move: red\nply: 15\n" + "".join(f"{4 - k} {rows[3 - k]}\n" for k in range(4))
    state = game.from_text(text)
    last = game.apply(state, game.str_to_action(state, "d"))
    assert game.outcome(last) == (0.0, 0.0) and not game.legal_mask(last).any()
    assert game.end_reason(last) == "Draw: the grid is full and nobody has four in a line"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("to_move: red\n2 . R . . . . .\n", "the disc on b2 floats above an empty cell"),
        ("to_move: red\n2 Y Y Y Y . . .\n1 R R R R . . .\n", "both colours have four in a line"),
    ],
    ids=["floating", "two-lines"],
)
def test_connect_four_texts_that_cannot_happen_are_refused(text, message):
    with pytest.raises(PositionTextError, match=message):
        make_game("connect_four").from_text(text)


def test_connect_four_observations_are_own_discs_first_for_both_seats():
    game = make_game("connect_four")
    state = game.apply(game.initial_state(), 2)
    red, yellow = game.observe(state, 0), game.observe(state, 1)
    assert red[0, 2, 0] == 1.0 and yellow[0, 2, 1] == 1.0
    assert np.array_equal(red[:, :, ::-1], yellow)
