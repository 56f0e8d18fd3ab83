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

from . import games  # noqa: F401 - registers the built-in games (their modules load on first use)
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
