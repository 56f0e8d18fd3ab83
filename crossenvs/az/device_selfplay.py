"""AlphaZero's self-play on a GPU: games, searches and the positions of unfinished games all on the device.

The device twin of :class:`crossenvs.az.selfplay.SelfPlay`, with the same step: search every game,
keep the searched positions, play the chosen moves, hand back the positions of the games that
ended with each one's result for its mover. The games are a
:class:`~crossenvs.envs.device.DeviceVectorEnv`, the search a
:class:`~crossenvs.az.device_search.DeviceGumbelSearch` reading the games where they lie, and the
positions of games still in play wait in device tensors (:class:`PendingPositions`) until their
game ends; they then go to the replay buffer, also on the device (:class:`crossenvs.az.replay.Replay`).
Nothing is copied to the host but a count of the games that ended.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from crossenvs.az.config import Config
from crossenvs.az.device_search import DeviceEvaluator, DeviceGumbelSearch
from crossenvs.az.selfplay import Finished
from crossenvs.core.cuda import simulated
from crossenvs.core.registry import make_game
from crossenvs.envs.device import DeviceVectorEnv


def torch_device() -> torch.device:
    """Where the device path's tensors live: the GPU, or the CPU under numba's CUDA simulator."""
    return torch.device("cpu" if simulated() else "cuda")


class PendingPositions:
    """The searched positions of games still in play: observation, improved policy, game and mover, per row.

    Rows are appended after every full search and leave when their game ends, with the result for
    their mover. Observations and policies are kept in float16, as the replay buffer keeps them.
    """

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, device: torch.device) -> None:
        self.observations = torch.zeros((0, *observation_shape), dtype=torch.float16, device=device)
        self.policies = torch.zeros((0, num_actions), dtype=torch.float16, device=device)
        self.games = torch.zeros(0, dtype=torch.int64, device=device)
        self.movers = torch.zeros(0, dtype=torch.int64, device=device)

    def __len__(self) -> int:
        return len(self.games)

    def add(self, observations: torch.Tensor, policies: torch.Tensor, movers: torch.Tensor) -> None:
        """One searched position per game (row i is game i)."""
        games = torch.arange(len(movers), device=self.games.device)
        self.observations = torch.cat([self.observations, observations.to(torch.float16)])
        self.policies = torch.cat([self.policies, policies.to(torch.float16)])
        self.games = torch.cat([self.games, games])
        self.movers = torch.cat([self.movers, movers.to(torch.int64)])

    def none_finished(self, searched: int) -> Finished:
        """What a move that ended no game hands over: no positions (the pending rows are not touched)."""
        return Finished(self.observations[:0], self.policies[:0], torch.zeros(0, device=self.games.device), 0,
                        np.zeros(0, dtype=int), searched)  # fmt: skip

    def take_finished(self, ended: torch.Tensor, seat_rewards: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The rows of the games that ``ended`` (B,) bool, with each one's result for its mover; the rest stay."""
        done = ended[self.games]
        rows = torch.nonzero(done).flatten()
        rows = rows[torch.argsort(self.games[rows], stable=True)]  # game after game, each in play order (as the CPU)
        results = seat_rewards[self.games[rows], self.movers[rows]].float()
        taken = (self.observations[rows], self.policies[rows], results)
        keep = ~done
        self.observations, self.policies = self.observations[keep], self.policies[keep]
        self.games, self.movers = self.games[keep], self.movers[keep]
        return taken


class DeviceSelfPlay:
    """The batch of games on the device, their searches, and the positions of games still being played."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self.game = make_game(config.game, **config.options)
        self.env = DeviceVectorEnv(self.game, num_envs=config.num_envs)
        self.search = DeviceGumbelSearch(self.game, config.num_envs, config.simulations, config.max_considered)
        self.fast_search = None  # playout-cap randomisation (KataGo), as on the CPU path
        if config.fast_simulations:
            considered = min(config.max_considered, config.fast_simulations)
            self.fast_search = DeviceGumbelSearch(self.game, config.num_envs, config.fast_simulations, considered)
        self.full_search_share = config.full_search_share
        self.rng = rng
        self.device = torch_device()
        self.noise = torch.Generator(device=self.device)
        self.noise.manual_seed(int(rng.integers(2**62)))
        self.pending = PendingPositions(self.game.observation_shape, self.game.num_actions, self.device)
        _, info = self.env.reset(seed=int(rng.integers(2**31)))
        self.players = self._tensor(info["current_player"]).clone()

    def _tensor(self, value: Any) -> torch.Tensor:
        """A device tensor as it is; the simulator's NumPy copy as a CPU tensor."""
        return torch.as_tensor(value, device=self.device)

    def step(self, evaluate: DeviceEvaluator, tag: int = 0) -> Finished:
        """One searched move in every game; the positions of the games that ended (tensors on the device)."""
        full = self.fast_search is None or self.rng.random() < self.full_search_share
        search = self.search if full else self.fast_search
        boards, metas = self.env.device_positions()
        noise = search.gumbel_noise(generator=self.noise)
        actions, policies, _, observations = search.run(boards, metas, evaluate, noise)
        if full:  # a cheap search's policy is a poor target, so its positions are not learnt from (KataGo)
            self.pending.add(self._tensor(observations), self._tensor(policies), self.players)
        _, _, terminated, _, info = self.env.step(actions)
        self.players = self._tensor(info["current_player"]).clone()
        ended = self._tensor(terminated)
        searched = len(actions) * full
        games_ended = int(ended.sum())  # the one number that crosses to the host each move
        if not games_ended:
            return self.pending.none_finished(searched)
        observations, policies, results = self.pending.take_finished(ended, self._tensor(info["seat_rewards"]))
        return Finished(observations, policies, results, games_ended, np.full(len(results), tag), searched)
