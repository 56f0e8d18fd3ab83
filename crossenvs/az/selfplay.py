"""AlphaZero's self-play: a batch of games stepped together, every move searched, the finished games' positions.

``num_envs`` games are a :class:`~crossenvs.envs.batch.GameBatch` on the run's target ("cpu" or "cuda"). Before
every move :class:`crossenvs.az.search.gumbel.GumbelSearch`, on the same target, searches all of them at once reading the
games where they lie, and the network evaluates all the new leaves in one forward pass. With ``fast_simulations``
(playout-cap randomisation, as in KataGo) most moves get a cheap search and only the full ones are learnt from.
With ``random_opening_plies`` (AlphaZero.jl issue 217's recipe) each game opens with 0 to that many uniformly
random moves, which are played but not learnt from: the games then reach more kinds of positions than the
network's own openings. The searched positions of games still in play wait in a store of the target
(:mod:`crossenvs.az.pending`) until their game ends.

One class for both targets: what differs is where arrays live (NumPy, or torch on the GPU) and where the root
noise is drawn (the run's NumPy generator, or a torch generator on the device, so that nothing crosses to the host
but a count of the games that ended, and with random openings which ones).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.az.config import Config
from crossenvs.az.pending import DevicePending, Finished, HostPending, torch_device
from crossenvs.az.search.gumbel import Evaluator, GumbelSearch
from crossenvs.core.registry import make_game
from crossenvs.envs.batch import GameBatch

__all__ = ["Finished", "SelfPlay"]


class SelfPlay:
    """The batch of games on ``device``, their searches, and the positions of games still being played."""

    def __init__(self, config: Config, rng: np.random.Generator, device: str = "cpu") -> None:
        self.game = make_game(config.game, **config.options)
        self.on_device = device != "cpu"
        self.games = GameBatch(self.game, config.num_envs, {}, device)
        self.search = GumbelSearch(self.game, config.num_envs, config.simulations, config.max_considered, device)
        self.fast_search = None  # playout-cap randomisation (KataGo): most moves cheap, learnt from only the full ones
        if config.fast_simulations:
            considered = min(config.max_considered, config.fast_simulations)
            self.fast_search = GumbelSearch(self.game, config.num_envs, config.fast_simulations, considered, device)
        self.full_search_share = config.full_search_share
        self.rng = rng
        self.random_opening_plies = config.random_opening_plies
        self.opening_left = self._opening_lengths(config.num_envs)  # random moves each game has still to play
        if self.on_device:
            import torch

            self.torch = torch  # the device path's arrays are torch tensors
            self.torch_device = torch_device()
            self.noise = torch.Generator(device=self.torch_device)
            self.noise.manual_seed(int(rng.integers(2**62)))
            self.pending: HostPending | DevicePending = DevicePending.for_game(
                self.game, config.num_envs, self.torch_device
            )
        else:
            self.pending = HostPending(config.num_envs, self.game.observation_shape, self.game.num_actions)
        # the random openings' streams, seeded from the run's; without openings nothing is drawn, so a config
        # without them plays the games it played before they existed
        _, _, players = self.games.reset(int(rng.integers(2**31)) if self.random_opening_plies else None)
        self.players = self._own(players)

    def _opening_lengths(self, games: int) -> np.ndarray:
        """How many random moves each of ``games`` new games opens with: 0 to ``random_opening_plies``, uniformly."""
        if not self.random_opening_plies:
            return np.zeros(games, dtype=np.int64)
        return self.rng.integers(0, self.random_opening_plies + 1, size=games)

    def _tensor(self, value: Any) -> Any:
        """An array of the batch's or the search's as the store takes it: on the CPU as it is; on the device a torch
        tensor (no copy; under numba's simulator the NumPy copy as a CPU tensor)."""
        if not self.on_device:
            return value
        return self.torch.as_tensor(value, device=self.torch_device)

    def _own(self, value: Any) -> Any:
        """Like :meth:`_tensor`, but kept across a step: on the device a copy (the batch rewrites its buffers each
        step); on the CPU the step's outputs are fresh arrays already."""
        return self._tensor(value).clone() if self.on_device else value

    def _root_noise(self, search: GumbelSearch) -> Any:
        """Gumbel(0, 1) root noise for every game: from the run's generator on the CPU, drawn on the device there."""
        if self.on_device:
            return search.gumbel_noise(generator=self.noise)
        return self.rng.gumbel(size=(self.games.num_envs, self.game.num_actions)).astype(np.float32)

    def _with_openings(self, actions: Any, opening: np.ndarray) -> Any:
        """The searched ``actions``, a random legal one instead in every game still in its random opening."""
        random_actions = self.games.random_actions()
        if not self.on_device:
            return np.where(opening, random_actions, actions)
        return self.torch.where(self._tensor(opening), self._tensor(random_actions), self._tensor(actions))

    def step(self, evaluate: Evaluator, tag: int = 0) -> Finished:
        """One searched move in every game; the positions of the games that ended, each tagged with the oldest
        ``tag`` its game was searched with (the Ray path's weights version: a game is kept or dropped whole)."""
        full = self.fast_search is None or self.rng.random() < self.full_search_share
        search = self.search if full else self.fast_search
        boards, metas = self.games.device_positions()
        actions, policies, _, observations = search.run(boards, metas, evaluate, gumbel=self._root_noise(search))
        opening = self.opening_left > 0
        if opening.any():  # a random opening move is played, not learnt from: its policy is no search's
            actions = self._with_openings(actions, opening)
            self.opening_left[opening] -= 1
        searched = int((~opening).sum()) if full else 0  # a cheap search's policy is a poor target (KataGo)
        if searched:
            self.pending.add(self._tensor(observations), self._tensor(policies), self.players, ~opening, tag)
        result = self.games.step(actions)
        self.players = self._own(result.players)
        ended = self._tensor(result.ended)
        finished = self.pending.take(ended, self._tensor(result.seat_rewards), searched)
        if finished.ended and self.random_opening_plies:  # the new games' openings (on a GPU: which games ended)
            on_host = ended.cpu().numpy() if self.on_device else ended
            self.opening_left[on_host] = self._opening_lengths(finished.ended)
        return finished
