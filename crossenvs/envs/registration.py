"""Registers every game's gymnasium id (``crossenvs/<Game>-v0``) on ``import crossenvs``."""

from __future__ import annotations

import gymnasium

from ..core.registry import GAMES

ENTRY_POINT = "crossenvs.envs.single_agent:CrossSingleAgentEnv"


def gym_id(game_name: str) -> str:
    return f"crossenvs/{GAMES[game_name].env_name}-v0"


def register_envs() -> None:
    """Register each game once (importing twice is harmless)."""
    for name in GAMES:
        env_id = gym_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"game": name})
