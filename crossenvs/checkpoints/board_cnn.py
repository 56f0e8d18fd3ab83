"""BoardCNN: the MaskablePPO policy's features extractor (``crossenvs train ppo``'s ``cnn`` policy).

It sits beside the MaskablePPO reader (:mod:`crossenvs.checkpoints.sb3`), which rebuilds a policy with
it from a checkpoint's JSON. It lived in ``crossenvs.az.board_cnn`` before, and ``crossenvs.checkpoints``
before that; stable-baselines3 pickles the class by those names into the ``.zip`` files of older runs, and
the unpickling reader finds it here for them (``sb3.MOVED_CLASSES``). Importing this module imports torch
and stable-baselines3; a missing one is an error naming the extra that installs it.
"""

from __future__ import annotations

from typing import Any

from ..players import import_extra

_torch_layers = import_extra("stable_baselines3.common.torch_layers", "MaskablePPO checkpoints", "train")
_nn = import_extra("torch", "MaskablePPO checkpoints", "agents").nn


class BoardCNN(_torch_layers.BaseFeaturesExtractor):
    """Two 3x3 convolutions over the board planes, then a dense layer (boards are small)."""

    def __init__(self, observation_space: Any, features_dim: int = 128, channels: int = 64) -> None:
        height, width, planes = observation_space.shape
        super().__init__(observation_space, features_dim)
        self.net = _nn.Sequential(
            _nn.Conv2d(planes, channels, 3, padding=1),
            _nn.ReLU(),
            _nn.Conv2d(channels, channels, 3, padding=1),
            _nn.ReLU(),
            _nn.Flatten(),
            _nn.Linear(channels * height * width, features_dim),
            _nn.ReLU(),
        )

    def forward(self, observations: Any) -> Any:
        return self.net(observations.permute(0, 3, 1, 2))
