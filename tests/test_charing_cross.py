"""Charing Cross, docs/charing_cross.md: the worked examples H1-H6 and H2b position for position, the
re-placement decision, options, and invariants over random games against a reference model."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import legal_moves, play, play_random_games, position

from crossenvs import IllegalActionError, InvalidOptionError, PositionTextError, make_game
from crossenvs.games.charing_cross import PASS_ACTION, PENDING
from crossenvs.kernels import state as st

INITIAL = "8 . . . R R . . .\n5 N . . . . . . n\n4 N . . . . . . n\n1 . . . r r . . .\n"


@pytest.fixture(scope="module")
def game():
    return make_game("charing_cross")


def perft_with_choices(game, state) -> int:
    """Each (action, re-placement choice) combination counted once."""
    total = 0
    for action in game.legal_actions(state):
        after = game.apply(state, int(action))
        total += len(game.legal_actions(after)) if after.meta[PENDING] else 1
    return total


# --------------------------------------------------------------------------- worked examples
def test_h1_opening_counts(game):
    start = game.initial_state()
    assert start == game.from_text(position(INITIAL, "white"))
    forward = {"a4-b3", "a4-b4", "a4-b5", "a5-b4", "a5-b5", "a5-b6"}
    forward |= {"d8-c7", "d8-d7", "d8-e7", "e8-d7", "e8-e7", "e8-f7"}
    jumps = {"a4-a6", "a5-a3", "d8-f8", "e8-c8"}
    assert legal_moves(game, start) == forward | jumps
    for jump in jumps:
        after = play(game, start, jump)
        assert game.current_player(after) == 0 and len(game.legal_actions(after)) == 2
    assert perft_with_choices(game, start) == 20


H2 = "8 . . . R R . . .\n5 N . . . . . . n\n4 . . N . . . . n\n3 . . . r . . . .\n1 . . . . r . . .\n"


def test_h2_forced_re_placement(game):
    after = play(game, game.from_text(position(H2, "black")), "d3-b5")
    expected = "8 . . . R R . . .\n5 N r . . . . . n\n4 N . . . . . . n\n1 . . . . r . . .\n"
    assert after == game.from_text(position(expected, "white", ply=1))


@pytest.mark.parametrize("first", ["white", "black"])
def test_h2b_the_owner_chooses_then_plays_his_own_turn(first):
    game = make_game("charing_cross", first_player=first)
    white = game.colours.index("white")
    diagram = H2.replace("5 N", "7 . N . . . . . .\n5 .")  # the second white knight on b7, not a5
    after = play(game, game.from_text(position(diagram, "black")), "d3-b5")
    assert game.current_player(after) == white  # White, the owner, decides
    assert legal_moves(game, after) == {"@a4", "@a5"}
    assert after.ply == 1
    assert game.observe(after, white)[..., 16].all()  # and knows he moves again afterwards
    assert "White to move (ply 1): re-place the jumped N (@a4 or @a5)" in game.render_ansi(after)
    chosen = play(game, after, "@a5")
    assert game.current_player(chosen) == white and chosen.ply == 1  # then White plays his own turn
    assert chosen.board[4, 0] == 1 and "b7-c8" not in legal_moves(game, chosen)  # c8: knight edge
    assert game.current_player(play(game, chosen, "b7-c7")) == 1 - white


def test_h3_removed_for_good(game):
    diagram = "8 . . . R R . . .\n5 r . . . . . . n\n4 N . N . . . . n\n3 . . . r . . . .\n"
    after = play(game, game.from_text(position(diagram, "black")), "d3-b5")
    expected = "8 . . . R R . . .\n5 r r . . . . . n\n4 N . . . . . . n\n"
    assert after == game.from_text(position(expected, "white", ply=1))
    assert int((after.board == 1).sum()) == 1  # White now has one knight


def test_h4_winning_by_jump(game):
    diagram = "8 . . . R R . . .\n5 . . . . . . . n\n4 N . . . . N n .\n1 . . . r r . . .\n"
    state = game.from_text(position(diagram, "white"))
    assert {m for m in legal_moves(game, state) if m.startswith("f4-")} == {"f4-g3", "f4-g5", "f4-h4"}
    after = play(game, state, "f4-h4")
    assert game.outcome(after) == (1.0, -1.0)
    assert after.meta[PENDING] == 0  # a winning jump asks no re-placement


def test_h5_forward_move_limits(game):
    pieces = "5 . R . . . . . .\n2 . . . . n . . .\n"
    black = game.from_text(position(pieces, "black"))
    white = game.from_text(position(pieces, "white"))
    assert legal_moves(game, black) == {"e2-d2", "e2-d3"}
    assert legal_moves(game, white) == {"b5-b4", "b5-c4"}


def test_h6_a_four_ply_cycle(game):
    start = game.initial_state()
    after = play(game, start, "a4-a6", "@a5", "h4-h6", "@h5", "a6-a4")
    assert after.meta[PENDING] == 0  # a5 was the only vacant home: forced
    after = play(game, after, "h6-h4")
    assert np.array_equal(after.board, start.board) and game.current_player(after) == 0
    assert after.ply == 4 and game.outcome(after) is None
    assert game.to_text(after) == game.to_text(start).replace("ply: 0", "ply: 4")


# --------------------------------------------------------------------------- order, passes, cap
def test_self_jump_choice_then_the_opponent_moves(game):
    after = play(game, game.initial_state(), "a4-a6")
    assert game.current_player(after) == 0 and after.ply == 1
    after = play(game, after, "@a4")
    assert game.current_player(after) == 1 and after.ply == 1


def test_a_player_without_an_action_passes_and_two_passes_draw(game):
    # The white knight on g8 has no forward square (h8 is an edge, h7 is taken) and no jump
    # (beyond h7 is off the board); the black rook on h7 is stuck the same way.
    stuck = "8 . . . . . . N .\n7 . . . . . . . r\n"
    state = game.from_text(position(stuck + "4 . . . n . . . .\n", "white"))
    assert game.legal_actions(state).tolist() == [PASS_ACTION]
    state = play(game, state, "pass")
    assert game.current_player(state) == 1 and state.meta[st.PASSES] == 1 and state.ply == 1
    assert "pass" not in legal_moves(game, state)
    assert play(game, state, "d4-c4").meta[st.PASSES] == 0
    both = play(game, game.from_text(position(stuck, "white")), "pass")
    assert game.legal_actions(both).tolist() == [PASS_ACTION] and game.outcome(both) is None
    ended = play(game, both, "pass")
    assert game.outcome(ended) == (0.0, 0.0) and ended.ply == 2
    assert not game.legal_mask(ended).any()


def test_cap_counts_plies_not_choices():
    game = make_game("charing_cross", move_cap=2)
    state = play(game, game.initial_state(), "a4-a6", "@a5")
    assert state.ply == 1 and game.outcome(state) is None
    state = play(game, state, "h4-h6")
    assert game.outcome(state) == (0.0, 0.0)  # the cap ends it before the choice
    assert not state.meta[PENDING] and "pending" not in game.to_text(state)


def test_a_win_on_the_last_counted_ply_stands():
    game = make_game("charing_cross", move_cap=1)
    diagram = "8 . . . R R . . .\n5 . . . . . . . n\n4 N . . . . N n .\n1 . . . r r . . .\n"
    after = play(game, game.from_text(position(diagram, "white")), "f4-h4")
    assert game.outcome(after) == (1.0, -1.0)


def test_self_jump_off_limits_jumps_to_enemy_pieces():
    game = make_game("charing_cross", self_jump=False)
    assert len(game.legal_actions(game.initial_state())) == 12
    state = game.from_text(position(H2, "black"))
    assert "d3-b5" in legal_moves(game, state)


def test_first_player_black():
    game = make_game("charing_cross", first_player="black")
    start = game.initial_state()
    assert game.colours == ("black", "white") and game.current_player(start) == 0
    default = make_game("charing_cross")
    # the setup is its own half-turn with colours swapped, so Black's first ids are White's
    assert np.array_equal(game.legal_mask(start), default.legal_mask(default.initial_state()))
    assert "h4-h6" in legal_moves(game, start)
    assert np.array_equal(game.observe(start, 0), default.observe(default.initial_state(), 0))
    after = play(game, start, "h5-g5")
    assert "to_move: white" in game.to_text(after) and game.from_text(game.to_text(after)) == after


# --------------------------------------------------------------------------- text, notation, options
def test_pending_choice_round_trips_through_text(game):
    after = play(game, game.initial_state(), "a4-a6")
    text = game.to_text(after)
    assert "pending: N" in text and "jumper: white" in text
    assert game.from_text(text) == after


@pytest.mark.parametrize(
    "headers, message",
    [
        ("pending: N\n", "jumper"),
        ("pending: n\njumper: white\n", "must be his"),
        ("pending: R\njumper: white\n", "both home squares"),
        ("pending: Q\njumper: white\n", "not a piece letter"),
        ("jumper: white\n", "belongs with 'pending'"),
    ],
)
def test_bad_pending_headers(game, headers, message):
    text = "to_move: white\n" + headers + "8 . . . R R . . .\n6 N . . . . . . .\n"
    with pytest.raises(PositionTextError, match=message):
        game.from_text(text)


def test_a_piece_on_its_goal_reads_as_a_won_game(game):
    assert game.outcome(game.from_text("to_move: black\n4 . . . . . . . N\n")) == (1.0, -1.0)
    with pytest.raises(PositionTextError, match="both colours"):
        game.from_text("to_move: black\n4 n . . . . . . N\n")


def test_notation_errors(game):
    state = game.initial_state()
    cases = [("a4-a7", "one square or jumps two"), ("a4", "expected"), ("a4-c5", "not on one"), ("a4-a4", "the same")]
    for text, message in cases:
        with pytest.raises(IllegalActionError, match=message):
            game.str_to_action(state, text)
    with pytest.raises(IllegalActionError, match="illegal move @a4"):
        game.apply(state, game.str_to_action(state, "@a4"))
    with pytest.raises(IllegalActionError, match="illegal move a4-a5"):
        game.apply(state, game.str_to_action(state, "a4-a5"))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"first_player": "red"}, "first_player must be one of"),
        ({"self_jump": 2}, "self_jump must be on or off"),
        ({"move_cap": -1}, "move_cap must be an integer"),
        ({"stalemate": "loss"}, "unknown option"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        make_game("charing_cross", **options)


def test_ids_that_leave_the_board_read_back(game):
    state = game.initial_state()
    for action in range(game.num_actions):
        assert game.str_to_action(state, game.action_to_str(state, action)) == action
    assert game.action_to_str(state, (0 * 8 + 4) * 2 + 1) == "#9"  # a1 jumping south: off the board
    with pytest.raises(IllegalActionError, match="not an action id"):
        game.str_to_action(state, "#99999")


def test_the_observation_tells_who_moves_after_the_choice(game):
    board = "8 . . . R R . . .\n6 N . . . . . . .\n1 . . . r r . . .\n"
    by_opponent = game.from_text("to_move: white\npending: N\njumper: black\n" + board)
    by_self = game.from_text("to_move: white\npending: N\njumper: white\n" + board)
    assert np.array_equal(game.legal_mask(by_opponent), game.legal_mask(by_self))
    assert game.observe(by_opponent, 0)[..., 16].all() and not game.observe(by_self, 0)[..., 16].any()
    assert game.current_player(play(game, by_opponent, "@a4")) == 0
    assert game.current_player(play(game, by_self, "@a4")) == 1


def test_observation_planes_at_the_start(game):
    start = game.initial_state()
    for seat in (0, 1):
        planes = game.observe(start, seat)
        assert planes.shape == (8, 8, 17)
        assert planes[3, 0, 0] == planes[4, 0, 0] == 1.0  # own knights on a4/a5 of one's own frame
        assert planes[7, 3, 1] == planes[7, 4, 1] == 1.0  # own rooks at the top
        assert planes[:, 7, 6].all() and planes[0, :, 7].all()  # own goals: right file, bottom rank
        assert not planes[..., 4:6].any()
    chosen = play(game, start, "a4-a6")
    planes = game.observe(chosen, 0)
    assert planes[3, 0, 4] == planes[4, 0, 4] == 1.0 and planes[..., 5].all()
    assert not game.observe(chosen, 1)[..., 5].any()


# --------------------------------------------------------------------------- random-game invariants
FORWARD = {
    1: [(0, 1), (1, 1), (-1, 1)],
    3: [(0, -1), (1, -1), (-1, -1)],
    2: [(-1, 0), (-1, 1), (-1, -1)],
    4: [(1, 0), (1, 1), (1, -1)],
}
HOMES = {1: [(3, 0), (4, 0)], 2: [(7, 3), (7, 4)], 3: [(3, 7), (4, 7)], 4: [(0, 3), (0, 4)]}


def reference_moves(board: np.ndarray, white: bool, self_jump: bool) -> dict[str, tuple[np.ndarray, int, str]]:
    """Notation -> (board after the action, re-placement choices, who decides next) from docs/charing_cross.md.

    Who decides next: ``"won"`` (the piece reached its goal), ``"owner-again"`` (the opponent
    must re-place his jumped piece and then moves), ``"self-choice"`` (the mover re-places his
    own jumped piece, then the opponent moves), or ``"opponent"``.
    """
    names = "abcdefgh"
    mine = (1, 2) if white else (3, 4)
    moves = {}
    for (r, c), code in np.ndenumerate(board):
        if code not in mine:
            continue
        knight = code in (1, 3)
        targets = [(r + dr, c + dc, None) for dr, dc in FORWARD[code]]
        targets = [
            (tr, tc, j)
            for tr, tc, j in targets
            if 0 <= tr < 8 and 0 <= tc < 8 and board[tr, tc] == 0 and not ((tr in (0, 7)) if knight else (tc in (0, 7)))
        ]
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                tr, tc, over = r + 2 * dr, c + 2 * dc, (r + dr, c + dc)
                if (dr or dc) and 0 <= tr < 8 and 0 <= tc < 8 and board[tr, tc] == 0 and board[over] != 0:
                    if self_jump or board[over] not in mine:
                        targets.append((tr, tc, over))
        for tr, tc, over in targets:
            after = board.copy()
            after[r, c], after[tr, tc] = 0, code
            goal = (tc == (7 if code == 1 else 0)) if knight else (tr == (0 if code == 2 else 7))
            choices, nxt = 1, "won" if goal else "opponent"
            if over is not None and not goal:
                jumped = after[over]
                after[over] = 0
                vacant = [h for h in HOMES[jumped] if after[h] == 0]
                if len(vacant) == 1:
                    after[vacant[0]] = jumped
                if len(vacant) == 2:
                    choices, nxt = 2, "owner-again" if jumped not in mine else "self-choice"
            moves[f"{names[c]}{r + 1}-{names[tc]}{tr + 1}"] = (after, choices, nxt)
    return moves


@pytest.mark.parametrize("options", [{}, {"self_jump": False, "move_cap": 80}, {"first_player": "black"}])
def test_random_games_agree_with_the_reference_model(options):
    game = make_game("charing_cross", **options)
    rng = np.random.default_rng(7)
    ended = decisions = 0
    for before, _action, after in play_random_games(game, rng, 3000):
        mask = game.legal_mask(before)
        legal = np.flatnonzero(mask)
        seat = game.current_player(before)
        names = {game.action_to_str(before, int(a)): int(a) for a in legal}
        if before.meta[PENDING]:
            decisions += 1
            assert len(names) == 2 and all(name.startswith("@") for name in names)
            assert after.ply == before.ply
        else:
            reference = reference_moves(before.board, game.colours[seat] == "white", game.self_jump)
            assert set(names) == (set(reference) or {"pass"})
            for name, legal_action in names.items():
                assert game.str_to_action(before, name) == legal_action
                if name == "pass":
                    continue
                result = game.apply(before, legal_action)
                board, choices, nxt = reference[name]
                assert np.array_equal(result.board, board), name
                if nxt == "won":
                    assert game.outcome(result) == ((1.0, -1.0) if seat == 0 else (-1.0, 1.0))
                elif result.ply >= game.move_cap:
                    assert game.outcome(result) == (0.0, 0.0) and not result.meta[PENDING]
                elif choices == 2:
                    assert result.meta[PENDING] and len(game.legal_actions(result)) == 2
                    owner = seat if nxt == "self-choice" else 1 - seat
                    assert game.current_player(result) == owner
                    after_choice = game.apply(result, int(game.legal_actions(result)[0]))
                    assert game.current_player(after_choice) == (1 - seat if nxt == "self-choice" else owner)
                    assert game.observe(result, owner)[..., 16].all() == (nxt == "owner-again")
                else:
                    assert game.outcome(result) is None and game.current_player(result) == 1 - seat
            assert after.ply == before.ply + 1 <= game.move_cap
        if game.is_terminal(after):
            ended += 1
            assert not game.legal_mask(after).any()
    assert ended >= 5 and decisions > 0
