"""Adapters to other RL libraries; each module imports its library, so import the one you use.

* :mod:`crossenvs.integrations.rllib`: Ray RLlib (new API stack): a turn-based ``MultiAgentEnv``
  with action masks, a masked CNN ``RLModule``, league self-play helpers and the ``rllib:`` player.
* :mod:`crossenvs.integrations.openspiel`: OpenSpiel: every game registered with pyspiel as
  ``crossenvs_<game>`` for its bots, evaluation and tests, and our players as its bots.
* :mod:`crossenvs.integrations.torchrl`: TorchRL: ``CrossTorchRLEnv``, a batch of games as one
  batch-locked ``EnvBase`` on the CPU or a GPU, for collectors and losses that play both seats.
* :mod:`crossenvs.integrations.pgx_peer`: pgx, the peer our batched envs are timed against: random
  legal play as pgx's users drive it (jitted, vmapped, steps chained in a ``lax.scan``), the one
  loop ``benchmarks/bench.py`` and ``benchmarks/gpu.py`` both time.
"""
