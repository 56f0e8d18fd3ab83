"""What every env face accepts as an action: read in one place, refused with one error.

An action id is an ``int``, a numpy integer or a 0-d integer array (what ``model.predict``
returns for one observation), in ``0..num_actions-1``. Bools, floats (even ``3.0``: truncating
them silently hid bugs), ``None``, strings and lists are refused with
:class:`~crossenvs.support.errors.InvalidActionError`, which says what was given and what is
expected. Whether the id is *legal* is the rules' business, not this module's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from crossenvs.support.errors import InvalidActionError


def describe(value: Any) -> str:
    """``value`` and its type, shortened, for an error message."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    kind = type(value).__name__
    if isinstance(value, np.ndarray):
        kind = f"array of shape {value.shape} and dtype {value.dtype}"
    return f"{text} ({kind})"


def action_id(action: Any, num_actions: int, who: str = "the action") -> int:
    """``action`` as a Python int in ``0..num_actions-1``, or :class:`InvalidActionError`."""
    value = action[()] if isinstance(action, np.ndarray) and action.ndim == 0 else action
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidActionError(f"{who} must be an integer action id in 0..{num_actions - 1}, got {describe(action)}")
    if not 0 <= value < num_actions:
        raise InvalidActionError(f"{who} {int(value)} is out of range: action ids are 0..{num_actions - 1}")
    return int(value)


def action_ids(actions: Any, count: int, num_actions: int, who: str = "actions") -> np.ndarray:
    """``count`` action ids as an int64 array, or :class:`InvalidActionError` naming the first bad one.

    Every vector step checks its actions here, so an integer array (what a policy or ``random_actions`` hands
    over) takes the short way: a dtype-kind test and one compiled pass for the range (a microsecond; NumPy's
    comparisons, ``issubdtype`` and ``flatnonzero`` were seven on a 64-game step; ``issubdtype`` alone is half a
    microsecond, so the dtype is read by its kind)."""
    array = (
        actions if isinstance(actions, np.ndarray) and actions.dtype.kind in "iu" else _as_array(actions, count, who)
    )
    if array.shape != (count,):
        raise InvalidActionError(f"{who} must have shape ({count},), one id per game, got {describe(actions)}")
    if array.dtype.kind not in "iu":  # signed or unsigned integers: what np.issubdtype(dtype, np.integer) means
        raise InvalidActionError(
            f"{who} must be integer action ids in 0..{num_actions - 1}, got dtype {array.dtype} ({describe(actions)})"
        )
    first = _first_out_of_range(array, num_actions) if array.ndim == 1 and array.size else -1
    if first >= 0:
        raise InvalidActionError(
            f"{who}[{first}] = {int(array[first])} is out of range: action ids are 0..{num_actions - 1}"
        )
    return array.astype(np.int64, copy=False)


def _as_array(actions: Any, count: int, who: str) -> np.ndarray:
    try:
        return np.asarray(actions)
    except (ValueError, TypeError):  # ragged nested lists
        raise InvalidActionError(f"{who} must be {count} integer action ids, got {describe(actions)}") from None


@njit(cache=True)
def _first_out_of_range(actions: np.ndarray, num_actions: int) -> int:
    """The index of the first id outside ``0..num_actions-1``, or -1."""
    for j in range(actions.shape[0]):
        if actions[j] < 0 or actions[j] >= num_actions:
            return j
    return -1
