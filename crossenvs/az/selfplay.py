"""AlphaZero's self-play: a batch of games stepped together, every move searched, the finished games' positions.

``num_envs`` games are stepped together in the vector env. Before every move
:class:`crossenvs.az.search.GumbelSearch` searches all of them at once, and the network evaluates
all the new leaves in one forward pass. With ``fast_simulations`` (playout-cap randomisation, as in
KataGo) most moves get a cheap search and only the full ones are learnt from. With ``random_opening_plies``
(AlphaZero.jl issue 217's recipe) each game opens with 0 to that many uniformly random moves, which are
played but not learnt from: the games then reach more kinds of positions than the network's own openings.
"""

from __future__ import annotations

import typing

import numpy as np

from crossenvs.az.config import Config
from crossenvs.az.search import GumbelSearch
from crossenvs.core.registry import make_game
from crossenvs.core.state import TO_MOVE
from crossenvs.envs.vector import CrossVectorEnv


class Finished(typing.NamedTuple):
    """The positions of the games one search step ended, with each one's result for its mover."""

    observations: np.ndarray
    policies: np.ndarray
    results: np.ndarray
    ended: int  # games ended
    tags: np.ndarray  # per position: the oldest tag of its game's steps (the Ray path's weights version)
    searched: int  # positions this step searched in full and kept for learning (0 after a fast search)


class SelfPlay:
    """The batch of games, their searches, and the positions of games still being played."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self.game = make_game(config.game, **config.options)
        self.env = CrossVectorEnv(self.game, num_envs=config.num_envs)
        self.search = GumbelSearch(self.game, config.num_envs, config.simulations, config.max_considered)
        self.fast_search = None  # playout-cap randomisation (KataGo): most moves cheap, learnt from only the full ones
        if config.fast_simulations:
            considered = min(config.max_considered, config.fast_simulations)
            self.fast_search = GumbelSearch(self.game, config.num_envs, config.fast_simulations, considered)
        self.full_search_share = config.full_search_share
        self.rng = rng
        self.history: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(config.num_envs)]
        self.random_opening_plies = config.random_opening_plies
        self.opening_left = self._opening_lengths(config.num_envs)  # random moves each game has still to play
        # the random openings' streams, seeded from the run's; without openings nothing is drawn, so a config
        # without them plays the games it played before they existed
        self.env.reset(seed=int(rng.integers(2**31)) if self.random_opening_plies else None)

    def _opening_lengths(self, games: int) -> np.ndarray:
        """How many random moves each of ``games`` new games opens with: 0 to ``random_opening_plies``, uniformly."""
        if not self.random_opening_plies:
            return np.zeros(games, dtype=np.int64)
        return self.rng.integers(0, self.random_opening_plies + 1, size=games)

    def step(self, evaluate, tag: int = 0) -> Finished:
        """One searched move in every game; the positions of the games that ended, each tagged with the oldest
        ``tag`` its game was searched with (the Ray path's weights version: a game is kept or dropped whole)."""
        boards, metas = self.env.boards.copy(), self.env.metas.copy()
        movers = metas[:, TO_MOVE].copy()
        full = self.fast_search is None or self.rng.random() < self.full_search_share
        search = self.search if full else self.fast_search
        actions, policies, _, observations = search.run(boards, metas, evaluate, self.rng)
        opening = self.opening_left > 0
        if opening.any():  # a random opening move is played, not learnt from: its policy is no search's
            actions = np.where(opening, self.env.random_actions(), actions)
            self.opening_left[opening] -= 1
        learnt = np.flatnonzero(~opening) if full else ()  # a cheap search's policy is a poor target (KataGo)
        for i in learnt:
            self.history[i].append((observations[i], policies[i], int(movers[i]), tag))
        searched = len(learnt)
        _, _, terminations, _, info = self.env.step(actions)
        rewards = info["seat_rewards"]
        finished = []
        for i in np.flatnonzero(terminations):
            if self.history[i]:
                oldest = min(step_tag for *_, step_tag in self.history[i])  # a game is as old as its first move
                finished += [(o, p, rewards[i, seat], oldest) for o, p, seat, _ in self.history[i]]
            self.history[i] = []
        ended = int(terminations.sum())
        self.opening_left[terminations] = self._opening_lengths(ended)
        if not finished:
            shape = (0, *self.game.observation_shape)
            empty_policies = np.zeros((0, self.game.num_actions), np.float32)
            return Finished(
                np.zeros(shape, np.float32), empty_policies, np.zeros(0, np.float32), ended, np.zeros(0, int), searched
            )
        observations, policies, results, tags = zip(*finished)
        return Finished(
            np.stack(observations), np.stack(policies), np.array(results, np.float32), ended, np.array(tags), searched
        )
