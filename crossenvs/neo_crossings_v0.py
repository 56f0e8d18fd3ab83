"""Neo-Crossings as a PettingZoo AEC env (rules and options: :mod:`crossenvs.games.neo_crossings`).

>>> from crossenvs import neo_crossings_v0
>>> env = neo_crossings_v0.env(symmetry_rule=False)
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "neo_crossings"


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover.

    ``options``:
    ``stalemate`` ("pass" or "loss"), ``symmetry_rule`` (on), ``move_cap`` (400).
    An unknown one raises ``InvalidOptionError`` naming the known ones.
    """
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(render_mode: str | None = None, **options: Any) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, **options)
