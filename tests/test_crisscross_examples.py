"""docs/crisscross.md: the worked examples Z1-Z8 and Z3b, position for position."""

from __future__ import annotations

from conftest import position, position_from_squares

from crossenvs.games.crisscross import has_connection


def play(game, text: str, move: str):
    """Load ``text``, play ``move`` (notation), return (before, after)."""
    before = game.from_text(text)
    after = game.apply(before, game.str_to_action(before, move))
    return before, after


def test_z1_capture_without_chain_reaction(crisscross8):
    game = crisscross8
    before = """
8  . . . . . . . .
7  . R . . . . . .
6  . . . . . . . .
5  . R . . . . . .
4  . B B B R R . .
3  . B . . . . . .
2  . R . B B . . .
1  . R . . . . . .
   a b c d e f g h
"""
    after = """
8  . . . . . . . .
7  . R . . . . . .
6  . R . . . . . .
5  . R . . . . . .
4  . R B B R R . .
3  . R . . . . . .
2  . R . B B . . .
1  . R . . . . . .
   a b c d e f g h
"""
    _, state = play(game, position(before, "red"), "b6")
    assert state == game.from_text(position(after, "blue", ply=1))
    # c4-d4 stays blue although red b4 and e4 now close its row: no chain reaction.
    assert game.to_text(state).splitlines()[6] == "4 . R B B R R . ."
    assert game.outcome(state) is None  # b7..b1 reaches the bottom edge but b8 is empty


def test_z2_two_perimeter_captures(crisscross8):
    game = crisscross8
    before = """
8  . . . . B . . .
7  . R . . B . . .
6  . R . . B . . .
5  . . . . R . . .
4  . . . . R . . .
3  . B B R . R B B
2  . . . . . R . .
1  . . . . . . . .
"""
    after = """
8  . . . . R . . .
7  . R . . R . . .
6  . R . . R . . .
5  . . . . R . . .
4  . . . . R . . .
3  . B B R R R R R
2  . . . . . R . .
1  . . . . . . . .
"""
    start, state = play(game, position(before, "red"), "e3")
    assert state == game.from_text(position(after, "blue", ply=1))
    flipped = (start.board == 2) & (state.board == 1)
    assert int(flipped.sum()) == 5  # e6, e7, e8, g3, h3
    assert game.outcome(state) is None


def test_z3_perpendicular_segment_does_not_capture(crisscross8):
    game = crisscross8
    pieces = {"R": ["c6", "c5", "c3", "c2"], "B": ["d6", "e6", "f6", "g5"]}
    _, state = play(game, position_from_squares(8, "red", pieces), "c4")
    pieces["R"].append("c4")
    assert state == game.from_text(position_from_squares(8, "blue", pieces, ply=1))


def test_z3b_closed_row_off_the_new_lines_is_not_captured(crisscross8):
    game = crisscross8
    pieces = {"R": ["c6", "c5", "c3", "c2", "g6"], "B": ["d6", "e6", "f6", "g5"]}
    _, state = play(game, position_from_squares(8, "red", pieces), "c4")
    pieces["R"].append("c4")
    assert state == game.from_text(position_from_squares(8, "blue", pieces, ply=1))


def test_z4_corner_capture_against_bottom_perimeter(crisscross6):
    game = crisscross6
    _, state = play(game, position_from_squares(6, "red", {"B": ["a1", "a2", "f6"], "R": ["b1"]}), "a3")
    expected = position_from_squares(6, "blue", {"B": ["f6"], "R": ["b1", "a1", "a2", "a3"]}, ply=1)
    assert state == game.from_text(expected)


def test_z5_blue_captures_against_left_perimeter(crisscross6):
    game = crisscross6
    _, state = play(game, position_from_squares(6, "blue", {"R": ["a4", "b4", "f6"]}), "c4")
    expected = position_from_squares(6, "red", {"R": ["f6"], "B": ["a4", "b4", "c4"]}, ply=1)
    assert state == game.from_text(expected)


def test_z6_gap_blocks_capture(crisscross6):
    game = crisscross6
    pieces = {"B": ["b4", "c4", "f6"], "R": ["e4"]}
    _, state = play(game, position_from_squares(6, "red", pieces), "a4")
    pieces["R"].append("a4")
    assert state == game.from_text(position_from_squares(6, "blue", pieces, ply=1))


def test_z7_placing_between_enemies_is_safe(crisscross6):
    game = crisscross6
    pieces = {"R": ["b4", "d4", "f6"]}
    _, state = play(game, position_from_squares(6, "blue", pieces), "c4")
    pieces["B"] = ["c4"]
    assert state == game.from_text(position_from_squares(6, "red", pieces, ply=1))


Z8 = """
8  . R . . . . . .
7  . R . . . . . .
6  . R R . . . . .
5  . B R B B B B .
4  . . R . . . B .
3  B B R B B . B .
2  . . R R R R R R
1  . . R . . . B .
   a b c d e f g h
"""


def test_z8_finished_game_red_wins(crisscross8):
    game = crisscross8
    state = game.from_text(position(Z8, "blue"))
    assert game.outcome(state) == (1.0, -1.0)
    assert has_connection(state.board, 0) and not has_connection(state.board, 1)
    path = ["b8", "b7", "b6", "c6", "c5", "c4", "c3", "c2", "c1"]
    cells = [(int(sq[1]) - 1, "abcdefgh".index(sq[0])) for sq in path]
    assert all(state.board[r, c] == 1 for r, c in cells)
    assert all(abs(r1 - r2) + abs(c1 - c2) == 1 for (r1, c1), (r2, c2) in zip(cells, cells[1:]))
    assert not game.legal_mask(state).any()


def test_z8_winning_move_ends_the_game(crisscross8):
    """The Z8 path minus c4, Red to move: c4 completes the path and wins."""
    game = crisscross8
    text = position(Z8.replace("4  . . R . . . B .", "4  . . . . . . B ."), "red", ply=30)
    before = game.from_text(text)
    assert game.outcome(before) is None
    after = game.apply(before, game.str_to_action(before, "c4"))
    assert game.outcome(after) == (1.0, -1.0)
    assert after.ply == 31
