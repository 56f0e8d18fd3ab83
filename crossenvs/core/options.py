"""Game options declared as data: what each option is, its default, the values it takes, one line of help.

A game lists its options once, as :class:`Option` values in ``Game.OPTION_SCHEMA`` (a tuple of
them becomes an :class:`OptionSchema`):

>>> from crossenvs.core.options import OptionSchema, choice, flag, integer
>>> schema = OptionSchema([
...     integer("size", 8, 3, 19, "the board is size x size"),
...     choice("stalemate", "pass", ("pass", "loss"), "what a player with no move does"),
...     flag("self_jump", True, "a piece may jump its own pieces"),
... ])
>>> schema.check("demo", {"size": 6, "stalemate": "LOSS"})
{'size': 6, 'stalemate': 'loss', 'self_jump': True}

and everything that shows or checks options reads that declaration: the base class's option check
(:meth:`OptionSchema.check`, one :class:`InvalidOptionError` per bad value, with "did you mean"
for a misspelt name, so ``gymnasium.make(id, **options)`` and every env are checked by it too),
``crossenvs list`` and the CLI help, the web page's form and the docs' option tables (a test holds
each table to the schema). The form titles each option by its ``label`` (by default its name,
spaced and capitalised) and folds the ``advanced`` ones away: a game starts well without them.

Option names share the keyword space of the functions that take ``**options`` (``make_game``,
the envs' constructors), so a name those functions use for themselves can never be an option:
:data:`RESERVED_NAMES` is checked when a game declares its schema.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from crossenvs.support.errors import InvalidOptionError, UnknownOptionError

_ON = ("on", "true", "yes")
_OFF = ("off", "false", "no")

#: keyword parameters of the functions and classes that also take a game's ``**options``
#: (``tests/test_options.py`` checks every such signature against this set)
RESERVED_NAMES = frozenset(
    {
        "game",
        "name",
        "options",
        "render_mode",
        "device",
        "opponent",
        "opponent_seat",
        "seat",
        "seed",
        "num_envs",
        "autoreset_mode",
        "illegal_action",
        "state",
        "self",
        "cls",
    }
)

OptionKind = Literal["choice", "integer", "flag"]


@dataclass(frozen=True)
class Option:
    """One house rule of a game: its kind, default, allowed values, a line of help and how forms show it."""

    name: str
    kind: OptionKind
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # kind "choice": the accepted words, lower case
    low: int = 0  # kind "integer": the inclusive range
    high: int = 0
    label: str = ""  # the title a form gives it; blank: the name, spaced and capitalised
    advanced: bool = False  # folded away in forms: a game starts well without it

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " ").capitalize())

    def check(self, game: str, value: Any) -> Any:
        """``value`` in its normal form (a choice lower case, an int, a bool), or one clear error."""
        if self.kind == "choice":
            if isinstance(value, str) and value.strip().lower() in self.choices:
                return value.strip().lower()
        elif self.kind == "integer":
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                if self.low <= value <= self.high:
                    return int(value)
        else:
            if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
                return bool(value)
            if isinstance(value, str) and value.strip().lower() in _ON + _OFF:
                return value.strip().lower() in _ON
        raise InvalidOptionError(f"{game}: {self.name} must be {self.values_text()}, got {value!r}")

    def values_text(self) -> str:
        """The values the option takes, in words (error messages and the docs' tables use it)."""
        if self.kind == "choice":
            return f"one of {', '.join(map(repr, self.choices))}"
        if self.kind == "integer":
            return f"an integer from {self.low} to {self.high}"
        return "on or off (True/False, 1/0, 'on'/'off')"

    def describe(self) -> dict[str, Any]:
        """The option as plain JSON-ready data (the web page's form is built from it)."""
        entry: dict[str, Any] = {"name": self.name, "kind": self.kind, "default": self.default, "help": self.help}
        if self.kind == "choice":
            entry["choices"] = list(self.choices)
        elif self.kind == "integer":
            entry["low"], entry["high"] = self.low, self.high
        return {**entry, "label": self.label, "advanced": self.advanced}


def choice(
    name: str, default: str, choices: Iterable[str], help: str, *, label: str = "", advanced: bool = False
) -> Option:
    """A word from a fixed list (case-insensitive)."""
    words = tuple(word.lower() for word in choices)
    return _declared(Option(name, "choice", default, help, choices=words, label=label, advanced=advanced))


def integer(
    name: str, default: int, low: int, high: int, help: str, *, label: str = "", advanced: bool = False
) -> Option:
    """A whole number in ``low..high`` (bools are refused: ``True`` is not a size)."""
    return _declared(
        Option(name, "integer", default, help, low=int(low), high=int(high), label=label, advanced=advanced)
    )


def flag(name: str, default: bool, help: str, *, label: str = "", advanced: bool = False) -> Option:
    """On or off: a bool, 0 or 1, or one of the words on/off, true/false, yes/no."""
    return _declared(Option(name, "flag", bool(default), help, label=label, advanced=advanced))


#: the largest move cap any game accepts (the ply counter stays far from overflow)
MAX_MOVE_CAP = 1_000_000


def move_cap(default: int) -> Option:
    """The draw-by-length rule games with a move cap share: the game is drawn after this many plies."""
    return integer(
        "move_cap",
        default,
        1,
        MAX_MOVE_CAP,
        "the game is drawn once this many plies are played without a result",
        label="Move limit (a draw after this many moves)",
        advanced=True,
    )


def first_player(default: str, colours: Iterable[str]) -> Option:
    """The choice of colour that moves first, which games that let either colour start share."""
    return choice(
        "first_player",
        default,
        colours,
        "the colour of seat 0, which moves first",
        label="Colour that moves first",
        advanced=True,
    )


def seat_colours(first: str, colours: tuple[str, str]) -> tuple[str, str]:
    """Seat 0's colour (the :func:`first_player` option's value) and seat 1's, the other of ``colours``."""
    return first, colours[1] if first == colours[0] else colours[0]


def _declared(option: Option) -> Option:
    """The option, once its own default passes its check (a wrong declaration fails at import)."""
    if not option.name.isidentifier() or option.name in RESERVED_NAMES:
        raise InvalidOptionError(
            f"option name {option.name!r} cannot be used: it must be a Python identifier and not one of the "
            f"parameter names that take options beside it ({', '.join(sorted(RESERVED_NAMES))})"
        )
    if not option.help:
        raise InvalidOptionError(f"option {option.name!r}: give one line of help")
    option.check("option declaration", option.default)
    return option


class OptionSchema:
    """A game's options, in declaration order."""

    def __init__(self, options: Iterable[Option] = ()) -> None:
        self.options: tuple[Option, ...] = tuple(options)
        names = [option.name for option in self.options]
        if len(set(names)) != len(names):
            raise InvalidOptionError(f"options declared twice: {sorted({n for n in names if names.count(n) > 1})}")
        self._by_name = dict(zip(names, self.options))

    def __iter__(self):
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def __getitem__(self, name: str) -> Option:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def defaults(self) -> dict[str, Any]:
        """Option name -> default."""
        return {option.name: option.default for option in self.options}

    def check(self, game: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value in normal form, defaults filled in; an error for an unknown name or a bad value."""
        unknown = sorted(set(given) - set(self._by_name))
        if unknown:
            raise UnknownOptionError(f"{game}: unknown option(s) {', '.join(unknown)}; {self._hint(unknown[0])}")
        return {option.name: option.check(game, given.get(option.name, option.default)) for option in self.options}

    def summary(self) -> str:
        """``size=8 (an integer from 3 to 19)``, one per option, for listings; ``none`` without options."""
        parts = [f"{option.name}={option.default!r} ({option.values_text()})" for option in self.options]
        return "; ".join(parts) or "none"

    def _hint(self, name: str) -> str:
        if not self.options:
            return "known options: none (this game has no options)"
        close = difflib.get_close_matches(name, list(self._by_name), n=1)
        known = "known options: " + ", ".join(f"{o.name}={o.default!r}" for o in self.options)
        return f"did you mean {close[0]!r}? {known}" if close else known


def key_values(pairs: Sequence[str], flag: str = "--option", example: str = "size=6") -> list[tuple[str, str]]:
    """``KEY=VALUE`` flags (``flag``, repeatable) split into keys and values, each key given once."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidOptionError(f"{flag} {pair!r}: write key=value, e.g. {example}")
        if key in found:  # the later one would silently win
            raise InvalidOptionError(f"{flag} {key} is given twice ({key}={found[key]}, {pair}); give it once")
        found[key] = value
    return list(found.items())


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["size=6", "self_jump=off"]`` -> ``{"size": 6, "self_jump": "off"}`` (numbers become numbers)."""
    options: dict[str, Any] = {}
    for key, value in key_values(pairs):
        for cast in (int, float):
            try:
                options[key] = cast(value)
                break
            except ValueError:
                continue
        else:
            options[key] = value
    return options


def options_words(game: str, options: Mapping[str, Any]) -> str:
    """``crisscross size=6``, or ``crisscross (default options)``: a game at some options, as a message
    names it (``--option`` spelling, not a dict whose ``{}`` leaves the reader to guess)."""
    chosen = " ".join(f"{key}={value}" for key, value in options.items())
    return f"{game} {chosen or '(default options)'}"
