"""PPO self-play's opponents: per game, the random policy or a frozen snapshot of the learner."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train ppo"):
    import torch

from crossenvs.players import ModelPlayer, Player, Positions, RandomPlayer


class OpponentPool(Player):
    """Per-game opponents: the random policy or a frozen snapshot of the learner.

    A player (:mod:`crossenvs.players`) whose ``start_games`` picks a member for each new game
    and whose ``act_batch`` asks each member once for all the games it plays.
    """

    name = "pool"
    vectorized = True

    def __init__(self, num_envs: int, pool_size: int, random_share: float) -> None:
        super().__init__(None)
        self.random = RandomPlayer()
        self.snapshots: dict[int, ModelPlayer] = {}  # id -> frozen policy; ids only grow, so a game keeps its opponent
        self.next_id = 1
        self.pool_size = pool_size
        self.random_share = random_share
        self.member = np.zeros(num_envs, dtype=np.int64)  # 0 = random, else a snapshot id

    def add(self, policy: Any) -> None:
        """A frozen copy of ``policy`` joins; the oldest leaves when the pool is full."""
        frozen = copy.deepcopy(policy).eval()
        self.snapshots[self.next_id] = ModelPlayer(frozen, name=f"snapshot{self.next_id}", deterministic=False)
        self.next_id += 1
        while len(self.snapshots) > self.pool_size:
            del self.snapshots[min(self.snapshots)]

    def start_games(self, ids: np.ndarray, uniforms: np.ndarray) -> None:
        if not self.snapshots:
            self.member[ids] = 0
            return
        keys = np.array(sorted(self.snapshots), dtype=np.int64)
        use_snapshot = uniforms >= self.random_share
        # the part of the uniform above the random share picks a snapshot evenly
        scaled = (uniforms - self.random_share) / max(1e-9, 1.0 - self.random_share)
        picks = keys[np.minimum((scaled * len(keys)).astype(np.int64), len(keys) - 1)]
        self.member[ids] = np.where(use_snapshot, picks, 0)

    def act(self, game, state) -> int:
        raise NotImplementedError("the pool plays inside a vector env (act_batch), where games have ids")

    def act_batch(self, positions: Positions) -> np.ndarray:
        actions = self.random.act_batch(positions)
        members = self.member[positions.ids]
        for member in np.unique(members[members > 0]):
            rows = np.flatnonzero(members == member)
            # a game whose snapshot has left the pool finishes against the newest one
            player = self.snapshots.get(int(member)) or self.snapshots[max(self.snapshots)]
            with torch.no_grad():
                actions[rows] = player.act_batch(positions.take(rows))
        return actions
