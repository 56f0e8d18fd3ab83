"""Player specs: the one parser of ``random``, ``mcts:400``, ``az:run/final.pt:64``, ``rllib:<folder>``,
``noisy:20:mcts:1000`` and paths.

Every kind of player is one row of a table, added with :func:`register_player_kind`. A row's
factory is a function, or a ``"module:function"`` string imported on first use (as games register
by ``"module:Class"``): so the kinds that live above the players layer (AlphaZero, the packaged
agents, RLlib, checkpoint files) are registered by the package root, ``crossenvs/__init__.py``,
without this layer importing them, and a missing optional dependency is one error naming the
extra to install.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crossenvs.support.checks import whole_number
from crossenvs.support.errors import InvalidOptionError
from crossenvs.support.extras import import_extra

from ..core.game import Game
from . import builtin
from .base import Player

#: factory(argument after "prefix:", game or None, seed) -> Player; a kind that wraps gets the inner player too
Factory = Callable[..., Player]
#: the row that reads a spec without a prefix: the path of a checkpoint file
PATH_KIND = "<path>"
#: what a checkpoint file's name ends in, when a spec is a bare path (AlphaZero's ``.pt`` earns a hint)
CHECKPOINT_SUFFIXES = (".zip", ".pt")
_PREFIX = re.compile(r"^[a-z][a-z0-9_]*$")


class UnknownPlayerError(InvalidOptionError):
    """A spec that names no registered kind of player (nor, where paths are read, a checkpoint file)."""


@dataclass(frozen=True)
class PlayerKind:
    """One row of the spec table: how ``<prefix>[:<argument>]`` becomes a player."""

    prefix: str
    target: Factory | str  # a factory, or "module:function" imported on first use
    usage: str  # how its specs are written, for help texts and errors
    extra: str | None = None  # the pip extra the target's module needs (for the error when it is missing)
    reads_file: bool = False  # the argument is <file>[:<count>]: a checkpoint that a caller may vet first
    default: str = ""  # what a missing argument (or a file's missing count) stands for: "200" for mcts
    wraps: bool = False  # the argument is <number>:<spec> of another player, made with the same paths and kinds

    def spelled(self, argument: str) -> str:
        """The argument in its one spelling: the default written out, a count without leading zeros.

        The factory gets this argument, so the default lives here only, and two spellings of one
        player (``pretrained``, ``pretrained:64``) become one spec (:func:`canonical_spec`).
        """
        if self.wraps:
            number, _, inner = argument.partition(":")
            return f"{self.spelled_number(number)}:{canonical_spec(inner)}" if inner else argument
        if self.reads_file:
            name, count = split_file_argument(argument)
            if count is None and self.default and name:
                return f"{name}:{self.default}"
            return argument if count is None else f"{name}:{count}"
        return self.spelled_number(argument) if argument else self.default

    @staticmethod
    def spelled_number(text: str) -> str:
        """A count without leading zeros; anything else as it is (the factory says what is wrong with it)."""
        return str(int(text)) if text.isascii() and text.isdigit() else text

    def factory(self) -> Factory:
        """The factory, imported now if it was registered by name."""
        if not isinstance(self.target, str):
            return self.target
        module_name, _, function = self.target.partition(":")
        if self.extra is None:
            return getattr(importlib.import_module(module_name), function)
        module = import_extra(module_name, f"{self.prefix} players", self.extra)
        return getattr(module, function)


_KINDS: dict[str, PlayerKind] = {}


def register_player_kind(
    prefix: str,
    factory: Factory | str,
    usage: str | None = None,
    *,
    extra: str | None = None,
    reads_file: bool = False,
    default: str = "",
    wraps: bool = False,
) -> PlayerKind:
    """Let ``make_player`` read ``<prefix>`` and ``<prefix>:<argument>`` specs (e.g. ``az:run/best.pt``).

    ``factory(argument, game, seed)`` makes the player; give it as ``"module:function"`` to import
    the module only when such a spec is read (``extra`` names the pip extra it needs).
    ``reads_file``: the argument is ``<file>[:<count>]`` (:func:`split_file_argument`), so a caller
    that vets files (the web app) sees the file before it is read. :data:`PATH_KIND` is the row
    for bare checkpoint paths. ``default``: what a missing argument stands for (``"200"`` for
    ``mcts``; for a kind that reads a file, the count a file without one searches with). ``wraps``:
    the argument is ``<number>:<spec>`` and the factory is called as ``factory(number, game, seed,
    inner)`` with the player ``<spec>`` names, made under the same rules (paths, kinds) as the outer spec.
    """
    if prefix != PATH_KIND and not (isinstance(prefix, str) and _PREFIX.match(prefix)):
        raise InvalidOptionError(f"player kind {prefix!r}: lower case letters, digits and '_', starting with a letter")
    if isinstance(factory, str) and ":" not in factory:
        raise InvalidOptionError(f"player kind {prefix!r}: give a factory or 'module:function', not {factory!r}")
    kind = PlayerKind(prefix, factory, usage or f"{prefix}[:...]", extra, reads_file, default, wraps)
    _KINDS[prefix] = kind
    return kind


def split_file_argument(argument: str) -> tuple[str, int | None]:
    """``run/final.pt:64`` -> ``("run/final.pt", 64)``; ``run/final.pt`` -> ``("run/final.pt", None)``.

    The one reader of ``<file>[:<count>]``: the kinds that read a file and :func:`make_player`'s
    vetting of that file both split here.
    """
    name, _, count = argument.rpartition(":")
    if not name or not count.removeprefix("-").isdigit():  # any digits, ² and -3 too: whole_number refuses them
        return argument, None
    return name, whole_number(count, "<checkpoint>:<simulations>", 0, builtin.MAX_SEARCH_SIMULATIONS)


def _mcts(argument: str, game: Game | None, seed: int | None) -> Player:
    count = whole_number(argument, "mcts:<simulations>", 1, builtin.MAX_MCTS_SIMULATIONS)
    return builtin.MCTSPlayer(count, seed=seed)


register_player_kind("random", lambda argument, game, seed: builtin.RandomPlayer(seed), "random")
register_player_kind("greedy", lambda argument, game, seed: builtin.GreedyPlayer(seed), "greedy")
register_player_kind("mcts", _mcts, "mcts[:<simulations>]", default="200")


def _noisy(argument: str, game: Game | None, seed: int | None, inner: Player) -> Player:
    percent = whole_number(argument, "noisy:<percent>:<player>: the percentage of moves played at random", 0, 100)
    return builtin.NoisyPlayer(inner, percent, seed)


register_player_kind("noisy", _noisy, "noisy:<percent at random>:<player>", wraps=True)


def _allowed(kinds: Collection[str] | None) -> dict[str, PlayerKind]:
    return dict(_KINDS) if kinds is None else {prefix: _KINDS[prefix] for prefix in _KINDS if prefix in kinds}


def player_specs(kinds: Collection[str] | None = None) -> str:
    """The spec forms ``make_player`` reads (those of ``kinds`` only, if given), for help texts and errors."""
    allowed = _allowed(kinds)
    named = ", ".join(kind.usage for prefix, kind in allowed.items() if prefix != PATH_KIND)
    return f"{named} or {allowed[PATH_KIND].usage}" if PATH_KIND in allowed else named


def make_player(
    spec: Any,
    game: Game | None = None,
    seed: int | None = None,
    *,
    paths: bool | Callable[[str], Path] = True,
    kinds: Collection[str] | None = None,
) -> Player:
    """A player from a spec (see :mod:`crossenvs.players`). With ``game``, a checkpoint must fit it.

    ``paths``: ``True`` reads files where the spec names them (a file called ``random`` in the
    working folder wins over the kind); ``False`` reads no file the spec names; a function maps
    each file name a spec gives to the path to read (or raises), and no spec is taken for a file
    unless it has a checkpoint's suffix: a server reading specs from a page vets them so
    (:mod:`crossenvs.web`). ``kinds`` limits the prefixes read (:data:`PATH_KIND` for bare paths).

    >>> make_player("mcts:50").simulations
    50
    """
    if isinstance(spec, Player):
        return spec
    if spec is None:
        return builtin.RandomPlayer(seed)
    if not isinstance(spec, (str, Path)):
        if hasattr(spec, "predict"):
            return builtin.ModelPlayer(spec, name=type(spec).__name__, seed=seed)
        if callable(spec):
            return builtin.FunctionPlayer(spec)
        raise InvalidOptionError(
            f"player {spec!r} is not usable: give a spec string ({player_specs()}), a Player, "
            "a model with predict(observations, action_masks=...) or a callable (observation, mask)"
        )
    kind, argument = _kind_of(str(spec).strip(), paths, kinds)
    if kind.wraps:
        number, _, inner = argument.partition(":")
        if not inner:
            raise InvalidOptionError(f"player {kind.usage}: name the other player after the number, got {spec!r}")
        return kind.factory()(number, game, seed, make_player(inner, game, seed, paths=paths, kinds=kinds))
    argument = kind.spelled(argument)
    if kind.reads_file:
        argument = _vetted(kind, argument, paths)
    return kind.factory()(argument, game, seed)


def canonical_spec(spec: str | Path, *, paths: bool = True) -> str:
    """The one spelling of a player spec: ``pretrained`` and ``pretrained:64`` are both ``pretrained:64``,
    ``mcts`` and ``mcts:0200`` both ``mcts:200``.

    An arena knows a ladder's rungs by it (:mod:`crossenvs.eval.ladder`): the same player gets the
    same rating however it was written. Nothing is made or read; a spec that names no kind is an
    :class:`UnknownPlayerError`, as in :func:`make_player`.

    >>> canonical_spec("pretrained"), canonical_spec(" mcts ")
    ('pretrained:64', 'mcts:200')
    """
    kind, argument = _kind_of(str(spec).strip(), paths, None)
    spelled = kind.spelled(argument)
    if kind.prefix == PATH_KIND:
        return spelled
    return f"{kind.prefix}:{spelled}" if spelled else kind.prefix


def _kind_of(text: str, paths: bool | Callable[[str], Path], kinds: Collection[str] | None) -> tuple[PlayerKind, str]:
    """The row a spec names and the argument after its prefix (the whole text for a bare path)."""
    allowed = _allowed(kinds)
    prefix, _, argument = text.partition(":")
    if prefix in allowed and prefix != PATH_KIND and not (paths is True and Path(text).is_file()):
        return allowed[prefix], argument
    names_file = text.endswith(CHECKPOINT_SUFFIXES) or (paths is True and Path(text).is_file())
    if PATH_KIND in allowed and paths is not False and names_file:
        return allowed[PATH_KIND], text
    raise UnknownPlayerError(f"unknown player {text!r}: use {player_specs(kinds)}")


def _vetted(kind: PlayerKind, argument: str, paths: bool | Callable[[str], Path]) -> str:
    """``argument`` with its file replaced by what ``paths`` maps it to."""
    if paths is True:
        return argument
    if paths is False:
        raise InvalidOptionError(f"player {kind.usage} reads a file, and files are not read here")
    name, count = split_file_argument(argument)
    if not name:
        return argument  # the factory says what is missing
    path = paths(name)
    return str(path) if count is None else f"{path}:{count}"
