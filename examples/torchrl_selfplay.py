"""Masked PPO by self-play on TorchRL's own pieces, in one readable file (CleanRL's style).

    pip install -e ".[torchrl]"        # in a checkout of crossenvs, after torch==2.13.0
    python examples/torchrl_selfplay.py --game crisscross --option size=6

A batch of games is one TorchRL env (:class:`crossenvs.integrations.torchrl.CrossTorchRLEnv`); a
``Collector`` steps it with the policy, a ``ProbabilisticActor`` samples from a ``MaskedCategorical``
over the legal moves, TorchRL's ``GAE`` computes advantages and ``ClipPPOLoss`` learns. One network
plays both seats of every game: observations are egocentric (the player to act sees its own pieces
in plane 0), so the network needs no seat input.

Credit assignment in a two-player zero-sum game. A step's reward belongs to the player who moved,
and the next position belongs to the player to move next, usually the opponent: a value from the
mover's perspective cannot be bootstrapped as it is (the next value is the opponent's, and counts
negated; in games where a player may move twice in a row it counts as it is). This recipe does not
hand-write that sign flip into GAE. It moves the problem into one fixed frame instead: seat 0's.
The critic says how good a position is for the player to act there (``state_value``); a second
view of the same critic multiplies it by +1 where seat 0 is to act and by -1 where seat 1 is
(``seat0_value``), and the reward of a step is seat 0's (``seat_rewards[..., 0]``). In that frame
nothing alternates, so TorchRL's ``GAE`` runs unchanged, whoever moves when and however the games
end inside a batch. Its advantage and value target are turned back into the mover's frame by the
same sign, so the actor raises the moves that were good for whoever made them, and ``ClipPPOLoss``
trains the critic in the mover's frame. (Games are zero-sum when played legally; the mask rules
out the one exception, an illegal move, which costs only its maker.) Beating random play does not
tell right credit from wrong: a version that bootstraps the opponent's value unnegated still got
past 90% here, carried by the winning move's own reward. tests/test_torchrl.py checks the credit of
a hand-made game instead.

Every ``--eval-every`` batches the greedy policy plays ``--eval-games`` seeded games against
uniform random play, half in each seat; the run ends when it wins ``--target`` of them or after
``--minutes``. It prints its end-to-end steps per second: collecting, advantages and learning
together, evaluation left out. The rules run on one numba thread and torch on one thread of its
own: on a 2-core machine two thread pools only wait for each other at this network's size.
"""

from __future__ import annotations

import argparse
import time

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import EnvBase
from torchrl.envs.utils import ExplorationType, set_exploration_type
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from crossenvs.core.options import parse_options
from crossenvs.integrations.torchrl import CrossTorchRLEnv
from crossenvs.kernels.threads import numba_on_one_thread

#: every numeric flag: its default and what it sets (``--num-envs 256`` and so on)
SETTINGS = {
    "num_envs": (128, "games stepped together (the env's batch)"),
    "num_steps": (16, "steps per game per batch"),
    "width": (16, "channels of the network's convolution"),
    "hidden": (128, "units of its dense layer"),
    "lr": (1e-3, "Adam's learning rate"),
    "gamma": (0.99, "discount"),
    "gae_lambda": (0.95, "GAE's lambda"),
    "epochs": (4, "passes over each batch"),
    "minibatches": (4, "minibatches per pass"),
    "clip": (0.2, "PPO's ratio clip"),
    "entropy": (0.01, "entropy bonus"),
    "eval_every": (10, "batches between evaluations"),
    "eval_games": (200, "games against random per evaluation, half in each seat"),
    "target": (0.9, "stop at this win rate against random"),
    "minutes": (10.0, "stop after this much training time"),
    "seed": (0, "seeds torch, the games' random streams and (plus one) the evaluation"),
    "torch_threads": (1, "torch's CPU threads (this small network runs fastest on one)"),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="masked PPO self-play on TorchRL over crossenvs' batched env")
    parser.add_argument("--game", default="crisscross")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (size=6)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    for name, (default, meaning) in SETTINGS.items():
        flag = "--" + name.replace("_", "-")
        parser.add_argument(flag, type=type(default), default=default, help=f"{meaning} (default {default})")
    return parser.parse_args(argv)


class Body(nn.Module):
    """One 3x3 convolution over the (H, W, C) board and a dense layer: the actor's and the critic's trunk.

    Small on purpose: on a 2-core CPU the network, not the env, sets the pace (the env steps 128
    games in about a millisecond).
    """

    def __init__(self, observation_shape: tuple[int, ...], width: int, hidden: int) -> None:
        super().__init__()
        height, board_width, planes = observation_shape
        self.layers = nn.Sequential(
            nn.Conv2d(planes, width, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(width * height * board_width, hidden), nn.ReLU(),
        )  # fmt: skip

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        batch = observation.shape[:-3]  # a collector's (B,) or a batch's (B, T)
        hidden = self.layers(observation.reshape(-1, *observation.shape[-3:]).permute(0, 3, 1, 2))
        return hidden.reshape(*batch, -1)


def make_modules(
    shape: tuple[int, ...], num_actions: int, width: int, hidden: int
) -> tuple[ProbabilisticActor, TensorDictModule, TensorDictModule]:
    """The actor, the critic in the mover's frame (``state_value``) and the same critic in seat 0's (``seat0_value``)."""
    logits = TensorDictModule(
        nn.Sequential(Body(shape, width, hidden), nn.Linear(hidden, num_actions)),
        in_keys=["observation"],
        out_keys=["logits"],
    )
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},  # MaskedCategorical(logits=..., mask=...)
        out_keys=["action"],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic_net = nn.Sequential(Body(shape, width, hidden), nn.Linear(hidden, 1))
    critic = TensorDictModule(critic_net, in_keys=["observation"], out_keys=["state_value"])

    def seat0_frame(observation: torch.Tensor, current_player: torch.Tensor) -> torch.Tensor:
        sign = 1.0 - 2.0 * current_player.unsqueeze(-1).float()  # +1 where seat 0 is to act, -1 where seat 1 is
        return sign * critic_net(observation)

    seat0_critic = TensorDictModule(seat0_frame, in_keys=["observation", "current_player"], out_keys=["seat0_value"])
    return actor, critic, seat0_critic


def mover_frame_advantages(batch, gae: GAE) -> None:
    """GAE in seat 0's frame (where nothing alternates), then advantage and value target in the mover's frame."""
    batch.set(("next", "seat0_reward"), batch.get(("next", "seat_rewards"))[..., :1])
    with torch.no_grad():
        gae(batch)
    sign = 1.0 - 2.0 * batch.get("current_player").unsqueeze(-1).float()
    batch.set("advantage", sign * batch.get("advantage"))
    batch.set("value_target", sign * batch.get("value_target"))


def evaluate(actor: ProbabilisticActor, args: argparse.Namespace, options: dict) -> float:
    """Win rate of the greedy policy against uniform random play over ``--eval-games`` seeded games, seats alternating."""
    env = CrossTorchRLEnv(args.game, args.eval_games, device=args.device, **options)
    env.set_seed(args.seed + 1)
    td = env.reset()
    seats = torch.arange(args.eval_games, device=env.device) % 2
    result = torch.full((args.eval_games,), float("nan"), device=env.device)
    with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
        while torch.isnan(result).any():
            greedy = actor(td.clone())["action"]
            random_moves = env.rand_action(td.clone())["action"]
            td["action"] = torch.where(td["current_player"] == seats, greedy, random_moves)
            td = env.step(td)
            ended = td["next", "done"].squeeze(-1) & torch.isnan(result)
            result[ended] = td["next", "seat_rewards"][ended, seats[ended]]
            td = env.step_mdp(td)  # the games that ended are restarted already: play on, count each first game once
    return float((result > 0).float().mean())


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with numba_on_one_thread():  # the rules on one thread, torch on its own: on 2 cores two pools fight for them
        train(args, CrossTorchRLEnv(args.game, args.num_envs, device=args.device, **parse_options(args.option)))


def train(args: argparse.Namespace, env: EnvBase) -> float:
    """PPO on ``env`` (any TorchRL env with this recipe's keys) until the target or the time; returns steps/s."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # this network's ops are too small to split across threads
    options = parse_options(args.option)
    env.set_seed(args.seed)
    shape = env.observation_spec["observation"].shape[env.batch_dims :]
    num_actions = env.observation_spec["action_mask"].shape[-1]
    actor, critic, seat0_critic = make_modules(shape, num_actions, args.width, args.hidden)
    actor, critic, seat0_critic = actor.to(env.device), critic.to(env.device), seat0_critic.to(env.device)
    gae = GAE(gamma=args.gamma, lmbda=args.gae_lambda, value_network=seat0_critic)
    gae.set_keys(reward="seat0_reward", value="seat0_value")
    loss = ClipPPOLoss(
        actor, critic, clip_epsilon=args.clip, entropy_coeff=args.entropy, critic_coeff=0.5, loss_critic_type="l2",
        normalize_advantage=True,  # per minibatch
    )  # fmt: skip
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.lr)
    frames = args.num_envs * args.num_steps
    env.rand_step(env.reset())  # a fresh install compiles the rules on the first step (tens of seconds): not timed
    collector = Collector(  # it starts from a reset
        env, actor, frames_per_batch=frames, total_frames=-1, device=env.device,
        auto_register_policy_transforms=False,  # the policy keeps no state between steps: no transform to add
    )  # fmt: skip
    started, steps, evaluating, update = time.perf_counter(), 0, 0.0, 0
    for batch in collector:
        mover_frame_advantages(batch, gae)
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for index in torch.randperm(frames, device=env.device).split(frames // args.minibatches):
                losses = loss(flat[index])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optimizer.step()
        collector.update_policy_weights_()
        steps, update = steps + frames, update + 1
        if update % args.eval_every == 0 or time.perf_counter() - started - evaluating > 60 * args.minutes:
            clock = time.perf_counter()
            win_rate = evaluate(actor, args, options)
            evaluating += time.perf_counter() - clock
            training = time.perf_counter() - started - evaluating
            print(f"update {update}: {steps:,} steps, {steps / training:,.0f} steps/s end to end, "
                  f"{win_rate:.1%} against random", flush=True)  # fmt: skip
            if win_rate >= args.target or training > 60 * args.minutes:
                break
    collector.shutdown()
    training = time.perf_counter() - started - evaluating
    print(f"done: {steps:,} steps in {training:.0f} s of training ({time.perf_counter() - started:.0f} s with "
          f"evaluation) on {env.device or 'cpu'}: {steps / training:,.0f} steps/s end to end; last win rate {win_rate:.1%}")  # fmt: skip
    return steps / training


if __name__ == "__main__":
    main()
