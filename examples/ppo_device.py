"""Masked PPO by self-play on the device env, in one readable file (CleanRL's style).

    python examples/ppo_device.py --game crisscross --size 6 --device cuda    # on an NVIDIA GPU
    python examples/ppo_device.py --game crisscross --size 6 --device cpu     # the same on the CPU env

One network plays both seats of every game (observations are egocentric, so the player to act
always sees its own pieces in plane 0). Rewards are the mover's, so returns are negamax: the next
position's value belongs to the opponent and counts negated. Every ``--eval-every`` updates the
greedy policy plays ``--eval-games`` games against uniform random play (half in each seat); the
run ends when it wins ``--target`` of them or after ``--minutes``, printing the end-to-end steps
per second (acting, stepping and learning together).
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from crossenvs.envs.vector import CrossVectorEnv


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="masked PPO self-play on crossenvs' vector env")
    parser.add_argument("--game", default="crisscross")
    parser.add_argument("--size", type=int, default=6, help="board size (crisscross only)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=["cpu", "cuda"])
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--num-steps", type=int, default=32, help="steps per game per rollout")
    parser.add_argument("--width", type=int, default=64, help="channels of the network's convolutions")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--eval-every", type=int, default=10, help="updates between evaluations")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--target", type=float, default=0.9, help="stop at this win rate against random")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def make_env(args: argparse.Namespace, num_envs: int) -> CrossVectorEnv:
    options = {"size": args.size} if args.game == "crisscross" else {}
    return CrossVectorEnv(args.game, num_envs=num_envs, device=args.device, **options)


def tensor(value, device: str, dtype=None) -> torch.Tensor:
    """The env's output as a torch tensor on ``device`` (the device env's already is one: no copy)."""
    return torch.as_tensor(value, device=device, dtype=dtype)


class Agent(nn.Module):
    """A small convolutional actor-critic over the (H, W, C) observation; illegal actions masked out."""

    def __init__(self, observation_shape: tuple[int, int, int], num_actions: int, width: int = 64) -> None:
        super().__init__()
        height, board_width, planes = observation_shape
        self.body = nn.Sequential(
            nn.Conv2d(planes, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(width * height * board_width, 256), nn.ReLU(),
        )  # fmt: skip
        self.actor = nn.Linear(256, num_actions)
        self.critic = nn.Linear(256, 1)

    def forward(self, observations: torch.Tensor, masks: torch.Tensor):
        hidden = self.body(observations.permute(0, 3, 1, 2))
        logits = self.actor(hidden).masked_fill(~masks, -1e9)
        return torch.distributions.Categorical(logits=logits), self.critic(hidden).squeeze(-1)


def evaluate(agent: Agent, args: argparse.Namespace, device: str) -> float:
    """Win rate of the greedy policy against uniform random play, one game per slot, seats alternating."""
    env = make_env(args, args.eval_games)
    observations, info = env.reset(seed=args.seed + 1)
    seats = torch.arange(args.eval_games, device=device) % 2
    result = torch.full((args.eval_games,), float("nan"), device=device)
    while torch.isnan(result).any():
        masks = tensor(info["action_mask"], device).bool()
        with torch.no_grad():
            greedy = agent(tensor(observations, device), masks)[0].logits.argmax(-1)
        random_moves = tensor(env.random_actions(), device, torch.int64)
        ours = tensor(info["current_player"], device) == seats
        actions = torch.where(ours, greedy, random_moves)
        observations, _, terminated, _, info = env.step(actions)
        ended = tensor(terminated, device).bool() & torch.isnan(result)
        seat_rewards = tensor(info["seat_rewards"], device)
        result[ended] = seat_rewards[ended, seats[ended]]
    return float((result > 0).float().mean())


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    device = args.device
    env = make_env(args, args.num_envs)
    shape, num_actions = env.game.observation_shape, env.game.num_actions
    agent = Agent(shape, num_actions, args.width).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr)
    n, t = args.num_envs, args.num_steps
    buffer_obs = torch.zeros((t, n, *shape), device=device)
    buffer_masks = torch.zeros((t, n, num_actions), dtype=torch.bool, device=device)
    buffer_actions = torch.zeros((t, n), dtype=torch.int64, device=device)
    buffer_logprobs, buffer_values, buffer_rewards, buffer_dones = (
        torch.zeros((t, n), device=device) for _ in range(4)
    )
    observations, info = env.reset(seed=args.seed)
    started, env_steps, update = time.perf_counter(), 0, 0
    while time.perf_counter() - started < 60 * args.minutes:
        for step in range(t):  # the rollout: every game's player to act plays the current policy
            obs, masks = tensor(observations, device), tensor(info["action_mask"], device).bool()
            with torch.no_grad():
                dist, value = agent(obs, masks)
                action = dist.sample()
            buffer_obs[step], buffer_masks[step], buffer_actions[step] = obs, masks, action
            buffer_logprobs[step], buffer_values[step] = dist.log_prob(action), value
            observations, rewards, terminated, _, info = env.step(action)
            buffer_rewards[step] = tensor(rewards, device)
            buffer_dones[step] = tensor(terminated, device).float()
            env_steps += n
        with torch.no_grad():  # negamax GAE: the next position is the opponent's, its value negated
            next_value = agent(tensor(observations, device), tensor(info["action_mask"], device).bool())[1]
            advantages = torch.zeros_like(buffer_rewards)
            last = torch.zeros(n, device=device)
            for step in reversed(range(t)):
                following = next_value if step == t - 1 else buffer_values[step + 1]
                alive = 1.0 - buffer_dones[step]
                delta = buffer_rewards[step] - args.gamma * alive * following - buffer_values[step]
                last = delta - args.gamma * args.gae_lambda * alive * last
                advantages[step] = last
            returns = advantages + buffer_values
        flat = lambda x: x.reshape(t * n, *x.shape[2:])  # noqa: E731 - a one-line reshaper
        b_obs, b_masks, b_actions = flat(buffer_obs), flat(buffer_masks), flat(buffer_actions)
        b_logprobs, b_advantages, b_returns = flat(buffer_logprobs), flat(advantages), flat(returns)
        size = t * n // args.minibatches
        for _ in range(args.epochs):
            for index in torch.randperm(t * n, device=device).split(size):
                dist, value = agent(b_obs[index], b_masks[index])
                ratio = (dist.log_prob(b_actions[index]) - b_logprobs[index]).exp()
                adv = b_advantages[index]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
                value_loss = 0.5 * (value - b_returns[index]).pow(2).mean()
                loss = policy_loss + value_loss - args.entropy * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        update += 1
        if update % args.eval_every == 0:
            win_rate = evaluate(agent, args, device)
            rate = env_steps / (time.perf_counter() - started)
            print(f"update {update}: {env_steps:,} steps, {rate:,.0f} steps/s end to end, "
                  f"{win_rate:.0%} against random", flush=True)  # fmt: skip
            if win_rate >= args.target:
                break
    print(
        f"done in {time.perf_counter() - started:.0f} s on {device}: {env_steps / (time.perf_counter() - started):,.0f} steps/s"
    )


if __name__ == "__main__":
    main()
