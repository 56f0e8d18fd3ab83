"""A game written outside the package (examples/tictactoe.py) works everywhere after one registration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from conftest import EXAMPLES, position

import crossenvs
from crossenvs import GameSpec, InvalidOptionError, make_game, register_game
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.eval.arena import match
from crossenvs.kernels.specialize import KernelError, specialize
from crossenvs.players import MCTSPlayer, RandomPlayer, make_player

ROOT = Path(__file__).resolve().parent.parent


def test_mcts_finds_a_win_in_one_for_either_side():
    game = make_game("tictactoe")
    win = game.from_text(position("3 . . .\n2 O O .\n1 X X .\n", "x", ply=4))
    assert game.action_to_str(win, MCTSPlayer(50, seed=0).act(game, win)) == "c1"
    diagonal = game.from_text(position("3 . . X\n2 . O .\n1 X X O\n", "o", ply=5))  # a3-b2-c1
    assert game.action_to_str(diagonal, MCTSPlayer(50, seed=0).act(game, diagonal)) == "a3"


def test_mcts_never_loses_to_random_and_the_arena_rates_it():
    game = make_game("tictactoe")
    result = match(game, MCTSPlayer(200), RandomPlayer(), games=20, seed=0)
    assert result["loss_rate"] == 0.0 and result["win_rate"] >= 0.7


def test_the_envs_of_the_example_game():
    aec = crossenvs.tictactoe_v0.env()
    aec.reset(seed=0)
    game, state = aec.unwrapped.game, aec.unwrapped.state
    aec.step(make_player("greedy", seed=0).act(game, state))  # a player drives an AEC env this way
    assert aec.agent_selection == "player_1"
    env = gymnasium.make("crossenvs/TicTacToe-v0", opponent="mcts:100")
    observation, info = env.reset(seed=0)
    assert observation.shape == (3, 3, 2)
    done = False
    while not done:
        _, reward, done, _, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert reward <= 0.0  # the first legal square every time never beats MCTS-100
    vector = CrossVectorEnv("tictactoe", num_envs=8)
    observations, info = vector.reset()
    assert observations.shape == (8, 3, 3, 2) and info["action_mask"].sum() == 8 * 9


def test_the_cli_imports_the_game_and_runs_an_arena():
    command = [sys.executable, "-m", "crossenvs.cli", "--import", str(EXAMPLES / "tictactoe.py")]
    listed = subprocess.run([*command, "list"], capture_output=True, text=True, cwd=ROOT)
    assert listed.returncode == 0 and "crossenvs/TicTacToe-v0" in listed.stdout
    arena = [*command, "eval", "tictactoe", "--players", "mcts:100", "random", "--games", "6"]
    result = subprocess.run(arena, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "mcts100" in result.stdout and "random" in result.stdout
    after = [sys.executable, "-m", "crossenvs.cli", "list", "--import", str(EXAMPLES / "tictactoe.py")]
    assert "tictactoe" in subprocess.run(after, capture_output=True, text=True, cwd=ROOT).stdout  # anywhere
    missing = subprocess.run([*command[:-1], "no_such_module_xyz", "list"], capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode == 2 and "no_such_module_xyz" in missing.stderr


def test_registration_refuses_bad_declarations():
    from tictactoe import TicTacToe

    with pytest.raises(InvalidOptionError, match="lower case"):
        register_game("Tic Tac", TicTacToe)
    with pytest.raises(InvalidOptionError, match="registered already"):
        register_game("crosse", TicTacToe)
    with pytest.raises(InvalidOptionError, match="not a subclass"):
        register_game("dice", object)

    class Again(TicTacToe):
        name = "tictactoe_again"

    with pytest.raises(InvalidOptionError, match="belongs to another environment"):
        register_game("tictactoe_again", Again, env_name="Crisscross")
    assert "tictactoe_again" not in crossenvs.list_games()
    misnamed = GameSpec("noughts", "tictactoe:TicTacToe", "Noughts", "")  # a string target is checked when loaded
    with pytest.raises(InvalidOptionError, match="registered as 'noughts'"):
        misnamed.load()
    assert register_game("tictactoe", TicTacToe).gym_id == "crossenvs/TicTacToe-v0"  # the same again: harmless


def test_kernels_that_cannot_be_imported_get_a_clear_error():
    from tictactoe import TicTacToe

    class Local(TicTacToe):
        name = "local_game"
        apply_kernel = staticmethod(lambda board, meta, action: False)

    with pytest.raises(KernelError, match="apply_kernel must be a module-level function"):
        specialize("crossenvs.kernels.game_batch", Local)
