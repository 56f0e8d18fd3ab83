"""The game contract: ``Game``, its options, registry, position text, views, facts and the single-game stepper.

It stands on the kernel ground (:mod:`crossenvs.kernels`: the ``State`` record, numba's plumbing) and on
:mod:`crossenvs.support` (errors, checks); the games, players and envs stand on it.
"""

from crossenvs.kernels.state import State
from crossenvs.support.errors import (
    CallOrderError,
    CheckpointError,
    CrossenvsError,
    IllegalActionError,
    InvalidActionError,
    InvalidArgumentError,
    InvalidOptionError,
    InvalidStateError,
    OutputPathError,
    PositionTextError,
    ResetFirstError,
    UnknownGameError,
    UnknownOptionError,
    UsageError,
)

from .game import PASS_TEXT, Game
from .registry import GameSpec, game_class, game_spec, list_games, make_game, register_game

__all__ = [
    "PASS_TEXT",
    "CallOrderError",
    "CheckpointError",
    "CrossenvsError",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidArgumentError",
    "InvalidOptionError",
    "InvalidStateError",
    "OutputPathError",
    "PositionTextError",
    "ResetFirstError",
    "State",
    "UnknownGameError",
    "UnknownOptionError",
    "UsageError",
    "game_class",
    "game_spec",
    "list_games",
    "make_game",
    "register_game",
]
