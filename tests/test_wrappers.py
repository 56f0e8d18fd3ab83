"""The fused StandardRulesWrapper behaves exactly like PettingZoo's standard wrapper stack."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import crossenvs
from crossenvs.envs import make_env, make_raw_env


def pettingzoo_stack(size: int):
    env = make_raw_env("crisscross", size=size)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def transcript(env, seed: int, illegal_rate: float) -> list:
    """Everything `last()` says at each step of a random game that sometimes plays illegally."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both warn on the illegal move
        for agent in env.agent_iter(max_iter=200):
            observation, reward, terminated, truncated, info = env.last()
            seen.append(
                (
                    agent,
                    observation["observation"].tobytes(),
                    observation["action_mask"].tobytes(),
                    reward,
                    terminated,
                    truncated,
                    info,
                    dict(env.rewards),
                    dict(env._cumulative_rewards),
                )
            )
            if terminated or truncated:
                env.step(None)
            elif rng.random() < illegal_rate and not observation["action_mask"].all():
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"] == 0))))
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


@pytest.mark.parametrize("illegal_rate", [0.0, 0.1, 0.5])
@pytest.mark.parametrize("seed", range(10))
def test_same_transcript_as_the_pettingzoo_stack(seed, illegal_rate):
    ours = transcript(make_env("crisscross", size=4), seed, illegal_rate)
    theirs = transcript(pettingzoo_stack(4), seed, illegal_rate)
    assert ours == theirs
    # An illegal move shows as a -1 with no +1 for the other side.
    penalised = any(-1 in step[8].values() and 1 not in step[8].values() for step in ours)
    if illegal_rate == 0.0:
        assert not penalised
    if illegal_rate == 0.5:
        assert penalised


def test_same_errors_as_the_pettingzoo_stack():
    """Same errors, except that a non-id is our InvalidActionError where the stack asserts."""
    for build, refusal in (
        (lambda: make_env("crisscross", size=4), crossenvs.InvalidActionError),
        (lambda: pettingzoo_stack(4), AssertionError),
    ):
        env = build()
        with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
            _ = env.agent_selection
        with pytest.raises(Exception, match="reset"):
            env.step(0)
        env.reset()
        with pytest.raises(refusal, match="action is not in action space"):
            env.step(16)
        with pytest.raises(refusal, match="action is not in action space"):
            env.step(None)
