"""``crossenvs export``: an AlphaZero or MaskablePPO checkpoint as an ONNX file, checked against torch."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from crossenvs.support.command_args import check_int_range
from crossenvs.support.errors import UsageError

from .common import Command

#: the most check positions one export plays through both runtimes
MAX_CHECK_POSITIONS = 100_000


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "checkpoint",
        help="an AlphaZero .pt (az:<file> too), a MaskablePPO .zip with its step_<n>.json, or pretrained:<game> "
        "(the package's agent of that game at its default options)",
    )
    parser.add_argument("--onnx", metavar="FILE", required=True, help="the ONNX file to write (ends in .onnx)")
    parser.add_argument(
        "--check-positions", type=int, default=1000, help="positions of random games the file is checked on"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games checked on")


def check(args: argparse.Namespace) -> None:
    check_int_range(args.check_positions, "--check-positions", 2, MAX_CHECK_POSITIONS)
    if not args.onnx.endswith(".onnx"):
        raise UsageError(f"--onnx {args.onnx}: give a file name ending in .onnx")


def checkpoint_path(text: str) -> Path:
    """The file a checkpoint argument names: a path, ``az:<file>`` or ``pretrained:<game>``."""
    if text.startswith("pretrained:"):
        from .. import agents

        return agents.path(text.removeprefix("pretrained:"))
    return Path(text.removeprefix("az:"))


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """Export, check against torch, and say how closely the file agrees."""
    from crossenvs.integrations.onnx import TOLERANCE, export_onnx
    from crossenvs.support.waits import Wait

    with Wait(f"exporting {args.checkpoint} to ONNX and checking it on {args.check_positions:,} positions"):
        report = export_onnx(
            checkpoint_path(args.checkpoint), args.onnx, positions=args.check_positions, seed=args.seed
        )
    out.write(
        f"{report.path}: {report.kind} policy of {report.game}{report.options or ''}; inputs observation "
        f"(batch, H, W, C) float32 and action_mask (batch, actions) int8, outputs logits and value\n"
        f"checked on {report.positions_checked:,} positions of random games against torch: largest difference "
        f"{report.largest_logit_difference:.1e} (logits), {report.largest_value_difference:.1e} (value), at most "
        f"{TOLERANCE:g} allowed\n"
    )


COMMAND = Command(
    "export",
    "a trained agent as an ONNX file (policy logits and value, the mask an input), checked against torch",
    "crossenvs export runs/az-crossings/checkpoints/final.pt --onnx crossings.onnx",
    arguments,
    run,
    check,
)
