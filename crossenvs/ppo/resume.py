"""Continuing a PPO run from its newest (or a chosen) checkpoint, and its final evaluation.

Checked before any training: the folder can be written, and the checkpoint reads; should it be
corrupt, the error names the previous good one and the command that resumes from it. Nothing is
unpickled: the model is built from the config and takes the checkpoint's weights and optimiser
state (read with ``weights_only=True``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train ppo"):
    from sb3_contrib import MaskablePPO

from crossenvs import checkpoints as ck
from crossenvs.core.registry import make_game
from crossenvs.eval.arena import match
from crossenvs.players import ModelPlayer, RandomPlayer
from crossenvs.ppo.config import Config, load_config
from crossenvs.ppo.run import Run, new_model
from crossenvs.support.errors import CheckpointError, CrossenvsError
from crossenvs.trainer.folders import check_resume_folder, resume_offer, set_aside, write_atomically


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
        policy = ck.load_sb3(run.zip_path(step), game=make_game(config.game, **config.options))
        model.policy.load_state_dict(policy.state_dict())
        model.policy.optimizer.load_state_dict(ck.read_sb3_optimizer(run.zip_path(step)))
    except (CrossenvsError, RuntimeError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, CrossenvsError) else f"{run.zip_path(step)} does not fit: {exc}"
        previous = next((older for older in reversed(run.steps()) if older < step and run.usable(older)), None)
        offer = run.zip_path(previous) if previous is not None else None
        raise resume_offer(args.command_line, args.resume, reason, offer) from None
    model.num_timesteps = step
    set_aside(run.newer_files(step), run.checkpoints)
    model.tensorboard_log = str(run_dir / "tensorboard")
    run.wall_before = float(metadata.get("wall_seconds", 0.0))
    run.refill_pool(device)
    print(f"resuming {run_dir} from {ck.sb3_step_name(step)} (step {step})")
    return run, model, metadata


def win_rate_vs_random(model: MaskablePPO, config: Config, games: int, seed: int = 12345) -> dict[str, float]:
    """The arena: the trained model against the random policy over ``games`` games, seats alternating."""
    game = make_game(config.game, **config.options)
    return match(game, ModelPlayer(model, name="trained"), RandomPlayer(), games, seed=seed)


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
    game = make_game(config.game, **config.options)
    policy = ck.load_sb3(run.zip_path(step), game=game, device=device)
    print(f"evaluating {run.zip_path(step)} again (no training)")
    return final_evaluation(policy, config, run_dir, run.zip_path(step), step, device, {})
