"""Checks for game options (docs/README.md, options at a glance): one clear error per bad value.

Games call these from ``__init__`` after :class:`~crossenvs.core.game.Game` has refused unknown
option names, so that a wrong value fails at construction and never deep inside a kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InvalidOptionError

_ON = ("on", "true", "yes")
_OFF = ("off", "false", "no")


def choice_option(game: str, name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """A string option that must be one of ``allowed`` (case-insensitive)."""
    if isinstance(value, str) and value.strip().lower() in allowed:
        return value.strip().lower()
    raise InvalidOptionError(f"{game}: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def int_option(game: str, name: str, value: Any, low: int, high: int) -> int:
    """An integer option in ``low..high`` (bools are refused: ``True`` is not a size)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidOptionError(f"{game}: {name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def flag_option(game: str, name: str, value: Any) -> bool:
    """An on/off option: a bool, 0 or 1, or one of the words on/off, true/false, yes/no."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _ON + _OFF:
        return value.strip().lower() in _ON
    raise InvalidOptionError(f"{game}: {name} must be on or off (True/False, 1/0, 'on'/'off'), got {value!r}")
