"""The masked CNN ``RLModule`` for PPO over one game's board (illegal actions get probability 0)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from crossenvs.support.extras import needs_extra

with needs_extra("rllib", "the RLlib integration"):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from torch import nn

from ...core.game import Game
from .env import MASK, OBS, observation_space

#: the model of ``main`` unless a config says otherwise
DEFAULT_MODEL = {"channels": 32, "layers": 2, "head_channels": 4, "value_hidden": 64}


class MaskedBoardModule(TorchRLModule, ValueFunctionAPI):
    """A small CNN for PPO over one game's board, illegal actions masked out of every forward pass.

    ``model_config``: ``channels`` per 3x3 convolution, ``layers`` of them (padding keeps the
    board's height and width, so any board size works), ``head_channels`` (a 1x1 convolution
    before the flattened policy layer keeps it small for Crossings' 3,585 actions),
    ``value_hidden``; ``uniform: True`` makes it the random opponent (zero logits, then masked).
    """

    def setup(self) -> None:
        config = {**DEFAULT_MODEL, **(self.model_config or {})}
        height, width, planes = self.observation_space[OBS].shape
        actions, channels = int(self.action_space.n), int(config["channels"])
        layers: list[nn.Module] = []
        for index in range(int(config["layers"])):
            layers += [nn.Conv2d(planes if index == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        heads = int(config["head_channels"])
        self.policy = nn.Sequential(
            nn.Conv2d(channels, heads, 1), nn.ReLU(), nn.Flatten(), nn.Linear(heads * height * width, actions)
        )
        self.value = nn.Sequential(
            nn.Conv2d(channels, 2, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * height * width, int(config["value_hidden"])),
            nn.ReLU(),
            nn.Linear(int(config["value_hidden"]), 1),
        )
        self.uniform = bool(config.get("uniform", False))

    def _embed(self, batch: dict[str, Any]) -> torch.Tensor:
        return self.trunk(batch[Columns.OBS][OBS].permute(0, 3, 1, 2))

    def masked_logits(self, embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Policy logits with ``FLOAT_MIN`` on every action whose mask is 0: probability exactly 0."""
        logits = torch.zeros(mask.shape, device=mask.device) if self.uniform else self.policy(embeddings)
        return logits.masked_fill(mask <= 0, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(embeddings, batch[Columns.OBS][MASK])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {
            Columns.ACTION_DIST_INPUTS: self.masked_logits(embeddings, batch[Columns.OBS][MASK]),
            Columns.EMBEDDINGS: embeddings,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.value(embeddings).squeeze(-1)


def module_spec(game: Game, model_config: dict[str, Any] | None = None) -> RLModuleSpec:
    """The spec of a :class:`MaskedBoardModule` for ``game`` (spaces given, never guessed)."""
    return RLModuleSpec(
        module_class=MaskedBoardModule,
        observation_space=observation_space(game),
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config={**DEFAULT_MODEL, **(model_config or {})},
    )
