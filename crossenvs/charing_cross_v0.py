"""Charing Cross as a PettingZoo AEC env (rules: :mod:`crossenvs.games.charing_cross`).

After a jump that leaves the jumped piece two vacant home squares, the env selects that piece's
owner, whose mask allows only the two re-placement actions.

>>> from crossenvs import charing_cross_v0
>>> env = charing_cross_v0.env(first_player="black")
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "charing_cross"


def env(
    render_mode: str | None = None, first_player: str = "white", self_jump: bool = True, move_cap: int = 200
) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover."""
    options = dict(first_player=first_player, self_jump=self_jump, move_cap=move_cap)
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(
    render_mode: str | None = None, first_player: str = "white", self_jump: bool = True, move_cap: int = 200
) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    options = dict(first_player=first_player, self_jump=self_jump, move_cap=move_cap)
    return make_raw_env(GAME, render_mode=render_mode, **options)
