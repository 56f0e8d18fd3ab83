"""The shared engine: state record, game contract, registry, geometry, frames, position text, rendering."""

# First of all: numba's cache folder for these sources (before any kernel is decorated).
from .specialize import use_versioned_cache

use_versioned_cache()

# ruff: noqa: E402 - the imports below define numba kernels, so they come after the cache is set

from .errors import CrossenvsError, IllegalActionError, InvalidOptionError, PositionTextError, UnknownGameError
from .game import PASS_TEXT, Game
from .registry import GameSpec, game_class, game_spec, list_games, make_game, register_game
from .state import State

__all__ = [
    "PASS_TEXT",
    "CrossenvsError",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "InvalidOptionError",
    "PositionTextError",
    "State",
    "UnknownGameError",
    "game_class",
    "game_spec",
    "list_games",
    "make_game",
    "register_game",
]
