"""One figure a process, for timing whole processes against another checkout (issue 59's paired runs).

    python benchmarks/whole_process.py steps crisscross 64 20000    # a vector env: reset, then random steps
    python benchmarks/whole_process.py search crisscross 64 32 20   # CPU Gumbel searches (a fixed evaluator)
    python benchmarks/whole_process.py aec crisscross 300            # PettingZoo AEC games, random legal moves
    python benchmarks/whole_process.py cold-vector crisscross        # a vector env's first step (time it cold)
    python benchmarks/whole_process.py cold-search crisscross        # a first search (time it cold)
    python benchmarks/whole_process.py step-rate connect_four 1024   # us a vector step, median of 7 windows
    python benchmarks/whole_process.py search-rate crosse 1 64       # ms a search (a fixed evaluator), likewise

Each prints the seconds of its own work; time the whole process from outside with ``/usr/bin/time`` (or any
paired runner), warm cache (``CROSSENVS_CACHE_DIR`` used once before) or cold (a fresh one each run). It uses
only what every checkout since the kernel wing's start has (``CrossVectorEnv``, ``random_actions``,
``GumbelSearch``, ``envs.aec.make_env``), so ``--checkout <other checkout>`` first on the command line times
another checkout with the same script. (``PYTHONPATH`` alone does not: an editable install's import finder
runs before ``sys.path`` and finds this checkout's package whatever ``PYTHONPATH`` says.)

The ``*-rate`` figures time inside the process, after a warm-up, so the import and the start do not drown a
microsecond step: interleave the checkouts' processes and compare medians.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def steps(game: str, num_envs: int, count: int) -> None:
    from crossenvs.envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=num_envs)
    env.reset(seed=0)
    for _ in range(count):
        env.step(env.random_actions())


def search(game: str, batch: int, simulations: int, count: int) -> None:
    import crossenvs
    from crossenvs.az.search import GumbelSearch

    g = crossenvs.make_game(game)
    rng = np.random.default_rng(0)
    start = g.initial_state()
    boards, metas = np.repeat(start.board[None], batch, axis=0), np.repeat(start.meta[None], batch, axis=0)
    logits, values = np.zeros((batch, g.num_actions), np.float32), np.zeros(batch, np.float32)

    def evaluate(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(observations)
        return logits[:n], values[:n]

    searcher = GumbelSearch(g, batch, simulations)
    for _ in range(count):
        searcher.run(boards, metas, evaluate, rng)


def aec(game: str, games: int) -> None:
    from crossenvs.envs.aec import make_env

    env = make_env(game)
    rng = np.random.default_rng(0)
    for episode in range(games):
        env.reset(seed=episode)
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def _windows(work: Callable[[], None], seconds: float = 2.0, windows: int = 7) -> float:
    """Seconds per call of ``work``: the median of ``windows`` windows, after a warm-up.

    The one timing of the benchmarks not taken from :mod:`crossenvs.selfcheck.timing`: this script loads another
    checkout's package (``--checkout``), which may predate that module, and both sides must be timed alike."""
    for _ in range(20):
        work()
    per_call = []
    for _ in range(windows):
        calls, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds / windows:
            work()
            calls += 1
        per_call.append((time.perf_counter() - started) / calls)
    return statistics.median(per_call)


def step_rate(game: str, num_envs: int) -> float:
    """Microseconds a vector step with random legal actions."""
    from crossenvs.envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=num_envs)
    env.reset(seed=0)
    return _windows(lambda: env.step(env.random_actions())) * 1e6


def search_rate(game: str, batch: int, simulations: int) -> float:
    """Milliseconds a Gumbel search of ``batch`` start positions (a fixed evaluator: the search's own work)."""
    import crossenvs
    from crossenvs.az.search import GumbelSearch

    g = crossenvs.make_game(game)
    rng = np.random.default_rng(0)
    start = g.initial_state()
    boards, metas = np.repeat(start.board[None], batch, axis=0), np.repeat(start.meta[None], batch, axis=0)
    logits, values = np.zeros((batch, g.num_actions), np.float32), np.zeros(batch, np.float32)
    searcher = GumbelSearch(g, batch, simulations)
    return _windows(lambda: searcher.run(boards, metas, lambda o: (logits[: len(o)], values[: len(o)]), rng)) * 1e3


def use_checkout(path: str) -> None:
    """Import crossenvs from the checkout at ``path`` (its package loaded by file, an editable install's finder set
    aside, so its submodules come from that folder too)."""
    sys.meta_path[:] = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]
    init = Path(path).resolve() / "crossenvs" / "__init__.py"
    spec = importlib.util.spec_from_file_location("crossenvs", init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["crossenvs"] = module
    spec.loader.exec_module(module)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--checkout"]:
        use_checkout(argv[1])
        argv = argv[2:]
    mode, game, *numbers = argv
    if mode in ("step-rate", "search-rate"):
        rate = step_rate(game, int(numbers[0])) if mode == "step-rate" else search_rate(game, *map(int, numbers))
        print(f"{rate:.3f}")
        return
    started = time.perf_counter()
    if mode == "steps":
        steps(game, int(numbers[0]), int(numbers[1]))
    elif mode == "search":
        search(game, *map(int, numbers))
    elif mode == "aec":
        aec(game, int(numbers[0]))
    elif mode == "cold-vector":
        steps(game, 64, 1)
    elif mode == "cold-search":
        search(game, 8, 4, 1)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(f"{mode} {game} {' '.join(numbers)}: {time.perf_counter() - started:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
