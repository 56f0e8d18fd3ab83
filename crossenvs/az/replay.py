"""AlphaZero's replay buffer: the newest positions of finished self-play games, kept in float16 where training runs.

The buffer is torch tensors on the learner's device: host memory for the CPU path, GPU memory for
the device path (:class:`crossenvs.az.selfplay.SelfPlay` on ``device="cuda"``), where positions never leave the card until a
checkpoint is written. Which rows and symmetries a batch uses is drawn on the host from the run's
NumPy generator (a few integers a batch), so both paths draw the same way and a resumed run
continues the same streams.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch

from crossenvs.support.errors import CheckpointError


class Replay:
    """A ring buffer of (observation, improved policy, result for the mover) on ``device``."""

    def __init__(
        self, capacity: int, observation_shape: tuple[int, ...], num_actions: int, device: str | torch.device = "cpu"
    ) -> None:
        self.device = torch.device(device)
        if self.device.type == "cuda":  # on the GPU with the network: counted before allocating, as everything there
            from crossenvs.kernels.cuda import check_device_memory

            row = 2 * (int(np.prod(observation_shape)) + num_actions) + 4
            check_device_memory(capacity * row, f"a replay buffer of {capacity:,} positions", "lower replay_size")
        self.observations = torch.zeros((capacity, *observation_shape), dtype=torch.float16, device=self.device)
        self.policies = torch.zeros((capacity, num_actions), dtype=torch.float16, device=self.device)
        self.results = torch.zeros(capacity, dtype=torch.float32, device=self.device)
        self.size = self.next = 0
        self._symmetry_tables: tuple[Any, torch.Tensor, torch.Tensor] | None = None

    def add(self, observations: Any, policies: Any, results: Any) -> None:
        """Positions as arrays or tensors (on any device); the newest ``capacity`` are kept."""
        capacity = len(self.results)
        observations, policies, results = observations[-capacity:], policies[-capacity:], results[-capacity:]
        count = len(results)
        rows = torch.as_tensor((self.next + np.arange(count)) % capacity, device=self.device)
        for store, values in ((self.observations, observations), (self.policies, policies), (self.results, results)):
            store[rows] = torch.as_tensor(values, device=self.device).to(store.dtype)
        self.next = (self.next + count) % capacity
        self.size = min(capacity, self.size + count)

    def sample(self, rng: np.random.Generator, count: int, symmetries) -> tuple[torch.Tensor, ...]:
        """``count`` positions drawn uniformly, each seen through one of the game's symmetries at random."""
        rows = torch.as_tensor(rng.integers(self.size, size=count), device=self.device)
        observations = self.observations[rows].float()
        policies = self.policies[rows].float()
        cells, actions = self._symmetries(symmetries)
        chosen = torch.as_tensor(rng.integers(len(symmetries), size=count), device=self.device)
        flat = observations.reshape(count, cells.shape[1], -1)
        observations = torch.take_along_dim(flat, cells[chosen][:, :, None], dim=1).reshape(observations.shape)
        policies = torch.take_along_dim(policies, actions[chosen], dim=1)
        return observations, policies, self.results[rows]

    def _symmetries(self, symmetries) -> tuple[torch.Tensor, torch.Tensor]:
        """The game's symmetries as index tensors on the buffer's device, made once."""
        if self._symmetry_tables is None or self._symmetry_tables[0] is not symmetries:
            cells = torch.as_tensor(np.stack([cell for cell, _ in symmetries]), device=self.device)
            actions = torch.as_tensor(np.stack([action for _, action in symmetries]), device=self.device)
            self._symmetry_tables = (symmetries, cells, actions)
        return self._symmetry_tables[1], self._symmetry_tables[2]

    def state(self) -> dict[str, torch.Tensor]:
        """The positions held, oldest first, as host tensors (saved with latest.pt, read back with weights_only=True)."""
        if self.size == len(self.results):
            order = torch.as_tensor(np.roll(np.arange(self.size), -self.next), device=self.device)
        else:
            order = torch.arange(self.size, device=self.device)
        stores = {"observations": self.observations, "policies": self.policies, "results": self.results}
        return {name: store[order].cpu().contiguous() for name, store in stores.items()}

    def restore(self, state: dict[str, Any], path: Path) -> None:
        """The positions of :meth:`state` added back (the newest ``capacity`` of them, should the config have shrunk)."""
        try:
            observations, policies, results = (state[name] for name in ("observations", "policies", "results"))
            if not all(isinstance(part, torch.Tensor) for part in (observations, policies, results)):
                raise TypeError("the replay buffer's parts must be tensors")
            self.add(observations, policies, results)
        except (KeyError, TypeError, AttributeError, ValueError, RuntimeError) as exc:
            raise CheckpointError(
                f"checkpoint {path} holds a replay buffer that does not fit this run: {exc!r}"
            ) from None
