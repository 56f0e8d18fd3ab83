"""Argument checks of the engine's own entry points: seeds.

numpy's generators refuse negative seeds deep inside their own code, so every entry point (envs,
players, arena, CLI, configs) checks a seed at the door with :func:`check_seed`, and the error
names the argument. Checks of command-line flags and output paths live with the commands
(:mod:`crossenvs.flag_checks`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InvalidOptionError

MAX_SEED = 2**63 - 1


def check_seed(seed: Any, where: str = "seed") -> int | None:
    """``seed`` as an int (or None), or an error saying what a seed must be."""
    if seed is None:
        return None
    value = seed[()] if isinstance(seed, np.ndarray) and seed.ndim == 0 else seed
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidOptionError(f"{where} must be None or an integer in 0..2**63-1, got {value!r}")
    if not 0 <= value <= MAX_SEED:
        raise InvalidOptionError(f"{where} must be in 0..2**63-1, got {int(value)}")
    return int(value)
