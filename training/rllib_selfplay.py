"""League self-play on Ray RLlib (PPO, new API stack): one machine or a whole Ray cluster; the same command as
``crossenvs train rllib`` (every flag is the same).

    python training/rllib_selfplay.py --game crosse --iterations 1            # a smoke run, local Ray
    python training/rllib_selfplay.py --game charing_cross --iterations 200 --env-runners 2
    python training/rllib_selfplay.py --game crossings --address auto --env-runners 64 --learners 4 --gpus-per-learner 1
    python training/rllib_selfplay.py --resume runs/rllib/<run> [--iterations 400]   # continue a run

How it works (the glue is :mod:`crossenvs.integrations.rllib`, the run :mod:`crossenvs.integrations.rllib_run`):

* **Env and model.** Each game is a turn-based ``MultiAgentEnv`` whose observations carry the
  legal actions; ``main`` is a small masked CNN (:class:`~crossenvs.integrations.rllib.MaskedBoardModule`),
  so no illegal action is ever sampled (the run prints the count it saw: 0).
* **League.** ``main`` plays both seats (drawn per episode) against the league: the random
  policy at first, and from then on also frozen snapshots of itself, one added with
  ``Algorithm.add_module`` every ``--snapshot-every`` iterations (the newest ``--league-recent``
  are drawn as opponents). Only ``main`` is trained.
* **Where it runs.** Without ``--address`` (and without ``RAY_ADDRESS``) the script starts a local
  Ray with ``--num-cpus`` CPUs (2). With ``--address auto`` (or ``RAY_ADDRESS``) it joins a running
  cluster (``ray start --head``; other machines ``ray start --address=<head>:6379``) and spreads
  ``--env-runners`` sampling actors and ``--learners`` learner actors over it. Every machine needs
  crossenvs and ``ray[rllib]`` installed, at the same versions.
* **A run's folder** (``--out``, default ``runs/rllib/<game>-<time>``): ``run.json`` (the settings),
  ``checkpoints/iter_<n>/`` (Algorithm checkpoints, ``algo.save_to_path``, written beside and then
  renamed, with ``crossenvs.json`` naming the game; the newest ``--keep`` stay), ``summary.json``. The newest checkpoint, or the
  folder itself, is a player everywhere: ``crossenvs eval crosse --players rllib:<folder> random``.
* **Resuming.** ``--resume RUN`` continues a run from its newest checkpoint (weights, optimiser,
  league snapshots; leftovers of a write cut short are removed) with the settings in its
  ``run.json``; ``--iterations`` may set a new total, any other flag that differs is refused.
* **The end.** The final checkpoint plays ``--eval-games`` games against ``--eval-opponent``, seats
  alternating, through the project's arena (loaded as the player ``rllib:<checkpoint>``), and the
  run prints one line: env steps, env steps per second, the score.
"""

from __future__ import annotations

import sys

from crossenvs.cli import main as crossenvs_main


def main(argv: list[str] | None = None) -> int:
    """``crossenvs train rllib ARGV``: 2 and one line ``error: ...`` for a refused input (checked before Ray starts)."""
    return crossenvs_main(["train", "rllib", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
