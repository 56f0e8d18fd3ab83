"""Errors of the web app, each with the HTTP status it answers with (:mod:`crossenvs.web.app`).

Every refusal is a :class:`~crossenvs.support.errors.CrossenvsError`, so the page shows the same
sentences the command line prints; the status only tells the page which kind of mistake it was.
Engine errors (an illegal move, unknown game, bad option or position text) answer 400.
"""

from __future__ import annotations

from crossenvs.support.errors import CrossenvsError


class WebError(CrossenvsError):
    """Base of the web app's own errors; ``status`` is the HTTP status of the answer, given as a class keyword."""

    status = 400

    def __init_subclass__(cls, status: int | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:  # else the parent's
            cls.status = status


class BadRequestError(WebError, ValueError):
    """A request that is malformed: not JSON, a missing or mistyped field, a field the API does not know."""


class PayloadTooLargeError(WebError, ValueError, status=413):
    """A request body over the limit (position texts are a few hundred characters)."""


class ContentTypeError(WebError, ValueError, status=415):
    """A body that is not sent as ``application/json`` (a cross-site form post would be plain text)."""


class ForbiddenCheckpointError(WebError, PermissionError, status=403):
    """A checkpoint outside the allowed folders (the packaged agents and ``--checkpoints``)."""


class UnknownSessionError(WebError, KeyError, status=404):
    """A game id the server does not hold (never made, expired, or closed)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class TurnError(WebError, RuntimeError, status=409):
    """A request that does not fit the game's moment: not your turn, game over, nothing to undo, busy."""


class ServerFullError(WebError, RuntimeError, status=503):
    """Every game slot is taken by a game whose opponent is thinking."""


class ClientGoneError(WebError, ConnectionError):
    """The client disconnected before its request was read whole: answered (to no one) without a traceback."""
