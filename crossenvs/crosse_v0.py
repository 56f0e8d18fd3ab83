"""Crosse as a PettingZoo AEC env (rules and options: :mod:`crossenvs.games.crosse`).

The same agent acts again during a jump sequence (one hop per action), after completing the
corner cover or removing a stone under it (an extra turn), and for the removal decision of
``cover_removal="optional"``.

>>> from crossenvs import crosse_v0
>>> env = crosse_v0.env(stuck_tokens="keep")
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "crosse"


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover.

    ``options``: ``first_player`` ("black" or "white"), ``stuck_tokens`` ("refresh", "keep",
    "pass_refresh"), ``cover_removal`` ("auto" or "optional"), ``move_cap`` (600).
    An unknown one raises ``InvalidOptionError`` naming the known ones.
    """
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(render_mode: str | None = None, **options: Any) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, **options)
