"""Our games inside OpenSpiel (crossenvs.integrations.openspiel): registered by name, passing OpenSpiel's own
random-simulation checks, played by its MCTS bot against ours, and read back from position text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

import crossenvs.integrations.openspiel as osp  # noqa: E402
from crossenvs import (  # noqa: E402
    IllegalActionError,
    InvalidArgumentError,
    InvalidOptionError,
    PositionTextError,
    game_spec,
    list_games,
    make_game,
)

ROOT = Path(__file__).resolve().parent.parent
#: every registered game (the five and the tic-tac-toe example) with its defaults and its test options
CASES = [(name, {}) for name in list_games()] + [
    (name, options) for name in list_games() for options in game_spec(name).test_options
]
CASES.append(("crisscross", {"size": 6}))


def game_string(name: str, options: dict) -> str:
    """``crossenvs_crosse(cover_removal=optional,move_cap=150)``: the string pyspiel.load_game reads."""
    params = ",".join(f"{key}={value}" for key, value in options.items())
    return osp.short_name(name) + (f"({params})" if params else "")


def random_state(game: pyspiel.Game, plies: int, seed: int) -> pyspiel.State:
    """A state after up to ``plies`` random actions."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize(("name", "options"), CASES, ids=lambda v: v if isinstance(v, str) else repr(v))
def test_openspiels_random_simulation_checks_pass(name, options):
    """OpenSpiel's own API checks over random games, clones and serialisation included; every game ends
    within the declared max_game_length (the check fails otherwise)."""
    game = pyspiel.load_game(game_string(name, options))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_every_game_is_registered_with_its_type_and_sizes():
    for name in list_games():
        rules = make_game(name)
        game = pyspiel.load_game(osp.short_name(name))
        kind = game.get_type()
        assert (
            kind.short_name == f"crossenvs_{name}"
            and kind.long_name == f"crossenvs {game_spec(name).facts.display_name}"
        )
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
        assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
        assert kind.parameter_specification == rules.OPTION_SCHEMA.defaults
        assert game.get_parameters() == rules.options
        assert game.num_distinct_actions() == rules.num_actions
        assert game.max_game_length() == rules.max_game_length
        assert game.observation_tensor_shape() == list(rules.observation_shape)
        assert game.information_state_tensor_shape() == list(rules.observation_shape)
        assert isinstance(game.rules, type(rules)) and game.rules.options == rules.options


def test_parameters_are_the_games_options_checked_by_its_schema():
    game = pyspiel.load_game("crossenvs_crisscross(size=6)")
    assert game.rules.options == {"size": 6} and game.num_distinct_actions() == 36
    assert game.observation_tensor_shape() == [6, 6, 2] and game.max_game_length() == 36
    optional = pyspiel.load_game("crossenvs_crosse", {"cover_removal": "optional", "move_cap": 100})
    assert optional.rules.options["cover_removal"] == "optional" and optional.max_game_length() == 100 + 100 + 32
    with pytest.raises(InvalidOptionError, match="size must be an integer from 3 to 19, got 40"):
        pyspiel.load_game("crossenvs_crisscross(size=40)")
    with pytest.raises(InvalidOptionError, match="cover_removal must be one of 'auto', 'optional', got 'never'"):
        pyspiel.load_game("crossenvs_crosse(cover_removal=never)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'sise'"):
        pyspiel.load_game("crossenvs_crisscross(sise=6)")


@pytest.mark.parametrize("name", list_games())
def test_a_state_is_the_games_position_observation_and_moves(name):
    """Legal actions from the mask, the player to act, tensors from our observation, strings in our notation."""
    game = pyspiel.load_game(osp.short_name(name))
    rules = game.rules
    for seed in range(3):
        state = random_state(game, 12 * seed + 5, seed)
        position = state.crossenvs_state
        assert str(state) == rules.to_text(position)
        for player in (0, 1):
            seen = np.asarray(state.observation_tensor(player), dtype=np.float32)
            np.testing.assert_array_equal(seen, rules.observe(position, player).ravel())
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(player)), seen)
            assert state.observation_string(player) == state.information_state_string(player) == str(state)
        if state.is_terminal():
            assert state.returns() == list(rules.outcome(position)) and state.legal_actions() == []
            continue
        mover = state.current_player()
        assert mover == rules.current_player(position) and state.returns() == [0.0, 0.0]
        assert state.legal_actions() == rules.legal_actions(position).tolist()
        assert state.legal_actions(1 - mover) == []
        for action in state.legal_actions()[:20]:
            text = state.action_to_string(mover, action)
            assert text == rules.action_to_str(position, action)
            assert state.string_to_action(text) == action
        assert state.action_to_string(1 - mover, 0) == "#0"  # not that player's move: its id


@pytest.mark.parametrize("name", list_games())
def test_position_text_and_openspiels_serialisation_round_trip(name):
    game = pyspiel.load_game(osp.short_name(name))
    for seed in range(3):
        state = random_state(game, 20 * seed + 3, seed)
        again = game.new_initial_state(str(state))  # position text in, the same position out
        assert str(again) == str(state) and again.crossenvs_state == state.crossenvs_state
        assert again.current_player() == state.current_player() and again.returns() == state.returns()
        assert again.legal_actions() == state.legal_actions()
        assert again.observation_tensor(0) == state.observation_tensor(0)
        copy_game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert copy_game.get_type().short_name == osp.short_name(name)
        assert copy.history() == state.history() and copy.crossenvs_state == state.crossenvs_state
        clone = state.clone()
        if not clone.is_terminal():
            clone.apply_action(clone.legal_actions()[0])
            assert clone.crossenvs_state != state.crossenvs_state  # a clone owns its position


def test_openspiels_mcts_bot_plays_a_full_game_against_our_mcts():
    """OpenSpiel's MCTS (random rollouts) and our MCTS-100 (crossenvs.players) play both seats to the end."""
    game = pyspiel.load_game("crossenvs_crisscross(size=5)")
    rng = np.random.RandomState(0)
    theirs = mcts.MCTSBot(game, 2.0, 40, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    ours = osp.PlayerBot("mcts:100", seed=0)
    assert ours.player.name == "mcts100"
    for bots in ([theirs, ours], [ours, theirs]):
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, rng)
        assert state.is_terminal() and returns == state.returns() and sum(returns) == 0
        assert returns == list(game.rules.outcome(state.crossenvs_state)) and set(returns) <= {-1.0, 0.0, 1.0}
        assert 9 <= len(state.history()) <= game.max_game_length()  # a connection takes five checkers at least
        replay = game.new_initial_state()
        for action in state.history():  # every move was legal where it was played
            assert action in replay.legal_actions()
            replay.apply_action(action)
        assert str(replay) == str(state)


def test_the_bot_plays_only_our_games():
    bot = osp.PlayerBot("random", seed=0)
    with pytest.raises(InvalidArgumentError, match=r"crossenvs games only.*tic_tac_toe"):
        bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())


def test_bad_moves_and_bad_positions_get_our_errors():
    game = pyspiel.load_game("crossenvs_crisscross(size=5)")
    state = game.new_initial_state()
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match="illegal move"):
        state.apply_action(0)  # blue's a1 is red's square a1 seen transposed: taken
    with pytest.raises(PositionTextError, match="line 1"):
        game.new_initial_state("nonsense")
    with pytest.raises(InvalidArgumentError, match="position text"):
        game.new_initial_state({"board": []})


def test_a_game_without_its_longest_game_is_refused_by_name():
    unbounded = type("Unbounded", (type(make_game("tictactoe")),), {"max_game_length": None})()
    with pytest.raises(InvalidArgumentError, match=r"tictactoe: OpenSpiel needs the longest game.*max_game_length"):
        osp.game_info(unbounded)


def test_a_game_registered_later_joins_and_the_process_exits_cleanly():
    """The registry tells the integration of games registered after its import; pyspiel's table of
    Python games outlives the interpreter, which must still exit with status 0."""
    script = (
        "import sys, pyspiel\n"
        "import crossenvs.integrations.openspiel\n"
        f"sys.path.insert(0, {str(ROOT / 'examples')!r})\n"
        "import tictactoe\n"
        "game = pyspiel.load_game('crossenvs_tictactoe')\n"
        "state = game.new_initial_state()\n"
        "for action in (4, 0, 2, 6, 3, 5, 1, 7, 8): state.apply_action(action)\n"
        "print(state.returns(), game.max_game_length())\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[0.0, 0.0] 9", result.stdout


def test_without_open_spiel_the_error_names_the_extra():
    script = "import sys\nsys.modules['pyspiel'] = None\nimport crossenvs.integrations.openspiel\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    said = 'open_spiel is not installed; it comes with the openspiel extra: pip install -e ".[openspiel]"'
    assert said in result.stderr and "MissingExtraError" in result.stderr, result.stderr
