"""``crossenvs train ppo``: self-play training with sb3-contrib's MaskablePPO on the batched vector env.

    crossenvs train ppo --game crisscross                       # a new run under runs/, shipped config crisscross
    crossenvs train ppo --game crossings --total-steps 200000
    crossenvs train ppo --resume runs/crisscross-20261121-101500  # continue a run
    crossenvs train ppo --resume runs/... --from-checkpoint runs/.../checkpoints/step_500000.zip

``training/selfplay.py`` is the same command in a checkout. How it works:

* The env is :class:`crossenvs.envs.sb3_vec.CrossSB3VecEnv`: ``num_envs`` games stepped together
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
import os
import time
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train ppo"):
    import torch

from crossenvs.checkpoints import resolve_device
from crossenvs.ppo.config import load_config
from crossenvs.ppo.resume import evaluate_only, final_evaluation, resume
from crossenvs.ppo.run import Run, SelfPlayCallback, new_model, numba_on_one_thread
from crossenvs.trainer.command import new_run_config
from crossenvs.trainer.folders import start_new_run


def train(args: argparse.Namespace) -> dict[str, Any]:
    """A run, new or resumed, with numba on one thread and torch on the cores (:func:`numba_on_one_thread`)."""
    with numba_on_one_thread():
        return _train(args)


def _train(args: argparse.Namespace) -> dict[str, Any]:
    """MaskablePPO learns against its opponent pool until ``total_steps`` or the wall-clock cap, then plays the
    final evaluation."""
    device = resolve_device(args.device)
    if args.resume and args.evaluate_only:
        return evaluate_only(args, device)
    if args.resume:
        run, model, _ = resume(args, device)
        config, run_dir = run.config, run.run_dir
    else:
        path, changes = new_run_config(args, "ppo", {"total_steps": args.total_steps, "max_minutes": args.max_minutes})
        config = load_config(path, changes)
        run_dir = start_new_run(args, config.game, config)
        run = Run(config, run_dir, device)
        env = run.make_env()
        model = new_model(config, env, device, tensorboard_log=str(run_dir / "tensorboard"))
    if "OMP_NUM_THREADS" not in os.environ:  # torch on every core, unless the user chose its threads
        torch.set_num_threads(max(1, os.cpu_count() or 1))
    remaining = max(0, config.total_steps - model.num_timesteps)
    print(
        f"{config.game}{config.options}: MaskablePPO self-play on {device}, to {config.total_steps:,} steps or "
        f"{config.max_minutes:g} min, whichever comes first ({model.num_timesteps:,} done) -> {run_dir}",
        flush=True,
    )
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
