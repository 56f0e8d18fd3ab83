"""Errors raised by the engine.

Every error a user can provoke with bad input is one of these, so callers can catch a single
family (`CrossenvsError`) and each message says what was wrong and where.
"""

from __future__ import annotations


class CrossenvsError(Exception):
    """Base class of every error crossenvs raises on bad input."""


class IllegalActionError(CrossenvsError, ValueError):
    """An action that the rules do not allow in this position (the message names the move)."""


class PositionTextError(CrossenvsError, ValueError):
    """Malformed position text; the message names the offending line."""


class UnknownGameError(CrossenvsError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InvalidOptionError(CrossenvsError, ValueError):
    """An unknown game option, or a value out of range for a known one."""


class UnknownOptionError(InvalidOptionError, TypeError):
    """A keyword that is no option of the game; a ``TypeError`` too, as Python's own unexpected keyword is.

    Wrappers that probe an env with keywords it may not take (TorchRL's ``GymEnv`` passes
    ``frameskip``) catch ``TypeError`` and go on without them.
    """


class InvalidArgumentError(CrossenvsError, ValueError):
    """An argument of an API call outside what it takes: a seat that is not 0 or 1, a pixel size of 0,
    a state that is not a :class:`~crossenvs.kernels.state.State`, a request larger than memory."""


class InvalidStateError(CrossenvsError, ValueError):
    """A :class:`~crossenvs.kernels.state.State` that is not a position of the game it is given to (wrong shapes)."""


class InvalidActionError(CrossenvsError, ValueError):
    """Something that is not an action id at all: a float, a bool, a list, ``None``, out of range.

    Kept apart from :class:`IllegalActionError` (a real id that the rules forbid here): envs end
    the game on an illegal move, as PettingZoo does, but refuse a value that names no move.
    """


class CallOrderError(CrossenvsError, RuntimeError):
    """An env method called when it cannot run: ``step`` after the episode ended or after ``close``."""


class ResetFirstError(CallOrderError, AssertionError):
    """An AEC env stepped or observed before its first ``reset()``. PettingZoo's order wrapper raises a bare
    ``AssertionError`` there, so this is one too: code that caught that still catches it."""


class UsageError(CrossenvsError, ValueError):
    """A command-line flag out of range, or flags that do not go together; the message names the flag."""


class OutputPathError(CrossenvsError, ValueError):
    """A file or folder a command would write that cannot be written.

    Checked before any game is played or any step trained, so a long run never ends by losing
    its results to a missing folder or a read-only disk.
    """


class CheckpointError(CrossenvsError, ValueError):
    """A checkpoint that is missing, corrupt or does not fit; on resume the message names a good one."""
