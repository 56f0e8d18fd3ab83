"""Crosse beyond the contract suite: games end within the cap, jump sequences, observation planes,
options, bad input refused clearly (masks, text, twins: test_contract.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import legal_moves, play_random_games

from crossenvs import IllegalActionError, InvalidOptionError, PositionTextError, make_game
from crossenvs.core.geometry import square_name
from crossenvs.games.crosse import HOP_BASE, JUMPING, NUM_ACTIONS, NUM_MOVES, PASS_ACTION
from crossenvs.kernels import state as st


def test_games_end_within_the_cap_and_all_outcomes_occur():
    game = make_game("crosse", move_cap=200)
    rng = np.random.default_rng(3)
    outcomes = set()
    for _ in range(60):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert state.ply <= 200
        outcomes.add(game.outcome(state))
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}


def test_a_jump_sequence_is_one_ply_by_one_player():
    game = make_game("crosse")
    rng = np.random.default_rng(11)
    sequences = 0
    for before, _action, after in play_random_games(game, rng, 4000):
        if after.meta[JUMPING] >= 0:  # mid-sequence: the same player hops on, and no ply is counted yet
            sequences += 1
            assert game.current_player(after) == game.current_player(before) and after.ply == before.ply
            square = int(after.meta[JUMPING])
            start = game.action_to_str(after, int(game.legal_actions(after)[0])).split("x")[0]
            assert all(
                game.action_to_str(after, int(a)).startswith(start) for a in game.legal_actions(after)
            ) and start == square_name(*divmod(square, 10))
    assert sequences > 0


def test_observation_planes_follow_the_state():
    game = make_game("crosse")
    start = game.initial_state()
    black, white = game.observe(start, 0), game.observe(start, 1)
    assert black[..., 0].sum() == 16 and black[..., 1].sum() == 16
    assert black[0, 0, 0] == 1 and white[0, 0, 0] == 1  # Black's a1; White's j10, turned half a turn
    assert black[..., 2].sum() == 54 and black[..., 3].sum() == 12 and black[..., 4].sum() == 4
    assert black[0, :, 5].all() and black[9, :, 6].all()
    assert black[..., 7:19].all()  # both full token sets
    after = game.apply(start, game.str_to_action(start, "3F:f4-i5"))
    planes = game.observe(after, 1)  # White: opponent's 3F (plane 13 + 2) is used
    assert not planes[..., 15].any() and planes[..., 7:15].all() and planes[..., 16:19].all()
    assert planes[..., 25].min() == planes[..., 25].max() == 1 / 600  # progress to the cap
    assert not planes[..., 19:25].any()  # no cover, no jump, no decision, no pass


def test_cover_and_jump_planes():
    game = make_game("crosse", first_player="white")
    # White (seat 0) holds the cover; j8 must take i7 and g5 (j8xh6, h6xf4), more than g4xg6 takes.
    state = game.from_text(
        "to_move: white\n10 . . . . . . . . . W\n8 . . . . . . . . . W\n7 . . . W . . W . B .\n"
        "5 . . . . . . B . . .\n4 . . . W . . W . . .\n1 B . . . . . . . . .\n"
    )
    assert legal_moves(game, state) == {"j8xh6"}
    white, black = game.observe(state, 0), game.observe(state, 1)
    assert white[..., 19].all() and not white[..., 20].any() and black[..., 20].all() and not black[..., 19].any()
    assert not white[..., 21:23].any()
    middle = game.apply(state, game.str_to_action(state, "j8xh6"))
    white, black = game.observe(middle, 0), game.observe(middle, 1)
    assert white[..., 21].sum() == 1 and white[4, 2, 21] == 1  # h6 (row 5, col 7) turned half a turn
    assert black[..., 21].sum() == 1 and black[5, 7, 21] == 1  # Black sees h6 where it is
    assert white[..., 22].all() and black[..., 22].all()  # the jumper held the cover when the jump began
    done = game.apply(middle, game.str_to_action(middle, "h6xf4"))
    assert not game.observe(done, 1)[..., 21:23].any() and game.current_player(done) == 1


# --------------------------------------------------------------------------- bad input
def test_options_are_checked():
    with pytest.raises(InvalidOptionError, match="stuck_tokens must be one of"):
        make_game("crosse", stuck_tokens="wait")
    with pytest.raises(InvalidOptionError, match="cover_removal must be one of"):
        make_game("crosse", cover_removal="never")
    with pytest.raises(InvalidOptionError, match="first_player"):
        make_game("crosse", first_player="red")
    with pytest.raises(InvalidOptionError, match="move_cap must be an integer"):
        make_game("crosse", move_cap=0)
    with pytest.raises(InvalidOptionError, match="unknown option"):
        make_game("crosse", dice=True)


@pytest.mark.parametrize(
    "text, message",
    [
        ("to_move: black\n5 . . . . B . . . . .\n", "B on e5 is in the centre"),
        ("to_move: black\n1 . B . . . . . . . .\n", "B on b1 is on a light square"),
        ("to_move: black\ntokens_black: 4F\n1 B . . . . . . . . .\n", "'4F' is not a token"),
        ("to_move: black\ntokens_black: 1F 1F\n1 B . . . . . . . . .\n", "listed twice"),
        ("to_move: black\ntokens_black:\n1 B . . . . . . . . .\n", "at least one token"),
        ("to_move: black\njumping: a1\n10 . W . . . . . . . .\n1 B . . . . . . . . .\n", "no further hop"),
        ("to_move: black\njumping: c1\n10 . W . . . . . . . .\n1 B . . . . . . . . .\n", "no black stone"),
        ("to_move: black\ncover_before: yes\n10 . W . . . . . . . .\n1 B . . . . . . . . .\n", "belongs with"),
        ("to_move: black\nremoval: pending\n10 . W . . . . . . . .\n1 B . . . . . . . . .\n", "cover_removal="),
        ("to_move: green\n1 B . . . . . . . . .\n", "not a colour"),
        ("to_move: black\n1 # . . . . . . . . .\n", "cell a1 is '#', which marks the centre"),
        ("to_move: black\n1 o . . . . . . . . .\n", "cell a1 is 'o', which marks a ring cell"),
        ("to_move: black\n4 - . - + o B + . - -\n", "cell j4 is '-', which marks a light square"),
    ],
)
def test_malformed_position_text_is_refused_clearly(text, message):
    with pytest.raises(PositionTextError, match=message):
        make_game("crosse").from_text(text)


def test_bad_notation_is_refused_clearly():
    game = make_game("crosse")
    start = game.initial_state()
    for text, message in [
        ("3F:f4-f5", "no path of exactly 3 forward step"),
        ("4F:f4-i5", "not a token"),
        ("f4xf6", "no single jump"),
        ("f4-i5", "expected a token move"),
        ("h6xf8xh10", "one hop per action"),
        ("3F:z4-i5", "off the 10x10 board"),
        ("3F:4-i5", "not a square name"),
    ]:
        with pytest.raises(IllegalActionError, match=message):
            game.str_to_action(start, text)
    with pytest.raises(IllegalActionError, match="illegal move 1F:a1-b2"):
        game.apply(start, game.str_to_action(start, "1F:a1-b2"))  # b2 is taken
    with pytest.raises(IllegalActionError, match="illegal move remove"):
        game.apply(start, game.str_to_action(start, "remove"))  # no decision pending


def test_the_action_encoding_has_the_documented_size():
    game = make_game("crosse")
    assert (NUM_MOVES, PASS_ACTION - HOP_BASE, NUM_ACTIONS) == (964, 128, 1095) == (964, 128, game.num_actions)


def test_every_id_has_notation_that_reads_back_for_both_colours():
    for first in ("black", "white"):
        game = make_game("crosse", first_player=first)
        start = game.initial_state()
        texts = [game.action_to_str(start, a) for a in range(NUM_ACTIONS)]
        assert len(set(texts)) == NUM_ACTIONS
        assert [game.str_to_action(start, t) for t in texts] == list(range(NUM_ACTIONS))
        assert texts[HOP_BASE].count("x") == 1 and texts[PASS_ACTION] == "pass"


def test_terminal_positions_load_as_over():
    game = make_game("crosse")
    corners_only = "to_move: white\n10 . . . . . . . . . W\n7 . . . B . . B . . .\n4 . . . B . . B . . .\n"
    won = game.from_text(corners_only)
    assert game.outcome(won) == (1.0, -1.0) and not legal_moves(game, won)  # Black holds just the corners
    capped = game.from_text("to_move: black\nply: 600\n10 . W . . . . . . . .\n1 B . . . . . . . . .\n")
    assert capped.status == st.STATUS_DRAW
