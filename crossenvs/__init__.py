"""crossenvs: fast, rule-faithful RL environments for five abstract "cross" board games.

>>> import crossenvs
>>> game = crossenvs.make_game("crisscross", size=6)
>>> env = crossenvs.crossings_v0.env()           # PettingZoo AEC
>>> import gymnasium; gym_env = gymnasium.make("crossenvs/Crisscross-v0")  # single agent

A game of your own joins with one call, ``crossenvs.register_game(name, GameClass)`` (see
``docs/architecture.md`` and ``examples/tictactoe.py``).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import games  # noqa: F401
from .core import (
    CallOrderError,
    CheckpointError,
    CrossenvsError,
    Game,
    GameSpec,
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    InvalidStateError,
    OutputPathError,
    PositionTextError,
    State,
    UnknownGameError,
    UsageError,
    game_class,
    game_spec,
    list_games,
    make_game,
    register_game,
)

# The composition root: the env layer subscribes to the registry first, then the built-in games
# register (their modules load on first use), so every game gets its gymnasium id and entry module.
from .envs import registration as _env_registration  # noqa: F401

try:
    __version__ = version("crossenvs")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"


__all__ = [
    "CallOrderError",
    "CheckpointError",
    "CrossenvsError",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidOptionError",
    "InvalidStateError",
    "OutputPathError",
    "PositionTextError",
    "State",
    "UnknownGameError",
    "UsageError",
    "game_class",
    "game_spec",
    "list_games",
    "make_game",
    "register_game",
]
