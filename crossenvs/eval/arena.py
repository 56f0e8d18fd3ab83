"""Arenas: players meet round robin, in both seats, and get ratings with confidence intervals.

Results are reproducible: every game's seed derives from the arena seed and the game's place in
the schedule. The games' records are rated by :mod:`crossenvs.eval.ratings` (Bradley-Terry
ratings on the Elo scale, likelihood-ratio intervals; mean 1500, or some players held at fixed
ratings); :func:`ratings` and its table are importable from here too, beside the games they rate.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from crossenvs.support.checks import check_count, check_seed
from crossenvs.support.errors import InvalidOptionError
from crossenvs.support.waits import Wait

from ..core.game import Game
from ..players import Player, Positions
from .ratings import GameRecord, Rating, bradley_terry, interval_text, ratings

__all__ = [  # the ratings are re-exported: users rate an arena's games from here (README)
    "GameRecord",
    "Rating",
    "bradley_terry",
    "interval_text",
    "match",
    "opening_choice",
    "opening_draws",
    "play_batched",
    "play_game",
    "ratings",
    "round_robin",
    "write_results",
]


def opening_choice(uniform: float, mask: np.ndarray) -> int:
    """The legal action that a uniform draw in [0, 1) picks: the same draw picks the same move in the same position."""
    legal = np.flatnonzero(mask)
    return int(legal[min(int(uniform * legal.size), legal.size - 1)])


def opening_draws(seed: int, games: int, opening_plies: int) -> np.ndarray:
    """Uniform draws for the random openings: row ``k // 2`` serves games ``k`` and ``k + 1``, which swap seats."""
    return np.random.default_rng([seed, 7]).random(((games + 1) // 2, opening_plies))


def play_game(
    game: Game,
    first: Player,
    second: Player,
    seed: int,
    max_decisions: int = 100_000,
    opening: Sequence[float] = (),
) -> GameRecord:
    """One game, ``first`` in seat 0; both players are seeded from ``seed``.

    ``opening``: uniform draws in [0, 1), one per decision: the first ``len(opening)`` decisions are
    random legal moves picked by them (see :func:`round_robin`'s ``opening_plies``).
    """
    first.seed(seed)
    second.seed(seed + 1)
    state = game.initial_state()
    seats = (first, second)
    for decision in range(max_decisions):
        if game.is_terminal(state):
            break
        if decision < len(opening):
            action = opening_choice(opening[decision], game.legal_mask(state))
        else:
            action = seats[game.current_player(state)].act(game, state)
        state = game.apply(state, action)
    outcome = game.outcome(state)
    score = 0.5 if outcome is None or outcome[0] == 0 else (1.0 if outcome[0] > 0 else 0.0)
    return GameRecord(first.name, second.name, score, state.ply, seed)


def play_batched(
    game: Game, a: Player, b: Player, games: int, seed: int, opening_plies: int = 0, wait: Wait | None = None
) -> list[GameRecord]:
    """``games`` games of two players at once in the vector env, seats alternating.

    Game k has ``a`` first when k is even, as in the one-at-a-time path; every game is played
    to its end exactly once (the env's auto-reset games are ignored). The first ``opening_plies``
    decisions of each game are random, games ``2j`` and ``2j + 1`` sharing theirs.
    """
    from ..envs.vector import CrossVectorEnv

    a.seed(seed)
    b.seed(seed + 1)
    env = CrossVectorEnv(game, num_envs=games)
    observations, info = env.reset()
    a_first = np.arange(games) % 2 == 0
    score_first = np.full(games, np.nan)
    plies = np.zeros(games, dtype=np.int64)
    draws = opening_draws(seed, games, opening_plies)
    decisions = 0
    while np.isnan(score_first).any():
        acting_a = (info["current_player"] == 0) == a_first
        actions = info["action_mask"].argmax(axis=1)  # any legal action for the games already scored
        if decisions < opening_plies:  # every open game is at the same decision: all are still in the opening
            actions = np.array([opening_choice(draws[k // 2, decisions], info["action_mask"][k]) for k in range(games)])
            observations, _, terminations, _, info = env.step(actions)
            decisions += 1
            _score(terminations, info, score_first, plies, wait)
            continue
        open_games = np.isnan(score_first)  # restarted games are not asked of the players
        for player, rows in ((a, np.flatnonzero(acting_a & open_games)), (b, np.flatnonzero(~acting_a & open_games))):
            if len(rows):
                positions = Positions(
                    game, env.boards[rows], env.metas[rows], observations[rows], info["action_mask"][rows], rows
                )
                actions[rows] = player.act_batch(positions)
        observations, _, terminations, _, info = env.step(actions)
        _score(terminations, info, score_first, plies, wait)
    return [
        GameRecord(*((a.name, b.name) if a_first[k] else (b.name, a.name)), float(score_first[k]), int(plies[k]), seed)
        for k in range(games)
    ]


def _score(
    terminations: np.ndarray, info: dict, score_first: np.ndarray, plies: np.ndarray, wait: Wait | None = None
) -> None:
    """Record the games that ended in this step (once: a restarted game's later ends are ignored)."""
    newly = terminations & np.isnan(score_first)
    score_first[newly] = (info["seat_rewards"][newly, 0] + 1.0) / 2.0
    plies[newly] = info["final_ply"][newly]
    if wait is not None:
        wait.advance(int(newly.sum()))


def round_robin(
    game: Game, players: Sequence[Player], games_per_pair: int, seed: int = 0, opening_plies: int = 0
) -> list[GameRecord]:
    """Every pair plays ``games_per_pair`` games, alternating who sits first.

    When either player is vectorised (random, models, AlphaZero) the pair plays all its games at
    once in the batched env (the other player acts game by game within it); other pairs play one
    game at a time, each seeded on its own. Both are reproducible from ``seed``.

    ``opening_plies``: the first decisions of each game are random legal moves, and the two games
    of a seat swap (games ``2j`` and ``2j + 1``) share them. Two deterministic players (AlphaZero
    agents search deterministically) would otherwise play the same two games over and over.
    """
    names = [player.name for player in players]
    if len(set(names)) != len(names):
        raise InvalidOptionError(f"players need distinct names, got {names}")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, (int, np.integer)) or games_per_pair < 1:
        raise InvalidOptionError(f"games_per_pair must be a whole number of games, at least 1, got {games_per_pair!r}")
    opening_plies = check_count(opening_plies, "opening_plies (random decisions opening each game)", 0, 1000)
    seed = check_seed(seed, "round_robin seed") or 0
    records = []
    pairs = list(itertools.combinations(players, 2))
    # said when it lasts over two seconds (crossenvs.support.waits): a bar of games played, or a line every 30 s
    with Wait(f"playing {game.name}: {', '.join(names)}", total=len(pairs) * games_per_pair, unit="games") as wait:
        for pair_index, (a, b) in enumerate(pairs):
            # below 2**62, so that the players' seeds (pair seed + game index + 1) stay below 2**63
            pair_seed = (seed * 1_000_003 + pair_index * 10_007) % 2**62
            if a.vectorized or b.vectorized:
                records += play_batched(game, a, b, games_per_pair, pair_seed, opening_plies, wait)
                continue
            draws = opening_draws(pair_seed, games_per_pair, opening_plies)
            for game_index in range(games_per_pair):
                first, second = (a, b) if game_index % 2 == 0 else (b, a)
                records.append(play_game(game, first, second, pair_seed + game_index, opening=draws[game_index // 2]))
                wait.advance()
    return records


def match(game: Game, player: Player, opponent: Player, games: int, seed: int = 0) -> dict[str, float]:
    """``player`` against ``opponent`` over ``games`` games, seats alternating: its result rates."""
    records = round_robin(game, [player, opponent], games, seed=seed)
    scores = np.array([r.score_first if r.first == player.name else 1.0 - r.score_first for r in records])
    first = np.array([r.first == player.name for r in records])
    return {
        "games": len(records),
        "score": float(scores.mean()),
        "win_rate": float((scores == 1.0).mean()),
        "draw_rate": float((scores == 0.5).mean()),
        "loss_rate": float((scores == 0.0).mean()),
        "win_rate_first_seat": float((scores[first] == 1.0).mean()) if first.any() else float("nan"),
        "win_rate_second_seat": float((scores[~first] == 1.0).mean()) if (~first).any() else float("nan"),
    }


def write_results(path: str | Path, table: Sequence[Rating], records: Sequence[GameRecord]) -> None:
    """Ratings and games as JSON (``.json``) or the ratings table as CSV (anything else)."""
    path = Path(path)
    if path.suffix == ".json":  # null: that side is unbounded (a rating of null: not rated)
        bounded = [{**asdict(r), **{k: None for k in ("rating", "low", "high") if not math.isfinite(getattr(r, k))}}
                   for r in table]  # fmt: skip
        document = {"ratings": bounded, "games": [asdict(g) for g in records]}
        path.write_text(json.dumps(document, indent=2))
        return
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "rating", "low", "high", "games", "score", "fixed"])
        for r in table:
            row = [r.name, f"{r.rating:.1f}", f"{r.low:.1f}", f"{r.high:.1f}", r.games, f"{r.score:.3f}", int(r.fixed)]
            writer.writerow(row)
