"""docs/neo_crossings.md and docs/crossings.md: every worked example of Neo-Crossings (N1-N6) and
Crossings (X1-X7), position for position, plus the shared counts and the turn, pass and cap
rules (docs/README.md, conventions)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import legal_moves, play, position, position_from_squares

from crossenvs import IllegalActionError, InvalidOptionError, make_game
from crossenvs.games.phalanx import PASS_ACTION

GAMES = ("crossings", "neo_crossings")


def setup(game, to_move: str, white: list[str], black: list[str], ply: int = 0):
    return game.from_text(position_from_squares(8, to_move, {"W": white, "B": black}, ply))


def stones(game, state) -> tuple[set[str], set[str]]:
    """(White squares, Black squares) of a state."""
    lines = [line.split() for line in game.to_text(state).splitlines() if line[0].isdigit()]
    text_rows = {int(line[0]): line[1:] for line in lines}
    found: dict[str, set[str]] = {"W": set(), "B": set()}
    for rank, cells in text_rows.items():
        for file, cell in zip("abcdefgh", cells):
            if cell in found:
                found[cell].add(f"{file}{rank}")
    return found["W"], found["B"]


def perft(game, state, depth: int) -> int:
    """Leaf count, applying every legal action (so each masked action is shown to apply)."""
    if depth == 0:
        return 1
    return sum(perft(game, game.apply(state, int(a)), depth - 1) for a in game.legal_actions(state))


def assert_illegal(game, state, move: str) -> None:
    with pytest.raises(IllegalActionError, match=f"illegal move {move}"):
        game.apply(state, game.str_to_action(state, move))


@pytest.fixture(scope="module")
def neo():
    return make_game("neo_crossings")


@pytest.fixture(scope="module")
def crossings():
    return make_game("crossings")


# --------------------------------------------------------------------------- shared counts (X1)
@pytest.mark.parametrize("name", GAMES)
def test_initial_counts_60_3600_269278(name):
    game = make_game(name)
    start = game.initial_state()
    assert game.legal_mask(start).sum() == 60
    assert perft(game, start, 2) == 3600
    assert sum(int(game.legal_mask(s).sum()) for s in _depth_two_states(game, start)) == 269_278


def _depth_two_states(game, start):
    for a in game.legal_actions(start):
        first = game.apply(start, int(a))
        for b in game.legal_actions(first):
            yield game.apply(first, int(b))


@pytest.mark.parametrize("name", GAMES)
def test_perft_3_applies_every_leaf(name):
    game = make_game(name)
    assert perft(game, game.initial_state(), 3) == 269_278


# --------------------------------------------------------------------------- Neo-Crossings N1-N6
def test_n1_whole_line_capture(neo):
    state = setup(neo, "white", ["c2", "c3", "c4"], ["c6", "c7"])
    after = play(neo, state, "c2-c4-c6")
    assert stones(neo, after) == ({"c4", "c5", "c6"}, set())


def test_n2_equal_size_is_blocked(neo):
    state = setup(neo, "white", ["c2", "c3", "c4"], ["c6", "c7", "c8"])
    assert_illegal(neo, state, "c2-c4-c6")
    assert {m for m in legal_moves(neo, state) if m.startswith("c2-c4-")} == {"c2-c4-c5"}


def test_n3_part_of_a_line_counting_only_the_movers(neo):
    state = setup(neo, "white", ["b4", "c4", "d4", "e4"], ["g4", "h4"])
    assert stones(neo, play(neo, state, "b4-e4-g4")) == ({"d4", "e4", "f4", "g4"}, set())
    assert stones(neo, play(neo, state, "c4-e4-g4")) == ({"b4", "e4", "f4", "g4"}, set())
    assert_illegal(neo, state, "d4-e4-g4")


def test_n4_the_crossing_stone_is_not_frozen(neo):
    state = setup(neo, "white", ["e7", "h1"], ["b2", "f8", "g8"])
    state = play(neo, state, "e7-e8")
    assert "g8-f8-e8" in legal_moves(neo, state)
    after = play(neo, state, "g8-f8-e8")
    expected = position("8 . . . . B B . .\n2 . B . . . . . .\n1 . . . . . . . W\n", "white", ply=2)
    assert after == neo.from_text(expected)
    assert not neo.is_terminal(after)  # far-rank counts are 0 : 0


def test_n5_the_symmetry_rule(neo):
    diagram = "8 . . . . W . . .\n6 . . . . . B . .\n3 . . W . . . . .\n2 . . . B . . . .\n"
    state = neo.from_text(position(diagram, "black"))
    from_d2 = {m for m in legal_moves(neo, state) if m.startswith("d2-")}
    assert from_d2 == {"d2-c1", "d2-c2", "d2-d3", "d2-e1", "d2-e2", "d2-e3"}
    assert_illegal(neo, state, "d2-d1")
    free = make_game("neo_crossings", symmetry_rule=False)
    without = {m for m in legal_moves(free, free.from_text(position(diagram, "black"))) if m.startswith("d2-")}
    assert without == from_d2 | {"d2-d1"}


def test_symmetry_rule_binds_only_crossings(neo):
    along_far_rank = setup(neo, "white", ["d8"], ["d1"])
    assert "d8-e8" in legal_moves(neo, along_far_rank)  # White e8 / Black d1 is symmetric, but no stone crossed
    not_a_crossing = setup(neo, "white", ["c3"], ["f5"])
    assert "c3-c4" in legal_moves(neo, not_a_crossing)  # White c4 / Black f5 is symmetric, but not a crossing


def test_symmetry_rule_judges_the_position_after_the_capture(neo):
    state = setup(neo, "white", ["e6", "e7"], ["e8", "d1", "d2"])
    assert_illegal(neo, state, "e6-e7-e8")  # takes e8, leaving White e7, e8 against Black d2, d1
    free = make_game("neo_crossings", symmetry_rule=False)
    after = play(free, setup(free, "white", ["e6", "e7"], ["e8", "d1", "d2"]), "e6-e7-e8")
    assert stones(free, after) == ({"e7", "e8"}, {"d1", "d2"})


def test_n6_win_timing(neo):
    state = play(neo, setup(neo, "white", ["e7", "h1"], ["b2"]), "e7-e8")
    assert not neo.is_terminal(state)  # Black is not judged at White's move
    quiet = play(neo, state, "b2-b3")
    assert neo.outcome(quiet) == (1.0, -1.0)  # 1 > 0 at the start of White's turn
    crossed = play(neo, state, "b2-b1")
    assert neo.outcome(crossed) is None  # 1 : 1, play continues


# --------------------------------------------------------------------------- Crossings X1-X7
def test_x2_head_only_capture(crossings):
    after = play(crossings, setup(crossings, "white", ["c2", "c3", "c4"], ["c6", "c7"]), "c2-c4-c6")
    diagram = "8 . . . . . . . .\n7 . . B . . . . .\n6 . . W . . . . .\n5 . . W . . . . .\n4 . . W . . . . .\n"
    assert after == crossings.from_text(position(diagram, "black", ply=1))


def test_x3_blocked_by_an_equal_group(crossings):
    state = setup(crossings, "white", ["c2", "c3", "c4"], ["c6", "c7", "c8"])
    assert_illegal(crossings, state, "c2-c4-c6")
    upward = {m for m in legal_moves(crossings, state) if m.startswith("c2-c4-")}
    assert upward == {"c2-c4-c5"}


def test_x4_part_of_a_line_takes_only_the_head_stone(crossings):
    state = setup(crossings, "white", ["b4", "c4", "d4", "e4"], ["g4", "h4"])
    assert stones(crossings, play(crossings, state, "b4-e4-g4")) == ({"d4", "e4", "f4", "g4"}, {"h4"})
    assert stones(crossings, play(crossings, state, "c4-e4-g4")) == ({"b4", "e4", "f4", "g4"}, {"h4"})
    assert_illegal(crossings, state, "d4-e4-g4")


@pytest.mark.parametrize("name", GAMES)
def test_x5_no_single_stone_capture(name):
    game = make_game(name)
    state = setup(game, "white", ["d5"], ["d6"])
    moves = legal_moves(game, state)
    assert moves == {"d5-c4", "d5-c5", "d5-c6", "d5-d4", "d5-e4", "d5-e5", "d5-e6"}  # not d5-d6


X6 = "8 . . . . . B B .\n7 . . . . W . . .\n2 . B . . . . . .\n1 . . . . . . . W\n"


def test_x6_crossing_freezing_counter_crossing(crossings):
    state = play(crossings, crossings.from_text(position(X6, "white")), "e7-e8")
    assert_illegal(crossings, state, "g8-f8-e8")  # e8 is frozen
    westward = {m for m in legal_moves(crossings, state) if _due_west(m)}
    assert westward == {"b2-a2"}
    for counter in ("b2-a1", "b2-b1", "b2-c1"):
        after = play(crossings, state, counter)
        assert crossings.outcome(after) is None  # 1 : 1 at White's turn
        assert not any(m.startswith("e8-") for m in legal_moves(crossings, after))
        assert crossings.observe(after, 0)[7, 4, 6] == 1.0  # White's frozen e8 in plane 6
        assert crossings.observe(after, 1)[..., 6].sum() == 1.0  # and Black's own crossed stone
        later = play(crossings, after, "h1-h2")
        assert not any(m.startswith(counter[-2:] + "-") for m in legal_moves(crossings, later))
    for other in sorted(legal_moves(crossings, state) - {"b2-a1", "b2-b1", "b2-c1"}):
        assert crossings.outcome(play(crossings, state, other)) == (1.0, -1.0), other
    # h1 is on White's own home rank: not frozen
    assert {"h1-g1", "h1-g2", "h1-h2"} <= legal_moves(crossings, crossings.from_text(position(X6, "white")))


def _due_west(move: str) -> bool:
    tail, destination = move.split("-")[0], move.split("-")[-1]
    return tail[1:] == destination[1:] and destination[0] < tail[0]


def test_x7_the_line_has_no_downward_move(crossings):
    state = setup(crossings, "white", ["a2", "a3", "a4"], ["a1"])  # a1 is Black's far rank: frozen
    assert_illegal(crossings, state, "a4-a2-a1")
    downward = {m for m in legal_moves(crossings, state) if m.split("-")[-1][0] == "a" and m.startswith("a")}
    assert all(int(m.split("-")[-1][1]) > int(m.split("-")[0][1]) for m in downward)  # only upward along file a


def test_x7_frozen_stones_are_uncapturable_from_any_side(crossings):
    state = setup(crossings, "white", ["a2", "a3", "a4", "b1", "c1"], ["a1", "d1"])
    moves = legal_moves(crossings, state)
    assert not any(m.endswith("a1") or m.endswith("d1") for m in moves)  # neither frozen stone is taken
    assert not {"a4-a2-a1", "a3-a2-a1", "b1-c1-d1"} & moves
    neo = make_game("neo_crossings")  # in Neo-Crossings nothing is frozen
    same = setup(neo, "white", ["a2", "a3", "a4", "b1", "c1"], ["a1", "d1"])
    assert {"a4-a2-a1", "b1-c1-d1"} <= legal_moves(neo, same)


def test_stones_on_the_far_rank_never_move(crossings):
    state = setup(crossings, "black", ["d8", "e8", "a4"], ["h1", "c5"])
    assert crossings.outcome(state) is None  # 2 : 1 for White, but it is Black's turn
    moves = legal_moves(crossings, state)
    assert all(not m.startswith("h1") for m in moves)
    after = play(crossings, state, "c5-c4")
    assert crossings.outcome(after) == (1.0, -1.0)


# --------------------------------------------------------------------------- passes, stalemate, cap
def test_two_passes_draw(crossings):
    """docs/crossings.md, no legal move: White e7, Black d2; e7-e8, d2-d1, and nobody can move again."""
    game = crossings
    state = play(game, setup(game, "white", ["e7"], ["d2"]), "e7-e8", "d2-d1")
    assert game.legal_actions(state).tolist() == [PASS_ACTION]
    assert game.action_to_str(state, PASS_ACTION) == "pass"
    state = play(game, state, "pass")
    assert game.outcome(state) is None and game.legal_actions(state).tolist() == [PASS_ACTION]
    state = play(game, state, "pass")
    assert game.outcome(state) == (0.0, 0.0) and state.ply == 4
    assert not game.legal_mask(state).any()


def test_neo_same_stones_but_the_symmetry_rule_forbids_the_counter_crossing(neo):
    state = play(neo, setup(neo, "white", ["e7"], ["d2"]), "e7-e8")
    assert "d2-d1" not in legal_moves(neo, state)  # White e8 / Black d1 is point-symmetric
    assert {"d2-c1", "d2-e1"} <= legal_moves(neo, state)


def test_neo_a_walled_in_player_passes_and_the_win_test_still_runs(neo):
    state = setup(neo, "white", ["a1"], ["a2", "b2", "b1"])
    assert neo.legal_actions(state).tolist() == [PASS_ACTION]  # a single stone never captures
    after = play(neo, state, "pass")
    assert neo.outcome(after) == (-1.0, 1.0)  # Black starts his turn with b1 on his far rank


def test_pass_is_refused_while_a_move_exists(crossings):
    state = crossings.initial_state()
    assert_illegal(crossings, state, "pass")


def test_a_move_between_two_passes_resets_the_count(crossings):
    state = setup(crossings, "black", ["e8", "h2"], ["d1"])  # Black's only stone is frozen; 1 : 1
    state = play(crossings, state, "pass", "h2-h3", "pass", "h3-h4")
    assert crossings.outcome(state) is None and state.meta[3] == 0 and state.ply == 4
    state = play(crossings, state, "pass")
    assert state.meta[3] == 1 and crossings.outcome(state) is None


def test_stalemate_loss_option():
    game = make_game("crossings", stalemate="loss")
    state = play(game, setup(game, "white", ["e7"], ["d2"]), "e7-e8", "d2-d1")
    assert game.outcome(state) == (-1.0, 1.0)  # White to move, stuck: White loses


def test_stalemate_loss_from_text():
    game = make_game("crossings", stalemate="loss")
    state = game.from_text(position("8 . . . . W . . .\n1 . . . B . . . .\n", "black", ply=2))
    assert game.outcome(state) == (1.0, -1.0)  # Black is stuck at the start of his turn


@pytest.mark.parametrize("name", GAMES)
def test_cap_draws_after_the_counted_plies(name):
    game = make_game(name, move_cap=4)
    state = game.initial_state()
    for move in ("a2-a3", "a7-a6", "h2-h3"):
        state = play(game, state, move)
        assert game.outcome(state) is None
    state = play(game, state, "h7-h6")
    assert game.outcome(state) == (0.0, 0.0) and state.ply == 4


@pytest.mark.parametrize("name", GAMES)
def test_a_win_on_the_last_counted_ply_stands(name):
    game = make_game(name, move_cap=2)
    state = play(game, setup(game, "white", ["e7", "h1"], ["b2"]), "e7-e8", "b2-b3")
    assert state.ply == 2 and game.outcome(state) == (1.0, -1.0)


def test_cap_counts_passes_as_plies():
    game = make_game("crossings", move_cap=3)
    state = play(game, setup(game, "white", ["e7"], ["d2"]), "e7-e8", "d2-d1", "pass")
    assert game.outcome(state) == (0.0, 0.0) and state.ply == 3


def test_passes_round_trip_through_text(crossings):
    state = play(crossings, setup(crossings, "white", ["e7"], ["d2"]), "e7-e8", "d2-d1", "pass")
    text = crossings.to_text(state)
    assert "passes: 1" in text
    assert crossings.from_text(text) == state


# --------------------------------------------------------------------------- notation and options
def test_notation_names_the_head(crossings):
    state = setup(crossings, "white", ["c2", "c3", "c4"], ["h8"])
    action = crossings.str_to_action(state, "c2-c4-c6")
    assert crossings.action_to_str(state, action) == "c2-c4-c6"
    with pytest.raises(IllegalActionError, match="is written 'c2-c4-c5'"):
        crossings.str_to_action(state, "c2-c3-c4")
    with pytest.raises(IllegalActionError, match="is written 'c2-c4-c5'"):
        crossings.str_to_action(state, "c2-c3")
    with pytest.raises(IllegalActionError, match="not on one rank, file or diagonal"):
        crossings.str_to_action(state, "c2-d4")
    with pytest.raises(IllegalActionError, match="cannot read move"):
        crossings.str_to_action(state, "c2")
    with pytest.raises(IllegalActionError, match="no white stone on e2"):
        crossings.str_to_action(state, "e2-e4-e6")
    assert crossings.str_to_action(state, " C2 - c4 - c6 ") == action  # spaces and capitals are fine


def test_black_names_moves_on_the_real_board(crossings):
    state = crossings.apply(crossings.initial_state(), crossings.str_to_action(crossings.initial_state(), "a2-a3"))
    action = crossings.str_to_action(state, "h7-h6")
    assert action == crossings.str_to_action(crossings.initial_state(), "a2-a3")  # the same id in Black's frame
    assert crossings.action_to_str(state, action) == "h7-h6"


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("crossings", {"stalemate": "draw"}, "stalemate must be one of 'pass', 'loss'"),
        ("crossings", {"move_cap": 0}, "move_cap must be an integer from 1"),
        ("crossings", {"move_cap": True}, "move_cap must be an integer"),
        ("crossings", {"symmetry_rule": True}, "unknown option"),
        ("neo_crossings", {"symmetry_rule": "sometimes"}, "symmetry_rule must be on or off"),
    ],
)
def test_bad_options_are_refused(name, options, message):
    with pytest.raises(InvalidOptionError, match=message):
        make_game(name, **options)


def test_option_words(neo):
    assert make_game("neo_crossings", symmetry_rule="off").symmetry_rule is False
    assert make_game("neo_crossings", symmetry_rule=0).symmetry_rule is False
    assert make_game("neo_crossings", stalemate="LOSS").stalemate == "loss"


def test_observation_values():
    game = make_game("crossings", move_cap=10)
    diagram = "8 W W . . . . . .\n7 . . . . . . . B\n2 . W . . . . . .\n1 . . . . . . . B\n"
    state = game.from_text("passes: 1\n" + position(diagram, "black", ply=5))  # 1 : 2 on the far ranks
    planes = game.observe(state, 1)  # Black's frame: the board turned half a turn, his far rank on top
    assert planes[7, 0, 0] == 1.0 and planes[0, 7, 1] == 1.0  # own h1 -> top left; White a8 -> bottom right
    assert (planes[..., 2] == 1 / 8).all() and (planes[..., 3] == 2 / 8).all()
    assert planes[..., 4].all() and (planes[..., 5] == 0.5).all()
    assert planes[7, 0, 6] == 1.0 and planes[..., 6].sum() == 1.0  # own frozen h1
    assert planes[0, 7, 7] == planes[0, 6, 7] == 1.0 and planes[..., 7].sum() == 2.0  # White's frozen a8, b8


def test_initial_observation_planes(crossings, neo):
    for game in (crossings, neo):
        state = game.initial_state()
        for player in (0, 1):
            planes = game.observe(state, player)
            assert planes.shape == game.observation_shape
            assert planes[:2, :, 0].all() and planes[6:, :, 1].all()  # own stones at the bottom
            assert not planes[..., 2:].any()
    assert crossings.observation_shape == (8, 8, 8) and neo.observation_shape == (8, 8, 6)
    start = crossings.initial_state()
    assert np.array_equal(crossings.observe(start, 0), crossings.observe(start, 1))
