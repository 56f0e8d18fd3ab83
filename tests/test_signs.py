"""Reward and value signs, checked against something other than the line that computes them.

Each env face and the AlphaZero self-play hand out a result per player; a result read for the other
seat, or negated, passes every shape and range check. These tests catch it cheaply: a strong player
against a weak one must collect clearly positive (or negative) rewards, and in Crisscross, where only
the mover can complete a connection, the last mover of a decisive game is its winner.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from conftest import AZ_TINY

from crossenvs.envs.vector import CrossSB3VecEnv
from crossenvs.players import GreedyPlayer

GAMES = 40  # greedy beats random in about 97% of 5x5 Crisscross games; 40 games put the mean far from 0


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def single_agent_mean_reward(opponent: str, learner_plays) -> float:
    env = gymnasium.make("crossenvs/Crisscross-v0", opponent=opponent, size=5).unwrapped
    rewards = []
    for seed in range(GAMES):
        env.reset(seed=seed)
        done = False
        while not done:
            _, reward, done, _, _ = env.step(learner_plays(env))
        rewards.append(reward)
    return float(np.mean(rewards))


def test_the_gymnasium_learner_is_rewarded_for_its_own_wins_and_losses():
    rng = np.random.default_rng(0)
    greedy = GreedyPlayer(seed=0)
    assert single_agent_mean_reward("greedy", lambda env: random_legal(rng, env.action_masks())) < -0.7
    assert single_agent_mean_reward("random", lambda env: greedy.act(env.game, env.state)) > 0.7


def test_the_sb3_vec_env_learner_is_rewarded_for_its_own_losses():
    rng = np.random.default_rng(0)
    env = CrossSB3VecEnv("crisscross", num_envs=16, seed=1, opponent="greedy", size=5)
    env.reset()
    rewards, seats = [], set()
    while len(rewards) < 3 * GAMES:
        actions = np.array([random_legal(rng, mask) for mask in env.action_masks()])
        _, reward, dones, infos = env.step(actions)
        rewards += list(reward[dones])
        seats |= {info["learner_seat"] for info in infos}
        to_move = env._batch.to_move()  # every game waits for the learner, so its seat is the one to move
        assert np.array_equal(to_move, [info["learner_seat"] for info in infos])
    assert seats == {0, 1} and np.mean(rewards) < -0.7


def test_the_aec_env_rewards_the_last_mover_of_a_decisive_game():
    """Random Crisscross games through PettingZoo's env(): only the mover can complete a connection."""
    from crossenvs import crisscross_v0

    decisive = 0
    for seed in range(10):
        env = crisscross_v0.env(size=5)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        final, last_mover = {}, None
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
                continue
            last_mover = agent
            env.step(random_legal(rng, observation["action_mask"]))
        if any(final.values()):
            decisive += 1
            assert final[last_mover] == 1 and sum(final.values()) == 0, f"seed {seed}: {final}"
    assert decisive >= 5


def test_alphazero_learns_each_position_with_the_result_of_its_mover():
    """One game at a time, so each finished batch is one game in move order: in Crisscross the last
    mover wins every decisive game, and the movers alternate, so the targets alternate in sign."""
    from test_alphazero import fixed_evaluator

    from crossenvs.az.config import Config
    from crossenvs.az.selfplay import SelfPlay

    config = Config(**{**AZ_TINY, "num_envs": 1})
    selfplay = SelfPlay(config, np.random.default_rng(0))
    evaluate = fixed_evaluator(selfplay.game.num_actions)
    decisive = 0
    for _ in range(400):
        results = selfplay.step(evaluate).results
        if len(results) and results[-1] != 0:
            decisive += 1
            expected = np.where(np.arange(len(results))[::-1] % 2 == 0, 1.0, -1.0)
            np.testing.assert_array_equal(results, expected)
    assert decisive >= 10


def test_every_mutant_still_applies_and_its_table_is_on_the_contributing_page():
    """A mutant whose text left its function would pass unseen; the page's table names every mutant once."""
    import inspect
    import textwrap
    from pathlib import Path

    import mutants

    page = (Path(__file__).resolve().parent.parent / "docs" / "contributing.md").read_text()
    listed = [line.split()[0] for line in page.split("```text\n", 1)[1].split("```")[0].splitlines()[1:]]
    assert listed == [mutant.name for mutant in mutants.MUTANTS]
    for mutant in mutants.MUTANTS:
        _, _, function = mutants.resolve(mutant.target)
        source = textwrap.dedent(inspect.getsource(function))
        assert source.count(mutant.old) == 1, f"{mutant.name}: {mutant.old!r} is not once in {mutant.target}"
