"""Checkpoints: the files the trainers write, and one careful reader for each kind.

Three kinds, told apart by :func:`detect_kind`, each read by a module of its own:

* **AlphaZero** (``alphazero.py``; written by ``crossenvs train alphazero``): a ``.pt`` file, a plain
  ``torch.save`` dictionary, read with ``weights_only=True`` and checked against its declared,
  bounded sizes before any network is built.
* **MaskablePPO** (``sb3.py``; ``crossenvs train ppo``): stable-baselines3's ``.zip`` with
  ``step_<n>.json`` beside it, read without unpickling; only ``load_sb3(..., allow_pickle=True)``
  (the ``pickle:<file>`` spec) unpickles, for a file the user trusts (``docs/security.md``).
* **RLlib** (``rllib.py``; ``crossenvs train rllib``): a folder, ``iter_<n>/`` holding an
  Algorithm checkpoint and ``crossenvs.json`` (the game it plays).

What they share (the trainers' file names, the kinds, the game check, the device) is in
``files.py``, a run's checkpoints in training order in ``runs.py``, and MaskablePPO's CNN
(``BoardCNN``, the policy ``sb3.py`` rebuilds) in ``board_cnn.py``. Every missing, corrupt,
oversized or wrong-game checkpoint is a :class:`CheckpointError` saying what was wrong and what
would be right. Torch, stable-baselines3
and Ray are imported only when a checkpoint of theirs is read; a missing one is an error naming
the extra that installs it. The names below are re-exported so that ``crossenvs.checkpoints.X``
reads as it always has.
"""

from __future__ import annotations

from .alphazero import AZ_FORMAT, AZ_LIMITS, load_alphazero, read_alphazero, save_alphazero
from .files import (
    ALPHAZERO,
    AZ_FILES,
    AZ_FINAL,
    AZ_LATEST,
    AZ_SNAPSHOT_GLOB,
    CHECKPOINTS,
    RLLIB,
    RLLIB_GLOB,
    RLLIB_METADATA,
    RLLIB_MODULE_FILE,
    SB3,
    SB3_FILES,
    SB3_META_GLOB,
    az_snapshot_name,
    az_snapshot_seconds,
    check_trained_on,
    resolve_device,
    rllib_iteration_name,
    sb3_step_name,
)
from .kinds import detect_kind, spec_for
from .rllib import load_rllib_module, read_rllib_metadata, rllib_module_folder, save_rllib
from .runs import RunCheckpoints, run_checkpoints
from .sb3 import (
    PICKLE_PREFIX,
    SB3_FORMAT,
    SB3_MAX_NET_WIDTH,
    SB3_OPTIMIZER_ENTRY,
    SB3_POLICIES,
    SB3_POLICY_ENTRY,
    load_sb3,
    new_sb3_policy,
    pickled_sb3_player,
    ppo_policy_kwargs,
    read_sb3_metadata,
    read_sb3_optimizer,
    sb3_architecture,
    sb3_metadata_path,
    sb3_player,
)

__all__ = [
    "ALPHAZERO",
    "AZ_FILES",
    "AZ_FINAL",
    "AZ_FORMAT",
    "AZ_LATEST",
    "AZ_LIMITS",
    "AZ_SNAPSHOT_GLOB",
    "CHECKPOINTS",
    "PICKLE_PREFIX",
    "RLLIB",
    "RLLIB_GLOB",
    "RLLIB_METADATA",
    "RLLIB_MODULE_FILE",
    "SB3",
    "SB3_FILES",
    "SB3_FORMAT",
    "SB3_MAX_NET_WIDTH",
    "SB3_META_GLOB",
    "SB3_OPTIMIZER_ENTRY",
    "SB3_POLICIES",
    "SB3_POLICY_ENTRY",
    "RunCheckpoints",
    "az_snapshot_name",
    "az_snapshot_seconds",
    "check_trained_on",
    "detect_kind",
    "load_alphazero",
    "load_rllib_module",
    "load_sb3",
    "new_sb3_policy",
    "pickled_sb3_player",
    "ppo_policy_kwargs",
    "read_alphazero",
    "read_rllib_metadata",
    "read_sb3_metadata",
    "read_sb3_optimizer",
    "resolve_device",
    "rllib_iteration_name",
    "rllib_module_folder",
    "run_checkpoints",
    "save_alphazero",
    "save_rllib",
    "sb3_architecture",
    "sb3_metadata_path",
    "sb3_player",
    "sb3_step_name",
    "spec_for",
]
