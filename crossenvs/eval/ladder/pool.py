"""Playing many pairs of players across processes, reproducibly and resumably: the games a ladder is built from.

A pair's games are cut into jobs of at most :data:`JOB_GAMES` games (:func:`play_pairs`); a job makes its
players in the worker process (a player holds compiled kernels, networks and search trees, which do not
cross processes) and seeds them from its place in the list, so the records are the same whatever the
number of processes.

A build of the shipped ladders plays for hours (a game between the strongest MCTS rungs searches for many
seconds; measured: docs/evaluation.md, section 'How the shipped ladders were made'), so each finished job is
appended to a *journal* (JSON lines, never pickle: a journal is data anyone may hand over) the moment it ends.
Run the same build again and the jobs already in the journal are read back instead of played: a killed build,
or one spread over several sessions, loses at most the jobs that were running.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

from crossenvs.support.errors import CrossenvsError
from crossenvs.support.waits import Wait, silence

from ...core.game import Game
from ...core.registry import make_game
from ...players import make_player
from ..arena import round_robin
from ..ratings import GameRecord
from .files import OPENING_PLIES

#: games one job plays at most (even, so each job holds whole seat swaps): what a killed build can lose
JOB_GAMES = 50
#: a journal larger than this is refused before it is read (a full build of every ladder is ~2 MB)
MAX_JOURNAL_BYTES = 200_000_000

Job = tuple  # (game name, options, spec a, spec b, games, seed, opening plies): a job's arguments, its journal key


class JournalError(CrossenvsError, ValueError):
    """A games journal that cannot be read or written."""


def _play_pair(
    game_name: str, options: dict, spec_a: str, spec_b: str, games: int, seed: int, opening_plies: int
) -> list[GameRecord]:
    """One job's games, in a worker process (players are made there: they do not cross processes)."""
    game = make_game(game_name, **options)
    a = make_player(spec_a, game=game, seed=seed)
    b = make_player(spec_b, game=game, seed=seed + 1)
    a.name, b.name = spec_a, spec_b
    return round_robin(game, [a, b], games, seed=seed, opening_plies=opening_plies)


def pair_jobs(
    game: Game,
    specs: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    games_per_pair: int,
    seed: int,
    opening_plies: int = OPENING_PLIES,
) -> list[Job]:
    """Each pair's games as jobs of at most :data:`JOB_GAMES` games, each with its own seed."""
    jobs = []
    for k, (i, j) in enumerate(pairs):
        for start in range(0, games_per_pair, JOB_GAMES):
            games = min(JOB_GAMES, games_per_pair - start)
            job_seed = (seed * 1_000_003 + k * 10_007 + (start // JOB_GAMES) * 1_000_000_007) % 2**62
            jobs.append((game.name, dict(game.options), specs[i], specs[j], games, job_seed, opening_plies))
    return jobs


def play_pairs(
    game: Game,
    specs: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    games_per_pair: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    opening_plies: int = OPENING_PLIES,
    journal: str | Path | None = None,
) -> list[GameRecord]:
    """Every pair's games, in ``workers`` processes; reproducible from ``seed`` whatever ``workers`` is.

    ``journal``: a JSON-lines file each finished job is appended to, and read back from instead of
    playing it again: the same call after an interruption resumes where the last one stopped.
    """
    jobs = pair_jobs(game, specs, pairs, games_per_pair, seed, opening_plies)
    kept = read_journal(journal) if journal is not None else {}
    done = {k: kept[key] for k, key in enumerate(map(journal_key, jobs)) if key in kept}
    if done and progress:
        progress(f"resuming: {len(done)} of {len(jobs)} jobs already played, read from {journal}")
    todo = [k for k in range(len(jobs)) if k not in done]
    label = f"playing {game.name}: {len(jobs)} jobs of up to {JOB_GAMES} games, {workers} processes"
    with Wait(label, total=len(todo), unit="jobs") as wait:  # the workers are silenced: this speaks for them
        for k, result in _results([jobs[k] for k in todo], todo, workers):
            done[k] = result
            if journal is not None:
                append_journal(journal, jobs[k], result)
            wait.advance()
            if progress:
                progress(f"{jobs[k][2]} vs {jobs[k][3]}: {len(result)} games ({len(done)} of {len(jobs)} jobs)")
    return [record for k in range(len(jobs)) for record in done[k]]


def _results(jobs: list[Job], places: list[int], workers: int) -> Iterator[tuple[int, list[GameRecord]]]:
    """Each job's records with its place, as they finish: here, or in a pool of ``workers`` processes."""
    if workers <= 1:
        yield from ((place, _play_pair(*job)) for place, job in zip(places, jobs))
        return
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=silence) as pool:
        futures = {pool.submit(_play_pair, *job): place for place, job in zip(places, jobs)}
        for future in as_completed(futures):
            yield futures[future], future.result()


def journal_key(job: Job) -> str:
    """A job as the journal names it: its arguments, as canonical JSON."""
    return json.dumps(list(job), sort_keys=True)


def append_journal(journal: str | Path, job: Job, records: Sequence[GameRecord]) -> None:
    """Append one finished job, as one line written whole (a line cut by a kill is skipped on reading)."""
    line = json.dumps({"job": json.loads(journal_key(job)), "records": [_record_row(r) for r in records]})
    try:
        with open(journal, "a", encoding="utf-8") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())
    except OSError as exc:
        raise JournalError(f"cannot write the games journal {journal}: {exc.strerror}; give another path") from None


def read_journal(journal: str | Path) -> dict[str, list[GameRecord]]:
    """The jobs a journal holds, by :func:`journal_key`; an absent journal holds none."""
    path = Path(journal)
    if not path.exists():
        return {}
    size = path.stat().st_size
    if size > MAX_JOURNAL_BYTES:
        raise JournalError(f"the games journal {path} is {size:,} bytes, over the {MAX_JOURNAL_BYTES:,} a "
                           "journal may hold; is it the right file?")  # fmt: skip
    kept: dict[str, list[GameRecord]] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            kept[json.dumps(entry["job"], sort_keys=True)] = [_record(row) for row in entry["records"]]
        except (ValueError, KeyError, TypeError) as exc:
            if number == len(lines):
                continue  # the last line, cut short by a kill: that job is played again
            raise JournalError(f"the games journal {path}, line {number}, is not a job's games ({exc}); "
                               "a journal is written only by `crossenvs ladder`") from None  # fmt: skip
    return kept


def _record(row: list) -> GameRecord:
    """A journal row back as a game, its fields checked: a score is a win, a draw or a loss."""
    first, second, score, plies, seed = row
    if not (isinstance(first, str) and isinstance(second, str) and score in (0, 0.5, 1)):
        raise ValueError(f"not a game: {row!r}")
    return GameRecord(first, second, float(score), int(plies), int(seed))


def _record_row(record: GameRecord) -> list:
    return [record.first, record.second, record.score_first, record.plies, record.seed]


def default_workers() -> int:
    """Processes for building a ladder: the machine's cores."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
