"""Argument checks of the engine's own entry points: seeds, counts typed as text, memory.

numpy's generators refuse negative seeds deep inside their own code, so every entry point (envs,
players, arena, CLI, configs) checks a seed at the door with :func:`check_seed`, and the error
names the argument. Checks of command-line flags and output paths sit beside these
(:mod:`crossenvs.support.command_args`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from crossenvs.support.actions import describe
from crossenvs.support.errors import InvalidArgumentError, InvalidOptionError

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


def whole_number(text: str, what: str, low: int = 0, high: int | None = None) -> int:
    """``text`` read as a whole number in ``low..high``, or an error naming ``what`` and the range.

    Only the ASCII digits 0-9 count: ``str.isdigit`` also accepts ``²`` and other digits that
    ``int()`` refuses, which used to end in a raw ``ValueError``.
    """
    bound = f"from {low} to {high:,}" if high is not None else f"{low} or more"
    digits = text.removeprefix("-") if isinstance(text, str) else ""  # a negative number is one, only out of range
    if not (digits.isascii() and digits.isdigit()):
        raise InvalidOptionError(f"{what}: {text!r} is not a whole number; write digits 0-9, {bound}")
    value = int(text)
    if value < low or (high is not None and value > high):
        raise InvalidOptionError(f"{what}: {value:,} is out of range; give a whole number {bound}")
    return value


def check_count(value: Any, what: str, low: int, high: int) -> int:
    """A whole number (an int, not a bool or a float) in ``low..high``, or one error saying what would do."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidOptionError(f"{what}: give a whole number from {low:,} to {high:,}, got {value!r}")
    return int(value)


def check_batch_size(value: Any, what: str = "num_envs") -> int:
    """A batch's number of games (an env's ``num_envs``, a search's ``batch``): a positive int, or one error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidOptionError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def reset_mask(options: Any, num_envs: int) -> np.ndarray | None:
    """A vector env's ``reset(options=...)`` read once for both targets: None (every game restarts) or the games
    to restart, ``options["reset_mask"]`` as a (num_envs,) bool NumPy array (a torch tensor is copied to the
    host; the only option there is)."""
    if options is None:
        return None
    if not isinstance(options, dict) or set(options) - {"reset_mask"}:
        raise InvalidOptionError(f"reset options must be None or {{'reset_mask': bool array}}, got {options!r}")
    given = options["reset_mask"]
    mask = np.asarray(given.detach().cpu().numpy() if hasattr(given, "detach") else given)
    if mask.dtype != np.bool_ or mask.shape != (num_envs,):
        raise InvalidOptionError(f"reset_mask must be a bool array of shape ({num_envs},), got {describe(given)}")
    return np.ascontiguousarray(mask)


def available_memory() -> int:
    """Bytes this process may still allocate: Linux's MemAvailable where readable, else physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**63 - 1  # unknown: refuse nothing


def check_memory(needed: int, what: str, fix: str) -> None:
    """Refuse, before allocating, what would take more than the memory available now.

    ``needed`` is the estimate in bytes; the error names ``what`` needs it and ``fix`` (how to ask
    for less), so a request that cannot fit fails at once instead of swapping the machine.
    """
    free = available_memory()
    if needed > free:
        raise InvalidArgumentError(
            f"{what} needs about {needed / 2**30:,.1f} GiB of memory, more than the {free / 2**30:,.1f} GiB "
            f"available; {fix}"
        )
