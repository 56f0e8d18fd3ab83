"""Env steps per second of RLlib league self-play (training/rllib_selfplay.py's setup) for 0, 1, 2 env runners.

    python benchmarks/rllib_speed.py                        # Crosse, 0 1 2 env runners, local Ray on 2 CPUs
    python benchmarks/rllib_speed.py --game crisscross --runners 0 2 4 --num-cpus 4 --iterations 5

For each count of env runners: build the PPO algorithm, run one warm-up iteration (kernels
compile, actors start), then time ``--iterations`` iterations. Two rates per row: training
(env steps over the whole iteration, sampling and learning, which PPO does one after the other)
and sampling alone (the same number of env steps sampled again, without learning). 0 runners samples in
the driver process; n runners are n Ray actors sampling in parallel while the driver learns.
"""

from __future__ import annotations

import argparse
import json
import logging
import time

import ray
from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

import crossenvs
from crossenvs.core.options import parse_options
from crossenvs.integrations import rllib


def measure(game: crossenvs.Game, runners: int, iterations: int, batch: int) -> dict[str, float]:
    """Training and sampling env steps/s of ``iterations`` timed iterations after a warm-up one."""
    algo = rllib.league_config(game, env_runners=runners, batch=batch, minibatch=250, epochs=4, seed=0).build_algo()
    try:
        algo.train()  # warm-up: numba kernels and torch, remote actors
        steps, started = 0, time.perf_counter()
        for _ in range(iterations):
            steps += int(algo.train()["env_runners"]["num_env_steps_sampled"])
        training = steps / (time.perf_counter() - started)
        sampled, started = 0, time.perf_counter()
        for _ in range(iterations):  # sampling alone: what PPO's training step does before it learns
            episodes = synchronous_parallel_sample(
                worker_set=algo.env_runner_group, max_env_steps=batch, concat=False, _uses_new_env_runners=True
            )
            sampled += sum(episode.env_steps() for batch in episodes for episode in batch)  # a list per runner
        sampling = sampled / (time.perf_counter() - started)
    finally:
        algo.stop()
    return {"env_runners": runners, "env_steps": steps, "train_steps_per_s": training, "sample_steps_per_s": sampling}


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """A row per count of env runners, on a local Ray (or the one already running in this process: a test's)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="crosse", choices=crossenvs.list_games())
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    game = crossenvs.make_game(args.game, **parse_options(args.option))
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(num_cpus=max(args.num_cpus, *args.runners), include_dashboard=False, logging_level=logging.ERROR)
    rows = []
    try:
        for runners in args.runners:
            row = measure(game, runners, args.iterations, args.batch)
            rows.append(row)
            print(f"{args.game}: {runners} env runner(s): {row['train_steps_per_s']:,.0f} env steps/s training "
                  f"(sampling alone {row['sample_steps_per_s']:,.0f}/s) over {row['env_steps']:,} steps", flush=True)  # fmt: skip
    finally:
        if started_ray:
            ray.shutdown()
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=2)
    return rows


if __name__ == "__main__":
    main()
