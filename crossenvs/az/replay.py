"""AlphaZero's replay buffer: the newest positions of finished self-play games, kept in float16."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from crossenvs.core.errors import CheckpointError


class Replay:
    """A ring buffer of (observation, improved policy, result for the mover)."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int) -> None:
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float16)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float16)
        self.results = np.zeros(capacity, dtype=np.float32)
        self.size = self.next = 0

    def add(self, observations: np.ndarray, policies: np.ndarray, results: np.ndarray) -> None:
        capacity = len(self.results)
        observations, policies, results = observations[-capacity:], policies[-capacity:], results[-capacity:]
        rows = (self.next + np.arange(len(results))) % capacity
        self.observations[rows], self.policies[rows], self.results[rows] = observations, policies, results
        self.next = (self.next + len(results)) % capacity
        self.size = min(capacity, self.size + len(results))

    def sample(self, rng: np.random.Generator, count: int, symmetries) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` positions drawn uniformly, each seen through one of the game's symmetries at random."""
        rows = rng.integers(self.size, size=count)
        observations = self.observations[rows].astype(np.float32)
        policies = self.policies[rows].astype(np.float32)
        cells = np.stack([cell for cell, _ in symmetries])
        actions = np.stack([action for _, action in symmetries])
        chosen = rng.integers(len(symmetries), size=count)
        flat = observations.reshape(count, cells.shape[1], -1)
        observations = np.take_along_axis(flat, cells[chosen][:, :, None], axis=1).reshape(observations.shape)
        policies = np.take_along_axis(policies, actions[chosen], axis=1)
        return observations, policies, self.results[rows]

    def state(self) -> dict[str, torch.Tensor]:
        """The positions held, oldest first, as tensors (saved with latest.pt, read back with weights_only=True)."""
        order = np.roll(np.arange(self.size), -self.next) if self.size == len(self.results) else np.arange(self.size)
        arrays = {"observations": self.observations, "policies": self.policies, "results": self.results}
        return {name: torch.from_numpy(np.ascontiguousarray(array[order])) for name, array in arrays.items()}

    def restore(self, state: dict[str, Any], path: Path) -> None:
        """The positions of :meth:`state` added back (the newest ``capacity`` of them, should the config have shrunk)."""
        try:
            observations, policies, results = (state[name].numpy() for name in ("observations", "policies", "results"))
            self.add(observations, policies, results)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise CheckpointError(
                f"checkpoint {path} holds a replay buffer that does not fit this run: {exc!r}"
            ) from None
