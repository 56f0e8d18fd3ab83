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
    with pytest.raises(crossenvs.InvalidActionError, match=r"64 is out of range: action ids are 0\.\.63"):
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


def test_passes_round_trip_through_text():
    game = make_game("crossings")
    state = game.from_text("to_move: white\npasses: 1\n7 . . . . . . . B\n2 W . . . . . . .\n")
    assert state.meta[3] == 1
    assert "passes: 1" in game.to_text(state)
    assert game.from_text(game.to_text(state)) == state
    assert "passes" not in game.to_text(game.initial_state())


# --------------------------------------------------------------------------- one clear error for every bad input
PLY_BOUND = r"is above 1000000000, the most plies a position may have played \(so that no game can overflow"


@pytest.mark.parametrize(
    "text, message",
    [
        ("to_move: red\nply: 2147483648\n", rf"^line 2: ply: 2147483648 {PLY_BOUND}"),
        ("to_move: red\nply: 2147483647\n", rf"^line 2: ply: 2147483647 {PLY_BOUND}"),
        ("to_move: red\nply: 1000000001\n", rf"^line 2: ply: 1000000001 {PLY_BOUND}"),
        ("to_move: red\nply: " + "9" * 5000 + "\n", rf"^line 2: ply: '9{{40}}'\.\.\. \(5000 characters\) {PLY_BOUND}"),
        ("to_move: red\nply: -" + "9" * 5000 + "\n", r"^line 2: ply: '-9{39}'\.\.\. \(5001 characters\) is below 0$"),
        ("to_move: red\nply: " + "0" * 5000 + "7\n", None),  # leading zeros of any length are still 7
        ("to_move: red\nply: -1\n", r"^line 2: ply: -1 is below 0$"),
        ("to_move: red\nply: ٣\n", r"^line 2: ply: '٣' is not an integer \(digits 0-9, e\.g\. '0'\)$"),
        ("to_move: red\nply: ３\n", r"^line 2: ply: '３' is not an integer"),
        ("to_move: red\nply: 1_000\n", r"^line 2: ply: '1_000' is not an integer"),
        ("to_move: red\nply: +5\n", r"^line 2: ply: '\+5' is not an integer"),
        ("to_move: red\nply:\n", r"^line 2: ply: '' is not an integer"),
        ("to_move: red\nply: 1 2\n", r"^line 2: ply: '1 2' is not an integer"),
        ("to_move: red\npasses: 1\n", r"^line 2: passes: crisscross has no pass, so there are no passes to count"),
        ("to_move: red\npasses: 0\n", r"^line 2: passes: crisscross has no pass"),
        ("to_move: red\n٣ . . . . . . . .\n", r"^line 2: rank '٣' must be written with the digits 0-9$"),
        ("to_move: red\n" + "9" * 5000 + " . .\n", r"^line 2: rank '9{40}'\.\.\. \(5000 characters\) is off the board"),
        ("to_move: red\n" + "0" * 5000 + " . .\n", r"^line 2: rank '0{40}'\.\.\. \(5000 characters\) is off the board"),
        ("to_move: " + "x" * 10**6 + "\n", r"^line 1: to_move: 'x{40}'\.\.\. \(1000000 characters\) is not a colour"),
        ("to_move: red\n" + "y" * 10**6 + ": 1\n", r"^line 2: unknown header 'y{40}'\.\.\. \(1000000 characters\)"),
        ("to_move: red\n" + "z" * 10**6 + "\n", r"^line 2: cannot read 'z{40}'\.\.\. \(1000000 characters\)"),
    ],
)
def test_bad_numbers_and_long_values_in_position_text(crisscross8, text, message):
    """Numbers are ASCII digits within a bound (int32 never sees more); errors quote at most 40 characters."""
    if message is None:
        assert crisscross8.from_text(text).ply == 7
        return
    with pytest.raises(PositionTextError, match=message) as caught:
        crisscross8.from_text(text)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("value", [b"to_move: red\n", bytearray(b"to_move: red\n")])
def test_bytes_are_refused_with_a_hint(crisscross8, value):
    with pytest.raises(PositionTextError, match=r"must be a str, not byte.*decode it first"):
        crisscross8.from_text(value)


@pytest.mark.parametrize("value", [None, 7, ["to_move: red"]])
def test_other_non_text_is_refused(crisscross8, value):
    with pytest.raises(PositionTextError, match=rf"^position text must be a str, not {type(value).__name__}$"):
        crisscross8.from_text(value)


@pytest.mark.parametrize("name", ["crossings", "neo_crossings", "charing_cross", "crosse"])
@pytest.mark.parametrize(
    "passes, message", [("3", r"3 is above 2: passes counts consecutive passes"), ("-1", "-1 is below 0")]
)
def test_passes_are_zero_one_or_two(name, passes, message):
    game = make_game(name)
    with pytest.raises(PositionTextError, match=rf"^line 2: passes: {message}"):
        game.from_text(f"to_move: {game.colours[0]}\npasses: {passes}\n")


@pytest.mark.parametrize("name", ["crossings", "neo_crossings", "charing_cross", "crosse"])
def test_a_ply_at_the_bound_is_a_capped_game(name):
    """At 10^9 plies every capped game is over (caps are at most 10^6): nothing is left to overflow."""
    game = make_game(name)
    state = game.from_text(game.to_text(game.initial_state()).replace("ply: 0", "ply: 1000000000"))
    assert game.outcome(state) == (0.0, 0.0) and not game.legal_mask(state).any()


def test_crisscross_ply_leaves_room_for_the_empty_squares(crisscross8):
    """Crisscross has no cap but fills a square per ply: ply + empty squares stays within the bound."""
    with pytest.raises(
        PositionTextError,
        match=r"^line 2: ply: 999999937 is too large: the 64 empty squares could take the game past ply 1000000000, "
        r"the most a position may have played \(give at most 999999936\)$",
    ):
        crisscross8.from_text("to_move: red\nply: 999999937\n")
    state = crisscross8.from_text("to_move: red\nply: 999999936\n")
    while crisscross8.outcome(state) is None:  # every position played on from it reads back
        state = crisscross8.apply(state, int(crisscross8.legal_actions(state)[0]))
        assert crisscross8.from_text(crisscross8.to_text(state)) == state
    assert state.ply <= 1_000_000_000


CHARING_BOARD = "8 . . . R R . . .\n6 N . . . . . . .\n1 . . . r r . . .\n"


@pytest.mark.parametrize(
    "headers, options, message",
    [
        ("ply: 200\n", {}, r"^line 3: pending: the game is over in this position, so no re-placement is pending$"),
        ("passes: 2\n", {}, "the game is over in this position"),
        ("passes: 1\n", {}, r"^line 2: passes: a re-placement follows a jump, which ends a run of passes: give 0$"),
        (
            "",
            {"self_jump": False},
            r"^line 3: jumper: with self_jump off no piece jumps its own side, so the jumper is black$",
        ),
        (
            "pending: " + "N" * 100 + "\n",
            {},
            r"^line 2: pending: 'N{40}'\.\.\. \(100 characters\) is not a piece letter",
        ),
    ],
)
def test_charing_cross_pending_choice_must_fit_the_position(headers, options, message):
    game = make_game("charing_cross", **options)
    pending = "" if headers.startswith("pending") else "pending: N\n"
    text = f"to_move: white\n{headers}{pending}jumper: white\n{CHARING_BOARD}"
    with pytest.raises(PositionTextError, match=message):
        game.from_text(text)


@pytest.mark.parametrize(
    "headers, message",
    [
        (
            "jumping: " + "f" * 100,
            r"^line 3: jumping: 'f{40}'\.\.\. \(100 characters\) is not a square name \(e\.g\. 'f4'\)$",
        ),
        ("jumping: f8\ncover_before: " + "y" * 100, r"^line 4: cover_before: expected yes or no, got 'y{40}'\.\.\. "),
        ("tokens_white: 1F " + "F" * 100, r"^line 3: tokens_white: 'F{40}'\.\.\. \(100 characters\) is not a token"),
    ],
)
def test_crosse_headers_quote_long_values_in_part(headers, message):
    with pytest.raises(PositionTextError, match=message):
        make_game("crosse").from_text(f"to_move: white\nply: 12\n{headers}\n{CROSSE_C4_AFTER_HOP}")


#: Crosse's example C4 (docs/crosse.md) after White's first hop h6xf8: the stone on f8 jumps on
CROSSE_C4_AFTER_HOP = """
10  - . - . - W - . - .
 9  . - . - . - B - . -
 8  - . - . - W - . - .
 7  . - . B o o + - . -
 6  - . - W # # o . - .
 4  - . - + o o W B - .
"""


def test_bad_arguments_to_engine_functions(crisscross6):
    state = crisscross6.initial_state()
    with pytest.raises(crossenvs.InvalidActionError, match=r"must be an integer action id in 0\.\.35"):
        crisscross6.apply(state, True)
    with pytest.raises(crossenvs.InvalidArgumentError, match="player must be the seat 0 or 1"):
        crisscross6.observe(state, 2)
