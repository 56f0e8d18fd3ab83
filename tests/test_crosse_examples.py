"""Crosse, docs/crosse.md: the worked examples C1-C8 and the orthogonal hops landing outside the ring,
position for position, plus the turn flow the examples imply (hops, extra turns, the removal
decision, passes, the cap)."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import legal_moves, play, position

from crossenvs import IllegalActionError, make_game
from crossenvs.games.crosse import step_kinds

SETUP_DIAGRAM = """
10  - W - W - W - W - W
 9  W - W - W - W - W -
 8  - W - W - W - W - W
 7  . - . + W o + - . -
 6  - . - o # # o . - .
 5  . - . o # # o - . -
 4  - . - + o B + . - .
 3  B - B - B - B - B -
 2  - B - B - B - B - B
 1  B - B - B - B - B -
    a b c d e f g h i j
"""


@pytest.fixture(scope="module")
def game():
    return make_game("crosse")


def stones(black: str = "", white: str = "") -> str:
    """A board from square lists, e.g. ``stones(black="d4 g4", white="j10")``."""
    rows = {rank: ["."] * 10 for rank in range(1, 11)}
    for letter, squares in (("B", black), ("W", white)):
        for square in squares.split():
            rows[int(square[1:])]["abcdefghij".index(square[0])] = letter
    return "\n".join(f"{rank} " + " ".join(rows[rank]) for rank in range(10, 0, -1)) + "\n"


def load(game, to_move: str, black: str = "", white: str = "", **headers: str):
    extra = "".join(f"{key}: {value}\n" for key, value in headers.items())
    return game.from_text(f"to_move: {to_move}\n{extra}" + stones(black, white))


def moves_of(game, state, token: str, square: str) -> set[str]:
    """Destinations of the legal ``token`` moves of the stone on ``square``."""
    prefix = f"{token}:{square}-"
    return {move[len(prefix) :] for move in legal_moves(game, state) if move.startswith(prefix)}


def hops(game, state) -> set[str]:
    return {move for move in legal_moves(game, state) if "x" in move}


# --------------------------------------------------------------------------- C1
def test_setup_is_the_diagram(game):
    assert game.initial_state() == game.from_text(position(SETUP_DIAGRAM, "black"))
    # the writer marks empty cells like the diagram (light squares, ring, corners, centre)
    assert " ".join(game.to_text(game.initial_state()).split()).endswith(" ".join(SETUP_DIAGRAM.split()))


@pytest.mark.parametrize("first", ["black", "white"])
def test_c1_opening_move_count(first):
    game = make_game("crosse", first_player=first)
    start = game.initial_state()
    moves = legal_moves(game, start)
    assert len(game.legal_actions(start)) == 121 == len(moves)  # 121 ids, each a distinct (start, end, token)
    assert Counter(move.split(":")[0] for move in moves) == {"3F": 70, "2F": 34, "1F": 11, "3B": 3, "2B": 2, "1B": 1}
    if first == "white":
        ones = {m.split(":")[1] for m in moves if m.startswith("1F:")}
        assert ones == {
            "b8-a7",
            "b8-c7",
            "d8-c7",
            "d8-d7",
            "f8-g7",
            "f8-f7",
            "h8-g7",
            "h8-i7",
            "j8-i7",
            "e7-d7",
            "e7-d6",
        }
        assert {m for m in moves if m.startswith("1B:")} == {"1B:e7-f7"}


# --------------------------------------------------------------------------- C2
C2_F4 = {"f7", "g7", "i7", "g6", "h6", "g5", "i5"}
C2_E7 = {"b10", "d10", "f10", "h10", "c9", "e9", "b8", "d8", "c7", "d7", "c5", "d5", "d4", "e4"}


def test_c2_three_forward_steps(game):
    state = load(game, "black", black="f4 e7", white="j10")
    assert game.move_ends(state, "f4", "3F") == C2_F4
    assert game.move_ends(state, "e7", "3F") == C2_E7
    assert moves_of(game, state, "3F", "f4") == C2_F4 and moves_of(game, state, "3F", "e7") == C2_E7


@pytest.mark.parametrize(
    "path",
    ["f4 g4 h4 i5", "e7 d7 d8 c9", "e7 d6 c7 d7", "e7 d6 d5 e4"],
)
def test_c2_sample_paths_are_forward_steps(path):
    squares = [(int(s[1:]) - 1) * 10 + "abcdefghij".index(s[0]) for s in path.split()]
    assert all("F" in step_kinds(a, b) for a, b in zip(squares, squares[1:]))


def test_c2_the_readings_d3_rules_out(game):
    state = load(game, "black", black="f4 e7", white="j10")
    assert {"d6", "f8", "g9"}.isdisjoint(game.move_ends(state, "e7", "3F"))  # not "up to n" steps
    assert {"g4", "h4"}.isdisjoint(game.move_ends(state, "f4", "3F"))
    assert step_kinds(63, 53) == "F" and step_kinds(36, 26) == "B"  # d7->d8 forward, g4->g3 backward
    assert step_kinds(36, 37) == "FB" and step_kinds(34, 35) == "F"  # g4->h4 sideways, f4->g4 along the ring


# --------------------------------------------------------------------------- C3
def test_c3_one_step_examples(game):
    black = load(game, "black", black="d7", white="g5")
    assert moves_of(game, black, "1F", "d7") == {"c7", "d6", "d8"}  # not c8/e8: light squares
    white = load(game, "white", black="d7", white="g5")
    assert moves_of(game, white, "1B", "g5") == {"g4", "f4", "h6"}
    assert "h4" in moves_of(game, white, "1F", "g5") and "h4" not in moves_of(game, white, "1B", "g5")


# --------------------------------------------------------------------------- C4
C4 = """
10  - . - . - W - . - .
 9  . - . - . - B - . -
 8  - . - . - . - . - .
 7  . - . B o o B - . -
 6  - . - W # # o W - .
 5  . - . o # # o - . -
 4  - . - + o o W B - .
"""


def test_c4_white_must_make_the_double_capture(game):
    state = game.from_text(position(C4, "white"))
    assert legal_moves(game, state) == {"h6xf8"}
    with pytest.raises(IllegalActionError, match="illegal move f10xh8"):
        play(game, state, "f10xh8")  # a legal jump capturing only one
    middle = play(game, state, "h6xf8")
    assert game.current_player(middle) == game.current_player(state) and middle.ply == 0
    assert legal_moves(game, middle) == {"f8xh10"}
    done = play(game, middle, "f8xh10")
    assert done.ply == 1 and game.colours[game.current_player(done)] == "black"
    expected = """
10  - . - . - W - W - .
 7  . - . B o o + - . -
 6  - . - W # # o . - .
 4  - . - + o o W B - .
"""
    assert done == game.from_text(position(expected, "black", ply=1))


def test_c4_black_has_three_single_captures(game):
    state = game.from_text(position(C4, "black"))
    assert legal_moves(game, state) == {"d7xd5", "h4xf4", "g7xi5"}
    for move in ("d7xd5", "h4xf4", "g7xi5"):
        after = play(game, state, move)
        assert after.ply == 1 and game.colours[game.current_player(after)] == "white"
        assert int((after.board == 2).sum()) == 3  # one White stone captured


# --------------------------------------------------------------------------- C5
def c5_start(game):
    return load(game, "black", black="d4 g4 d7 h8 c3 a1 e1", white="a9 c9", tokens_black="1B 2B 3F")


def test_c5_cover_removal_extra_turn_and_win(game):
    after = play(game, c5_start(game), "1B:h8-g7")
    assert after == load(game, "black", black="d4 g4 d7 g7 c3", white="a9 c9", tokens_black="2B 3F", ply="1")
    assert set(game.tokens(after, "black")) == {"2B", "3F"}
    assert "2B:c3-a1" in legal_moves(game, after)
    won = play(game, after, "2B:c3-a1")
    assert game.outcome(won) == (1.0, -1.0) and won.ply == 2  # the extra turn is a ply
    assert (won.board == 1).sum() == 4 and (won.board == 2).sum() == 2  # d4 g4 d7 g7; a9 c9


def test_c5_with_optional_removal_the_player_decides():
    game = make_game("crosse", cover_removal="optional")
    decide = play(game, c5_start(game), "1B:h8-g7")
    assert legal_moves(game, decide) == {"remove", "keep"} and decide.ply == 1
    assert game.observe(decide, 0)[..., 23].all() and not game.observe(decide, 1)[..., 23].any()
    assert game.from_text(game.to_text(decide)) == decide and "removal: pending" in game.to_text(decide)
    removed = play(game, decide, "remove")
    assert removed.board[0].sum() == 0 and game.current_player(removed) == 0 and removed.ply == 1
    assert game.outcome(play(game, removed, "2B:c3-a1")) == (1.0, -1.0)
    kept = play(game, decide, "keep")
    assert kept.board[0, 0] == 1 and kept.board[0, 4] == 1 and game.current_player(kept) == 0
    upkeep = play(game, kept, "2B:c3-c1")  # c1 on the first row under the cover: removed, another turn
    assert upkeep.board[0, 2] == 0 and game.current_player(upkeep) == 0 and upkeep.ply == 2
    assert not game.is_terminal(upkeep)  # a1 and e1 are still there


def test_c5_removal_is_not_asked_when_the_first_row_is_empty():
    game = make_game("crosse", cover_removal="optional")
    state = load(game, "black", black="d4 g4 d7 h8 c3", white="a9 c9", tokens_black="1B 2B 3F")
    after = play(game, state, "1B:h8-g7")
    assert "remove" not in legal_moves(game, after) and game.current_player(after) == 0  # the extra turn


# --------------------------------------------------------------------------- C6
def test_c6_give_away_by_compulsory_jump(game):
    state = load(game, "white", black="d4 g4 d7 g7 e3", white="d2 a9")
    assert legal_moves(game, state) == {"d2xf4"}
    after = play(game, state, "d2xf4")
    assert game.outcome(after) == (1.0, -1.0)  # Black (seat 0) wins on White's move
    assert after == game.from_text("to_move: black\nply: 1\n" + stones(black="d4 g4 d7 g7", white="f4 a9"))


# --------------------------------------------------------------------------- C7
C7_REFRESHED = {
    "1F:b2-a3",
    "1F:b2-c3",
    "1B:b2-a1",
    "1B:b2-c1",
    "2F:b2-b4",
    "2F:b2-d4",
    "3F:b2-a5",
    "3F:b2-c5",
    "3F:b2-e4",
}


def test_c7_token_refresh(game):
    state = load(game, "black", black="b2", white="j10", tokens_black="3B")
    assert legal_moves(game, state) == C7_REFRESHED
    assert game.tokens(state, "black") == ["1F", "2F", "3F", "1B", "2B", "3B"]
    assert game.observe(state, 0)[..., 7:13].all()  # the token planes show the refreshed set


def test_c7_other_stuck_token_rules():
    keep = make_game("crosse", stuck_tokens="keep")
    state = load(keep, "black", black="b2", white="j10", tokens_black="3B")
    assert legal_moves(keep, state) == {"pass"}
    assert keep.tokens(play(keep, state, "pass"), "black") == ["3B"]
    refresh_later = make_game("crosse", stuck_tokens="pass_refresh")
    state = load(refresh_later, "black", black="b2", white="j10", tokens_black="3B")
    assert legal_moves(refresh_later, state) == {"pass"}
    after = play(refresh_later, state, "pass")
    assert refresh_later.tokens(after, "black") == list(("1F", "2F", "3F", "1B", "2B", "3B")) and after.ply == 1


def test_two_passes_in_a_row_draw():
    game = make_game("crosse", stuck_tokens="keep")
    state = load(game, "black", black="b2", white="i9", tokens_black="3B", tokens_white="3B")
    after = play(game, state, "pass")
    assert legal_moves(game, after) == {"pass"} and game.observe(after, 1)[..., 24].all()
    assert game.outcome(play(game, after, "pass")) == (0.0, 0.0)


# --------------------------------------------------------------------------- C8
def test_c8_sideways_counts_both_ways(game):
    state = load(game, "black", black="c7", white="j10")
    assert moves_of(game, state, "1F", "c7") == {"b8", "d8", "d7"}
    assert moves_of(game, state, "1B", "c7") == {"b6", "d6", "d7"}
    assert game.str_to_action(state, "1F:c7-d7") != game.str_to_action(state, "1B:c7-d7")


# --------------------------------------------------------------------------- orthogonal hops landing outside the ring
@pytest.mark.parametrize(
    "black, white, refused",
    [("f4", "g4", "f4xh4"), ("g5", "g4", "g5xg3"), ("e7", "d7", "e7xc7"), ("d6", "d7", "d6xd8")],
)
def test_d9b_orthogonal_jumps_landing_outside_are_refused(game, black, white, refused):
    state = load(game, "black", black=black, white=white)
    assert not hops(game, state)
    with pytest.raises(IllegalActionError, match="no single jump"):
        game.str_to_action(state, refused)


def test_d9b_orthogonal_jump_landing_in_the_ring_is_allowed(game):
    assert legal_moves(game, load(game, "black", black="g3", white="g4")) == {"g3xg5"}


# --------------------------------------------------------------------------- more turn flow
def test_upkeep_removes_a_jump_ending_on_the_first_row(game):
    # Black holds the cover; his c3 stone must jump b2 and lands on a1, his first row.
    state = load(game, "black", black="d4 g4 d7 g7 c3 j4", white="b2 j10")
    assert legal_moves(game, state) == {"c3xa1"}
    after = play(game, state, "c3xa1")
    assert after.board[0, 0] == 0 and game.current_player(after) == 0 and after.ply == 1  # removed, moves again


def test_a_jump_that_completes_the_cover_triggers_it(game):
    # i9 jumps h8 onto g7, the fourth corner: a1 is removed and Black moves again.
    state = load(game, "black", black="d4 g4 d7 i9 a1 j2", white="h8 a9")
    assert legal_moves(game, state) == {"i9xg7"}
    after = play(game, state, "i9xg7")
    assert after.board[0, 0] == 0 and game.current_player(after) == 0


def test_d10_both_qualify_the_movers_opponent_wins(game):
    # Black's jump takes White's last stone and completes the cover, whose removal leaves Black
    # only the four corners: captures come first, so White wins.
    state = load(game, "black", black="d4 g4 d7 i9 a1", white="h8")
    after = play(game, state, "i9xg7")
    assert game.outcome(after) == (-1.0, 1.0)
    assert game.from_text(game.to_text(after)) == after


def test_a_jump_in_progress_round_trips_as_text(game):
    state = game.from_text(position(C4, "white"))
    middle = play(game, state, "h6xf8")
    text = game.to_text(middle)
    assert "jumping: f8" in text and "cover_before: no" in text
    assert game.from_text(text) == middle
    assert game.observe(middle, 1)[2, 4, 21] == 1.0  # f8 (row 7, col 5) in White's half-turned frame
    assert "jumps on (1 more)" in game.render_ansi(middle)


def test_a_removal_answer_owed_on_the_capped_ply_comes_first():
    game = make_game("crosse", cover_removal="optional", move_cap=1)
    decide = play(game, c5_start(game), "1B:h8-g7")
    assert decide.ply == 1 and legal_moves(game, decide) == {"remove", "keep"}
    assert game.from_text(game.to_text(decide)) == decide
    assert game.outcome(play(game, decide, "keep")) == (0.0, 0.0)  # then the cap draws
    won = load(game, "black", black="d4 g4 d7 h8 a1", white="a9", tokens_black="1B")
    assert game.outcome(play(game, won, "1B:h8-g7", "remove")) == (1.0, -1.0)  # a win on the last ply stands


def test_the_move_cap_draws():
    game = make_game("crosse", move_cap=2)
    state = play(game, game.initial_state(), "1F:a3-b4", "1F:b8-a7")
    assert game.outcome(state) == (0.0, 0.0) and state.ply == 2
