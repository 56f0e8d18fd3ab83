"""Crisscross as a PettingZoo AEC env (rules: :mod:`crossenvs.games.crisscross`).

>>> from crossenvs import crisscross_v0
>>> env = crisscross_v0.env(size=6)
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "crisscross"


def env(render_mode: str | None = None, size: int = 8) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover."""
    return make_env(GAME, render_mode=render_mode, size=size)


def raw_env(render_mode: str | None = None, size: int = 8) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, size=size)
