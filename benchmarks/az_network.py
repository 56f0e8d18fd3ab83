"""Ways to run the AlphaZero network faster on a CPU, measured: memory format, torch.compile, width.

    python benchmarks/az_network.py                          # Crisscross 6x6, make train's network
    python benchmarks/az_network.py --game charing_cross --rounds 5
    python benchmarks/az_network.py --variants baseline compiled --device cuda

Self-play spends about 90% of its time in the network's forward passes (``benchmarks/az_speed.py``
splits it), so this times just those: one forward pass of ``--batch`` positions (what a search
step asks for, one leaf per game) and one training step of ``--train-batch`` positions (forward,
backward, AdamW), in the precision training picks (``auto``). Variants are timed interleaved,
round by round, and the medians reported with their ratio to the baseline:

- ``baseline``: the network as training runs it (observations arrive as (N, H, W, C) and are
  permuted, so the stem already reads channels-last memory);
- ``channels_last``: weights converted with ``memory_format=torch.channels_last`` too;
- ``contiguous``: the permuted input copied to plain NCHW first;
- ``compiled``: ``torch.compile`` (inductor) of the baseline; its compile time is reported apart;
- ``narrow``: half the channels (16), the smaller-network option.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import torch
from torch import nn

import crossenvs
from crossenvs.az.network import PRECISIONS, AlphaZeroNet, auto_precision, autocast
from crossenvs.az.speed import game_from_args
from crossenvs.checkpoints import resolve_device

VARIANTS = ("baseline", "channels_last", "contiguous", "compiled", "narrow")


class ContiguousInput(nn.Module):
    """The network with its permuted input copied to plain NCHW before the stem."""

    def __init__(self, net: AlphaZeroNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = observations.permute(0, 3, 1, 2).contiguous()
        x = self.net.trunk(self.net.stem(x))
        return self.net.policy_head(x), self.net.value_head(x).squeeze(-1)


def build(variant: str, game, channels: int, blocks: int, device: str) -> tuple[nn.Module, nn.Module]:
    """(module to call, module whose parameters train) for one variant; torch.compile compiles at the first calls."""
    width = channels // 2 if variant == "narrow" else channels
    net = AlphaZeroNet(game.observation_shape, game.num_actions, width, blocks).to(device)
    if variant == "channels_last":
        net = net.to(memory_format=torch.channels_last)
    if variant == "contiguous":
        return ContiguousInput(net), net
    if variant == "compiled":
        return torch.compile(net), net
    return net, net


def step_functions(
    module: nn.Module, params: nn.Module, game, batch: int, train_batch: int, device: str, precision: str
):
    """A forward pass of ``batch`` positions and a training step of ``train_batch``, as closures."""
    observations = torch.rand((batch, *game.observation_shape), device=device)
    train_observations = torch.rand((train_batch, *game.observation_shape), device=device)
    targets = torch.softmax(torch.randn(train_batch, game.num_actions, device=device), -1)
    results = torch.rand(train_batch, device=device) * 2 - 1
    optimiser = torch.optim.AdamW(params.parameters(), lr=1e-3)

    def forward() -> None:
        module.eval()
        with torch.no_grad(), autocast(device, precision):
            logits, values = module(observations)
        logits.float().cpu(), values.float().cpu()

    def train() -> None:
        module.train()
        with autocast(device, precision):
            logits, values = module(train_observations)
            loss = -(targets * torch.log_softmax(logits.float(), -1)).sum(-1).mean()
            loss = loss + ((values.float() - results) ** 2).mean()
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        if torch.device(device).type == "cuda":
            torch.cuda.synchronize()

    return forward, train


def timed(function: Callable[[], None], repeats: int) -> float:
    """Seconds per call, over ``repeats`` calls."""
    started = time.perf_counter()
    for _ in range(repeats):
        function()
    return (time.perf_counter() - started) / repeats


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="crisscross", choices=crossenvs.list_games())
    parser.add_argument("--option", action="append", default=None, metavar="KEY=VALUE", help="default: size=6")
    parser.add_argument("--batch", type=int, default=256, help="positions a search step evaluates")
    parser.add_argument("--train-batch", type=int, default=512, help="positions a training step learns from")
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--precision", default="auto", choices=("auto", *PRECISIONS))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--repeats", type=int, default=20, help="calls timed per round")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    game = game_from_args(args)
    device = resolve_device(args.device)
    precision = args.precision
    if precision == "auto":
        precision, _ = auto_precision(device)

    functions, compile_seconds = {}, {}
    for variant in args.variants:
        module, params = build(variant, game, args.channels, args.blocks, device)
        forward, train = step_functions(module, params, game, args.batch, args.train_batch, device, precision)
        started = time.perf_counter()
        forward(), train(), forward()  # kernels chosen, compiled, caches warm: not timed
        compile_seconds[variant] = round(time.perf_counter() - started, 1)
        functions[variant] = (forward, train)

    samples: dict[str, dict[str, list[float]]] = {v: {"forward": [], "train": []} for v in args.variants}
    for _ in range(args.rounds):
        for variant in args.variants:
            forward, train = functions[variant]
            samples[variant]["forward"].append(timed(forward, args.repeats))
            samples[variant]["train"].append(timed(train, max(1, args.repeats // 4)))

    base = args.variants[0]
    figures = {"game": game.name, "options": game.options, "device": device, "precision": precision, "variants": {}}
    print(f"{game!r} on {device} ({precision}), forward of {args.batch}, training step of {args.train_batch}:")
    print(f"{'variant':<14} {'forward ms':>10} {'vs ' + base:>12} {'train ms':>9} {'vs ' + base:>12} {'warm-up s':>9}")
    for variant in args.variants:
        forward_ms = statistics.median(samples[variant]["forward"]) * 1e3
        train_ms = statistics.median(samples[variant]["train"]) * 1e3
        base_forward = statistics.median(samples[base]["forward"]) * 1e3
        base_train = statistics.median(samples[base]["train"]) * 1e3
        figures["variants"][variant] = {
            "forward_ms": round(forward_ms, 2),
            "train_ms": round(train_ms, 2),
            "forward_speedup": round(base_forward / forward_ms, 2),
            "train_speedup": round(base_train / train_ms, 2),
            "warm_up_seconds": compile_seconds[variant],
        }
        print(
            f"{variant:<14} {forward_ms:>10.2f} {base_forward / forward_ms:>11.2f}x {train_ms:>9.2f} "
            f"{base_train / train_ms:>11.2f}x {compile_seconds[variant]:>9.1f}"
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)
    return figures


if __name__ == "__main__":
    main()
