"""Where a batched step's time goes: each game kernel timed alone on positions from random play.

    python benchmarks/kernel_split.py                         # crossings, neo_crossings
    python benchmarks/kernel_split.py crosse --rounds 9

Positions come from the vector env after some random legal plies (games of every age, as a
training batch sees them). Each kernel then runs over all of them in one numba loop on one
thread: ``mask_kernel`` (the legal mask), ``apply_kernel`` (a random legal action, on a copy),
``observe_kernel`` (the view of the player to act). Times are CPU time of the calling thread per
call, the fastest of ``--rounds`` rounds, so that a busy neighbour on a small machine moves them
less than wall-clock figures. Compare two versions by running this alternately on each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

import crossenvs
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.kernels.random_pick import random_legal_actions


def positions(game: str, batch: int = 1024, warm_up: int = 300, keep: int = 4, seed: int = 0):
    """Boards, metas and a random legal action of each, from ``keep`` steps after ``warm_up`` random steps."""
    env = CrossVectorEnv(game, num_envs=batch)
    rng = np.random.default_rng(seed)
    actions = np.empty(batch, dtype=np.int64)
    _, info = env.reset()
    boards, metas, chosen = [], [], []
    for step in range(warm_up + keep):
        random_legal_actions(info["action_mask"], rng.random(batch), actions)
        if step >= warm_up:
            boards.append(env.boards.copy())
            metas.append(env.metas.copy())
            chosen.append(actions.copy())
        info = env.step(actions)[4]
    return np.concatenate(boards), np.concatenate(metas), np.concatenate(chosen)


# The loops take the kernels as arguments (not cached on disk: they compile in a few seconds).
@njit
def mask_loop(kernel, boards, metas, out) -> None:
    for i in range(boards.shape[0]):
        kernel(boards[i], metas[i], out)


@njit
def apply_loop(kernel, boards, metas, actions, board, meta) -> None:
    for i in range(boards.shape[0]):
        board[:] = boards[i]
        meta[:] = metas[i]
        kernel(board, meta, actions[i])


@njit
def copy_loop(boards, metas, board, meta) -> None:
    """What :func:`apply_loop` spends besides the kernel (subtracted from its time)."""
    for i in range(boards.shape[0]):
        board[:] = boards[i]
        meta[:] = metas[i]


@njit
def observe_loop(kernel, boards, metas, out) -> None:
    for i in range(boards.shape[0]):
        kernel(boards[i], metas[i], metas[i, 0], out)


def cpu_seconds(run) -> float:
    start = time.thread_time()
    run()
    return time.thread_time() - start


def split(game_name: str, rounds: int) -> dict[str, float]:
    """Nanoseconds per call of each kernel of ``game_name`` (the fastest round)."""
    game = crossenvs.make_game(game_name)
    boards, metas, actions = positions(game_name)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    observation = np.zeros(game.observation_shape, dtype=np.float32)
    board, meta = boards[0].copy(), metas[0].copy()
    runs = {
        "mask": lambda: mask_loop(game.mask_kernel, boards, metas, mask),
        "apply": lambda: apply_loop(game.apply_kernel, boards, metas, actions, board, meta),
        "copy": lambda: copy_loop(boards, metas, board, meta),
        "observe": lambda: observe_loop(game.observe_kernel, boards, metas, observation),
    }
    for run in runs.values():
        run()  # compile
    best = {name: min(cpu_seconds(run) for _ in range(rounds)) for name, run in runs.items()}
    best["apply"] -= best.pop("copy")
    return {name: seconds / len(boards) * 1e9 for name, seconds in best.items()}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", default=["crossings", "neo_crossings"])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per kernel; the fastest counts")
    args = parser.parse_args(argv)
    figures = {}
    for game in args.games:
        figures[game] = split(game, args.rounds)
        print(f"{game:<16}" + "".join(f"  {name} {ns:7,.0f} ns" for name, ns in figures[game].items()), flush=True)
    return figures


if __name__ == "__main__":
    main()
