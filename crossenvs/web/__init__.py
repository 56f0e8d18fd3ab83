"""Play in the browser: ``crossenvs serve`` (the ``web`` extra: Starlette and uvicorn).

:mod:`.app` is the page and its JSON API, :mod:`.sessions` the games in progress (with undo),
:mod:`.board` what the page draws, from the engine's own rendering hooks, :mod:`.opponents` the
player specs a page may name (checkpoints from allowed folders only), :mod:`.server` the command,
and :mod:`.browser` the headless Chromium that the tests and ``examples/serve_screenshots.py``
drive. Nothing here is imported by ``import crossenvs``.
"""

from __future__ import annotations

from .server import serve

__all__ = ["serve"]
