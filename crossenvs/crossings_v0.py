"""Crossings as a PettingZoo AEC env (rules: :mod:`crossenvs.games.crossings`).

>>> from crossenvs import crossings_v0
>>> env = crossings_v0.env(stalemate="loss")
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "crossings"


def env(render_mode: str | None = None, stalemate: str = "pass", move_cap: int = 400) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover."""
    return make_env(GAME, render_mode=render_mode, stalemate=stalemate, move_cap=move_cap)


def raw_env(render_mode: str | None = None, stalemate: str = "pass", move_cap: int = 400) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, stalemate=stalemate, move_cap=move_cap)
