"""``crossenvs train alphazero``: Gumbel AlphaZero, self-play with tree search over hundreds of games at once.

    crossenvs train alphazero --game crisscross --option size=6      # a new run under runs/, shipped config crisscross6
    crossenvs train alphazero --config my.yaml --set eval_games=20   # a config of one's own, one key changed
    crossenvs train alphazero --resume runs/az-crisscross-20261123-140000    # continue a run
    crossenvs train alphazero --resume runs/... --from-checkpoint runs/.../checkpoints/seconds_000300.pt
    crossenvs train alphazero --game crossings --max-minutes 2 --device auto   # CUDA when present
    crossenvs train alphazero --game crisscross --actors 2 [--address HOST:6379]  # self-play on Ray actors

``training/alphazero.py`` is the same command in a checkout.

How it works:

* **Self-play.** ``num_envs`` games are stepped together in the vector env. Before every move,
  :class:`crossenvs.az.search.gumbel.GumbelSearch` searches all of them at once: each simulation walks
  every game's tree in numba over the game's real kernels, and the network evaluates all the new
  leaves in one forward pass. Root actions are chosen by Gumbel sampling with sequential halving
  (so 16-64 simulations still improve the policy), and the policy target is the improved policy
  ``softmax(logits + sigma(completed Q))`` (Danihelka et al., 2022; mctx's ``gumbel_muzero_policy``).
  A player who acts twice in a row (Crosse hops, Charing Cross re-placements) keeps the sign of
  its values: the search flips signs only where the player to move changes.
* **Learning.** Each finished game's positions enter a replay buffer with the game's result for
  the player who moved there. After every search step the network (a small residual CNN,
  :class:`crossenvs.az.network.AlphaZeroNet`) takes ``train_ratio`` gradient samples per new
  position: cross-entropy to the improved policy plus squared error to the result. Each sample
  is seen through one of the game's symmetries (``Game.symmetries``; Crisscross has four).
* **A run's folder.** ``config.yaml``; ``checkpoints/latest.pt`` (weights, optimiser, counters;
  written atomically every ``checkpoint_minutes`` and at the end), ``checkpoints/final.pt``, and
  ``checkpoints/seconds_<n>.pt`` (the network after n seconds, for ``crossenvs rating-plot``);
  ``tensorboard/``; ``summary.json``. ``--resume`` continues from ``latest.pt``, which keeps the
  replay buffer too (float16, ``replay_size`` positions: 21 MB for the shipped ``crisscross6`` config).
  A run killed before its first checkpoint resumes from its config.yaml; a kill while writing
  leaves hidden ``.<name>.tmp`` files, removed on resume. ``--resume RUN --evaluate-only`` runs the
  final evaluation again (for a run killed during its final match). Should ``latest.pt`` be unreadable, the error names the newest good
  snapshot and the ``--from-checkpoint`` command that continues from it (a snapshot keeps the
  network and counters, not the optimiser, which starts afresh).
* **On Ray** (``--actors N``, :mod:`crossenvs.az.ray_actors`): N actors play the self-play, each its own
  batch of games with its own copy of the network, and this process is the learner (:class:`crossenvs.az.run.Run`
  is shared by both paths, so the folder, checkpoints and ``--resume`` are the same).
* **The end.** The final network plays ``eval_games`` games against ``eval_opponent`` (seats
  alternating) searching with ``eval_simulations``, through the project's arena, is rated on the
  game's fixed-anchor ladder (``eval_ladder_games`` games at most, :mod:`crossenvs.eval.ladder`),
  and the run prints one line: steps, positions per second, the score, the ladder rating.
"""

from __future__ import annotations

import argparse
from typing import Any

from crossenvs.az.evaluation import evaluate_only
from crossenvs.az.run import Run, check_self_play_here, self_play_here
from crossenvs.checkpoints import resolve_device


def train(args: argparse.Namespace) -> dict[str, Any]:
    """A run: self-play here (the default) or on Ray actors (``--actors N``); the same folder either way."""
    device = resolve_device(args.device)
    if args.resume and args.evaluate_only:
        return evaluate_only(args, device)
    if args.actors:
        from crossenvs.az.cluster import connect  # Ray only when asked for
        from crossenvs.az.ray_actors import self_play_on_actors

        connection = connect(args.address, args.actors)  # refused, or too few CPUs: before any folder
        run = Run.open(args, device, local_actors=args.actors if connection.address == "local" else 0)
        self_play_on_actors(run, connection)
    else:
        check_self_play_here(device)  # the GPU path's needs, before any folder
        run = Run.open(args, device)
        self_play_here(run)
    return run.finish()
