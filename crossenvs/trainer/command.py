"""The command line every trainer shares (``crossenvs train ...``): its options, their checks, the config a new run
reads, and errors as one line and exit code 2."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from crossenvs.core.options import key_values, parse_options
from crossenvs.support.command_args import check_int_range, check_minutes
from crossenvs.support.errors import UsageError
from crossenvs.trainer.shipped import config_for_game, config_path, shipped_configs


def add_trainer_arguments(parser: argparse.ArgumentParser, trainer: str, default_run_dir: str) -> None:
    """The flags every config-driven trainer takes (``crossenvs train alphazero`` and ``crossenvs train ppo``): where
    the config comes from (a game's shipped one, a file or a shipped name, or a run to resume), changes to it, the
    run folder, device and progress bar."""
    shipped = ", ".join(shipped_configs(trainer))
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--game", metavar="GAME", help="a new run from the game's shipped config (see --config)")
    source.add_argument(
        "--config",
        metavar="FILE_OR_NAME",
        help=f"a new run from a YAML config of your own, or a shipped one by name: {shipped}",
    )
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its newest checkpoint")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, over the config's options (repeatable); with --game, a shipped config at exactly "
        "these options is chosen when there is one (crisscross size=6: crisscross6)",
    )
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a config key's value for this run, e.g. eval_games=10 (repeatable; the run's config.yaml records it)",
    )
    parser.add_argument(
        "--from-checkpoint",
        metavar="PATH",
        help="with --resume: continue from this checkpoint of the run instead (newer ones are moved aside)",
    )
    parser.add_argument("--run-dir", help=f"where a new run writes (default {default_run_dir} in this folder)")
    parser.add_argument("--max-minutes", type=float, help="override the config's wall-clock cap (minutes, above 0)")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="auto: CUDA when present")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs and CI)")
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="with --resume: train no further, only run the final evaluation of the run's newest checkpoint again "
        "(rewrites summary.json; for a run killed during its final match)",
    )


def parse_settings(pairs: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as config keys, each value read as YAML reads it (``10``, ``0.5``, ``{size: 6}``)."""
    import yaml  # the train extra, checked before any flag is read

    settings: dict[str, Any] = {}
    for key, value in key_values(pairs, "--set", "eval_games=10"):
        try:
            settings[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            settings[key] = value
    return settings


def new_run_config(args: argparse.Namespace, trainer: str, overrides: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The config file a new run reads (``--game``'s shipped one or ``--config``'s) and the keys the command line
    changes in it: ``--set``, then ``--option`` over the file's options, then ``overrides`` (None: unchanged)."""
    from crossenvs.core.registry import make_game
    from crossenvs.trainer.config import read_yaml_config

    options = parse_options(args.option)
    if args.game:

        def same_options(a: dict[str, Any], b: dict[str, Any]) -> bool:
            return make_game(args.game, **a).options == make_game(args.game, **b).options

        make_game(args.game, **options)  # a bad option is named before any config is chosen
        path = config_for_game(trainer, args.game, options, same_options)
    else:
        path = config_path(trainer, args.config)
    changes = parse_settings(args.settings)
    if options:
        base = changes.get("options", read_yaml_config(path).get("options"))
        changes["options"] = {**(base if isinstance(base, dict) else {}), **options}
    changes.update({key: value for key, value in overrides.items() if value is not None})
    return path, changes


def check_trainer_args(args: argparse.Namespace) -> None:
    """Flags that are out of range or do not go together, refused before any config is read."""
    if args.from_checkpoint and not args.resume:
        raise UsageError("--from-checkpoint needs --resume RUN_DIR (it names a checkpoint of that run)")
    if getattr(args, "evaluate_only", False) and not args.resume:
        raise UsageError("--evaluate-only needs --resume RUN_DIR (it evaluates that run's newest checkpoint)")
    if args.resume and (args.option or args.settings):
        flag = "--option" if args.option else "--set"
        raise UsageError(
            f"{flag} is for a new run (--game or --config); --resume {args.resume} goes on with the run's config.yaml"
        )
    if args.run_dir and args.resume:
        raise UsageError(
            f"--run-dir is for a new run (--game or --config); --resume {args.resume} already names the folder"
        )
    if args.max_minutes is not None:
        check_minutes(args.max_minutes, "--max-minutes")
    if getattr(args, "actors", 0):
        check_int_range(args.actors, "--actors", 1)
    if getattr(args, "address", None) and not getattr(args, "actors", 0):
        raise UsageError(f"--address {args.address} is for Ray self-play: add --actors N")
    if getattr(args, "total_steps", None) is not None:
        check_int_range(args.total_steps, "--total-steps", 1)
