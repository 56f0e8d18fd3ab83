"""Random-legal-play speed on one GPU: crossenvs' device env next to pgx on the same card, ratios from one run.

    python benchmarks/gpu.py                     # every game, B = 4,096 and 65,536, pgx othello and hex 11x11
    python benchmarks/gpu.py --check             # first the differential check at 65,536 games (0 mismatches)
    python benchmarks/gpu.py --games crossings --batches 4096 --seconds 2 --json gpu.json

Ours: ``CrossVectorEnv(game, B, device="cuda")``, one ``random_actions()`` and one ``step()`` a
round, both kernels on the device, the caller's loop in Python (as a training loop drives it).
pgx: jitted and vmapped, random legal actions and auto-reset inside the jit, ``--chain`` steps
chained with ``lax.scan`` per call (its best users' way). Rows are interleaved over ``--rounds``
and each figure is the median of its rounds. Where the time goes: the device time of our two
kernels per round (CUDA events, launch overhead excluded) against the wall time of a round (the
rest is Python and launching), and the bytes a step writes (observation, mask, per-game
outputs) as achieved memory bandwidth.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

# JAX would otherwise take most of the card's memory at its first use, leaving torch and numba little
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

GAMES = [("crisscross", {"size": 8}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
         ("crossings", {}), ("neo_crossings", {})]  # fmt: skip
PEERS = {"othello": "pgx othello", "hex": "pgx hex 11x11"}
#: the issue's targets at 65,536 games: each 8x8 game at least pgx othello, Crisscross 11x11 at least pgx hex
TARGETS = {"crisscross 8x8": "othello", "crisscross 11x11": "hex", "charing_cross": "othello",
           "crossings": "othello", "neo_crossings": "othello"}  # fmt: skip


@dataclass
class Row:
    name: str
    batch: int
    rounds: list[float]  # steps/s of each round
    kernel_seconds: float | None = None  # device time of one round's kernels (ours only)
    bytes_per_step: int | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)


def label(game: str, options: dict) -> str:
    return f"{game} {options['size']}x{options['size']}" if "size" in options else game


def ours(game: str, options: dict, batch: int) -> tuple[Callable[[float], int], Row]:
    """Our device env stepping random legal actions; returns (loop, row)."""
    import numpy as np
    import torch

    from crossenvs.envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=batch, device="cuda", **options)
    env.reset(seed=0)
    for _ in range(3):  # compile and warm
        env.step(env.random_actions())
    torch.cuda.synchronize()
    per_game = 4 * int(np.prod(env.game.observation_shape)) + env.game.num_actions + 8 * 6 + 8
    row = Row(f"crossenvs {label(game, options)}", batch, [], bytes_per_step=per_game)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            env.step(env.random_actions())
            steps += batch
        torch.cuda.synchronize()
        row.kernel_seconds = row.kernel_seconds or kernel_seconds(env)
        return steps

    return loop, row


def kernel_seconds(env, rounds: int = 20) -> float:
    """Device time of one round's two kernels alone: the GPU is kept busy (``torch.cuda._sleep``) while
    Python launches them, so the events time the kernels and not the launch overhead between them."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    total = 0.0
    for _ in range(rounds):
        torch.cuda._sleep(5_000_000)  # a few milliseconds of GPU work queued ahead of the launches
        start.record()
        env.step(env.random_actions())
        end.record()
        end.synchronize()
        total += start.elapsed_time(end) / 1000
    return total / rounds


def pgx_loop(env_id: str, batch: int, chain: int) -> tuple[Callable[[float], int], Row]:
    """pgx: ``chain`` random legal steps with auto-reset per jitted call, vmapped over ``batch`` games."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make(env_id)
    init = jax.vmap(env.init)

    def one_step(carry, _):
        state, key = carry
        key, act_key, reset_key = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = jax.vmap(env.step)(state, jax.random.categorical(act_key, logits, axis=-1))
        fresh = init(jax.random.split(reset_key, batch))
        done = state.terminated | state.truncated
        state = jax.tree_util.tree_map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), fresh, state
        )
        return (state, key), None

    @jax.jit
    def steps(state, key):
        return jax.lax.scan(one_step, (state, key), None, length=chain)[0]

    carry = (jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch)), jax.random.PRNGKey(1))
    carry = jax.block_until_ready(steps(*carry))  # compile

    def loop(deadline: float) -> int:
        nonlocal carry
        done = 0
        while time.perf_counter() < deadline:
            carry = steps(*carry)
            done += batch * chain
        jax.block_until_ready(carry)
        return done

    return loop, Row(PEERS[env_id], batch, [])


def check(batch: int, steps: int) -> list[dict]:
    """The differential test at ``batch`` games: the device env against the CPU env, every field, every step."""
    from crossenvs.testing import check_device_env

    results = []
    for game, options in GAMES:
        started = time.perf_counter()
        report = check_device_env(game, num_envs=batch, steps=steps, seed=11, **options)
        results.append({"game": label(game, options), **asdict(report), "seconds": time.perf_counter() - started})
        print(f"check {label(game, options)} B={batch}: {report.mismatches} mismatches over {steps} steps "
              f"({report.games_ended} games ended, {report.illegal_tried} illegal tried)", flush=True)  # fmt: skip
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=None, help="crossenvs games (default: all six rows)")
    parser.add_argument("--batches", type=int, nargs="*", default=[4096, 65536])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chain", type=int, default=16, help="pgx steps per jitted call (lax.scan)")
    parser.add_argument("--no-pgx", action="store_true")
    parser.add_argument("--check", action="store_true", help="run the 65,536-game differential check first")
    parser.add_argument("--check-steps", type=int, default=100)
    parser.add_argument("--json", default=None, help="write every figure to this file")
    args = parser.parse_args(argv)
    import torch

    from crossenvs.core.cuda import CudaUnavailableError, cuda_module

    try:
        cuda_module()  # one clear error where there is no GPU, before anything is compiled
    except CudaUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    card = torch.cuda.get_device_name()
    print(f"card: {card}", flush=True)
    report: dict = {"card": card, "date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv)}
    if args.check:
        report["check"] = check(65536, args.check_steps)
    games = [(g, o) for g, o in GAMES if args.games is None or g in args.games]
    loops = []
    for batch in args.batches:
        loops += [ours(game, options, batch) for game, options in games]
        loops += [] if args.no_pgx else [pgx_loop(env_id, batch, args.chain) for env_id in PEERS]
    for _ in range(args.rounds):  # interleaved: every row once a round
        for loop, row in loops:
            started = time.perf_counter()
            steps = loop(started + args.seconds)
            row.rounds.append(steps / (time.perf_counter() - started))
    rows = [row for _, row in loops]
    print_table(rows)
    report["rows"] = [{**asdict(row), "median": row.median} for row in rows]
    report["ratios"] = ratios(rows)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)
    return 0


def print_table(rows: list[Row]) -> None:
    print(f"{'row':<32} {'B':>7} {'steps/s (median)':>18} {'kernels/wall':>13} {'GB/s written':>13}")
    for row in rows:
        wall = row.batch / row.median  # seconds a round takes
        share = f"{row.kernel_seconds / wall:.0%}" if row.kernel_seconds else "-"
        bandwidth = f"{row.median * row.bytes_per_step / 1e9:.1f}" if row.bytes_per_step else "-"
        print(f"{row.name:<32} {row.batch:>7,} {row.median:>18,.0f} {share:>13} {bandwidth:>13}")


def ratios(rows: list[Row]) -> list[dict]:
    """Ours / pgx at each batch, for the rows with a target."""
    by_name = {(row.name, row.batch): row for row in rows}
    found = []
    for ours_label, peer in TARGETS.items():
        for (name, batch), row in by_name.items():
            theirs = by_name.get((PEERS[peer], batch))
            if name == f"crossenvs {ours_label}" and theirs:
                ratio = row.median / theirs.median
                found.append({"row": ours_label, "peer": PEERS[peer], "batch": batch, "ratio": ratio})
                print(f"{ours_label} / {PEERS[peer]} at B={batch:,}: {ratio:.2f}x (target >= 1.0, aim 2.0)")
    return found


if __name__ == "__main__":
    raise SystemExit(main())
