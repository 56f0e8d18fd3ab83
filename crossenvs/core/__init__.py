"""The shared engine: state record, game contract, registry, geometry, frames, position text, rendering."""

# First of all: numba's cache folder for these sources (before any kernel is decorated). This
# only names the folder; old versions' folders are pruned on first use, not here.
from .cache import use_versioned_cache

use_versioned_cache()

# ruff: noqa: E402 - modules imported below decorate numba kernels (core/conventions.py through
# core/game.py), and numba fixes a kernel's cache folder when it is decorated

from .errors import (
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
from .state import State

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
