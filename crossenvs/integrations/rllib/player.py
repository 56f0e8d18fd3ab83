"""An RLlib checkpoint as a :class:`crossenvs.players.Player` (spec ``rllib:<path>``), loaded without Ray."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("rllib", "the RLlib integration"):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

from crossenvs.kernels.state import State
from crossenvs.support.errors import CheckpointError, InvalidOptionError

from ...checkpoints.files import check_trained_on
from ...checkpoints.rllib import load_rllib_module, rllib_module_folder
from ...core.game import Game
from ...players import Player, Positions
from .env import MASK, OBS
from .league import MAIN


def load_module(path: str | Path, game: Game | None = None, module: str = MAIN) -> RLModule:
    """The RLModule of a checkpoint, on CPU, without starting Ray; checked against ``game`` if given
    (:func:`crossenvs.checkpoints.load_rllib_module` reads it)."""
    loaded, _ = load_rllib_module(path, game, module)  # checks the game it names
    if game is not None:
        check_fits(loaded, None, game, path)
    loaded.eval()
    return loaded


def check_fits(module: RLModule, metadata: dict[str, Any] | None, game: Game, path: str | Path) -> None:
    """Refuse a module trained for another game or board size, naming both."""
    if metadata is not None:
        check_trained_on(path, (metadata["game"], metadata["options"]), game)
    space = module.observation_space
    shape = tuple(space[OBS].shape) if isinstance(space, gym.spaces.Dict) else None
    if shape != game.observation_shape or int(module.action_space.n) != game.num_actions:
        raise CheckpointError(
            f"rllib checkpoint {path} takes observations {shape} with {module.action_space.n} actions; {game!r} has "
            f"{game.observation_shape} and {game.num_actions}: another game or board size"
        )


class RLlibPlayer(Player):
    """An RLlib checkpoint's module as a player: the most likely legal action, all games of a batch
    in one forward pass. Loaded in-process (no Ray cluster), so arenas start it in seconds."""

    vectorized = True

    def __init__(self, path: str | Path, game: Game | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        self.path = Path(path)
        self.module = load_module(path, game)
        self._checked: set[tuple[str, tuple]] = set()
        self.name = f"rllib-{self.path.resolve().name}"

    def act(self, game: Game, state: State) -> int:
        observation = game.observe(state, game.current_player(state))[None]
        return int(self._decide(game, observation, game.legal_mask(state)[None])[0])

    def act_batch(self, positions: Positions) -> np.ndarray:
        return self._decide(positions.game, positions.observations, positions.masks)

    def _decide(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        key = (game.name, tuple(sorted(game.options.items())))
        if key not in self._checked:  # once per game kind, not per move
            check_fits(self.module, rllib_module_folder(self.path)[1], game, self.path)
            self._checked.add(key)
        batch = {OBS: torch.as_tensor(observations, dtype=torch.float32), MASK: torch.as_tensor(masks).float()}
        with torch.no_grad():
            logits = self.module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=1).numpy().astype(np.int64)


def from_spec(argument: str, game: Game | None, seed: int | None) -> RLlibPlayer:
    """``rllib:<path>``: an Algorithm checkpoint, a run folder (its newest checkpoint) or an RLModule folder."""
    if not argument:
        raise InvalidOptionError("player 'rllib' needs a checkpoint: rllib:<path>, e.g. rllib:runs/rllib/crosse-<time>")
    return RLlibPlayer(argument, game=game, seed=seed)
