"""AlphaZero's self-play on a GPU: games, searches and the positions of unfinished games all on the device.

The device twin of :class:`crossenvs.az.selfplay.SelfPlay`, with the same step: search every game,
keep the searched positions, play the chosen moves, hand back the positions of the games that
ended with each one's result for its mover. The games are a
:class:`~crossenvs.envs.vector.DeviceVectorEnv`, the search a
:class:`~crossenvs.az.search.GumbelSearch` on the device reading the games where they lie, and the
positions of games still in play wait in a device buffer allocated once (:class:`PendingPositions`,
a slot per move of each game's longest game) until their game ends; they then go to the replay
buffer, also on the device (:class:`crossenvs.az.replay.Replay`). Nothing is copied to the host but
a count of the games that ended.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.core.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch

from crossenvs.az.config import Config
from crossenvs.az.search import Evaluator, GumbelSearch
from crossenvs.az.selfplay import Finished
from crossenvs.core.errors import InvalidArgumentError
from crossenvs.core.game import Game
from crossenvs.core.registry import make_game
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.kernels.cuda import check_device_memory, simulated


def torch_device() -> torch.device:
    """Where the device path's tensors live: the GPU, or the CPU under numba's CUDA simulator."""
    return torch.device("cpu" if simulated() else "cuda")


class PendingPositions:
    """The searched positions of games still in play: observation, improved policy and mover, per game and move.

    Preallocated once: every game has ``slots`` rows (its game's ``max_game_length``, the most actions a
    game can take, so the most positions it can have searched), and a move writes one row per game in place
    at that game's count. Nothing is concatenated or reallocated while games are played: growing the buffer
    every move copied all of it (GBs a move for Crosse at 2,048 games, twice that at the copy's peak). The
    size is checked against free memory before allocating, so a batch that cannot fit fails at once with
    the number of games to lower. Observations and policies are kept in float16, as the replay buffer keeps
    them. A fast search (playout-cap randomisation) adds no row, so a game's count is at most its actions.
    """

    def __init__(
        self,
        num_games: int,
        slots: int,
        observation_shape: tuple[int, ...],
        num_actions: int,
        device: torch.device,
        name: str = "self-play",
    ) -> None:
        if slots < 1:
            raise InvalidArgumentError(f"{name}: pending positions need at least 1 slot a game, not {slots}")
        self.name, self.slots = name, slots
        needed = num_games * (slots * (2 * (int(np.prod(observation_shape)) + num_actions) + 1) + 8)
        what = f"the pending positions of {num_games:,} {name} games ({slots:,} moves each)"
        check_device_memory(needed, what, "ask for fewer games (num_envs)")
        self.observations = torch.zeros((num_games, slots, *observation_shape), dtype=torch.float16, device=device)
        self.policies = torch.zeros((num_games, slots, num_actions), dtype=torch.float16, device=device)
        self.movers = torch.zeros((num_games, slots), dtype=torch.int8, device=device)  # a seat: 0 or 1
        self.counts = torch.zeros(num_games, dtype=torch.int64, device=device)  # rows of each game's play so far
        self._games = torch.arange(num_games, device=device)

    @classmethod
    def for_game(cls, game: Game, num_games: int, device: torch.device) -> PendingPositions:
        """Slots for ``num_games`` games of ``game``, each as long as its longest game; a game that does not
        declare it (``max_game_length`` None) is refused, as nothing else bounds a game's rows."""
        if game.max_game_length is None:
            raise InvalidArgumentError(
                f"{game.name}: device self-play keeps every game's positions in slots sized by the longest game; "
                "give the Game subclass a max_game_length (a property or a class attribute: an upper bound on "
                "the actions of one game)"
            )
        return cls(num_games, int(game.max_game_length), game.observation_shape, game.num_actions, device, game.name)

    def __len__(self) -> int:
        return int(self.counts.sum())

    def add(self, observations: torch.Tensor, policies: torch.Tensor, movers: torch.Tensor) -> None:
        """One searched position per game (row i is game i), written at each game's next slot."""
        # A game past its last slot (a max_game_length too small) is caught by count_ended before anything
        # is handed over; clamped, its row overwrites its last one instead of writing out of bounds.
        slot = self.counts.clamp(max=self.slots - 1)
        self.observations[self._games, slot] = observations.to(torch.float16)
        self.policies[self._games, slot] = policies.to(torch.float16)
        self.movers[self._games, slot] = movers.to(torch.int8)
        self.counts += 1

    def count_ended(self, ended: torch.Tensor) -> int:
        """How many games ``ended`` (B,) bool: the one number that crosses to the host each move, read together
        with whether a game has outgrown its slots (an error: the game played more than its max_game_length)."""
        games_ended, overflowing = torch.stack([ended.sum(), (self.counts > self.slots).sum()]).tolist()
        if overflowing:
            raise InvalidArgumentError(
                f"{self.name}: {overflowing} game(s) played more than max_game_length ({self.slots:,}) searched "
                "moves; the game's max_game_length must bound the actions of every game"
            )
        return int(games_ended)

    def none_finished(self, searched: int) -> Finished:
        """What a move that ended no game hands over: no positions (the pending rows are not touched)."""
        return Finished(self.observations[0, :0], self.policies[0, :0], torch.zeros(0, device=self.counts.device), 0,
                        np.zeros(0, dtype=int), searched)  # fmt: skip

    def take_finished(self, ended: torch.Tensor, seat_rewards: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The rows of the games that ``ended`` (B,) bool, with each one's result for its mover; their slots are
        freed for the games that start in their place, the rest stay.

        Game after game, each in play order, as the CPU path hands them over: the (game, slot) pairs of
        the ended games' filled slots, in row-major order.
        """
        games = torch.nonzero(ended).flatten()
        filled = torch.arange(self.slots, device=self.counts.device)[None, :] < self.counts[games][:, None]
        which, slot = torch.nonzero(filled, as_tuple=True)
        game = games[which]
        results = seat_rewards[game, self.movers[game, slot].long()].float()
        taken = (self.observations[game, slot], self.policies[game, slot], results)
        self.counts.masked_fill_(ended, 0)
        return taken


class DeviceSelfPlay:
    """The batch of games on the device, their searches, and the positions of games still being played."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self.game = make_game(config.game, **config.options)
        self.env = CrossVectorEnv(self.game, num_envs=config.num_envs, device="cuda")
        self.search = GumbelSearch(self.game, config.num_envs, config.simulations, config.max_considered, "cuda")
        self.fast_search = None  # playout-cap randomisation (KataGo), as on the CPU path
        if config.fast_simulations:
            considered = min(config.max_considered, config.fast_simulations)
            self.fast_search = GumbelSearch(self.game, config.num_envs, config.fast_simulations, considered, "cuda")
        self.full_search_share = config.full_search_share
        self.rng = rng
        self.device = torch_device()
        self.noise = torch.Generator(device=self.device)
        self.noise.manual_seed(int(rng.integers(2**62)))
        self.pending = PendingPositions.for_game(self.game, config.num_envs, self.device)
        _, info = self.env.reset(seed=int(rng.integers(2**31)))
        self.players = self._tensor(info["current_player"]).clone()

    def _tensor(self, value: Any) -> torch.Tensor:
        """A device tensor as it is; the simulator's NumPy copy as a CPU tensor."""
        return torch.as_tensor(value, device=self.device)

    def step(self, evaluate: Evaluator, tag: int = 0) -> Finished:
        """One searched move in every game; the positions of the games that ended (tensors on the device)."""
        full = self.fast_search is None or self.rng.random() < self.full_search_share
        search = self.search if full else self.fast_search
        boards, metas = self.env.device_positions()
        noise = search.gumbel_noise(generator=self.noise)
        actions, policies, _, observations = search.run(boards, metas, evaluate, gumbel=noise)
        if full:  # a cheap search's policy is a poor target, so its positions are not learnt from (KataGo)
            self.pending.add(self._tensor(observations), self._tensor(policies), self.players)
        _, _, terminated, _, info = self.env.step(actions)
        self.players = self._tensor(info["current_player"]).clone()
        ended = self._tensor(terminated)
        searched = len(actions) * full
        games_ended = self.pending.count_ended(ended)  # the one number that crosses to the host each move
        if not games_ended:
            return self.pending.none_finished(searched)
        observations, policies, results = self.pending.take_finished(ended, self._tensor(info["seat_rewards"]))
        return Finished(observations, policies, results, games_ended, np.full(len(results), tag), searched)
