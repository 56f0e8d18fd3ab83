"""Random-legal-play speed of crossenvs next to PettingZoo classic and OpenSpiel, in one run.

Each row plays uniformly random legal moves for a fixed wall-clock budget and counts steps
(one decision each). Every loop does the same work per step: read the legal mask, pick an
action, apply it, and build the observation tensor of the next player to decide.

    python benchmarks/bench.py                 # default budget, all rows
    python benchmarks/bench.py --seconds 1     # quicker
    python benchmarks/bench.py --json out.json # also write the figures

Rows of peers that are not installed are reported as skipped (`pip install -e ".[bench]"`).
Numba compilation is excluded: each loop runs once briefly before it is timed.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from typing import Callable

import numpy as np

import crossenvs


def timed(loop: Callable[[float], int], seconds: float) -> float:
    """Steps per second of ``loop(deadline)``, which plays until the deadline and returns steps."""
    loop(time.perf_counter() + min(0.2, seconds))  # warm-up: JIT compile, caches
    start = time.perf_counter()
    steps = loop(start + seconds)
    return steps / (time.perf_counter() - start)


# ----------------------------------------------------------------------------- crossenvs
def engine_loop(game_name: str, **options) -> Callable[[float], int]:
    """The raw engine: legal_mask, pick, apply, observe."""
    game = crossenvs.make_game(game_name, **options)
    rng = np.random.default_rng(0)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.initial_state()
            while not game.is_terminal(state):
                legal = np.flatnonzero(game.legal_mask(state))
                state = game.apply(state, int(legal[rng.integers(legal.size)]))
                game.observe(state, game.current_player(state))
                steps += 1
        return steps

    return loop


def aec_loop(make_env: Callable[[], object]) -> Callable[[float], int]:
    """A PettingZoo AEC env (ours or a peer's) driven the standard way: agent_iter / last / step."""
    env = make_env()
    rng = np.random.default_rng(0)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            env.reset()
            for _agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
                steps += 1
        return steps

    return loop


# ----------------------------------------------------------------------------- peers
def openspiel_loop(game_string: str) -> Callable[[float], int]:
    import pyspiel

    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(0)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                if not state.is_terminal():
                    np.asarray(state.observation_tensor(state.current_player()), dtype=np.float32)
                steps += 1
        return steps

    return loop


def pettingzoo_connect_four() -> Callable[[], object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
    return connect_four_v3.env


# ----------------------------------------------------------------------------- report
def measure(seconds: float, size: int) -> dict[str, float | None]:
    rows: dict[str, Callable[[], Callable[[float], int]]] = {
        f"crossenvs crisscross {size}x{size} engine": lambda: engine_loop("crisscross", size=size),
        f"crossenvs crisscross {size}x{size} AEC env()": lambda: aec_loop(
            lambda: crossenvs.crisscross_v0.env(size=size)
        ),
        "PettingZoo connect_four_v3 AEC env()": lambda: aec_loop(pettingzoo_connect_four()),
        "OpenSpiel connect_four": lambda: openspiel_loop("connect_four"),
        "OpenSpiel hex 11x11": lambda: openspiel_loop("hex(board_size=11)"),
    }
    rates: dict[str, float | None] = {}
    for name, build in rows.items():
        try:
            loop = build()
        except ImportError as exc:
            print(f"  {name:<44} skipped ({exc.name} not installed)")
            rates[name] = None
            continue
        rates[name] = timed(loop, seconds)
        print(f"  {name:<44} {rates[name]:>12,.0f} steps/s", flush=True)
    return rates


def ratios(rates: dict[str, float | None], size: int) -> dict[str, float | None]:
    engine = rates[f"crossenvs crisscross {size}x{size} engine"]
    aec = rates[f"crossenvs crisscross {size}x{size} AEC env()"]
    pz, hex_ = rates["PettingZoo connect_four_v3 AEC env()"], rates["OpenSpiel hex 11x11"]
    return {
        "AEC env / PettingZoo connect_four_v3 (target >= 3)": aec / pz if pz else None,
        "engine loop / OpenSpiel hex 11x11 (target >= 1)": engine / hex_ if hex_ else None,
        "engine loop / OpenSpiel connect_four": engine / rates["OpenSpiel connect_four"]
        if rates["OpenSpiel connect_four"]
        else None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed budget per row (default 3)")
    parser.add_argument("--size", type=int, default=8, help="Crisscross board size (default 8)")
    parser.add_argument("--json", help="write rates and ratios to this file")
    args = parser.parse_args(argv)

    print(f"Random legal play, {args.seconds:g} s per row (steps = decisions):")
    rates = measure(args.seconds, args.size)
    print("Ratios (same run):")
    table = ratios(rates, args.size)
    for name, value in table.items():
        print(f"  {name:<52} {'n/a' if value is None else f'{value:.2f}x'}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"rates": rates, "ratios": table}, handle, indent=2)


if __name__ == "__main__":
    main()
