"""AlphaZero self-play speed, measured: the search steps self-play runs, timed apart from the network.

One search step is what self-play does before every move of every game: the batch's trees walked
in numba (selection, expansion, backup) and one forward pass per simulation for all leaves.
``benchmarks/az_speed.py``, ``az_network.py``, ``az_ray.py`` and ``bench.py`` report from here.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from crossenvs.az.network import AlphaZeroNet, evaluator
from crossenvs.az.search.gumbel import GumbelSearch
from crossenvs.core.game import Game
from crossenvs.core.options import parse_options
from crossenvs.core.registry import make_game


def measure(
    game: Game,
    batch: int,
    simulations: int,
    channels: int,
    blocks: int,
    device: str,
    seconds: float,
    precision: str = "float32",
) -> dict:
    """Search steps of ``batch`` games from the opening for ``seconds`` (after one to compile and warm up), with
    an untrained network (speed does not depend on it): positions and network evaluations per second, and the
    share of the time spent in the network."""
    net = AlphaZeroNet(game.observation_shape, game.num_actions, channels, blocks).to(device).eval()
    evaluate, network_seconds = evaluator(net, device, precision), [0.0]

    def timed_evaluate(observations):
        started = time.perf_counter()
        result = evaluate(observations)
        network_seconds[0] += time.perf_counter() - started
        return result

    rng = np.random.default_rng(0)
    search = GumbelSearch(game, batch, simulations)
    state = game.initial_state()
    boards, metas = np.repeat(state.board[None], batch, 0), np.repeat(state.meta[None], batch, 0)
    search.run(boards, metas, timed_evaluate, rng)  # compile and warm up
    network_seconds[0], moves = 0.0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        search.run(boards, metas, timed_evaluate, rng)
        moves += 1
    elapsed = time.perf_counter() - started
    return {
        "game": game.name,
        "options": game.options,
        "batch": batch,
        "simulations": simulations,
        "device": device,
        "precision": precision,
        "positions_per_second": round(moves * batch / elapsed, 1),
        "network_evaluations_per_second": round(moves * batch * (simulations + 1) / elapsed, 1),
        "network_share": round(network_seconds[0] / elapsed, 3),
    }


def game_from_args(args: argparse.Namespace) -> Game:
    """The game ``--game`` and ``--option`` name; Crisscross defaults to 6x6, ``make train``'s board."""
    default = ["size=6"] if args.game == "crisscross" else []
    return make_game(args.game, **parse_options(args.option if args.option is not None else default))
