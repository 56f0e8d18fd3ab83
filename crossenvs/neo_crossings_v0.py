"""Neo-Crossings as a PettingZoo AEC env (rules: :mod:`crossenvs.games.neo_crossings`).

>>> from crossenvs import neo_crossings_v0
>>> env = neo_crossings_v0.env(symmetry_rule=False)
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "neo_crossings"


def env(
    render_mode: str | None = None, stalemate: str = "pass", symmetry_rule: bool = True, move_cap: int = 400
) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover."""
    options = dict(stalemate=stalemate, symmetry_rule=symmetry_rule, move_cap=move_cap)
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(
    render_mode: str | None = None, stalemate: str = "pass", symmetry_rule: bool = True, move_cap: int = 400
) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    options = dict(stalemate=stalemate, symmetry_rule=symmetry_rule, move_cap=move_cap)
    return make_raw_env(GAME, render_mode=render_mode, **options)
