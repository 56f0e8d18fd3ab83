"""Crisscross as a PettingZoo AEC env (rules and options: :mod:`crossenvs.games.crisscross`).

>>> from crossenvs import crisscross_v0
>>> env = crisscross_v0.env(size=6)
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "crisscross"


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover.

    ``options``:
    ``size`` (default 8, from 3 to 19).
    An unknown one raises ``InvalidOptionError`` naming the known ones.
    """
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(render_mode: str | None = None, **options: Any) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, **options)
