"""Self-play training with sb3-contrib's MaskablePPO on the batched vector env.

    python training/selfplay.py --config configs/crisscross.yaml          # a new run under runs/
    python training/selfplay.py --config configs/crossings.yaml --total-steps 200000
    python training/selfplay.py --resume runs/crisscross-20261121-101500  # continue a run
    python training/selfplay.py --resume runs/... --from-checkpoint runs/.../checkpoints/step_500000.zip

How it works, in one file:

* The env is :class:`crossenvs.envs.vector.CrossSB3VecEnv`: ``num_envs`` games stepped together
  in numba. In every game the learner's seat is drawn at random (so it learns both seats) and
  the opponent is drawn from a **pool**: the random policy, plus snapshots of the learner taken
  every ``snapshot_every`` steps (the newest ``pool_size`` are kept). ``random_share`` of the
  games go to the random policy, the rest to a snapshot picked uniformly.
* The policy is an MLP or a small CNN over the (H, W, C) planes (``policy`` in the config).
* Everything of a run lives in one folder: ``config.yaml`` (the config it ran with),
  ``checkpoints/step_<n>.zip`` with ``step_<n>.json`` beside each (game, options, config, step,
  wall time, package version; both written atomically), ``tensorboard/`` logs, and
  ``summary.json`` with the final evaluation against the random policy (both seats).
* A run stops at ``total_steps`` or at its wall-clock cap ``max_minutes``, whichever comes first.
  ``--resume`` continues from the newest checkpoint; should that one be unreadable, the error
  names the previous good one and the ``--from-checkpoint`` command that continues from it.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import crossenvs
from crossenvs import checkpoints as ck
from crossenvs.core.checks import check_seed
from crossenvs.core.errors import CheckpointError
from crossenvs.envs.vector import CrossSB3VecEnv
from crossenvs.eval.arena import match
from crossenvs.players import ModelPlayer, Player, Positions, RandomPlayer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    ConfigError,
    check_config_memory,
    check_from_checkpoint,
    check_resume_folder,
    check_wall_clock,
    commit_files,
    config_from_dict,
    read_yaml_config,
    remove_incomplete,
    resume_offer,
    run_cli,
    script_text,
    set_aside,
    start_run_folder,
    trainer_parser,
    write_atomically,
)

ROOT = Path(__file__).resolve().parent.parent
#: a checkpoint's files: step_<n>.zip (the model) and step_<n>.json (its metadata)
CHECKPOINT_FILE = ck.SB3_FILES
#: stable-baselines3 seeds numpy's legacy generator, which takes 32 bits
SB3_SEED_LIMIT = 2**32


# ----------------------------------------------------------------------------- config
@dataclasses.dataclass
class Config:
    """A run's settings; ``configs/<game>.yaml`` documents each one."""

    game: str
    options: dict = dataclasses.field(default_factory=dict)
    policy: str = "cnn"
    net_width: int = 128
    num_envs: int = 64
    total_steps: int = 1_000_000
    max_minutes: float = 8.0
    snapshot_every: int = 50_000
    pool_size: int = 8
    random_share: float = 0.25
    learning_rate: float = 3e-4
    n_steps: int = 64
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 0.99
    ent_coef: float = 0.01
    checkpoint_every: int = 100_000
    eval_games: int = 200
    seed: int = 0


def load_config(path: Path | str, overrides: dict[str, Any] | None = None) -> Config:
    """Read and check a YAML config: unknown keys and wrong types stop the run, naming the key."""
    raw = read_yaml_config(path)
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    config = config_from_dict(Config, raw, str(path))
    _check_ranges(config, str(path))
    return config


def _check_ranges(config: Config, where: str) -> None:
    crossenvs.make_game(config.game, **config.options)  # InvalidOptionError names a bad option
    if config.policy not in ("cnn", "mlp"):
        raise ConfigError(f"{where}: 'policy' must be 'cnn' or 'mlp', got {config.policy!r}")
    for name in (
        "num_envs",
        "total_steps",
        "snapshot_every",
        "pool_size",
        "n_steps",
        "batch_size",
        "n_epochs",
        "checkpoint_every",
        "eval_games",
        "net_width",
    ):
        if getattr(config, name) < 1:
            raise ConfigError(f"{where}: '{name}' must be at least 1, got {getattr(config, name)}")
    check_wall_clock(config.max_minutes, where)
    check_seed(config.seed, f"{where}: 'seed'")
    checks = [
        ("seed", config.seed < SB3_SEED_LIMIT, "below 2**32 (stable-baselines3 seeds numpy's 32-bit generator)"),
        ("random_share", 0.0 <= config.random_share <= 1.0, "between 0 and 1"),
        ("learning_rate", config.learning_rate > 0, "positive"),
        ("gamma", 0 < config.gamma <= 1, "in (0, 1]"),
        ("ent_coef", config.ent_coef >= 0, "0 or more"),
        ("batch_size", config.batch_size <= config.num_envs * config.n_steps, "at most num_envs * n_steps"),
    ]
    for name, ok, what in checks:
        if not ok:
            raise ConfigError(f"{where}: '{name}' must be {what}, got {getattr(config, name)}")
    check_config_memory(memory_needed(config), where, "num_envs, n_steps, net_width or pool_size")


def memory_needed(config: Config) -> dict[str, int]:
    """Bytes a run needs, estimated from the config alone (before any folder or buffer exists): the rollout
    buffer (float32 observations and masks, flattened once more for training), the envs, and the policy's
    parameters times weights, gradients and Adam's two moments, plus the frozen copies in the opponent pool."""
    game = crossenvs.make_game(config.game, **config.options)
    cells, planes = math.prod(game.observation_shape[:2]), game.observation_shape[2]
    observation, actions, width = cells * planes, game.num_actions, config.net_width
    if config.policy == "cnn":  # BoardCNN, then SB3's default 64-64 heads
        parameters = 9 * 64 * (planes + 64) + 64 * cells * width + 2 * (width * 64 + 64 * 64) + 64 * (actions + 1)
    else:  # the flattened board into two width-width MLPs (policy and value)
        parameters = 2 * (observation * width + width * width) + width * (actions + 1)
    rollout = config.num_envs * config.n_steps * 4 * (observation + actions + 8)
    return {
        "rollout buffer (num_envs x n_steps)": 2 * rollout,
        "envs (num_envs)": config.num_envs * 4 * 4 * (observation + actions),
        "policy and optimiser (net_width)": 16 * parameters,
        "opponent pool (pool_size x net_width)": 4 * parameters * (config.pool_size + 1),
    }


# ----------------------------------------------------------------------------- policy network
#: two 3x3 convolutions over the board planes, then a dense layer; in crossenvs.checkpoints, whose
#: pickle-free reader rebuilds the same policy from a checkpoint's metadata
BoardCNN = ck.BoardCNN


def policy_kwargs(config: Config) -> dict[str, Any]:
    return ck.ppo_policy_kwargs(config.policy, config.net_width)


def new_model(config: Config, env, device: str, tensorboard_log: str | None = None) -> MaskablePPO:
    """A fresh MaskablePPO with the config's settings ("MlpPolicy" is SB3's name for the actor-critic;
    the CNN, when chosen, comes in as its features extractor)."""
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        ent_coef=config.ent_coef,
        policy_kwargs=policy_kwargs(config),
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=device,
        verbose=0,
    )


# ----------------------------------------------------------------------------- the opponent pool
class OpponentPool(Player):
    """Per-game opponents: the random policy or a frozen snapshot of the learner.

    A player (:mod:`crossenvs.players`) whose ``start_games`` picks a member for each new game
    and whose ``act_batch`` asks each member once for all the games it plays.
    """

    name = "pool"
    vectorized = True

    def __init__(self, num_envs: int, pool_size: int, random_share: float) -> None:
        super().__init__(None)
        self.random = RandomPlayer()
        self.snapshots: dict[int, ModelPlayer] = {}  # id -> frozen policy; ids only grow, so a game keeps its opponent
        self.next_id = 1
        self.pool_size = pool_size
        self.random_share = random_share
        self.member = np.zeros(num_envs, dtype=np.int64)  # 0 = random, else a snapshot id

    def add(self, policy) -> None:
        """A frozen copy of ``policy`` joins; the oldest leaves when the pool is full."""
        frozen = copy.deepcopy(policy).eval()
        self.snapshots[self.next_id] = ModelPlayer(frozen, name=f"snapshot{self.next_id}", deterministic=False)
        self.next_id += 1
        while len(self.snapshots) > self.pool_size:
            del self.snapshots[min(self.snapshots)]

    def start_games(self, ids: np.ndarray, uniforms: np.ndarray) -> None:
        if not self.snapshots:
            self.member[ids] = 0
            return
        keys = np.array(sorted(self.snapshots), dtype=np.int64)
        use_snapshot = uniforms >= self.random_share
        # the part of the uniform above the random share picks a snapshot evenly
        scaled = (uniforms - self.random_share) / max(1e-9, 1.0 - self.random_share)
        picks = keys[np.minimum((scaled * len(keys)).astype(np.int64), len(keys) - 1)]
        self.member[ids] = np.where(use_snapshot, picks, 0)

    def act(self, game, state) -> int:
        raise NotImplementedError("the pool plays inside a vector env (act_batch), where games have ids")

    def act_batch(self, positions: Positions) -> np.ndarray:
        actions = self.random.act_batch(positions)
        members = self.member[positions.ids]
        for member in np.unique(members[members > 0]):
            rows = np.flatnonzero(members == member)
            # a game whose snapshot has left the pool finishes against the newest one
            player = self.snapshots.get(int(member)) or self.snapshots[max(self.snapshots)]
            with torch.no_grad():
                actions[rows] = player.act_batch(positions.take(rows))
        return actions


class SelfPlayCallback(BaseCallback):
    """Snapshots into the pool, atomic checkpoints, and the wall-clock budget."""

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run
        self.next_snapshot = 0
        self.next_checkpoint = 0

    def _on_training_start(self) -> None:
        self.next_snapshot = self.num_timesteps + self.run.config.snapshot_every
        self.next_checkpoint = self.num_timesteps + self.run.config.checkpoint_every

    def _on_step(self) -> bool:
        config = self.run.config
        if self.num_timesteps >= self.next_snapshot:
            self.run.pool.add(self.model.policy)
            self.next_snapshot += config.snapshot_every
        if self.num_timesteps >= self.next_checkpoint:
            self.run.save_checkpoint(self.model)
            self.next_checkpoint += config.checkpoint_every
        return not self.run.out_of_time()


# ----------------------------------------------------------------------------- a run
class Run:
    """One training run and its folder."""

    def __init__(self, config: Config, run_dir: Path, device: str) -> None:
        self.config = config
        self.run_dir = run_dir
        self.device = device
        self.checkpoints = run_dir / ck.CHECKPOINTS
        self.pool = OpponentPool(config.num_envs, config.pool_size, config.random_share)
        self.started = time.monotonic()
        self.wall_before = 0.0  # training seconds spent before a resume

    def make_env(self, seed: int | None = None) -> CrossSB3VecEnv:
        seed = self.config.seed if seed is None else seed
        return CrossSB3VecEnv(
            self.config.game, num_envs=self.config.num_envs, opponent=self.pool, seed=seed, **self.config.options
        )

    def refill_pool(self, device: str) -> None:
        """On resume: the newest ``pool_size`` readable checkpoints become the opponent snapshots again
        (an unreadable old one is left out, with a note, rather than stopping the run)."""
        policies = []
        for step in reversed(self.steps()):
            if len(policies) == self.config.pool_size:
                break
            try:
                policies.append(ck.load_sb3(self.zip_path(step), device=device))
            except crossenvs.CrossenvsError as exc:
                print(f"note: {exc}; it stays out of the opponent pool")
        for policy in reversed(policies):  # oldest first, as they joined
            self.pool.add(policy)

    def out_of_time(self) -> bool:
        return time.monotonic() - self.started >= self.config.max_minutes * 60

    def wall_seconds(self) -> float:
        return self.wall_before + time.monotonic() - self.started

    def save_checkpoint(self, model: MaskablePPO) -> Path:
        """``step_<n>.zip`` and then ``step_<n>.json``, the metadata last (:func:`common.commit_files`): a
        checkpoint counts only once its metadata is there, so a kill at any moment leaves the run resumable."""
        self.checkpoints.mkdir(parents=True, exist_ok=True)
        step = int(model.num_timesteps)
        final = self.checkpoints / ck.sb3_step_name(step)
        metadata = {
            "game": self.config.game,
            "options": self.config.options,
            "config": dataclasses.asdict(self.config),
            "architecture": ck.sb3_architecture(self.config.policy, self.config.net_width),
            "step": step,
            "wall_seconds": round(self.wall_seconds(), 1),
            "crossenvs_version": crossenvs.__version__,
            "checkpoint": final.name,
        }
        commit_files(
            [
                (final, model.save),
                (ck.sb3_metadata_path(final), lambda path: path.write_text(json.dumps(metadata, indent=2))),
            ]
        )
        return final

    def steps(self) -> list[int]:
        """The steps of the run's checkpoints, oldest first: those whose metadata was written (the commit marker)."""
        names = (re.fullmatch(CHECKPOINT_FILE, path.name) for path in self.checkpoints.glob(ck.SB3_META_GLOB))
        return sorted({int(match.group(1)) for match in names if match})

    def remove_incomplete(self) -> None:
        """What a kill while writing a checkpoint left: temporary files, and a model whose metadata never came."""
        steps = set(self.steps())
        orphans = [
            path
            for path in self.checkpoints.glob(ck.sb3_step_name("*"))
            if (match := re.fullmatch(CHECKPOINT_FILE, path.name)) and int(match.group(1)) not in steps
        ]
        if self.checkpoints.is_dir():
            remove_incomplete(self.checkpoints, orphans)

    def zip_path(self, step: int) -> Path:
        return self.checkpoints / ck.sb3_step_name(step)

    def metadata(self, step: int) -> dict:
        """``step_<n>.json``; a CheckpointError when it is missing or unreadable."""
        return ck.read_sb3_metadata(self.checkpoints / ck.sb3_step_name(step, ".json"))

    def usable(self, step: int) -> bool:
        """Whether checkpoint ``step`` can be resumed from: its metadata and its model both load (a zip
        test alone is fooled by a truncated file that ends inside one of the nested torch archives)."""
        try:
            self.metadata(step)
            ck.load_sb3(self.zip_path(step))
        except crossenvs.CrossenvsError:
            return False
        return True

    def chosen_step(self, from_checkpoint: str | None) -> int | None:
        """The step to resume from: the newest checkpoint, the one ``--from-checkpoint`` names, or None (none yet)."""
        if from_checkpoint:
            path = check_from_checkpoint(from_checkpoint, self.checkpoints, CHECKPOINT_FILE, "step_<n>.zip")
            return int(re.fullmatch(CHECKPOINT_FILE, path.name).group(1))
        steps = self.steps()
        return steps[-1] if steps else None

    def newer_files(self, step: int) -> list[Path]:
        """The files of the checkpoints after ``step``: another line of history once a run resumes from ``step``."""
        later = [
            path
            for later in self.steps()
            if later > step
            for path in self.checkpoints.glob(ck.sb3_step_name(later, ".*"))
        ]
        return sorted(later)


def resume(args: argparse.Namespace, device: str) -> tuple[Run, MaskablePPO, dict]:
    """The run in ``--resume``'s folder and its model, from the newest checkpoint or ``--from-checkpoint``.

    Checked before any training: the folder can be written, and the checkpoint reads; should it be
    corrupt, the error names the previous good one and the command that resumes from it. Nothing is
    unpickled: the model is built from the config and takes the checkpoint's weights and optimiser
    state (read with ``weights_only=True``). A run killed before its first checkpoint starts again
    from its ``config.yaml``; what a kill left half-written is removed first.
    """
    run_dir = check_resume_folder(args.resume)
    config = load_config(run_dir / "config.yaml", {"total_steps": args.total_steps, "max_minutes": args.max_minutes})
    run = Run(config, run_dir, device)
    run.remove_incomplete()
    step = run.chosen_step(args.from_checkpoint)
    if step is None:
        print(f"resuming {run_dir}: no checkpoint yet, so the run starts from its config.yaml")
        model = new_model(config, run.make_env(), device, tensorboard_log=str(run_dir / "tensorboard"))
        return run, model, {}
    # fresh random streams for the games from here on (not a replay of the first steps)
    model = new_model(config, run.make_env(seed=config.seed + step), device)
    try:
        metadata = run.metadata(step)
        policy = ck.load_sb3(run.zip_path(step), game=crossenvs.make_game(config.game, **config.options))
        model.policy.load_state_dict(policy.state_dict())
        model.policy.optimizer.load_state_dict(ck.read_sb3_optimizer(run.zip_path(step)))
    except (crossenvs.CrossenvsError, RuntimeError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, crossenvs.CrossenvsError) else f"{run.zip_path(step)} does not fit: {exc}"
        previous = next((older for older in reversed(run.steps()) if older < step and run.usable(older)), None)
        offer = run.zip_path(previous) if previous is not None else None
        raise resume_offer(script_text(__file__), args.resume, reason, offer) from None
    model.num_timesteps = step
    set_aside(run.newer_files(step), run.checkpoints)
    model.tensorboard_log = str(run_dir / "tensorboard")
    run.wall_before = float(metadata.get("wall_seconds", 0.0))
    run.refill_pool(device)
    print(f"resuming {run_dir} from {ck.sb3_step_name(step)} (step {step})")
    return run, model, metadata


def win_rate_vs_random(model: MaskablePPO, config: Config, games: int, seed: int = 12345) -> dict[str, float]:
    """The arena: the trained model against the random policy over ``games`` games, seats alternating."""
    game = crossenvs.make_game(config.game, **config.options)
    return match(game, ModelPlayer(model, name="trained"), RandomPlayer(), games, seed=seed)


# ----------------------------------------------------------------------------- main
@contextlib.contextmanager
def numba_on_one_thread() -> Iterator[None]:
    """PPO trains with numba on one thread and torch on the cores, unless ``NUMBA_NUM_THREADS`` is set.

    With both thread pools, one busy process beside it on 2 cores cut training to a fifth of its
    idle speed (457 against 2,540 steps/s); with numba on one thread it kept it (about 1,780
    loaded against 1,680 idle), and idle speed stayed within this machine's noise
    (``benchmarks/bench.py --busy``). The setting is numba's per-thread one, restored on exit:
    setting the environment variable on import instead made any later numba compilation in the
    importing process (a test session, the arena loading a PPO player) fail once numba's threads
    had started with another count.
    """
    if "NUMBA_NUM_THREADS" in os.environ:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def train(args: argparse.Namespace) -> dict[str, Any]:
    with numba_on_one_thread():
        return _train(args)


def _train(args: argparse.Namespace) -> dict[str, Any]:
    device = ck.resolve_device(args.device)
    if args.resume and args.evaluate_only:
        return evaluate_only(args, device)
    if args.resume:
        run, model, _ = resume(args, device)
        config, run_dir = run.config, run.run_dir
    else:
        config = load_config(args.config, {"total_steps": args.total_steps, "max_minutes": args.max_minutes})
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = (Path(args.run_dir) if args.run_dir else ROOT / "runs" / f"{config.game}-{stamp}").resolve()
        start_run_folder(run_dir, "--run-dir" if args.run_dir else "run folder", config)
        run = Run(config, run_dir, device)
        env = run.make_env()
        model = new_model(config, env, device, tensorboard_log=str(run_dir / "tensorboard"))
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    remaining = max(0, config.total_steps - model.num_timesteps)
    steps_before, started = model.num_timesteps, time.monotonic()
    model.learn(
        total_timesteps=remaining,
        callback=SelfPlayCallback(run),
        reset_num_timesteps=model.num_timesteps == 0,
        progress_bar=not args.no_progress,
        tb_log_name="selfplay",
    )
    seconds = time.monotonic() - started
    checkpoint = run.save_checkpoint(model)
    session = {
        "steps_this_session": int(model.num_timesteps - steps_before),
        "seconds_this_session": round(seconds, 1),
        "steps_per_second": round((model.num_timesteps - steps_before) / max(seconds, 1e-9), 1),
    }
    return final_evaluation(model.policy, config, run_dir, checkpoint, int(model.num_timesteps), device, session)


def final_evaluation(
    policy: Any, config: Config, run_dir: Path, checkpoint: Path, steps: int, device: str, session: dict
) -> dict[str, Any]:
    """The match against the random policy, ``summary.json`` and the closing line."""
    evaluation = win_rate_vs_random(policy, config, config.eval_games)
    summary = {
        "game": config.game,
        "options": config.options,
        "steps": steps,
        **session,
        "checkpoint": str(checkpoint),
        "device": device,
        **evaluation,
    }
    write_atomically(run_dir / "summary.json", json.dumps(summary, indent=2))
    options = ", ".join(f"{k}={v}" for k, v in config.options.items())
    speed = f", {summary['steps_per_second']:,.0f} steps/s" if "steps_per_second" in summary else ""
    print(
        f"{config.game}({options}): {summary['steps']:,} steps{speed} on "
        f"{device}; vs random {evaluation['win_rate']:.1%} wins, {evaluation['draw_rate']:.1%} draws over "
        f"{evaluation['games']} games (both seats); checkpoint {checkpoint}"
    )
    return summary


def evaluate_only(args: argparse.Namespace, device: str) -> dict[str, Any]:
    """``--resume RUN --evaluate-only``: the final evaluation of the run's newest (or chosen) checkpoint, again."""
    run_dir = check_resume_folder(args.resume)
    config = load_config(run_dir / "config.yaml", {"max_minutes": args.max_minutes})
    run = Run(config, run_dir, device)
    run.remove_incomplete()
    step = run.chosen_step(args.from_checkpoint)
    if step is None:
        raise CheckpointError(f"--evaluate-only: {run.checkpoints} holds no checkpoint to evaluate")
    game = crossenvs.make_game(config.game, **config.options)
    policy = ck.load_sb3(run.zip_path(step), game=game, device=device)
    print(f"evaluating {run.zip_path(step)} again (no training)")
    return final_evaluation(policy, config, run_dir, run.zip_path(step), step, device, {})


def main(argv: list[str] | None = None) -> int:
    parser = trainer_parser(
        "Self-play training with MaskablePPO on a crossenvs game.", "configs/crisscross.yaml", "runs/<game>-<time>"
    )
    parser.add_argument("--total-steps", type=int, help="override the config's total_steps")
    return run_cli(train, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
