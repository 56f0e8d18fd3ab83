"""Terminal play and what it shows (issue: terminal play): legend, last move, end reasons,
the opponent thinking, Ctrl-C and end of input, Crosse moves without their token, input errors."""

from __future__ import annotations

import io
import signal
import subprocess
import sys

import numpy as np
import pytest
from conftest import CROSSE_C4, play, position

from crossenvs import list_games, make_game
from crossenvs.cli import main as cli
from crossenvs.core.view import LAST_MOVE, marked_board
from crossenvs.kernels.specialize import specialize
from crossenvs.play import play as play_game
from crossenvs.play.game_in_progress import GameInProgress as Match
from crossenvs.play.game_in_progress import play_frames, shorthand_actions
from crossenvs.players import Player, RandomPlayer

CROSSINGS_STUCK = "to_move: white\nply: 2\n8 . . . . W . . .\n1 . . . B . . . .\n"  # docs/crossings.md


def run(argv: list[str], lines: str = "", out: io.StringIO | None = None) -> tuple[int, str]:
    """``crossenvs play ...`` with ``lines`` as the person's input; the exit status and the output."""
    out = out if out is not None else io.StringIO()
    code = cli(["play", *argv], out=out, source=io.StringIO(lines))
    return code, out.getvalue()


class Terminal(io.StringIO):
    """An output stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Interrupting(io.StringIO):
    """Input on which the person presses Ctrl-C once the given lines are read."""

    def readline(self, *args) -> str:
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


class Interrupted(Player):
    """An opponent interrupted by Ctrl-C while it searches."""

    name = "slow"

    def act(self, game, state) -> int:
        raise KeyboardInterrupt


# --------------------------------------------------------------------------- 1. the legend
@pytest.mark.parametrize("name", list_games())
def test_the_legend_explains_every_letter_the_board_shows(name):
    game = make_game(name)
    legend = dict(game.view.legend())
    state, rng = game.initial_state(), np.random.default_rng(0)
    for _ in range(20):  # a few positions, so captures and moved pieces show too
        letters = {letter for row in game.text_rows(state) for letter in row}
        assert letters <= set(legend), f"{name}: {letters - set(legend)} unexplained"
        if game.is_terminal(state):
            break
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[rng.integers(legal.size)]))


def test_the_legend_comes_from_the_games_own_letters_and_colours():
    assert make_game("charing_cross").view.legend()[:2] == [
        ("N", "white knight (races to file h)"),
        ("R", "white rook (races to rank 1)"),
    ]
    assert ("+", "empty ring corner") in make_game("crosse").view.legend()
    assert ("W", "white stone (frozen on rank 8)") in make_game("crossings").view.legend()
    assert make_game("tictactoe").view.legend() == [("X", "x piece"), ("O", "o piece"), (".", "empty")]  # defaults


def test_play_prints_the_legend_beside_the_board():
    code, text = run(["crosse", "--opponent", "random"], "quit\n")
    assert code == 0
    assert "10 - W - W - W - W - W    B   black stone" in text
    assert " 4 - . - + o B + . - .    #   centre (never used)" in text
    assert "[ ] last move" in text


# --------------------------------------------------------------------------- 2. the last move
def test_action_cells_are_the_from_and_to_squares_of_every_kind_of_move():
    crosse = make_game("crosse")
    start = crosse.initial_state()
    assert crosse.action_cells(start, crosse.str_to_action(start, "3F:f4-i5")) == [(3, 5), (4, 8)]
    c4 = crosse.from_text(position(CROSSE_C4, "white"))
    assert crosse.action_cells(c4, crosse.str_to_action(c4, "h6xf8")) == [(5, 7), (7, 5)]  # White's frame
    crossings = make_game("crossings")
    line = crossings.from_text("to_move: white\n4 . . W . . . . .\n3 . . W . . . . .\n2 . . W . . . . .\n")
    assert crossings.action_cells(line, crossings.str_to_action(line, "c2-c4-c6")) == [(1, 2), (5, 2)]
    charing = make_game("charing_cross")
    jumped = play(charing, charing.initial_state(), "a4-a6")
    assert charing.action_cells(jumped, charing.str_to_action(jumped, "@a4")) == [(3, 0)]
    crisscross = make_game("crisscross", size=4)
    blue = play(crisscross, crisscross.initial_state(), "a1")
    assert crisscross.action_cells(blue, 1) == [(1, 0)]  # Blue's id 1 is a2 (his frame is transposed)
    stuck = crossings.from_text(CROSSINGS_STUCK)
    assert crossings.action_cells(stuck, crossings.str_to_action(stuck, "pass")) == []


def test_the_ansi_board_brackets_the_last_move_and_keeps_its_columns():
    game = make_game("crossings")
    before = game.initial_state()
    action = game.str_to_action(before, "a2-a3")
    text = game.render_ansi(game.apply(before, action), game.action_cells(before, action))
    assert "3[W]. . . . . . ." in text and "2[.]W W W W W W W" in text
    assert marked_board([["R", "B", ".", "."]], {(0, 0), (0, 1)}, colour=False)[0] == "1[R|B]. ."  # neighbours
    assert marked_board([[".", "R"]], {(0, 1)}, colour=False)[0] == "1 .[R]"
    assert game.render_ansi(before) == game.render_ansi(before, ())  # nothing marked: as before


def test_render_rgb_outlines_the_last_move_and_gif_frames_carry_it(tmp_path):
    game = make_game("crisscross", size=4)
    before = game.initial_state()
    after = game.apply(before, 0)
    outline = np.array(LAST_MOVE, dtype=np.uint8)
    assert not (game.render_rgb(after) == outline).all(axis=2).any()
    marked = game.render_rgb(after, last_move=game.action_cells(before, 0))
    assert (marked == outline).all(axis=2).sum() > 100
    frames = play_frames(make_game("crisscross", size=3), [RandomPlayer(1), RandomPlayer(2)])
    assert [(frame == outline).all(axis=2).any() for frame in frames] == [False] + [True] * (len(frames) - 1)
    path = tmp_path / "game.gif"
    argv = ["gif", "crisscross", "--option", "size=3", "--players", "random", "random", "--out", str(path)]
    assert cli(argv, out=io.StringIO()) == 0 and path.stat().st_size > 0


def test_a_turn_of_several_decisions_stays_marked_as_a_whole():
    game = make_game("crosse")
    match = Match(game, game.from_text(position(CROSSE_C4, "white")))
    match.play(game.str_to_action(match.state, "h6xf8"))
    match.play(game.str_to_action(match.state, "f8xh10"))
    assert match.last_move == [(5, 7), (7, 5), (9, 7)] and match.record == ["h6xf8", "f8xh10"]
    match.play(game.legal_actions(match.state)[0])  # Black's turn: only his move is marked
    assert len(match.last_move) == 2


# --------------------------------------------------------------------------- 3. why the game ended
RED_JOINED = "to_move: blue\nply: 3\n3 R . .\n2 R B .\n1 R . .\n"
FULL_BOARD = "to_move: blue\nply: 9\n3 R B R\n2 B R B\n1 R B R\n"
CROSSINGS_X6 = "to_move: black\nply: 1\n8 . . . . W B B .\n2 . B . . . . . .\n"  # docs/crossings.md, X6
CROSSE_SHED = "to_move: white\n10 - W - . - . - . - .\n"
CROSSE_CORNERS = "to_move: black\n10 - W - . - . - . - .\n 7 . - . B o o B - . -\n 4 - . - B o o B . - .\n"
END_CASES = [
    ("crisscross", {"size": 3}, RED_JOINED, [], "Red wins: Red joined the top and bottom edges"),
    ("crisscross", {"size": 3}, FULL_BOARD, [], "Draw: the board is full and nobody is connected"),
    ("crossings", {"stalemate": "loss"}, CROSSINGS_STUCK, [], "Black wins: White has no legal move (stalemate=loss)"),
    ("crossings", {}, CROSSINGS_STUCK, ["pass", "pass"], "Draw: two passes in a row"),
    (
        "crossings",
        {},
        CROSSINGS_X6,
        ["b2-b3"],
        "White wins: White starts his turn with more frozen stones on his far rank (1 to 0)",
    ),
    ("neo_crossings", {"move_cap": 2}, None, ["a2-a3", "a7-a6"], "Draw: the move cap (2 plies)"),
    ("crosse", {}, CROSSE_SHED, [], "Black wins: Black has no stones left"),
    ("crosse", {}, CROSSE_CORNERS, [], "Black wins: Black's only stones are the four ring corners"),
]


@pytest.mark.parametrize("name, options, text, moves, reason", END_CASES)
def test_end_reasons_follow_the_rules(name, options, text, moves, reason):
    game = make_game(name, **options)
    state = play(game, game.from_text(text) if text else game.initial_state(), *moves)
    assert game.is_terminal(state) and game.end_reason(state) == reason
    assert game.end_reason(game.initial_state()) == ""  # nothing to say while the game goes on


def test_end_reason_of_a_race_names_the_piece_and_play_prints_it():
    game = make_game("charing_cross")
    won = game.from_text("to_move: black\nply: 9\n8 . . . R R . . .\n5 . . . . . . . N\n1 . . . r r . . .\n")
    assert game.end_reason(won) == "White wins: the white knight reached file h on h5"
    moves = "".join(f"{square}\n" for rank in "1234" for square in (f"a{rank}", f"b{rank}", f"c{rank}", f"d{rank}"))
    code, text = run(["crisscross", "--option", "size=4", "--opponent", "random"], moves)
    assert code == 0
    assert "Game over: Red wins: Red joined the top and bottom edges. You win." in text or (
        "Game over: Blue wins: Blue joined the left and right edges. You lose." in text
    )
    assert "\nmoves: a1 " in text


# --------------------------------------------------------------------------- 4. the opponent thinks
def test_a_thinking_line_comes_before_the_opponents_move():
    code, text = run(["crisscross", "--option", "size=4", "--opponent", "mcts:20"], "a1\nquit\n")
    assert code == 0 and "mcts20 is thinking...\nmcts20 plays " in text
    assert "\x1b" not in text  # not a terminal: plain text


def test_a_random_opponent_is_not_said_to_think():
    code, text = run(["crisscross", "--option", "size=4", "--opponent", "random", "--seat", "second"], "quit\n")
    assert code == 0 and "random plays " in text and "thinking" not in text


def test_a_placement_on_a_taken_square_says_it_is_taken():
    _, text = run(["crisscross", "--option", "size=4", "--opponent", "random", "--seat", "second"], "quit\n")
    taken = text.split("random plays ")[1].split()[0]  # the square the opponent just filled
    code, text = run(
        ["crisscross", "--option", "size=4", "--opponent", "random", "--seat", "second"], f"{taken}\nquit\n"
    )
    assert code == 0 and f"{taken} is taken (R); place on an empty square" in text


def test_a_terminal_gets_the_thinking_line_replaced_and_the_last_move_in_reverse_video():
    code, text = run(["crisscross", "--option", "size=4", "--opponent", "greedy"], "a1\nquit\n", out=Terminal())
    assert code == 0 and "greedy is thinking...\r\x1b[Kgreedy plays " in text
    assert "1[\x1b[7mR\x1b[0m]. . ." in text


# --------------------------------------------------------------------------- 5. Ctrl-C and end of input
def test_ctrl_c_at_the_prompt_abandons_with_the_record_and_position_and_exit_130():
    out, argv = io.StringIO(), ["play", "crisscross", "--option", "size=4", "--opponent", "greedy"]
    assert cli(argv, out=out, source=Interrupting("a1\n")) == 130
    text = out.getvalue()
    abandoned = text[text.index("game abandoned") :]
    assert abandoned.startswith("game abandoned (interrupted) at ply 2; moves: a1 b1; position:\nto_move: red\n")
    assert make_game("crisscross", size=4).from_text(abandoned.split("position:\n")[1]).ply == 2  # it reads back


def test_ctrl_c_while_the_opponent_thinks_is_clean_too():
    out = io.StringIO()
    assert play_game(make_game("crisscross", size=4), Interrupted(), 1, out, io.StringIO("")) == 130
    assert "slow is thinking...\ngame abandoned (interrupted) at ply 0; moves: none; position:" in out.getvalue()


def test_end_of_input_abandons_cleanly():
    code, text = run(["crisscross", "--option", "size=4", "--opponent", "greedy"], "a1\n")
    assert code == 0 and "game abandoned (end of input) at ply 2; moves: a1 b1; position:" in text
    assert text.rstrip().endswith("a b c d")


# --------------------------------------------------------------------------- 6. Crosse without the token
def test_crosse_moves_without_their_token_are_read_when_one_token_fits():
    code, text = run(["crosse", "--opponent", "random"], "f4-i5\nquit\n")
    assert code == 0 and "(read as 3F:f4-i5)" in text and "random plays " in text


def test_crosse_moves_that_several_tokens_fit_list_the_alternatives():
    code, text = run(["crosse", "--opponent", "random"], "f4-g5\n4F:f4-i5\nquit\n")
    assert code == 0 and "'f4-g5' fits 1F:f4-g5 or 2F:f4-g5 or 3F:f4-g5: type one of them" in text
    assert "'4F' is not a token" in text and "read as" not in text  # a bad token is not guessed around
    assert text.count("your move> ") == 3


def test_a_jump_may_be_typed_as_its_squares():
    game = make_game("crosse")
    state = game.from_text(position(CROSSE_C4, "white"))
    assert shorthand_actions(game, state, "h6-f8") == [game.str_to_action(state, "h6xf8")]
    assert shorthand_actions(game, state, "f10-h8") == []  # not the maximum capture: not legal


# --------------------------------------------------------------------------- input errors
@pytest.mark.parametrize("name", ["crosse", "crossings", "neo_crossings", "charing_cross", "crisscross"])
def test_bad_input_lines_get_a_message_and_a_new_prompt(name):
    bad = ["zz", "a1-a2-a3-a4", "#99999", "#0", "@z9", "pass", "x", "1F:", "-", "a0", "j10xj10", "keep", "c2-c4-c6"]
    code, text = run([name, "--opponent", "random"], "\n".join(bad) + "\nquit\n")
    assert code == 0 and text.rstrip().endswith("bye")
    assert text.count("your move> ") == len(bad) + 1  # each bad line, then quit
    assert "Traceback" not in text


def test_an_illegal_move_names_the_legal_moves_from_that_square():
    code, text = run(["crossings", "--opponent", "random"], "a2-a4\nquit\n")
    assert code == 0
    assert "legal moves from that square: a2-a3 a2-b3" in text


#: ``crossenvs play`` whose MCTS opponent's search never ends on its own: a compiled loop that, like the real
#: search, runs without the GIL and polls the stop flag, which nothing in a terminal game sets
NEVER_DONE = """
import sys
import numba
import numpy as np
from crossenvs.cli import main
from crossenvs.players import MCTSPlayer

@numba.njit(nogil=True)
def think(stop):
    thought = 0
    while stop[0] == 0:
        thought += 1
    return thought

think(np.ones(1, dtype=np.uint8))  # compiled before the game starts
MCTSPlayer._search = lambda self, game, board, meta, seed: think(self.stop_flag)
sys.exit(main(sys.argv[1:]))
"""


def test_a_real_ctrl_c_stops_a_long_search_at_once():
    """SIGINT while the opponent's compiled search runs: the game is abandoned, exit 130. The search here never
    ends, so a Ctrl-C that waited for it would never return: the outcome does not hang on how fast anything is."""
    game = make_game("crosse")
    assert specialize("crossenvs.players.mcts", type(game)).search.targetoptions["nogil"]  # as the stand-in runs
    argv = ["play", "crosse", "--opponent", "mcts:300000", "--seat", "second"]
    process = subprocess.Popen(
        [sys.executable, "-c", NEVER_DONE, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C's default action, whatever this test process inherited or was given (a Ray driver earlier in
        # the session changes it): a terminal's shell starts the command with it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        thinking = ""
        while "is thinking..." not in thinking:  # the search starts right after this line
            thinking += process.stdout.read(1) or pytest.fail(f"exited early: {process.stderr.read()}")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=300)  # only stops a hang (a Ctrl-C that waited for the search)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "game abandoned (interrupted) at ply 0" in out and "Traceback" not in err


# --------------------------------------------------------------------------- placements, the legend's column, flips
def test_two_squares_in_a_placement_game_say_what_a_move_looks_like():
    code, text = run(["crisscross", "--option", "size=5", "--opponent", "random"], "a1 b2\nquit\n")
    assert code == 0 and "legal moves from that square" not in text  # a placement has no from-square
    assert "a move places one piece: type one empty square, such as a1 (type 'help' for the legal moves)" in text


@pytest.mark.parametrize("name", list_games())
def test_the_legend_keeps_its_column_when_the_last_move_is_on_the_last_file(name):
    game = make_game(name)
    state = game.initial_state()
    plain = game.render_ansi(state, legend=True).splitlines()
    marked = game.render_ansi(state, [(game.height - 1, game.width - 1)], legend=True).splitlines()
    first_entry = game.view.legend()[0][0] + " "
    assert plain[1].index(first_entry, 2 * game.width) == marked[1].index(first_entry, 2 * game.width)
    assert marked[1].rstrip().endswith(game.view.legend()[0][1]) and "]   " in marked[1]


def test_a_move_that_flips_checkers_says_which():
    game = make_game("crisscross", size=5)
    ongoing = Match(game, game.initial_state())
    ongoing.play(game.str_to_action(ongoing.state, "e1"))
    assert ongoing.turned == [] and ongoing.turned_text() == ""
    ongoing.play(game.str_to_action(ongoing.state, "e2"))  # Blue flanks e1 against the bottom edge
    assert ongoing.turned == [(0, 4)] and ongoing.turned_text() == "e1 turns blue"
    code, text = run(["crisscross", "--option", "size=5", "--opponent", "greedy"], "b1\nc2\nb3\nquit\n")
    assert code == 0 and "greedy plays b2: b1 turns blue" in text and "you play b3: b1 b2 turn red" in text


def test_a_capture_is_not_called_a_flip():
    """In Crossings a captured stone's square takes the capturer's stone: a change of owner, but no flip."""
    game = make_game("crossings")
    before = game.initial_state()
    after = game.from_text(game.to_text(before).replace("2 W", "2 B", 1))
    assert (before.board != after.board).any() and game.view.turned_cells(before, after) == []
