"""The command line every trainer shares: its options, their checks, and errors as one line and exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from crossenvs.command_args import check_int_range, check_minutes
from crossenvs.core.errors import CrossenvsError, UsageError


def trainer_parser(description: str, example_config: str, default_run_dir: str, script: str) -> argparse.ArgumentParser:
    """The options every trainer takes: a config or a run to resume, the run folder, device, progress bar.

    ``script`` (the trainer's ``__file__``) rides along as ``args.script``: a new run's default folder is
    ``runs/`` beside the trainer's folder, and a resume error offers the command that names the script.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.set_defaults(script=script)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help=f"a YAML config, e.g. {example_config}")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its newest checkpoint")
    parser.add_argument(
        "--from-checkpoint",
        metavar="PATH",
        help="with --resume: continue from this checkpoint of the run instead (newer ones are moved aside)",
    )
    parser.add_argument("--run-dir", help=f"where a new run writes (default {default_run_dir})")
    parser.add_argument("--max-minutes", type=float, help="override the config's wall-clock cap (minutes, above 0)")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="auto: CUDA when present")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs and CI)")
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="with --resume: train no further, only run the final evaluation of the run's newest checkpoint again "
        "(rewrites summary.json; for a run killed during its final match)",
    )
    return parser


def check_trainer_args(args: argparse.Namespace) -> None:
    """Flags that are out of range or do not go together, refused before any config is read."""
    if args.from_checkpoint and not args.resume:
        raise UsageError("--from-checkpoint needs --resume RUN_DIR (it names a checkpoint of that run)")
    if getattr(args, "evaluate_only", False) and not args.resume:
        raise UsageError("--evaluate-only needs --resume RUN_DIR (it evaluates that run's newest checkpoint)")
    if args.run_dir and args.resume:
        raise UsageError(f"--run-dir is for a new run (--config); --resume {args.resume} already names the folder")
    if args.max_minutes is not None:
        check_minutes(args.max_minutes, "--max-minutes")
    if getattr(args, "actors", 0):
        check_int_range(args.actors, "--actors", 1)
    if getattr(args, "address", None) and not getattr(args, "actors", 0):
        raise UsageError(f"--address {args.address} is for Ray self-play: add --actors N")
    if getattr(args, "total_steps", None) is not None:
        check_int_range(args.total_steps, "--total-steps", 1)


def run_cli(
    train: Callable[[argparse.Namespace], Any],
    args: argparse.Namespace,
    check: Callable[[argparse.Namespace], None] | None = check_trainer_args,
) -> int:
    """Run a trainer: ``check(args)`` (by default the flags of :func:`trainer_parser`; None for a trainer whose
    ``train`` checks its own), then ``train(args)``; a :class:`CrossenvsError` becomes one line on stderr and
    exit code 2."""
    try:
        if check is not None:
            check(args)
        train(args)
    except CrossenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
