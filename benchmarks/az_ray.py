"""Self-play throughput of the AlphaZero trainer: one process against Ray actors, interleaved.

    python benchmarks/az_ray.py                          # 0 (one process), 1 and 2 actors, 2 min each, 2 rounds
    python benchmarks/az_ray.py --actors 0 2 4 --minutes 3 --rounds 3 --config crossenvs/configs/alphazero/crisscross.yaml
    python benchmarks/az_ray.py --parts --device auto    # one actor's search and the learner, each alone

Each run is ``training/alphazero.py --config CONFIG --max-minutes M [--actors N]`` in a fresh process
(its final match cut to two games against random), so the figures are the trainer's own:
positions per second over the training time (``positions_per_second`` of summary.json), the updates
the learner made, and the seconds from the command's start to its first self-play (Python imports,
and for the Ray path starting Ray and the actors). Modes alternate within each round, so a busy
machine slows all of them alike; the table gives medians.

``--parts`` times the two halves alone, for projecting a cluster's throughput: one actor's work
(the config's search of ``num_envs`` games on one torch thread, as an actor runs it) and the
learner's (``train_step`` on ``batch_size`` positions, on ``--device``). With ``train_ratio``
samples per position, a learner of U updates/s absorbs ``U * batch_size / train_ratio`` positions/s,
so N actors of A positions/s each give at most ``min(N * A, U * batch_size / train_ratio)``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent


def one_run(config: Path, minutes: float, actors: int, folder: Path) -> dict:
    """One training run; its summary plus the seconds until self-play began."""
    run_dir = folder / f"actors{actors}-{time.monotonic_ns()}"
    command = [sys.executable, str(ROOT / "training" / "alphazero.py"), "--config", str(config)]
    command += ["--max-minutes", str(minutes), "--run-dir", str(run_dir), "--no-progress"]
    command += ["--actors", str(actors)] if actors else []
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    startup, lines = None, []
    for line in process.stdout:
        lines.append(line)
        if startup is None and "min of self-play on" in line:
            startup = time.monotonic() - started
    if process.wait() != 0:
        raise SystemExit("".join(lines))
    summary = json.loads((run_dir / "summary.json").read_text())
    return {**summary, "startup_seconds": startup}


def parts(config_path: str, device: str, seconds: float) -> dict:
    """One actor's search on one thread and the learner's updates/s, each alone."""
    import torch

    import crossenvs
    from crossenvs.az.config import load_config
    from crossenvs.az.learn import train_step
    from crossenvs.az.network import AlphaZeroNet
    from crossenvs.az.replay import Replay
    from crossenvs.az.speed import measure
    from crossenvs.checkpoints import resolve_device

    config = load_config(config_path)
    game = crossenvs.make_game(config.game, **config.options)
    device = resolve_device(device)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    precision = "bfloat16" if config.precision == "auto" else config.precision
    actor = {}
    for chosen in ("float32", precision):
        actor[chosen] = measure(game, config.num_envs, config.simulations, config.channels, config.blocks, "cpu",
                                seconds, chosen)["positions_per_second"]  # fmt: skip
    torch.set_num_threads(threads)
    net = AlphaZeroNet(game.observation_shape, game.num_actions, config.channels, config.blocks).to(device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.learning_rate)
    replay = Replay(config.batch_size * 4, game.observation_shape, game.num_actions)
    rng = np.random.default_rng(0)
    count = config.batch_size * 4
    replay.add(
        rng.random((count, *game.observation_shape)),
        rng.dirichlet(np.ones(game.num_actions), count),
        rng.choice([-1.0, 1.0], count),
    )
    symmetries = game.symmetries()
    learner = {}
    for chosen in ("float32", precision):
        for _ in range(2):  # the first warms up
            started, updates = time.perf_counter(), 0
            while time.perf_counter() - started < seconds:
                batch = replay.sample(rng, config.batch_size, symmetries)
                train_step(net, optimizer, batch, device, chosen)
                updates += 1
        learner[chosen] = updates / (time.perf_counter() - started)
    print(
        f"{Path(config_path).name}: {config.num_envs} games x {config.simulations} simulations, "
        f"batch {config.batch_size}, train_ratio {config.train_ratio:g}"
    )
    print("| part | float32 | " + precision + " |")
    print("|---|---|---|")
    print(f"| one actor (search, 1 thread on cpu), positions/s | {actor['float32']:,.0f} | {actor[precision]:,.0f} |")
    print(
        f"| learner ({device}, {threads} threads), updates/s | {learner['float32']:,.1f} | {learner[precision]:,.1f} |"
    )
    absorbs = {k: v * config.batch_size / config.train_ratio for k, v in learner.items()}
    print(f"| learner, positions/s it absorbs | {absorbs['float32']:,.0f} | {absorbs[precision]:,.0f} |")
    return {"actor": actor, "learner_updates": learner, "learner_positions": absorbs}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=str(ROOT / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml"))
    parser.add_argument("--actors", type=int, nargs="+", default=[0, 1, 2], help="0 is the one-process trainer")
    parser.add_argument("--minutes", type=float, default=2.0, help="training time of each run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--parts", action="store_true", help="time one actor and the learner alone instead")
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"], help="the learner's, with --parts")
    parser.add_argument("--seconds", type=float, default=10.0, help="each timing of --parts")
    args = parser.parse_args(argv)
    if args.parts:
        return parts(args.config, args.device, args.seconds)
    raw = yaml.safe_load(Path(args.config).read_text())
    raw.update(eval_games=2, eval_opponent="random", eval_ladder_games=0)
    results: dict[int, list[dict]] = {actors: [] for actors in args.actors}
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.yaml"
        config.write_text(yaml.safe_dump(raw))
        for _ in range(args.rounds):
            for actors in args.actors:
                result = one_run(config, args.minutes, actors, Path(folder))
                results[actors].append(result)
                print(f"actors {actors}: {result['positions_per_second']:,.0f} positions/s", flush=True)
    baseline = statistics.median(r["positions_per_second"] for r in results[args.actors[0]])
    print(f"\n{Path(args.config).name}, {args.minutes:g} min a run, {args.rounds} rounds, medians:")
    print("| self-play | positions/s | vs first row | updates/s | stale positions | start-up (s) |")
    print("|---|---|---|---|---|---|")
    table = {}
    for actors, runs in results.items():
        speed = statistics.median(r["positions_per_second"] for r in runs)
        updates = statistics.median(r["updates"] / (args.minutes * 60) for r in runs)
        stale = statistics.median(r.get("stale_positions", 0) / max(1, r.get("positions_received", 1)) for r in runs)
        startup = statistics.median(r["startup_seconds"] for r in runs)
        label = "one process" if actors == 0 else f"{actors} Ray actor{'s' * (actors > 1)}"
        print(f"| {label} | {speed:,.0f} | {speed / baseline:.2f}x | {updates:.1f} | {stale:.1%} | {startup:.0f} |")
        table[actors] = {"positions_per_second": speed, "updates_per_second": updates, "startup_seconds": startup}
    return table


if __name__ == "__main__":
    main()
