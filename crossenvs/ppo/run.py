"""A PPO self-play run: its model, its folder and checkpoints, and the callback that snapshots and stops it.

The env is :class:`crossenvs.envs.sb3_vec.CrossSB3VecEnv`: ``num_envs`` games stepped together in
numba, the learner's seat drawn at random in each and the opponent drawn from the
:class:`~crossenvs.ppo.pool.OpponentPool`. A checkpoint is ``step_<n>.zip`` with ``step_<n>.json``
beside it, the metadata written last: a checkpoint counts only once its metadata is there.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train ppo"):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

from crossenvs import checkpoints as ck
from crossenvs.envs.sb3_vec import CrossSB3VecEnv
from crossenvs.kernels.threads import numba_on_one_thread  # noqa: F401 - training/selfplay.py takes it from here
from crossenvs.ppo.config import Config
from crossenvs.ppo.pool import OpponentPool
from crossenvs.support.errors import CrossenvsError
from crossenvs.support.version import __version__
from crossenvs.support.waits import PIPE_EVERY
from crossenvs.trainer.folders import check_from_checkpoint, commit_files, remove_incomplete

#: a checkpoint's files: step_<n>.zip (the model) and step_<n>.json (its metadata)
CHECKPOINT_FILE = ck.SB3_FILES


def policy_kwargs(config: Config) -> dict[str, Any]:
    """The policy's network (``policy`` and ``net_width``), as the checkpoint reader rebuilds it."""
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


class SelfPlayCallback(BaseCallback):
    """Snapshots into the pool, atomic checkpoints, and the wall-clock budget."""

    def __init__(self, run: Run, pipe_every: float | None = None) -> None:
        super().__init__()
        self.run = run
        self.next_snapshot = 0
        self.next_checkpoint = 0
        #: off a terminal (a log, a pipe), a progress line this often, where SB3's bar would draw nothing useful
        self.pipe_every = (PIPE_EVERY if not sys.stdout.isatty() else None) if pipe_every is None else pipe_every
        self.next_line = time.monotonic() + (self.pipe_every or 0)

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
        if self.pipe_every and time.monotonic() >= self.next_line:
            self.next_line += self.pipe_every
            print(self.run.progress_line(self.num_timesteps), flush=True)
        return not self.run.out_of_time()


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
            except CrossenvsError as exc:
                print(f"note: {exc}; it stays out of the opponent pool")
        for policy in reversed(policies):  # oldest first, as they joined
            self.pool.add(policy)

    def out_of_time(self) -> bool:
        return time.monotonic() - self.started >= self.config.max_minutes * 60

    def progress_line(self, steps: int) -> str:
        """Where the run stands against both of its ends, the steps and the wall-clock cap: whichever comes first."""
        elapsed = time.monotonic() - self.started
        return (
            f"  {steps:,}/{self.config.total_steps:,} steps, {elapsed / 60:.1f} of {self.config.max_minutes:g} min "
            f"({len(self.pool.snapshots)} snapshots in the pool)"
        )

    def wall_seconds(self) -> float:
        return self.wall_before + time.monotonic() - self.started

    def save_checkpoint(self, model: MaskablePPO) -> Path:
        """``step_<n>.zip`` and then ``step_<n>.json``, the metadata last (:func:`crossenvs.trainer.folders.commit_files`): a
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
            "crossenvs_version": __version__,
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
        except CrossenvsError:
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
