"""The game registry: ``make_game(name, **options)``.

Game modules are imported lazily, so ``import crossenvs`` stays cheap and a game's numba kernels
compile only when that game is used.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any

from .errors import UnknownGameError
from .game import Game


@dataclass(frozen=True)
class GameEntry:
    """Where a game lives and how its environments are named."""

    target: str  # "module:Class"
    env_name: str  # CamelCase part of the gymnasium id, crossenvs/<env_name>-v0
    summary: str  # one line for listings


# A new game adds one entry here; the envs and ids follow from it.
GAMES: dict[str, GameEntry] = {
    "crosse": GameEntry(
        "crossenvs.games.crosse:Crosse",
        "Crosse",
        "move stones with six F/B move tokens, jump to capture (maximum compulsory), shed your stones to win",
    ),
    "crossings": GameEntry(
        "crossenvs.games.crossings:Crossings",
        "Crossings",
        "move lines of stones, capture the head enemy stone, freeze a stone on the far rank to win",
    ),
    "neo_crossings": GameEntry(
        "crossenvs.games.neo_crossings:NeoCrossings",
        "NeoCrossings",
        "move lines of stones, capture whole enemy lines, out-number the opponent on the far rank",
    ),
    "charing_cross": GameEntry(
        "crossenvs.games.charing_cross:CharingCross",
        "CharingCross",
        "race knights and rooks across; a jumped piece's owner re-places it at home",
    ),
    "crisscross": GameEntry(
        "crossenvs.games.crisscross:Crisscross",
        "Crisscross",
        "place checkers on an NxN board, flank enemy runs to flip them, connect your two edges",
    ),
}


def game_class(name: str) -> type[Game]:
    """The Game subclass registered under ``name``."""
    if not isinstance(name, str) or name not in GAMES:
        close = difflib.get_close_matches(str(name), GAMES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownGameError(f"unknown game {name!r}; available games: {', '.join(sorted(GAMES))}.{hint}")
    module_name, class_name = GAMES[name].target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def make_game(name: str, **options: Any) -> Game:
    """The engine of game ``name`` with house-rule ``options`` (RULES.md §0.3 item 6).

    >>> game = make_game("crisscross", size=6)
    >>> game.num_actions
    36
    """
    return game_class(name)(**options)


def list_games() -> list[str]:
    """Registered game names."""
    return sorted(GAMES)
