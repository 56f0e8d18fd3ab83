"""Connect Four against ground truth: our exact solver against bitbully (an independent solver no one here
wrote), the benchmark positions and their classes, the mistake rate, and the perfect player."""

from __future__ import annotations

import numpy as np
import pytest
from bitbully import BitBully, Board

import crossenvs
from crossenvs.cli import main as cli
from crossenvs.eval.connect_four import ConnectFourSolver, SolverBudgetError, mistakes, positions
from crossenvs.eval.connect_four.bitbully_check import bitbully_scores, bitbully_scores_of_state
from crossenvs.eval.connect_four.solver_api import plies_left
from crossenvs.players import make_player
from crossenvs.support.errors import InvalidArgumentError, InvalidOptionError, InvalidStateError

GAME = crossenvs.make_game("connect_four")


@pytest.fixture(scope="module")
def solver() -> ConnectFourSolver:
    return ConnectFourSolver(table_bits=20)


def random_moves(rng, low: int, high: int) -> str:
    """A random game's first plies (a ply count in ``[low, high)``), redrawn while it ends before."""
    while True:
        target, state, moves = int(rng.integers(low, high)), GAME.initial_state(), []
        while len(moves) < target and not GAME.is_terminal(state):
            column = int(rng.choice(GAME.legal_actions(state)))
            state = GAME.apply(state, column)
            moves.append(column)
        if not GAME.is_terminal(state):
            return "".join(map(str, moves))


def test_every_move_score_equals_bitbullys_on_random_positions(solver):
    rng = np.random.default_rng(11)  # the build checked its 7,000 positions of ours too
    checked = 0
    for _ in range(150):
        moves = random_moves(rng, 12, 42)
        ours = solver.move_scores(positions.replay(GAME, moves)).scores
        assert ours == bitbully_scores(moves), moves
        checked += 1
    assert checked == 150


def test_plies_left_is_bitbullys_moves_left(solver):
    """Our distance to the end from a score is bitbully's (its own conversion), and the start's is 41:
    Red wins with the last disc."""
    assert plies_left(1, 0, 42) == 41 == BitBully.score_to_moves_left(1, Board())
    rng = np.random.default_rng(3)
    for _ in range(100):
        moves = random_moves(rng, 14, 40)
        best = solver.move_scores(positions.replay(GAME, moves)).best
        board = Board.from_moves([int(d) for d in moves])
        assert plies_left(best, len(moves), 42) == BitBully.score_to_moves_left(best, board), moves


def test_a_win_in_one_and_a_forced_loss():
    """Red (to move) has three across the bottom, Yellow three up the f file: d1 wins at once, score
    (43 - 10) // 2 = 16; every other move loses, Yellow's next disc winning (-16) but after the block at f4."""
    state = positions.replay(GAME, "0516260515")  # red a1 b1 c1 a2 b2, yellow f1 g1 g2 f2 f3
    assert GAME.current_player(state) == 0
    scores = ConnectFourSolver(table_bits=16).move_scores(state).scores
    assert scores[3] == 16 and all(score < 0 for col, score in scores.items() if col != 3), scores


def test_the_budget_and_the_grid_are_checked(solver):
    with pytest.raises(SolverBudgetError, match="give a larger budget"):
        solver.move_scores(GAME.initial_state(), nodes=1000)
    with pytest.raises(InvalidStateError, match="solver's grid 7x6"):
        solver.move_scores(crossenvs.make_game("connect_four", columns=6).initial_state())
    with pytest.raises(InvalidStateError, match="game is over"):
        solver.move_scores(positions.replay(GAME, "0101010"))
    with pytest.raises(InvalidArgumentError, match="64 bits"):
        ConnectFourSolver(columns=12, rows=12)
    with pytest.raises(InvalidArgumentError, match="nodes must be"):
        solver.move_scores(GAME.initial_state(), nodes=0)


def test_the_solver_survives_a_search_cut_short(solver):
    """A budget that runs out mid-search leaves nothing wrong behind in the table the next search reuses."""
    moves = "3324"
    state = positions.replay(GAME, moves)
    with pytest.raises(SolverBudgetError):
        solver.move_scores(state, nodes=200_000)
    assert solver.move_scores(positions.replay(GAME, "3324334455")).scores == bitbully_scores("3324334455")
    later = "33243344552"
    assert solver.move_scores(positions.replay(GAME, later)).scores == bitbully_scores(later)


@pytest.mark.parametrize(
    ("plies", "left", "klass"),
    [(0, 41, "begin-hard"), (14, 28, "begin-hard"), (14, 27, "begin-medium"), (14, 13, "begin-easy"),
     (15, 27, "middle-medium"), (28, 14, "middle-medium"), (28, 13, "middle-easy"), (29, 13, "end-easy")],
)  # fmt: skip
def test_classes_at_their_edges(plies, left, klass):
    assert positions.classify(plies, left) == klass


def test_a_build_stopped_and_resumed_gives_the_uninterrupted_set(tmp_path):
    """Two draws, a stop with a half-written line, then the rest: the same positions as in one go."""
    small = ConnectFourSolver(table_bits=18)
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    for _ in positions.build(whole, seed=5, per_class=2, solver=small, nodes=100_000):
        pass
    for _ in positions.build(parts, seed=5, per_class=2, solver=small, nodes=100_000, max_draws=2):
        pass
    with parts.open("a") as journal:
        journal.write('{"moves": "33", "sco')  # the stop came mid-line
    for _ in positions.build(parts, seed=5, per_class=2, solver=small, nodes=100_000):
        pass
    # the same draws and scores; who solved one may differ (the budget counts positions, the table remembers)
    assert [(r.moves, r.scores) for r in positions.read_journal(parts)] == [
        (r.moves, r.scores) for r in positions.read_journal(whole)
    ]
    sets = positions.load(whole, per_class=2)
    assert all(len(rows) == 2 for rows in sets.values()), {k: len(v) for k, v in sets.items()}
    for klass, rows in sets.items():
        assert all(row.klass == klass for row in rows)
        for row in rows:  # bitbully where ours ran out of budget, ours checked against bitbully elsewhere
            assert row.scores == bitbully_scores(row.moves), row


def test_the_shipped_positions_agree_with_bitbully():
    """Every class of the shipped set, checked against bitbully on a sample (the build checked every draw)."""
    sets = positions.load()
    rng = np.random.default_rng(0)
    for klass, rows in sets.items():
        assert rows, f"the shipped set has no {klass} position"
        for index in rng.choice(len(rows), size=min(40, len(rows)), replace=False):
            row = rows[index]
            assert row.scores == bitbully_scores(row.moves), row
            assert row.klass == klass and row.plies == len(row.moves)


def test_a_mistake_is_a_lost_value_not_a_slower_win():
    row = positions.BenchmarkPosition("", {0: -2, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -2})
    assert [mistakes.is_mistake(row, col) for col in range(7)] == [True, True, True, False, True, True, True]
    slower = positions.BenchmarkPosition("3", {0: 5, 1: 3, 2: 0, 3: -4})
    assert not mistakes.is_mistake(slower, 1) and mistakes.is_mistake(slower, 2)
    assert mistakes.wilson(0, 1000)[0] == 0.0 and 0.003 < mistakes.wilson(0, 1000)[1] < 0.004


def test_perfect_makes_no_mistake_and_random_makes_many():
    sets = {klass: rows[:12] for klass, rows in positions.load().items()}
    perfect = mistakes.mistake_rates(make_player("perfect", game=GAME, seed=0), sets)
    assert all(rate.mistakes == 0 for rate in perfect.values()), perfect
    rand = mistakes.mistake_rates(make_player("random", game=GAME, seed=0), sets)
    assert sum(rate.mistakes for rate in rand.values()) > 15, rand


def test_perfect_beats_random_from_both_seats():
    from crossenvs.eval.arena import match

    result = match(GAME, make_player("perfect", seed=1), make_player("random", seed=2), games=4, seed=0)
    assert result["games"] == 4 and result["win_rate"] == 1.0, result


def test_perfect_is_refused_off_the_standard_grid():
    with pytest.raises(InvalidOptionError, match="standard 7x6 grid"):
        make_player("perfect", game=crossenvs.make_game("connect_four", rows=5))
    with pytest.raises(InvalidOptionError, match="standard 7x6 grid"):
        make_player("perfect", game=crossenvs.make_game("crossings"))
    with pytest.raises(InvalidOptionError, match=r"perfect:<percent.*101"):
        make_player("perfect:101", game=GAME)


def test_perfect_with_a_share_of_random_moves():
    """``perfect:<percent>``: that share of its moves uniformly at random, the rest perfect (the ladder's top rungs)."""
    from crossenvs.eval.connect_four.player import PerfectPlayer

    assert make_player("perfect:0", game=GAME).random_percent == 0 and make_player("perfect").name == "perfect"
    assert make_player("perfect:10", game=GAME).name == "perfect10"
    always = PerfectPlayer(seed=0, random_percent=100)
    state = GAME.initial_state()
    picks = {always.act(GAME, state) for _ in range(200)}
    assert picks == set(range(7))  # every column, though the perfect move from the empty grid is the centre alone
    never = PerfectPlayer(seed=0, random_percent=0)
    assert {never.act(GAME, state) for _ in range(5)} == {3}
    some = PerfectPlayer(seed=0, random_percent=30)
    off_centre = sum(some.act(GAME, state) != 3 for _ in range(1000))
    assert 0.30 * 6 / 7 * 1000 - 60 < off_centre < 0.30 * 6 / 7 * 1000 + 60, off_centre  # 257 expected


def test_bitbully_reads_our_positions_as_we_do():
    moves = "334455"
    assert bitbully_scores_of_state(positions.replay(GAME, moves)) == bitbully_scores(moves)


def test_the_mistakes_command(capsys, monkeypatch):
    from crossenvs.support import waits

    monkeypatch.setattr(waits, "SPEAK_AFTER", 0.0)  # every wait speaks: the minutes of a real run are not silent
    monkeypatch.delenv("CROSSENVS_COMPILE_NOTICE", raising=False)  # the suite may silence them
    monkeypatch.setattr(waits.LOGGER, "hasHandlers", lambda: False)  # onto stderr, pytest's log capture aside
    assert cli(["mistakes", "random", "perfect", "--per-class", "5", "--seed", "1"]) in (0, None)
    captured = capsys.readouterr()
    assert "crossenvs: perfect's moves against the solved ones (30 positions)" in captured.err, captured.err
    out = captured.out
    assert "| random: class |" in out and "| perfect: class |" in out
    perfect_rows = out.split("| perfect: class |")[1].splitlines()[2:8]
    assert len(perfect_rows) == 6 and all("| 5 | 0 | 0.0% |" in row for row in perfect_rows), perfect_rows
    assert cli(["mistakes", "random", "--per-class", "0"]) == 2
    assert "--per-class" in capsys.readouterr().err


def test_list_says_which_games_have_an_agent_a_ladder_and_perfect_play():
    import io

    out = io.StringIO()
    assert cli(["list"], out=out) == 0
    blocks = {block.split()[0]: block for block in out.getvalue().split("\n") if block and not block[0].isspace()}
    text = out.getvalue()
    assert set(blocks) >= {"connect_four", "crossings", "hex"}
    after = {name: text.split(name + " ", 1)[1].split("\n")[2] for name in ("connect_four", "crossings", "hex")}
    assert after["crossings"].strip() == "pretrained agent: yes; ladder (crossenvs rate): yes"
    assert after["hex"].strip() == "pretrained agent: yes; ladder (crossenvs rate): yes"
    from crossenvs.cli.list_games import strength_tools

    assert strength_tools("a_game_of_your_own") == "pretrained agent: none yet; ladder (crossenvs rate): none yet"
    assert "perfect play: the perfect player and crossenvs mistakes" in after["connect_four"]


def test_a_finished_run_suggests_only_commands_that_work(tmp_path):
    from crossenvs.az.evaluation import next_commands

    c4 = "\n".join(next_commands("connect_four", {}, tmp_path / "final.pt"))
    assert "crossenvs rate az:" in c4 and "crossenvs mistakes az:" in c4 and "final.pt:0" in c4
    seven = "\n".join(next_commands("connect_four", {"columns": 8}, tmp_path / "final.pt"))
    assert "crossenvs rate" not in seven and "crossenvs mistakes" not in seven  # neither at 8 columns
    crossings = "\n".join(next_commands("crossings", {}, tmp_path / "final.pt"))
    assert "crossenvs rate az:" in crossings and "crossenvs mistakes" not in crossings
    assert "mcts:500 random --games 20" in crossings  # two rungs: eval rates the agent on the ladder's scale
    for text in (c4, seven, crossings):  # the commands' notes start in one column, whatever their lengths
        assert len({line.index("   # ") for line in text.splitlines()[1:]}) == 1


def test_perfect_asks_the_book_first_in_the_opening_and_our_solver_later(monkeypatch):
    """Before ply 12 bitbully's book answers at once where our solver would search for minutes; from ply 12
    our solver answers (the book only past its budget), and without bitbully our solver tries the opening."""
    from crossenvs.eval.connect_four import bitbully_check, player

    asked = []
    real = bitbully_check.bitbully_scores_of_state
    monkeypatch.setattr(bitbully_check, "bitbully_scores_of_state", lambda state: asked.append(1) or real(state))
    opening, later = positions.replay(GAME, "332"), positions.replay(GAME, "332455662200")
    perfect = player.PerfectPlayer(seed=0)
    assert perfect.move_scores(GAME, opening) == bitbully_scores("332") and asked == [1]
    assert perfect._solver is None  # our solver was not even built
    assert perfect.move_scores(GAME, later) == bitbully_scores("332455662200") and asked == [1]
    monkeypatch.setattr(player, "book_installed", lambda: False)
    small = player.PerfectPlayer(seed=0, nodes=1000)
    assert small.move_scores(GAME, opening) == bitbully_scores("332")  # ours ran out, then the fallback
    assert small._solver is not None and asked == [1, 1]
