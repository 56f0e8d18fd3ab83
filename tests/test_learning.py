"""Trainers shown to learn: a short run on a small board must beat random play by a margin no wrong sign reaches.

The reward and value signs themselves are checked cheaply in the fast tier (tests/test_signs.py); these
runs show the whole loop learns. Uniform random play wins about half its games against itself.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_ppo_self_play_example_beats_random_within_twenty_thousand_steps():
    """examples/ppo_device.py on the CPU env, 4x4 Crisscross: 95% against random after 20k steps (30 s on
    the 2-core VM, stopping there); trained on negated rewards it wins 10-13% and runs its 4 minutes."""
    command = [sys.executable, str(ROOT / "examples" / "ppo_device.py"), "--size", "4", "--device", "cpu"]
    command += ["--num-envs", "64", "--width", "16", "--eval-every", "5", "--eval-games", "100"]
    command += ["--target", "0.8", "--minutes", "4", "--seed", "0"]  # stops at the target
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=400)
    assert result.returncode == 0, result.stderr[-2000:]
    rates = [int(rate) for rate in re.findall(r"(\d+)% against random", result.stdout)]
    assert rates and rates[-1] >= 80, result.stdout


@pytest.mark.slow
def test_gumbel_alphazero_self_play_learns_a_policy_that_beats_random():
    """Self-play with the Gumbel search, learning from its targets: 4x4 Crisscross, 32 games at once, 500
    search steps with a gradient step each (about 10 s). The raw policy (no search) then scores about 0.95
    against random over 200 games, where it scores 0.49 untrained and 0.58 with the value targets negated
    (after 250 and 300 steps: 0.90 and 0.78, so the margin needs the 500)."""
    import numpy as np
    import torch
    from conftest import AZ_TINY

    from crossenvs.az.config import Config
    from crossenvs.az.learn import train_step
    from crossenvs.az.network import AlphaZeroNet, evaluator
    from crossenvs.az.selfplay import SelfPlay
    from crossenvs.eval.arena import match
    from crossenvs.players import FunctionPlayer, RandomPlayer

    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    selfplay = SelfPlay(Config(**{**AZ_TINY, "num_envs": 32, "simulations": 8}), np.random.default_rng(0))
    game = selfplay.game
    net = AlphaZeroNet(game.observation_shape, game.num_actions, channels=16, blocks=1).eval()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    evaluate, learnt = evaluator(net), []
    for _ in range(500):
        finished = selfplay.step(evaluate)
        if len(finished.results):
            learnt.append((finished.observations, finished.policies, finished.results))
        if learnt:
            observations, policies, results = (np.concatenate(part)[-2048:] for part in zip(*learnt))
            batch = rng.integers(len(results), size=64)
            train_step(net, optimizer, (observations[batch], policies[batch], results[batch]), "cpu")

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = net(torch.from_numpy(observations.astype(np.float32)))[0].numpy()
        return np.where(masks == 1, logits, -np.inf).argmax(axis=1)

    score = match(game, FunctionPlayer(policy, batched=True, name="net"), RandomPlayer(), games=200, seed=5)["score"]
    assert score >= 0.8
