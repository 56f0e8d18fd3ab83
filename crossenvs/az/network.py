"""The AlphaZero network: a small residual CNN over a game's (H, W, C) planes, sized per game.

Two heads: policy logits over the game's fixed action encoding, and a value in [-1, 1] for the
player to move (observations are egocentric, so one network plays both seats). Checkpoints are
saved and read by :mod:`crossenvs.checkpoints` (``save_alphazero``, ``load_alphazero``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch
    from torch import nn

from crossenvs.support.errors import InvalidOptionError

from .torch_threads import torch_thread_choice


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.norm1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.norm2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(x + self.norm2(self.conv2(y)))


class AlphaZeroNet(nn.Module):
    """Stem convolution, ``blocks`` residual blocks of ``channels``, policy and value heads."""

    def __init__(self, observation_shape: tuple[int, int, int], num_actions: int, channels: int = 32, blocks: int = 3):
        super().__init__()
        height, width, planes = observation_shape
        self.sizes = {
            "observation_shape": list(observation_shape),
            "num_actions": int(num_actions),
            "channels": int(channels),
            "blocks": int(blocks),
        }
        self.stem = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.trunk = nn.Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.policy_head = nn.Sequential(
            nn.Conv2d(channels, 4, 1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * height * width, num_actions)
        )
        self.value_head = nn.Sequential(
            nn.Conv2d(channels, 2, 1), nn.ReLU(), nn.Flatten(), nn.Linear(2 * height * width, 64), nn.ReLU(),
            nn.Linear(64, 1), nn.Tanh(),
        )  # fmt: skip

    @classmethod
    def from_sizes(cls, sizes: dict[str, Any]) -> AlphaZeroNet:
        """The network a checkpoint's ``sizes`` (as :attr:`sizes` records them) describe."""
        return cls(tuple(sizes["observation_shape"]), sizes["num_actions"], sizes["channels"], sizes["blocks"])

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.trunk(self.stem(observations.permute(0, 3, 1, 2)))
        return self.policy_head(x), self.value_head(x).squeeze(-1)


#: number formats the network can compute in (weights and the optimiser stay float32 either way)
PRECISIONS = ("float32", "bfloat16")
#: what a config may ask for: one of PRECISIONS, or ``auto`` (:func:`auto_precision`)
PRECISION_CHOICES = ("auto", *PRECISIONS)


def autocast(device: str, precision: str):
    """The context the network's forward passes run in: plain float32, or bfloat16 autocast.

    bfloat16 halves the work of convolutions and matrix products where the hardware has it
    (CUDA GPUs since Ampere, x86 CPUs with AVX-512 BF16 or AMX); elsewhere it may be slower,
    which is why ``auto`` asks the hardware (:func:`auto_precision`). Outputs are read back as float32.
    """
    if precision not in PRECISIONS:
        raise InvalidOptionError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    device_type = torch.device(device).type
    return torch.autocast(device_type, dtype=torch.bfloat16, enabled=precision == "bfloat16")


def native_bfloat16() -> str | None:
    """What gives this CPU bfloat16 arithmetic, in words (``this CPU has avx512_bf16``), or None where torch
    would emulate it: x86's AVX-512 BF16 or AMX-BF16. Read from the hardware, never timed."""
    features = cpu_features()
    found = [name for name in ("amx_bf16", "avx512_bf16") if name in features]
    return f"this CPU has {found[0]}" if found else None


def cpu_features() -> set[str]:
    """The CPU's feature names as torch's cpuinfo reports them (``avx512_bf16``...), or as Linux lists them."""
    capabilities = getattr(torch.cpu, "get_capabilities", None)  # torch 2.6 on
    if capabilities is not None:
        return {name for name, value in capabilities().items() if value is True}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}


def auto_precision(device: str) -> tuple[str, str]:
    """``precision: auto``: the number format for ``device``, with the reason, which a run prints.

    On a CPU, bfloat16 where it is native (:func:`native_bfloat16`): much faster there for these networks,
    several times slower where emulated, so float32 elsewhere. On a GPU, float32: these small networks are
    too small to fill a card, so bfloat16 does not make them faster and float32's exactness costs nothing
    (measured: docs/benchmarks.md, sections 'AlphaZero self-play' and 'On a GPU').

    Decided from the device, never timed: a start-up race between the two moved with the machine's noise,
    so one config and seed could train in float32 in one run and in bfloat16 in the next, at very different
    speeds on the CPU. A config that names ``float32`` or ``bfloat16`` gets it everywhere.
    """
    kind = torch.device(device).type
    if kind == "cuda":
        return "float32", "auto: float32 on a GPU, where these networks ran no faster in bfloat16"
    why = native_bfloat16() if kind == "cpu" else None
    if why is not None:
        return "bfloat16", f"auto: bfloat16, native here ({why})"
    return "float32", f"auto: float32, as bfloat16 would be emulated on this {kind}"


def evaluator(net: AlphaZeroNet, device: str = "cpu", precision: str = "float32"):
    """A numpy-in, numpy-out evaluation function for :class:`~crossenvs.az.search.gumbel.GumbelSearch`.

    On the CPU, each call runs on torch's threads or on one, whichever is faster now
    (``crossenvs.az.torch_threads.torch_thread_choice``: a busy neighbour otherwise stalls it).
    ``precision`` is one of :data:`PRECISIONS` (see :func:`autocast`).
    """
    autocast(device, precision)  # checks the precision now, not at the first call

    @torch.no_grad()
    def forward(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with autocast(device, precision):
            logits, values = net(torch.from_numpy(observations).to(device))
        return logits.float().cpu().numpy(), values.float().cpu().numpy()

    if device != "cpu":
        return forward
    choice = torch_thread_choice(forward)
    return lambda observations: choice(len(observations), observations)


def device_evaluator(net: AlphaZeroNet, precision: str = "float32"):
    """A tensor-in, tensor-out evaluation function for :class:`~crossenvs.az.search.gumbel.GumbelSearch` on a GPU.

    The leaves' observation tensor is read where it lies (the GPU, or the CPU under the CUDA simulator) and the
    logits and values stay there: no host copy inside a search. ``precision`` as in :func:`evaluator`.
    """
    device = str(next(net.parameters()).device)
    autocast(device, precision)

    @torch.no_grad()
    def forward(observations: Any) -> tuple[torch.Tensor, torch.Tensor]:
        observations = torch.as_tensor(observations, device=device)
        with autocast(device, precision):
            logits, values = net(observations)
        return logits.float(), values.float()

    return forward
