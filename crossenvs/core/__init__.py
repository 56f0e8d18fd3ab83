"""The shared engine: state record, game contract, geometry, frames, position text, rendering."""

from .errors import CrossenvsError, IllegalActionError, InvalidOptionError, PositionTextError, UnknownGameError
from .game import PASS_TEXT, Game
from .registry import list_games, make_game
from .state import State

__all__ = [
    "PASS_TEXT",
    "CrossenvsError",
    "Game",
    "IllegalActionError",
    "InvalidOptionError",
    "PositionTextError",
    "State",
    "UnknownGameError",
    "list_games",
    "make_game",
]
