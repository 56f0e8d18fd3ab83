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
