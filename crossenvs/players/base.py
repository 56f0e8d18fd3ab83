"""The player protocol: :class:`Player` and the batch of positions it decides for (:class:`Positions`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from crossenvs.kernels.state import State
from crossenvs.support.checks import check_seed

from ..core.game import Game


@dataclass
class Positions:
    """A batch of games in which one player must act, with what any kind of player needs.

    ``observations`` and ``masks`` are those of the player to act in each game; ``ids`` are the
    games' slots in their env (a player that keeps a choice per game, like training's opponent
    pool, keys on them); ``uniforms``, when the env keeps a random stream per game, hold one
    draw per game so that random choices do not depend on the other games in the batch.
    """

    game: Game
    boards: np.ndarray  # (n, H, W) int8
    metas: np.ndarray  # (n, K) int32
    observations: np.ndarray  # (n, *observation_shape) float32
    masks: np.ndarray  # (n, num_actions) int8
    ids: np.ndarray  # (n,) int64
    uniforms: np.ndarray | None = None  # (n,) float64 in [0, 1)

    def __len__(self) -> int:
        return len(self.ids)

    def state(self, row: int) -> State:
        """Position ``row`` as a :class:`State` (a copy)."""
        return State(self.boards[row].copy(), self.metas[row].copy())

    def take(self, rows: np.ndarray) -> Positions:
        """The sub-batch of the given rows."""
        uniforms = None if self.uniforms is None else self.uniforms[rows]
        return Positions(
            self.game,
            self.boards[rows],
            self.metas[rows],
            self.observations[rows],
            self.masks[rows],
            self.ids[rows],
            uniforms,
        )


class Player(ABC):
    """Chooses actions for the player to act; ``seed`` makes its choices reproducible.

    Subclasses implement :meth:`act`. :meth:`act_batch` loops it unless the player can decide
    for many games in one call (``vectorized = True``: random play, network forward passes),
    which arenas use to play all the games of a pairing together in the vector env.
    """

    name: str = "player"
    #: True when act_batch decides for a whole batch at once (not a loop over act)
    vectorized: bool = False
    #: whether choosing takes thought worth announcing (terminal play says "... is thinking")
    deliberates: bool = True

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the player's random choices from ``seed`` (None or ``0..2**63-1``, checked here
        so a bad seed names itself instead of failing inside numpy)."""
        self.rng = np.random.default_rng(check_seed(seed, f"{type(self).__name__} seed"))

    @abstractmethod
    def act(self, game: Game, state: State) -> int:
        """A legal action for the player to decide in ``state``."""

    def act_batch(self, positions: Positions) -> np.ndarray:
        """One legal action per game of ``positions`` (int64, shape (n,))."""
        return np.array([self.act(positions.game, positions.state(k)) for k in range(len(positions))], dtype=np.int64)

    @property
    def stop_flag(self) -> np.ndarray:
        """One byte that a search polls while it runs (numba reads it without the GIL): 1 means stop now."""
        flag = self.__dict__.get("_stop_flag")
        if flag is None:
            flag = self.__dict__["_stop_flag"] = np.zeros(1, dtype=np.uint8)
        return flag

    def interrupt(self) -> None:
        """Ask a search under way in another thread to stop soon (its move is then only its best so far).

        For a server whose game was closed mid-search. The flag stays set, so a search that starts
        later stops at once too, until :meth:`clear_interrupt`. Players that do not search ignore it.
        """
        self.stop_flag[0] = 1

    def clear_interrupt(self) -> None:
        """Let searches run their full length again."""
        self.stop_flag[0] = 0

    def start_games(self, ids: np.ndarray, uniforms: np.ndarray) -> None:
        """Games ``ids`` of a vector env start (one uniform draw each): a hook for per-game choices."""
        return None  # most players choose nothing per game

    def __repr__(self) -> str:
        return self.name
