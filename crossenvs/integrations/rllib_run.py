"""A league self-play run on Ray RLlib, as ``crossenvs train rllib`` (and ``training/rllib_selfplay.py``) runs it: flags, checks, resume, loop, end.

The pieces it drives (env, masked module, league, checkpoints) are :mod:`crossenvs.integrations.rllib`.
This module sits beside that package rather than in it because importing the package imports Ray,
and a run checks every flag (that Ray is installed too) before Ray is touched: a mistake costs a
second, not a cluster's minutes. The package is imported once the checks have passed.

A run's folder holds ``run.json`` (the settings), ``checkpoints/iter_<n>/`` (the newest ``--keep``)
and ``summary.json``; ``--resume RUN`` goes on from the newest checkpoint with the settings in
``run.json`` (only ``--iterations`` may change).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from crossenvs.support.checks import check_seed
from crossenvs.support.command_args import check_folder_creatable, check_int_range
from crossenvs.support.errors import CheckpointError, OutputPathError, UsageError
from crossenvs.support.extras import check_installed

from ..checkpoints.files import CHECKPOINTS, RLLIB_GLOB, RLLIB_METADATA, rllib_iteration_name
from ..checkpoints.rllib import read_rllib_metadata
from ..core.game import Game
from ..core.options import parse_options
from ..core.registry import list_games, make_game
from ..players import make_player
from ..trainer.folders import write_atomically

#: run.json keys that are not settings of the run (``iterations`` may change on resuming)
NOT_SETTINGS = ("iterations", "out")
#: the integer flags and the least each takes, checked in this order
INT_FLAGS = (
    ("iterations", 1),
    ("envs_per_runner", 1),
    ("batch", 1),
    ("minibatch", 1),
    ("epochs", 1),
    ("env_runners", 0),
    ("learners", 0),
    ("eval_games", 0),
    ("snapshot_every", 1),
    ("league_recent", 1),
    ("checkpoint_every", 1),
    ("num_cpus", 1),
    ("keep", 1),
)


def build_parser() -> argparse.ArgumentParser:
    """The run's flags in a parser of their own; their defaults also tell :func:`resume_settings` which flags a
    resume gave."""
    parser = argparse.ArgumentParser(description="League self-play with Ray RLlib PPO on a crossenvs game.")
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run's flags (``crossenvs train rllib``), added to ``parser``."""
    start = parser.add_mutually_exclusive_group(required=True)
    start.add_argument("--game", metavar="GAME", help=f"one of {', '.join(list_games())}")
    start.add_argument(
        "--resume",
        metavar="RUN",
        help="continue this run folder from its newest checkpoint, with its run.json settings",
    )
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    parser.add_argument(
        "--iterations", type=int, default=None, help="PPO iterations in all (default 20; with --resume, the run's)"
    )
    parser.add_argument("--out", help="the run's folder (default runs/rllib/<game>-<time>)")
    parser.add_argument(
        "--address", help="a Ray cluster to join ('auto' on a cluster node, or host:port); default $RAY_ADDRESS"
    )
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (without --address)")
    parser.add_argument("--env-runners", type=int, default=0, help="sampling actors (0: sample in this process)")
    parser.add_argument("--envs-per-runner", type=int, default=1, help="games each env runner steps together")
    parser.add_argument("--learners", type=int, default=0, help="learner actors (0: learn in this process)")
    parser.add_argument("--gpus-per-learner", type=float, default=0.0, help="GPUs for each learner (default 0)")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per learner per iteration (both seats)")
    parser.add_argument("--minibatch", type=int, default=250, help="PPO minibatch size")
    parser.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    parser.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    parser.add_argument("--snapshot-every", type=int, default=5, help="iterations between league snapshots")
    parser.add_argument("--league-recent", type=int, default=8, help="newest snapshots drawn as opponents")
    parser.add_argument("--checkpoint-every", type=int, default=5, help="iterations between checkpoints (and the last)")
    parser.add_argument("--keep", type=int, default=5, help="newest checkpoints kept (older ones are deleted)")
    parser.add_argument("--eval-games", type=int, default=50, help="final games against --eval-opponent (0: none)")
    parser.add_argument("--eval-opponent", default="random", help="player spec of the final evaluation")
    parser.add_argument("--seed", type=int, default=0)


def flag_of(key: str) -> str:
    """The command-line flag of a settings key: ``env_runners`` is ``--env-runners``."""
    return "--" + key.replace("_", "-")


@dataclasses.dataclass
class Start:
    """Where a resumed run goes on from: its newest checkpoint and what that checkpoint recorded."""

    checkpoint: Path
    iteration: int
    env_steps: int
    league: list[str]


def check_args(args: argparse.Namespace) -> tuple[Game, Start | None]:
    """Everything a run needs, checked before Ray starts: a mistake costs a second, not a cluster's minutes."""
    start = resume_settings(args) if args.resume else None
    if args.iterations is None:
        args.iterations = 20
    game = make_game(args.game, **parse_options(args.option))
    check_installed("crossenvs train rllib", {"ray": "rllib"})
    for key, low in INT_FLAGS:
        check_int_range(getattr(args, key), flag_of(key), low)
    if args.minibatch > args.batch:
        raise UsageError(f"--minibatch {args.minibatch} is larger than --batch {args.batch}; make it at most that")
    if not (args.lr > 0 and args.gpus_per_learner >= 0):
        raise UsageError(
            f"--lr must be above 0 and --gpus-per-learner 0 or more, got {args.lr}, {args.gpus_per_learner}"
        )
    check_seed(args.seed, "--seed")
    make_player(args.eval_opponent, game=game)  # an unknown spec stops the run now, not after training
    if start is not None:
        if args.iterations <= start.iteration:
            raise UsageError(
                f"{start.checkpoint} is iteration {start.iteration} of --iterations {args.iterations}: the run is "
                f"done; give --iterations above {start.iteration} to train it further"
            )
        return game, start
    args.out = Path(args.out or f"runs/rllib/{game.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    check_folder_creatable(args.out, "--out")
    if (args.out / "run.json").exists() or any((args.out / CHECKPOINTS).glob("*")):
        raise UsageError(
            f"--out {args.out} already holds a run; choose a new folder (or leave --out out), or continue it with "
            f"--resume {args.out}"
        )
    return game, None


def resume_settings(args: argparse.Namespace) -> Start | None:
    """``args`` filled from the run's run.json (a flag given with another value is refused), and the newest
    checkpoint to go on from (None: the run was stopped before its first, so it starts again)."""
    run = Path(args.resume)
    try:
        saved = json.loads((run / "run.json").read_text())
        saved["option"] = [f"{key}={value}" for key, value in saved.pop("options", {}).items()]
    except FileNotFoundError:
        raise UsageError(f"--resume {run}: not a run folder of this trainer (it has no run.json)") from None
    except (OSError, ValueError, AttributeError) as exc:
        raise CheckpointError(f"--resume {run}: run.json is unreadable ({exc})") from None
    defaults = vars(build_parser().parse_args(["--game", "crosse"]))
    for key, value in saved.items():
        if key in NOT_SETTINGS or key not in defaults:
            continue
        given = getattr(args, key)
        if given is not None and given != defaults[key] and given != value:
            raise UsageError(
                f"--resume {run}: {flag_of(key)} is {value!r} in this run; a resumed run keeps its settings"
            )
        setattr(args, key, value)
    args.iterations = args.iterations if args.iterations is not None else saved.get("iterations")
    if args.out is not None and Path(args.out).resolve() != run.resolve():
        raise UsageError(f"--resume {run} writes into that run's folder; leave --out out")
    args.out = run
    return newest_start(run / CHECKPOINTS, run)


def newest_start(folder: Path, run: Path) -> Start | None:
    """The newest checkpoint in ``folder`` and what it recorded, once the leftovers of a write cut short are gone;
    None (said on the terminal) when the run has none yet."""
    for leftover in folder.glob(".*.tmp"):
        shutil.rmtree(leftover, ignore_errors=True)
    checkpoints = sorted(folder.glob(RLLIB_GLOB))
    if not checkpoints:
        print(f"resuming {run}: no checkpoint yet, so the run starts again from iteration 1")
        return None
    metadata = read_rllib_metadata(checkpoints[-1] / RLLIB_METADATA)
    try:
        return Start(checkpoints[-1], int(metadata["iteration"]), int(metadata["env_steps"]), list(metadata["league"]))
    except (KeyError, TypeError, ValueError):
        raise CheckpointError(
            f"{checkpoints[-1]}: its {RLLIB_METADATA} lacks the iteration, env_steps and league this trainer "
            "records, so the run cannot be resumed from it"
        ) from None


def start_ray(args: argparse.Namespace) -> str:
    """Join the cluster at ``--address`` / ``$RAY_ADDRESS``, or start a local Ray; says which."""
    import ray

    address = args.address or os.environ.get("RAY_ADDRESS")
    quiet = {"logging_level": logging.ERROR}
    if ray.is_initialized():  # called from Python (tests, a notebook) with Ray already up: use it
        return "the running Ray"
    if address:
        try:
            ray.init(address=address, **quiet)
        except ConnectionError as exc:
            raise UsageError(
                f"cannot reach a Ray cluster at {address} ({exc}); start one with 'ray start --head' and give the "
                "address it prints (--address or RAY_ADDRESS), or leave both out to run on a local Ray"
            ) from None
        return f"Ray cluster at {address} ({ray.cluster_resources().get('CPU', 0):.0f} CPUs)"
    ray.init(num_cpus=max(args.num_cpus, args.env_runners + args.learners), include_dashboard=False, **quiet)
    return f"local Ray ({max(args.num_cpus, args.env_runners + args.learners)} CPUs)"


@contextlib.contextmanager
def ray_stopped_after() -> Iterator[None]:
    """On the way out, whatever happened, stop the Ray the run started; a caller's Ray (a test, a notebook) stays."""
    ray_was_up = "ray" in sys.modules and sys.modules["ray"].is_initialized()
    try:
        yield
    finally:
        if "ray" in sys.modules and not ray_was_up:
            sys.modules["ray"].shutdown()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """A run, new or resumed, as the command line starts it: :func:`train`, then the Ray it started stopped."""
    with ray_stopped_after():
        return train(args)


def train(args: argparse.Namespace) -> dict[str, Any]:
    """The league run: train, snapshot, checkpoint; then evaluate the last checkpoint in the arena."""
    from crossenvs.support.waits import Wait

    game, start = check_args(args)
    with Wait("importing RLlib and starting Ray"):  # seconds before anything else can be said
        from . import rllib  # Ray: only once the flags are good

        where = start_ray(args)
    write_settings(args, game)
    config = rllib.league_config(game, **{flag: getattr(args, flag) for flag in LEAGUE_FLAGS})
    print(f"{game!r}: league self-play on {where}, {args.env_runners} env runner(s), "
          f"{args.learners} learner(s); run folder {args.out}", flush=True)  # fmt: skip
    with Wait(f"building the RLlib algorithm ({args.env_runners} env runner(s) starting)"):
        algo = config.build_algo()
    try:
        checkpoint, steps, speed, illegal = iterate(algo, args, game, start)
    finally:
        algo.stop()
    return finish(args, game, checkpoint, steps, speed, illegal)


#: the flags that are :func:`crossenvs.integrations.rllib.league_config`'s settings, under its own names
LEAGUE_FLAGS = "env_runners envs_per_runner learners gpus_per_learner batch minibatch epochs lr seed".split()


def write_settings(args: argparse.Namespace, game: Game) -> None:
    """The run's folder with its ``checkpoints/`` and ``run.json`` (the flags, the game's options)."""
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / CHECKPOINTS).mkdir(exist_ok=True)
        settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "resume"}
        settings.pop("option")
        write_atomically(args.out / "run.json", json.dumps({**settings, "options": game.options}, indent=2))
    except OSError as exc:
        raise OutputPathError(f"--out {args.out}: cannot write the run folder: {exc}") from None


def iterate(algo: Any, args: argparse.Namespace, game: Game, start: Start | None) -> tuple[Path, int, float, int]:
    """The iterations from ``start`` (or the first) to ``--iterations``, a line each; the last checkpoint, the env
    steps in all, env steps per second of this session and the illegal actions of the last iteration."""
    from . import rllib

    steps, seconds, illegal, checkpoint, first = 0, 0.0, 0, None, 1
    if start is not None:
        rllib.restore_league(algo, start.checkpoint, start.league, args.league_recent)
        steps, checkpoint, first = start.env_steps, start.checkpoint, start.iteration + 1
        print(f"resuming {args.out} from {start.checkpoint.name} ({steps:,} env steps, league {start.league})")
    steps_before = steps
    for iteration in range(first, args.iterations + 1):
        started = time.perf_counter()
        result = algo.train()
        seconds += time.perf_counter() - started
        runners = result.get("env_runners", {})
        steps += int(runners.get("num_env_steps_sampled", 0))
        illegal = int(runners.get("illegal_actions", 0))
        speed = (steps - steps_before) / max(seconds, 1e-9)
        print(iteration_line(iteration, args.iterations, steps, speed, runners, illegal, algo))
        if iteration % args.snapshot_every == 0 and iteration < args.iterations:
            print(f"  league: added {rllib.add_snapshot(algo, args.league_recent)}")
        if iteration % args.checkpoint_every == 0 or iteration == args.iterations:
            extra = {"iteration": iteration, "env_steps": steps, "league": rllib.league_opponents(algo)}
            checkpoint = rllib.save_checkpoint(
                algo, args.out / CHECKPOINTS / rllib_iteration_name(iteration), game, extra
            )
            prune(args.out / CHECKPOINTS, args.keep)
    return checkpoint, steps, (steps - steps_before) / max(seconds, 1e-9), illegal


def prune(folder: Path, keep: int) -> None:
    """Delete all but the newest ``keep`` checkpoints: each holds the learner's optimiser too (megabytes)."""
    for old in sorted(folder.glob(RLLIB_GLOB))[:-keep]:
        shutil.rmtree(old, ignore_errors=True)


def iteration_line(iteration: int, total: int, steps: int, speed: float, runners: dict, illegal: int, algo: Any) -> str:
    """One line per iteration: steps, speed, main's score against each opponent, illegal actions."""
    scores = ", ".join(
        f"{key.removeprefix('main_score_vs_')} {value:.2f}"
        for key, value in sorted(runners.items())
        if key.startswith("main_score_vs_") and value == value  # NaN: no game against it this iteration
    )
    score = runners.get("main_score")
    score_text = f"main score {score:.2f} ({scores})" if score is not None else "no game finished yet"
    return (
        f"iteration {iteration}/{total}: {steps:,} env steps, {speed:,.0f} steps/s; "
        f"{score_text}; league of {len(algo.config.policies)} modules; illegal actions {illegal}"
    )


def finish(args: argparse.Namespace, game: Game, checkpoint: Path, steps: int, speed: float, illegal: int) -> dict:
    """The final checkpoint as an arena player (``rllib:<checkpoint>``) against the eval opponent; summary.json
    (``speed``: env steps per second of this session's training)."""
    from ..eval.arena import match

    summary: dict[str, Any] = {
        "game": game.name,
        "options": game.options,
        "iterations": args.iterations,
        "env_steps": steps,
        "env_steps_per_second": round(speed, 1),
        "illegal_actions": illegal,
        "checkpoint": str(checkpoint),
    }
    result = f"checkpoint {checkpoint}"
    if args.eval_games:
        player = make_player(f"rllib:{checkpoint}", game=game)
        opponent = make_player(args.eval_opponent, game=game)
        evaluation = match(game, player, opponent, args.eval_games, seed=(args.seed + 1) % 2**63)
        summary.update(opponent=opponent.name, **evaluation)
        result = (
            f"vs {opponent.name} {evaluation['score']:.1%} score ({evaluation['win_rate']:.1%} wins) over "
            f"{evaluation['games']} games, both seats; {result}"
        )
    write_atomically(args.out / "summary.json", json.dumps(summary, indent=2))
    print(f"{game!r}: {steps:,} env steps in {args.iterations} iteration(s), "
          f"{summary['env_steps_per_second']:,.0f} env steps/s, {illegal} illegal actions; {result}")  # fmt: skip
    return summary
