"""Where self-play keeps the searched positions of games still in play, until their game ends and its result is known.

Two stores with one interface, chosen by where the games are played (:class:`crossenvs.az.selfplay.SelfPlay`):

* :class:`HostPending`: on the CPU, a list a game (an entry per searched move). Only the moves played are held,
  so a long game of a large game (Crossings: 400 moves of 3,585 actions) costs what it played, not what it might.
* :class:`DevicePending`: on a GPU, slots allocated once on the device (a row per move of the game's longest game),
  written in place, so that nothing but a count of ended games crosses to the host each move.

Both hand over a finished game's positions game after game, each in play order, each with the result for its
mover and the oldest tag its game was searched with (the Ray path's weights version: a game is kept or dropped
whole), and both give the same numbers for the same games.
"""

from __future__ import annotations

import typing
from typing import Any

import numpy as np

from crossenvs.core.game import Game
from crossenvs.kernels.cuda import check_device_memory, simulated
from crossenvs.support.errors import InvalidArgumentError


class Finished(typing.NamedTuple):
    """The positions of the games one search step ended, with each one's result for its mover."""

    observations: Any  # (n, *observation_shape): NumPy on the CPU path, torch on the device
    policies: Any  # (n, num_actions)
    results: Any  # (n,) the game's result for the position's mover
    ended: int  # games ended
    tags: np.ndarray  # per position: the oldest tag of its game's steps (the Ray path's weights version)
    searched: int  # positions this step searched in full and kept for learning (0 after a fast search)


def torch_device() -> Any:
    """Where the device path's tensors live: the GPU, or the CPU under numba's CUDA simulator."""
    import torch

    return torch.device("cpu" if simulated() else "cuda")


class HostPending:
    """The CPU's store: per game, a list of (observation, policy, mover, tag), one entry per searched move."""

    def __init__(self, num_games: int, observation_shape: tuple[int, ...], num_actions: int) -> None:
        self.games: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(num_games)]
        self.observation_shape, self.num_actions = observation_shape, num_actions

    def __len__(self) -> int:
        return sum(len(game) for game in self.games)

    def counts(self) -> np.ndarray:
        """(B,) the positions each game holds."""
        return np.array([len(game) for game in self.games], dtype=np.int64)

    def add(self, observations: np.ndarray, policies: np.ndarray, movers: np.ndarray, rows: np.ndarray,
            tag: int) -> None:  # fmt: skip
        """Game i's searched position (row i of each array) for every i where ``rows`` (B,) bool is True."""
        for i in np.flatnonzero(rows):
            self.games[i].append((observations[i], policies[i], int(movers[i]), tag))

    def take(self, ended: np.ndarray, seat_rewards: np.ndarray, searched: int) -> Finished:
        """The positions of the games that ``ended`` (B,) bool, each with its mover's result; their lists emptied."""
        finished = []
        for i in np.flatnonzero(ended):
            if self.games[i]:
                oldest = min(step_tag for *_, step_tag in self.games[i])  # a game is as old as its first move
                finished += [(o, p, seat_rewards[i, seat], oldest) for o, p, seat, _ in self.games[i]]
            self.games[i] = []
        games_ended = int(ended.sum())
        if not finished:
            return Finished(np.zeros((0, *self.observation_shape), np.float32),
                            np.zeros((0, self.num_actions), np.float32), np.zeros(0, np.float32), games_ended,
                            np.zeros(0, int), searched)  # fmt: skip
        observations, policies, results, tags = zip(*finished)
        return Finished(np.stack(observations), np.stack(policies), np.array(results, np.float32), games_ended,
                        np.array(tags), searched)  # fmt: skip


class DevicePending:
    """The GPU's store: the searched positions of games still in play, per game and move, in slots on the device.

    Preallocated once: every game has ``slots`` rows (its game's ``max_game_length``, the most actions a
    game can take, so the most positions it can have searched), and a move writes one row per game in place
    at that game's count. Nothing is concatenated or reallocated while games are played: growing the buffer
    every move copied all of it (GBs a move for Crosse at 2,048 games, twice that at the copy's peak). The
    size is checked against free memory before allocating, so a batch that cannot fit fails at once with
    the number of games to lower. Observations and policies are kept in float16, as the replay buffer keeps
    them. A fast search (playout-cap randomisation) adds no row, so a game's count is at most its actions.
    """

    def __init__(self, num_games: int, slots: int, observation_shape: tuple[int, ...], num_actions: int,
                 device: Any, name: str = "self-play") -> None:  # fmt: skip
        import torch

        if slots < 1:
            raise InvalidArgumentError(f"{name}: pending positions need at least 1 slot a game, not {slots}")
        self.name, self.slots, self.torch = name, slots, torch
        needed = num_games * (slots * (2 * (int(np.prod(observation_shape)) + num_actions) + 1) + 16)
        what = f"the pending positions of {num_games:,} {name} games ({slots:,} moves each)"
        check_device_memory(needed, what, "ask for fewer games (num_envs)")
        self.observations = torch.zeros((num_games, slots, *observation_shape), dtype=torch.float16, device=device)
        self.policies = torch.zeros((num_games, slots, num_actions), dtype=torch.float16, device=device)
        self.movers = torch.zeros((num_games, slots), dtype=torch.int8, device=device)  # a seat: 0 or 1
        self._counts = torch.zeros(num_games, dtype=torch.int64, device=device)  # rows of each game's play so far
        self.oldest = torch.zeros(num_games, dtype=torch.int64, device=device)  # the tag of each game's first row
        self._games = torch.arange(num_games, device=device)

    @classmethod
    def for_game(cls, game: Game, num_games: int, device: Any) -> DevicePending:
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
        return int(self._counts.sum())

    def counts(self) -> np.ndarray:
        """(B,) the positions each game holds (copied to the host: for checks, not for the loop)."""
        return self._counts.cpu().numpy()

    def add(self, observations: Any, policies: Any, movers: Any, rows: Any, tag: int) -> None:
        """Game i's searched position (row i of each tensor) for every i where ``rows`` (B,) bool is True, written
        at the game's next slot."""
        torch = self.torch
        rows = torch.as_tensor(rows, device=self._counts.device)
        games = self._games[rows]
        # A game past its last slot (a max_game_length too small) is caught by take before anything is handed
        # over; clamped, its row overwrites its last one instead of writing out of bounds.
        slot = self._counts[games].clamp(max=self.slots - 1)
        self.observations[games, slot] = observations[games].to(torch.float16)
        self.policies[games, slot] = policies[games].to(torch.float16)
        self.movers[games, slot] = movers[games].to(torch.int8)
        oldest = torch.where(self._counts == 0, torch.full_like(self.oldest, tag), self.oldest.clamp(max=tag))
        self.oldest = torch.where(rows, oldest, self.oldest)  # a game is as old as its first move
        self._counts += rows

    def take(self, ended: Any, seat_rewards: Any, searched: int) -> Finished:
        """The rows of the games that ``ended`` (B,) bool, game after game, each in play order (the (game, slot)
        pairs of their filled slots in row-major order, as the host store hands them over), with each one's
        result for its mover; their slots are freed for the games that start in their place."""
        torch = self.torch
        ended = torch.as_tensor(ended, device=self._counts.device)
        games_ended, overflowing = torch.stack([ended.sum(), (self._counts > self.slots).sum()]).tolist()
        if overflowing:
            raise InvalidArgumentError(
                f"{self.name}: {overflowing} game(s) played more than max_game_length ({self.slots:,}) searched "
                "moves; the game's max_game_length must bound the actions of every game"
            )
        if not games_ended:  # the common move: one number crossed to the host, no positions handed over
            return Finished(self.observations[0, :0], self.policies[0, :0],
                            torch.zeros(0, device=self._counts.device), 0, np.zeros(0, dtype=int), searched)  # fmt: skip
        games = torch.nonzero(ended).flatten()
        filled = torch.arange(self.slots, device=self._counts.device)[None, :] < self._counts[games][:, None]
        which, slot = torch.nonzero(filled, as_tuple=True)
        game = games[which]
        results = seat_rewards[game, self.movers[game, slot].long()].float()
        tags = self.oldest[game].cpu().numpy()
        taken = Finished(self.observations[game, slot], self.policies[game, slot], results, int(games_ended), tags,
                         searched)  # fmt: skip
        self._counts.masked_fill_(ended, 0)
        return taken
