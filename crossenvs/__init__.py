"""crossenvs: fast, rule-faithful RL environments for five abstract "cross" board games.

>>> import crossenvs
>>> game = crossenvs.make_game("crisscross", size=6)
>>> env = crossenvs.crossings_v0.env()           # PettingZoo AEC
>>> import gymnasium; gym_env = gymnasium.make("crossenvs/Crisscross-v0")  # single agent
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import charing_cross_v0, crisscross_v0, crosse_v0, crossings_v0, neo_crossings_v0
from .core import (
    CrossenvsError,
    Game,
    IllegalActionError,
    InvalidOptionError,
    PositionTextError,
    State,
    UnknownGameError,
    list_games,
    make_game,
)
from .envs.registration import register_envs

try:
    __version__ = version("crossenvs")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

register_envs()

__all__ = [
    "CrossenvsError",
    "Game",
    "IllegalActionError",
    "InvalidOptionError",
    "PositionTextError",
    "State",
    "UnknownGameError",
    "charing_cross_v0",
    "crisscross_v0",
    "crosse_v0",
    "crossings_v0",
    "list_games",
    "make_game",
    "neo_crossings_v0",
]
