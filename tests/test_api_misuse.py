"""Misuse of the Python API gets one clear CrossenvsError (never a raw AttributeError, TypeError or MemoryError).

Each case is a call a user can make by mistake; the error must be a :class:`CrossenvsError` whose
message names what was wrong. Cases that would allocate gigabytes are refused before allocating.
"""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import crossenvs
from crossenvs import CrossenvsError, make_game
from crossenvs.envs.vector import CrossSB3VecEnv, CrossVectorEnv
from crossenvs.players import FunctionPlayer, make_player

CRISSCROSS = make_game("crisscross", size=5)
START = CRISSCROSS.initial_state()
CROSSE = make_game("crosse")
CROSSE_START = CROSSE.initial_state()

CASES = {
    "str_to_action(state, None)": (lambda: CRISSCROSS.str_to_action(START, None), "written as text"),
    "str_to_action(state, 5)": (lambda: CRISSCROSS.str_to_action(START, 5), "written as text"),
    "action_to_str(state, None)": (lambda: CRISSCROSS.action_to_str(START, None), "integer action id"),
    "action_to_str(state, 1.5)": (lambda: CRISSCROSS.action_to_str(START, 1.5), "integer action id"),
    "observe(state, 2)": (lambda: CRISSCROSS.observe(START, 2), "seat 0 or 1"),
    "observe(state, True)": (lambda: CRISSCROSS.observe(START, True), "seat 0 or 1"),
    "observe(None, 0)": (lambda: CRISSCROSS.observe(None, 0), "expected a State"),
    "render_rgb(cell_pixels=0)": (lambda: CRISSCROSS.render_rgb(START, cell_pixels=0), "cell_pixels must be"),
    "render_rgb(cell_pixels=-3)": (lambda: CRISSCROSS.render_rgb(START, cell_pixels=-3), "cell_pixels must be"),
    "render_rgb(cell_pixels=10**6)": (lambda: CRISSCROSS.render_rgb(START, cell_pixels=10**6), "cell_pixels must be"),
    "render_rgb(cell_pixels=2.5)": (lambda: CRISSCROSS.render_rgb(START, cell_pixels=2.5), "whole number"),
    "legal_mask(None)": (lambda: CRISSCROSS.legal_mask(None), "expected a State"),
    "legal_actions('x')": (lambda: CRISSCROSS.legal_actions("x"), "expected a State"),
    "apply(None, 0)": (lambda: CRISSCROSS.apply(None, 0), "expected a State"),
    "apply(another game's state, 0)": (lambda: CRISSCROSS.apply(CROSSE_START, 0), "not a position of"),
    "to_text(None)": (lambda: CRISSCROSS.to_text(None), "expected a State"),
    "outcome([])": (lambda: CRISSCROSS.outcome([]), "expected a State"),
    "render_ansi(another game's state)": (lambda: CRISSCROSS.render_ansi(CROSSE_START), "not a position of"),
    "player_of_colour('green')": (lambda: CRISSCROSS.player_of_colour("green"), "not a colour"),
    "player_of_colour(3)": (lambda: CRISSCROSS.player_of_colour(3), "not a colour"),
    "Crosse move_ends off the board": (lambda: CROSSE.move_ends(CROSSE_START, "z99", "3F"), "off the 10x10 board"),
    "Crosse move_ends bad token": (lambda: CROSSE.move_ends(CROSSE_START, "f4", "9X"), "not a token"),
    "Crosse move_ends None": (lambda: CROSSE.move_ends(CROSSE_START, None, None), "as text"),
    "Crosse move_ends empty square": (lambda: CROSSE.move_ends(CROSSE_START, "e5", "1F"), "no stone on e5"),
    "make_game(name, name=...)": (lambda: make_game("crosse", name="x"), "unknown option"),
    "vector num_envs=10**9": (lambda: CrossVectorEnv("crisscross", num_envs=10**9), "GiB of memory"),
    "SB3 vector num_envs=10**9": (lambda: CrossSB3VecEnv("crisscross", num_envs=10**9), "GiB of memory"),
    "mcts:100000000": (lambda: make_player("mcts:100000000"), "out of range"),
    "mcts:0": (lambda: make_player("mcts:0"), "out of range"),
    "mcts:abc": (lambda: make_player("mcts:abc"), "not a whole number"),
    "mcts:²": (lambda: make_player("mcts:²"), "not a whole number"),
    "pretrained:²": (lambda: make_player("pretrained:²", game=make_game("crisscross", size=6)), "not a whole number"),
    "az:f.pt:²": (lambda: make_player("az:f.pt:²"), "not a whole number"),
    "mcts:-5": (lambda: make_player("mcts:-5"), "mcts:<simulations>: -5 is out of range; give a whole number from 1"),
    "az:f.pt:-3": (lambda: make_player("az:f.pt:-3"), "-3 is out of range; give a whole number from 0"),
}


def test_an_aec_env_stepped_before_reset_says_to_reset_in_our_error_and_pettingzoos():
    env = crossenvs.crosse_v0.env()
    for call, name in ((lambda: env.step(0), "step()"), (lambda: env.observe("player_0"), "observe()")):
        with pytest.raises(
            crossenvs.ResetFirstError, match=rf"crosse: {re.escape(name)} before reset\(\); call env.reset"
        ):
            call()
    assert issubclass(crossenvs.ResetFirstError, AssertionError)  # what PettingZoo's order wrapper raised here


@pytest.mark.parametrize("case", list(CASES))
def test_misuse_is_one_clear_error(case):
    call, message = CASES[case]
    with pytest.raises(CrossenvsError, match=message):
        call()


def test_a_gym_opponent_that_returns_none_is_named():
    env = gymnasium.make("crossenvs/Crisscross-v0", size=5, opponent=lambda observation, mask: None)
    with pytest.raises(crossenvs.InvalidActionError, match="returned None"):
        env.reset(seed=0)  # the opponent moves first in one of the two seats
        env.step(int(np.flatnonzero(env.unwrapped.game.legal_mask(env.unwrapped.state))[0]))


def test_a_vector_opponent_that_returns_none_is_named():
    opponent = FunctionPlayer(lambda observations, masks: None, batched=True, name="lazy")
    with pytest.raises(crossenvs.InvalidActionError, match="lazy returned None"):
        CrossSB3VecEnv("crisscross", num_envs=2, opponent=opponent, seed=0, size=5).reset()


def test_an_unknown_keyword_is_a_type_error_too_as_torchrl_expects():
    """TorchRL's GymEnv passes ``frameskip`` and goes on without it on a TypeError."""
    with pytest.raises(TypeError, match="unknown option"):
        gymnasium.make("crossenvs/Crisscross-v0", frameskip=4)
    with pytest.raises(crossenvs.UnknownOptionError):
        make_game("crisscross", frameskip=4)
