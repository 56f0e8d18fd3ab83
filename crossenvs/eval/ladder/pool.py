"""Playing many pairs of players across processes, reproducibly: the games a ladder is built from.

Each pair's games are one job (:func:`play_pairs`); a job makes its players in the worker
process (a player holds compiled kernels, networks and search trees, which do not cross
processes) and seeds them from the job's place in the list, so the records are the same
whatever the number of processes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from ...core.game import Game
from ...core.registry import make_game
from ...core.waits import Wait, silence
from ...players import make_player
from ..arena import round_robin
from ..ratings import GameRecord
from .files import OPENING_PLIES


def _play_pair(
    game_name: str, options: dict, spec_a: str, spec_b: str, games: int, seed: int, opening_plies: int
) -> list[GameRecord]:
    """One pair's games, in a worker process (players are made there: they do not cross processes)."""
    game = make_game(game_name, **options)
    a = make_player(spec_a, game=game, seed=seed)
    b = make_player(spec_b, game=game, seed=seed + 1)
    a.name, b.name = spec_a, spec_b
    return round_robin(game, [a, b], games, seed=seed, opening_plies=opening_plies)


def play_pairs(
    game: Game,
    specs: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    games_per_pair: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    opening_plies: int = OPENING_PLIES,
) -> list[GameRecord]:
    """Every pair's games, in ``workers`` processes; reproducible from ``seed`` whatever ``workers`` is."""
    jobs = [
        (
            game.name,
            dict(game.options),
            specs[i],
            specs[j],
            games_per_pair,
            (seed * 1_000_003 + k * 10_007) % 2**62,
            opening_plies,
        )
        for k, (i, j) in enumerate(pairs)
    ]
    records: list[GameRecord] = []
    label = f"playing {game.name}: {len(jobs)} pairs of players, {games_per_pair} games each, {workers} processes"
    with Wait(label, total=len(jobs), unit="pairs") as wait:  # the workers are silenced: this speaks for them
        for result, job in zip(_results(jobs, workers), jobs):  # results first: the pool closes when they end
            records += result
            wait.advance()
            if progress:
                progress(f"{job[2]} vs {job[3]}: {games_per_pair} games")
    return records


def _results(jobs: list[tuple], workers: int) -> Iterator[list[GameRecord]]:
    """Each job's records in the jobs' order, as they come: here, or in a pool of ``workers`` processes."""
    if workers <= 1:
        yield from (_play_pair(*job) for job in jobs)
        return
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=silence) as pool:
        yield from pool.map(_play_pair, *zip(*jobs))


def default_workers() -> int:
    """Processes for building a ladder: the machine's cores."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
