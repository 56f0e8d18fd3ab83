"""The game registry: a game declares itself once with :func:`register_game`; the rest follows.

Registration gives a game its ``make_game`` name, its gymnasium id ``crossenvs/<EnvName>-v0``,
its PettingZoo entry module ``crossenvs.<name>_v0``, its place in ``crossenvs list``, the CLI,
the benchmark rows and the parametrised contract tests. Built-in games register in
:mod:`crossenvs.games` by ``"module:Class"`` strings, so ``import crossenvs`` stays cheap and a
game's module (and numba kernels) loads only when the game is used.

>>> import crossenvs
>>> crossenvs.make_game("crisscross", size=6).num_actions
36
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crossenvs.support.errors import InvalidOptionError, UnknownGameError
from crossenvs.support.waits import GAME_MODULES

from .facts import GameFacts
from .game import Game

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class GameSpec:
    """What a game declared: its name, where its class lives, how its envs are named."""

    name: str
    target: str | type[Game]  # a Game subclass, or "module:Class" imported on first use
    env_name: str  # CamelCase part of the gymnasium id, crossenvs/<env_name>-v0
    summary: str  # one line for listings
    #: option sets that the contract suite and the env checkers exercise besides the defaults
    test_options: tuple[dict[str, Any], ...] = field(default=())

    @property
    def gym_id(self) -> str:
        return f"crossenvs/{self.env_name}-v0"

    @property
    def entry_module(self) -> str:
        return f"crossenvs.{self.name}_v0"

    @property
    def pettingzoo_id(self) -> str:
        """The id in PettingZoo's registry (1.27 and later): ``pettingzoo.make("aec", "crossenvs/crosse-v0")``."""
        return f"crossenvs/{self.name}-v0"

    @property
    def facts(self) -> GameFacts:
        """What the game's class declares of its name and rules, blanks derived from this registration (loads it)."""
        return self.load().facts.completed(self.name, self.summary)

    def load(self) -> type[Game]:
        """The Game subclass (imported now if it was registered by name)."""
        if not isinstance(self.target, str):
            return self.target
        module_name, _, class_name = self.target.partition(":")
        game_class = getattr(importlib.import_module(module_name), class_name)
        if getattr(game_class, "name", None) != self.name:
            raise InvalidOptionError(
                f"{self.target} is named {getattr(game_class, 'name', None)!r}, registered as {self.name!r}"
            )
        return game_class


_GAMES: dict[str, GameSpec] = {}
#: what else learns of each registration (the env layer adds its gymnasium ids and entry modules)
_LISTENERS: list[Callable[[GameSpec], None]] = []


def on_register(listener: Callable[[GameSpec], None]) -> None:
    """Call ``listener(spec)`` for every game registered so far and every one registered later.

    Layers above the core subscribe here (:mod:`crossenvs.envs.registration` does, on import), so
    the registry never imports them. A listener may refuse a game by raising: the registration
    then leaves the registry as it was.
    """
    _LISTENERS.append(listener)
    for spec in list(_GAMES.values()):
        listener(spec)


def camel_case(name: str) -> str:
    """``neo_crossings`` -> ``NeoCrossings`` (the default env name)."""
    return "".join(part.capitalize() for part in name.split("_"))


def register_game(
    name: str,
    game: type[Game] | str,
    *,
    env_name: str | None = None,
    summary: str | None = None,
    test_options: list[dict[str, Any]] | tuple[dict[str, Any], ...] = (),
) -> GameSpec:
    """Declare a game: after this call every part of crossenvs knows it.

    ``game`` is a :class:`~crossenvs.core.game.Game` subclass (its kernels module-level numba
    functions) or ``"module:Class"``. ``env_name`` defaults to ``name`` in CamelCase,
    ``summary`` to the first line of the class docstring. ``test_options`` are option sets the
    contract suite (:func:`crossenvs.testing.check_game`) exercises besides the defaults.
    What the class declares of itself beyond its rules (its ``facts``: the name people write, a
    paragraph of rules) is read through the spec (:attr:`GameSpec.facts`), blanks filled from
    ``name`` and ``summary``, so a game that declares none still shows well.
    Registering the same declaration again is harmless; another game under a taken name is refused.

    >>> from crossenvs import register_game
    >>> spec = register_game("crisscross", "crossenvs.games.crisscross:Crisscross")  # already there: no-op
    >>> spec.gym_id
    'crossenvs/Crisscross-v0'
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidOptionError(
            f"game name {name!r} must be lower case letters, digits and '_', starting with a letter"
        )
    if isinstance(game, str):
        if ":" not in game:
            raise InvalidOptionError(f"game {game!r}: give a Game subclass or 'module:Class'")
    elif not (isinstance(game, type) and issubclass(game, Game)):
        raise InvalidOptionError(f"game {game!r} is not a subclass of crossenvs.Game")
    if summary is None:
        doc = game.__doc__ if not isinstance(game, str) else None
        summary = (doc or name).strip().splitlines()[0]
    spec = GameSpec(name, game, env_name or camel_case(name), summary, tuple(dict(o) for o in test_options))
    known = _GAMES.get(name)
    if known is not None:
        if _same_target(known.target, spec.target):
            return known
        raise InvalidOptionError(f"a game named {name!r} is registered already ({known.target}); choose another name")
    if not isinstance(game, str):
        if getattr(game, "name", name) != name:
            raise InvalidOptionError(
                f"{game.__name__}.name is {game.name!r}; register it under that name, not {name!r}"
            )
        game.name = name
    for listener in _LISTENERS:  # first: a clash (of gymnasium ids, say) leaves the registry as it was
        listener(spec)
    _GAMES[name] = spec
    home = game.partition(":")[0] if isinstance(game, str) else getattr(game, "__module__", "")
    GAME_MODULES[home] = name  # a compile there past two seconds is announced as this game's rules
    return spec


def _same_target(a: str | type[Game], b: str | type[Game]) -> bool:
    """Whether two declarations name the same game class.

    A class is known by its source file, not its module name: one file imported under two names
    (``import tictactoe`` here, ``examples.tictactoe`` there, which numba's cache of its kernels
    imports again when it rebuilds them) declares the same game twice, harmlessly.
    """

    def key(target: str | type[Game]) -> str:
        if isinstance(target, str):
            return target
        module = sys.modules.get(target.__module__)
        source = getattr(module, "__file__", None)
        where = str(Path(source).resolve()) if source else target.__module__
        return f"{where}:{target.__qualname__}"

    return key(a) == key(b)


def game_spec(name: str) -> GameSpec:
    """The declaration of game ``name``; :class:`UnknownGameError` naming the choices."""
    if not isinstance(name, str) or name not in _GAMES:
        close = difflib.get_close_matches(str(name), _GAMES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownGameError(f"unknown game {name!r}; available games: {', '.join(sorted(_GAMES))}.{hint}")
    return _GAMES[name]


def game_class(name: str) -> type[Game]:
    """The Game subclass registered under ``name``."""
    return game_spec(name).load()


def make_game(name: str, /, **options: Any) -> Game:
    """The engine of game ``name`` with house-rule ``options`` (declared in its ``OPTION_SCHEMA``).

    >>> game = make_game("crisscross", size=6)
    >>> game.num_actions
    36
    """
    return game_class(name)(**options)


def list_games() -> list[str]:
    """Registered game names."""
    return sorted(_GAMES)
