"""Players for arenas and for playing against: baselines and trained checkpoints.

A player chooses an action for the seat to decide in a :class:`~crossenvs.core.state.State`:

* :class:`RandomPlayer`: uniform over legal actions;
* :class:`GreedyPlayer`: one ply: an immediate win, else the action removing the most enemy
  pieces from the board (captures, flips, jumped pieces), else random;
* :class:`MCTSPlayer`: UCT with random rollouts in numba (:mod:`crossenvs.eval.mcts`);
* :class:`ModelPlayer`: a trained SB3 model (e.g. a checkpoint of ``training/selfplay.py``).

Players that can decide for many games at once (random and models) also have ``act_batch``,
which the arena uses to play all the games of such a pairing together in the batched env.

:func:`make_player` builds one from a short spec: ``random``, ``greedy``, ``mcts`` or
``mcts:<simulations>``, or the path of a checkpoint ``.zip``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InvalidOptionError
from ..core.game import Game
from ..core.state import State
from ..envs import batch_kernels
from . import mcts


class Player(ABC):
    """Chooses actions; ``seed`` makes its choices reproducible."""

    name: str

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, game: Game, state: State) -> int:
        """A legal action for the player to decide in ``state``."""

    def __repr__(self) -> str:
        return self.name


class RandomPlayer(Player):
    name = "random"

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per game of a batch (the arena's batched path)."""
        actions = np.empty(len(masks), dtype=np.int64)
        batch_kernels.random_legal_actions(masks, self.rng.random(len(masks)), actions)
        return actions


class GreedyPlayer(Player):
    name = "greedy"

    def act(self, game: Game, state: State) -> int:
        seat = game.current_player(state)
        enemy = [code for code, colour in game.owner_colour.items() if colour != game.colours[seat]]
        before = int(np.isin(state.board, enemy).sum())
        best, best_taken = [], -1
        for action in game.legal_actions(state):
            after = game.apply(state, int(action))
            outcome = game.outcome(after)
            if outcome is not None and outcome[seat] > 0:
                return int(action)
            taken = before - int(np.isin(after.board, enemy).sum())
            if taken > best_taken:
                best, best_taken = [int(action)], taken
            elif taken == best_taken:
                best.append(int(action))
        return best[self.rng.integers(len(best))]


class MCTSPlayer(Player):
    """UCT over the game's kernels; ``simulations`` per move, exploration constant ``c``."""

    def __init__(self, simulations: int = 200, c: float = 1.4, seed: int | None = None) -> None:
        if simulations < 1:
            raise InvalidOptionError(f"mcts needs at least one simulation, got {simulations}")
        super().__init__(seed)
        self.simulations = int(simulations)
        self.c = float(c)
        self.name = f"mcts{self.simulations}"

    def act(self, game: Game, state: State) -> int:
        game_id = batch_kernels.GAME_IDS[game.name]
        seed = int(self.rng.integers(2**31))
        action = mcts.search(game_id, state.board, state.meta, game.num_actions, self.simulations, self.c, seed)
        return int(action)


class ModelPlayer(Player):
    """A trained model with an SB3-style ``predict``; deterministic by default."""

    def __init__(self, model: Any, name: str = "model", deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One forward pass for a batch of games (the arena's batched path)."""
        actions, _ = self.model.predict(observations, action_masks=masks.astype(bool), deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64)

    def act(self, game: Game, state: State) -> int:
        seat = game.current_player(state)
        mask = game.legal_mask(state).astype(bool)
        action, _ = self.model.predict(game.observe(state, seat), action_masks=mask, deterministic=self.deterministic)
        action = int(action)
        return action if mask[action] else int(np.flatnonzero(mask)[0])


def load_model(path: str | Path, game: Game | None = None) -> Any:
    """A MaskablePPO checkpoint; one clear error when it is missing, unreadable or for another game."""
    path = Path(path)
    if not path.is_file():
        raise InvalidOptionError(f"checkpoint {path} does not exist")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise InvalidOptionError('loading checkpoints needs the train extra: pip install -e ".[train]"') from None
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # zip, pickle and torch errors all mean "unreadable"
        raise InvalidOptionError(f"checkpoint {path} is corrupt or unreadable: {type(exc).__name__}: {exc}") from None
    if game is not None:
        shape, actions = tuple(model.observation_space.shape), int(model.action_space.n)
        if shape != game.observation_shape or actions != game.num_actions:
            raise InvalidOptionError(
                f"checkpoint {path} was trained on observations {shape} with {actions} actions; {game!r} has "
                f"{game.observation_shape} and {game.num_actions}: another game or board size"
            )
    return model


def make_player(spec: str | Player, seed: int | None = None, game: Game | None = None) -> Player:
    """A player from ``random``, ``greedy``, ``mcts``, ``mcts:<simulations>`` or a checkpoint path.

    With ``game``, a checkpoint is checked to fit it (observation shape and number of actions).
    """
    if isinstance(spec, Player):
        return spec
    text = str(spec).strip()
    if text == "random":
        return RandomPlayer(seed)
    if text == "greedy":
        return GreedyPlayer(seed)
    if text == "mcts" or text.startswith("mcts:"):
        count = text.partition(":")[2] or "200"
        if not count.isdigit():
            raise InvalidOptionError(f"player {text!r}: write mcts:<simulations>, e.g. mcts:400")
        return MCTSPlayer(int(count), seed=seed)
    if text.endswith(".zip") or Path(text).exists():
        return ModelPlayer(load_model(text, game), name=Path(text).stem, seed=seed)
    raise InvalidOptionError(
        f"unknown player {text!r}: use random, greedy, mcts, mcts:<simulations> or a checkpoint .zip path"
    )
