"""Tianshou on a crossenvs PettingZoo env, with no glue: DQN against random, then against a frozen copy of itself.

    pip install tianshou==2.0.1        # not an extra of crossenvs; tried with the rllib extra installed
    python examples/tianshou_selfplay.py                              # Crisscross 4x4, under a minute
    python examples/tianshou_selfplay.py --game crisscross --option size=5 --epochs 8

The env goes in as it is: ``tianshou.env.PettingZooEnv(crossenvs.crisscross_v0.env(size=4))``.
Tianshou reads ``{"observation", "action_mask"}`` itself (the mask becomes ``obs.mask``, which
its DQN and its random policy honour), and ``MultiAgentOffPolicyAlgorithm`` gives each agent id
its own algorithm. Phase 1: the DQN in seat ``player_0`` against Tianshou's masked random
policy. Phase 2 (self-play): the same DQN against a frozen copy of itself in seat ``player_1``;
observations are egocentric, so the copy plays the other seat with the same network.

**How the final reward reaches each seat.** In the PettingZoo AEC env (``crossenvs.<game>_v0.env()``)
every agent receives its final reward on its own last ``env.last()`` after the game ends
(the winner +1, the loser -1, each 0 for a draw), whoever made the last move, and the same agent
may be selected several times in a row (Crosse hops, Charing Cross re-placements). Tianshou's
``PettingZooEnv`` turns each ``step`` into one transition of the agent who acted, with the
rewards of *both* seats as a vector (``env.rewards`` after the step) and ``terminated`` from the
next agent's ``last()``; ``MultiAgentOffPolicyAlgorithm`` then trains each agent on its own
transitions, with its own component of that vector. So the seat that makes the winning (or
drawing) move gets its final reward on its last transition, which is terminal; the other seat's
final reward is stored only in that same transition, which is not its own: its last transition
keeps reward 0, is not terminal, and bootstraps from the next observation (the opponent's). In
practice: the seat that loses to its opponent's last move never learns from its -1. This script
prints it from the replay buffer. One run on Crisscross 4x4 (seed 0, 45 s on 2 cores): against
random, ``player_0`` won 897 games and lost 129, yet received 897 +1s and no -1 at all; against its
frozen copy it won 72 of 1,980 games, still without one -1 reaching it. It learns to win from its
own +1s (84% score against random afterwards over 100 games, seats alternating), which is what
Tianshou's tic-tac-toe tutorial relies on too; to learn from losses, give each seat its final
reward yourself (RLlib's adapter,
:mod:`crossenvs.integrations.rllib`, sends both agents an observation and their reward at the end;
``crossenvs train ppo`` and ``crossenvs train alphazero`` score every position by the game's result
for its mover).
"""

from __future__ import annotations

import argparse
import copy
import logging

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import TrainingStats
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import crossenvs
from crossenvs.core.options import parse_options
from crossenvs.eval.arena import match
from crossenvs.players import FunctionPlayer, make_player


class FrozenDQN(DQN):
    """A DQN that plays but never learns: the snapshot opponent of phase 2."""

    def _update_with_batch(self, batch, *args, **kwargs) -> TrainingStats:
        return TrainingStats()


def make_dqn(env: PettingZooEnv, hidden: int, cls: type[DQN] = DQN) -> DQN:
    """Tianshou's DQN over the flattened planes; masked by ``obs.mask`` when it acts."""
    shape = env.observation_space["observation"].shape
    net = Net(state_shape=shape, action_shape=env.action_space.n, hidden_sizes=[hidden, hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0)
    return cls(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=100)


def train_phase(algorithm, make_env, epochs: int, seed: int, epoch_steps: int = 2000) -> VectorReplayBuffer:
    """Collect and learn for ``epochs`` epochs of ``epoch_steps`` env steps; returns the replay buffer for the
    reward report."""
    train_envs = DummyVectorEnv([make_env for _ in range(4)])
    buffer = VectorReplayBuffer(20_000, len(train_envs))
    train_envs.seed(seed)
    collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    collector.reset()
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=epochs,
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=40,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.25,
            test_in_training=False,
            show_progress=False,
            verbose=False,
        )
    )
    return buffer


def rewards_by_seat(buffer: VectorReplayBuffer) -> dict[str, dict[str, float]]:
    """What the multi-agent dispatch trains each seat on: its own transitions, its own reward component."""
    batch, _ = buffer.sample(0)
    seats = {}
    for index, agent in enumerate(("player_0", "player_1")):
        own = batch.obs.agent_id == agent
        rewards = batch.rew[own, index]
        seats[agent] = {
            "+1s": int((rewards > 0).sum()),
            "-1s": int((rewards < 0).sum()),
            "terminal": int(batch.terminated[own].sum()),
            "games_lost": int((batch.terminated & (batch.rew[:, index] < 0)).sum()),
        }
    return seats


def as_player(algorithm: DQN, name: str) -> FunctionPlayer:
    """The greedy masked Q-policy as a crossenvs player, for the project's arena."""
    net = algorithm.policy.model

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            q, _ = net(torch.as_tensor(observations, dtype=torch.float32))
        return np.where(masks.astype(bool), q.numpy(), -np.inf).argmax(axis=1)

    return FunctionPlayer(act, batched=True, name=name)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Both phases, the rewards each seat received, then the DQN against random; returns that match's rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="crisscross", choices=crossenvs.list_games())
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--epochs", type=int, default=4, help="epochs per phase")
    parser.add_argument("--epoch-steps", type=int, default=2000, help="env steps per epoch (a smoke test: 100)")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--games", type=int, default=100, help="evaluation games against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    options = parse_options(args.option) or ({"size": 4} if args.game == "crisscross" else {})
    logging.getLogger().setLevel(logging.ERROR)  # Tianshou's statistics warn about 2-seat reward vectors
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's random policy and exploration draw from numpy's global stream

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(_aec(args.game, options))

    env = make_env()
    learner = make_dqn(env, args.hidden)
    random = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
    phases = [("random", random), ("frozen copy", make_dqn(env, args.hidden, FrozenDQN))]
    for label, opponent in phases:
        if isinstance(opponent, FrozenDQN):
            opponent.policy.load_state_dict(copy.deepcopy(learner.policy.state_dict()))
        algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
        buffer = train_phase(algorithm, make_env, args.epochs, args.seed, args.epoch_steps)
        print(f"phase vs {label}: rewards reaching each seat in the replay buffer: {rewards_by_seat(buffer)}")
    game = crossenvs.make_game(args.game, **options)
    result = match(game, as_player(learner, "dqn"), make_player("random"), args.games, seed=args.seed)
    print(
        f"{game!r}: DQN vs random over {result['games']} games: {result['score']:.1%} score, wins as first seat "
        f"(trained) {result['win_rate_first_seat']:.0%}, as second seat (never trained there) "
        f"{result['win_rate_second_seat']:.0%}"
    )
    return result


def _aec(name: str, options: dict):
    """``crossenvs.<name>_v0.env(**options)``: the PettingZoo AEC env, as a user would write it."""
    return getattr(crossenvs, f"{name}_v0").env(**options)


if __name__ == "__main__":
    main()
