"""Charing Cross as a PettingZoo AEC env (rules and options: :mod:`crossenvs.games.charing_cross`).

After a jump that leaves the jumped piece two vacant home squares, the env selects that piece's
owner, whose mask allows only the two re-placement actions.

>>> from crossenvs import charing_cross_v0
>>> env = charing_cross_v0.env(first_player="black")
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .envs.aec import CrossAECEnv, make_env, make_raw_env

GAME = "charing_cross"


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped AEC env: an illegal move ends the game with -1 for the mover.

    ``options``:
    ``first_player`` ("white" or "black"), ``self_jump`` (on), ``move_cap`` (200).
    An unknown one raises ``InvalidOptionError`` naming the known ones.
    """
    return make_env(GAME, render_mode=render_mode, **options)


def raw_env(render_mode: str | None = None, **options: Any) -> CrossAECEnv:
    """The bare AEC env: an illegal move raises ``IllegalActionError``."""
    return make_raw_env(GAME, render_mode=render_mode, **options)
