"""The exact solver against an independent brute force, on every game, and its budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import crossenvs
from crossenvs import InvalidArgumentError, make_game
from crossenvs.eval.solver import SolverBudgetError, solve

#: brute force's values by game setup (``repr(game)``) and position, kept from test to test: a position's value
#: does not depend on how the solver is asked to search, and the tests that differ only in that (the deepening
#: parametrizations) check the same positions, whose brute force is most of their time
_VALUES: dict[str, dict[bytes, int]] = {}


def brute_force(game, state, memo=None) -> int:
    """Plain minimax over ``Game.apply`` with a memo, no pruning: the value for the player to move."""
    memo = _VALUES.setdefault(repr(game), {}) if memo is None else memo
    key = state.board.tobytes() + state.meta.tobytes()
    if key not in memo:
        mover, best = game.current_player(state), -2
        for action in game.legal_actions(state):
            best = max(best, _action_value(game, state, int(action), mover, memo))
        memo[key] = best
    return memo[key]


def _action_value(game, state, action, mover, memo) -> int:
    child = game.apply(state, action)
    outcome = game.outcome(child)
    if outcome is not None:
        return int(outcome[mover])
    value = brute_force(game, child, memo)
    return value if game.current_player(child) == mover else -value


def solved_as_brute_force_says(game, state, deepening: int) -> int:
    """Solve ``state``; its value and every action's value must be brute force's. Returns the value."""
    solution = solve(game, state, nodes=2_000_000, table_bits=16, deepening=deepening)
    memo = _VALUES.setdefault(repr(game), {})
    assert solution.value == brute_force(game, state, memo), game.to_text(state)
    mover = game.current_player(state)
    assert solution.action_values == {
        int(a): _action_value(game, state, int(a), mover, memo) for a in game.legal_actions(state)
    }
    return solution.value


def test_tictactoe_is_a_draw_from_every_first_move():
    import examples.tictactoe  # noqa: F401 - registers the game

    solution = solve(make_game("tictactoe"))
    assert solution.value == 0 and set(solution.action_values.values()) == {0} and len(solution.optimal) == 9


def test_crisscross_3x3_agrees_with_brute_force_move_by_move():
    game = make_game("crisscross", size=3)
    start = game.initial_state()
    solution = solve(game)
    memo: dict = {}
    assert solution.value == brute_force(game, start, memo)
    for action, value in solution.action_values.items():
        assert value == _action_value(game, start, action, 0, memo), action


# A short move cap leaves a few plies to play, so brute force can check every game, its
# decisions in a row (Charing Cross re-placements, Crosse's jump sequences) included.
SHORT_GAMES = [
    ("crisscross", {"size": 4}, None),
    ("crossings", {"move_cap": 60}, 57),
    ("neo_crossings", {"move_cap": 60}, 57),
    ("charing_cross", {"move_cap": 40}, 37),
    ("crosse", {"move_cap": 30}, 27),
]


@pytest.mark.slow
@pytest.mark.parametrize("deepening", [0, 2], ids=["full", "deepening"])
@pytest.mark.parametrize(("name", "options", "stop_at_ply"), SHORT_GAMES, ids=[g[0] for g in SHORT_GAMES])
def test_the_solver_agrees_with_brute_force_near_the_end_of_random_games(name, options, stop_at_ply, deepening):
    game = make_game(name, **options)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(6):
        state = game.initial_state()
        while not game.is_terminal(state):
            left = int((state.board == 0).sum()) if stop_at_ply is None else stop_at_ply - state.ply
            if left <= (7 if stop_at_ply is None else 0):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(legal.size)]))
        if game.is_terminal(state):
            continue
        solved_as_brute_force_says(game, state, deepening)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize(("name", "options", "stop_at_ply"), SHORT_GAMES, ids=[g[0] for g in SHORT_GAMES])
def test_one_position_a_game_agrees_with_brute_force(name, options, stop_at_ply):
    """The fast tier's cross-check of every game: one position of the slow test's kind (it checks six, twice)."""
    game = make_game(name, **options)
    rng = np.random.default_rng(3)
    for _ in range(20):  # a game that ends before the position is reached is played again
        state = game.initial_state()
        while not game.is_terminal(state):
            left = int((state.board == 0).sum()) - 7 if stop_at_ply is None else stop_at_ply - state.ply
            if left <= 0:
                break
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(legal.size)]))
        if not game.is_terminal(state):
            break
    assert not game.is_terminal(state), "no random game reached the position"
    solved_as_brute_force_says(game, state, 0)


@pytest.mark.parametrize("deepening", [1, 2, 3, 4])
def test_every_depth_of_deepening_agrees_with_brute_force_on_wins_draws_and_losses(deepening):
    """Bounded searches that stop at any depth, on positions worth +1, 0 and -1 (tic-tac-toe draws)."""
    import examples.tictactoe  # noqa: F401 - registers the game

    seen = set()
    for name, options, empties in (("tictactoe", {}, 6), ("crisscross", {"size": 4}, 7)):
        game, rng = make_game(name, **options), np.random.default_rng(11)
        for _ in range(10):
            state = game.initial_state()
            while not game.is_terminal(state) and int((state.board == 0).sum()) > empties:
                legal = game.legal_actions(state)
                state = game.apply(state, int(legal[rng.integers(legal.size)]))
            if game.is_terminal(state):
                continue
            seen.add(solved_as_brute_force_says(game, state, deepening))
    assert seen == {-1, 0, 1}


def _wins_by_move_and_any_reply(game, state) -> bool:
    """Brute force: some move of the mover's after which every reply ends the game in the mover's favour."""
    mover = game.current_player(state)
    for action in game.legal_actions(state):
        child = game.apply(state, int(action))
        if game.is_terminal(child):
            if game.outcome(child)[mover] > 0:
                return True
            continue
        if game.current_player(child) == mover:
            continue
        replies = [game.apply(child, int(reply)) for reply in game.legal_actions(child)]
        if all(game.is_terminal(after) and game.outcome(after)[mover] > 0 for after in replies):
            return True
    return False


def test_deepening_proves_a_near_win_that_a_full_search_cannot_reach():
    """In Crossings a crossing wins only once the reply fails to answer it: three plies among ~100 moves."""
    game = make_game("crossings")
    rng = np.random.default_rng(3)
    proven, beyond_full_search = 0, 0
    for _ in range(60):
        state, history = game.initial_state(), []
        while not game.is_terminal(state):
            history.append(state)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(legal.size)]))
        if len(history) < 2 or not _wins_by_move_and_any_reply(game, history[-2]):
            continue
        solution = solve(game, history[-2], nodes=200_000, table_bits=16, moves=False)
        assert solution.value == 1, game.to_text(history[-2])
        proven += 1
        try:
            solve(game, history[-2], nodes=200_000, table_bits=16, moves=False, deepening=0)
        except SolverBudgetError:
            beyond_full_search += 1
        if proven >= 4:
            break
    assert proven >= 4 and beyond_full_search >= 1, (proven, beyond_full_search)


def test_past_its_budget_the_solver_refuses_instead_of_guessing():
    with pytest.raises(SolverBudgetError, match="no value proven within 100 positions"):
        solve(make_game("crisscross", size=5), nodes=100)


def test_bad_arguments_are_one_clear_error():
    game = make_game("crisscross", size=3)
    over = game.from_text("to_move: blue\n3 . R .\n2 . R .\n1 . R .\n")
    with pytest.raises(InvalidArgumentError, match="the game is over"):
        solve(game, over)
    with pytest.raises(InvalidArgumentError, match="nodes"):
        solve(game, nodes=0)
    with pytest.raises(InvalidArgumentError, match="table_bits"):
        solve(game, table_bits=60)
    with pytest.raises(InvalidArgumentError, match="deepening"):
        solve(game, deepening=-1)
    with pytest.raises(crossenvs.InvalidStateError):
        solve(game, make_game("crisscross", size=4).initial_state())


def test_the_solve_command_prints_the_value_and_the_optimal_moves(monkeypatch, capsys):
    import io

    from crossenvs.cli import main as cli
    from crossenvs.support import waits

    monkeypatch.setattr(waits, "SPEAK_AFTER", 0.0)  # a proof of minutes says so (it was 144 s of silence)
    monkeypatch.delenv("CROSSENVS_COMPILE_NOTICE", raising=False)
    monkeypatch.setattr(waits.LOGGER, "hasHandlers", lambda: False)
    out = io.StringIO()
    assert cli(["solve", "crisscross", "--option", "size=3"], out=out) == 0
    assert "crossenvs: solving crisscross (every move), at most 50,000,000 positions" in capsys.readouterr().err
    text = out.getvalue()
    assert "red to move: red wins with best play" in text
    assert "optimal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3" in text


def test_the_solve_command_reads_a_position_and_honours_its_budget_flags(tmp_path, capsys):
    """--position, --value-only and --nodes, each seen in what the command prints (--table-bits: a small table)."""
    import io

    from crossenvs.cli import main as cli

    position = tmp_path / "after_b2.txt"
    game = make_game("crisscross", size=3)
    position.write_text(game.to_text(game.apply(game.initial_state(), game.str_to_action(game.initial_state(), "b2"))))
    command = ["solve", "crisscross", "--option", "size=3", "--position", str(position)]
    out = io.StringIO()
    assert cli([*command, "--value-only", "--table-bits", "10"], out=out) == 0
    assert "blue to move: blue loses with best play" in out.getvalue() and "optimal moves" not in out.getvalue()
    out = io.StringIO()
    assert cli(command, out=out) == 0
    assert "blue loses with best play" in out.getvalue() and "optimal moves:" in out.getvalue()
    assert cli([*command, "--nodes", "5"], out=io.StringIO()) == 2
    assert "error: crisscross: no value proven within 5 positions" in capsys.readouterr().err


def test_a_stack_grown_from_one_frame_finds_the_same_values_over_the_same_positions():
    """The search keeps its own stack and doubles it past its first frames: starting from one frame
    (doubled at every level of a line 11 moves deep) must change nothing, value or positions visited."""
    from crossenvs.kernels.specialize import specialize

    game = make_game("crisscross", size=4)
    kernels = specialize("crossenvs.eval.solve_kernel", type(game))
    rng = np.random.default_rng(5)
    for _ in range(3):
        state = game.initial_state()
        for _ in range(5):
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(legal.size)]))
        found = []
        for capacity in (1, kernels.FIRST_CAPACITY):
            table = [
                np.zeros(1 << 12, dtype=np.uint64),
                np.zeros(1 << 12, dtype=np.int8),
                np.zeros(1 << 12, dtype=np.int8),
            ]
            counters = np.zeros(2, dtype=np.int64)
            value = kernels.negamax(
                state.board.copy(), state.meta.copy(), -2, 2, *table, counters, 10_000_000, game.num_actions,
                -1, int(game.current_player(state)), 0, capacity,
            )  # fmt: skip
            found.append((int(value), int(counters[0])))
        assert found[0] == found[1] and found[0][0] == brute_force(game, state), game.to_text(state)


def test_the_solver_is_cached_on_disk_so_a_second_process_does_not_compile_it():
    """The recursive negamax it replaced could not be cached: every `crossenvs solve` compiled it again."""
    from crossenvs.kernels.specialize import specialize

    game = make_game("crisscross", size=3)
    solve(game)
    negamax = specialize("crossenvs.eval.solve_kernel", type(game)).negamax
    assert negamax.signatures and Path(negamax._cache._cache_file._index_path).is_file()
