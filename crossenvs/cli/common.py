"""What every command of the ``crossenvs`` line shares: the :class:`Command` record, the help's look,
the game flags, and reading a game and a ladder from them. Each command is a module of its own
beside this one; :mod:`crossenvs.cli` lists them and dispatches."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from crossenvs.support.errors import CrossenvsError, InvalidOptionError

from ..core.game import Game
from ..core.options import parse_options
from ..core.registry import game_class, game_spec, list_games, make_game

#: games per pairing at most: the arena plays a pairing's games at once, so memory bounds them
MAX_GAMES = 100_000
#: ``--ladder`` without a file (eval, rating-plot): the ladder shipped for the game
SHIPPED_LADDER = "shipped"


def _no_checks(args: argparse.Namespace) -> None:
    """A command whose flags need nothing beyond what argparse checks."""


@dataclass(frozen=True)
class Command:
    """One ``crossenvs`` command: its parser, the checks made before any work, and the work.

    ``run(args, out, source)`` writes to ``out``, reads what the person types from ``source``
    (only ``play`` does) and returns the exit code (None: 0). ``check(args)`` refuses bad flags
    before any game is played: an arena that fails at its end, writing the results, has lost
    them. ``plays_a_game`` adds ``GAME``, ``--option`` and ``--seed`` first (``seed_help`` says what
    the seed draws; None: the command draws nothing at random and has no ``--seed``); a command that
    takes ``--option`` without them sets ``lists_game_options``, so its help ends with the game's options.
    ``imports_its_game``: ``GAME`` names a game the run registers first (``check``), so it is not
    read as a registered name before the run.
    """

    name: str
    help: str
    example: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO, TextIO], int | None]
    check: Callable[[argparse.Namespace], None] = _no_checks
    plays_a_game: bool = False
    lists_game_options: bool = False
    imports_its_game: bool = False
    seed_help: str | None = "seed of the players' random choices"

    def add_to(self, commands: Any) -> argparse.ArgumentParser:
        """This command's parser, added to ``commands`` (the main parser's subparsers)."""
        parser = commands.add_parser(
            self.name,
            help=self.help,
            description=self.help,
            epilog=f"example:\n  {self.example}",
            formatter_class=HelpFormatter,
            add_help=False,
        )
        lists_options = self.plays_a_game or self.lists_game_options
        parser.add_argument(
            "-h",
            "--help",
            action=GameHelpAction if lists_options else "help",
            help="show this help and exit"
            + (" (with a game's options when the game is named first)" if lists_options else ""),
        )
        parser.lists_game_options = lists_options
        if self.plays_a_game:
            add_game_arguments(parser, self.seed_help)
        self.arguments(parser)
        return parser


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """A flag's default at the end of its help, once, where it tells something; examples kept as written.

    argparse's own ``ArgumentDefaultsHelpFormatter`` adds ``(default: None)`` to every flag, so a
    required flag or one whose help already words its default (``(default: not written)``) read
    it twice. Here no default is added to a positional or required argument, to help that
    mentions its default already, or where the default is nothing (None, False, an empty list).
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        says_nothing = default is None or default is False or default == [] or default == argparse.SUPPRESS
        if not action.option_strings or action.required or says_nothing or "default" in text:
            return action.help
        return f"{text} (default: %(default)s)"


class GameHelpAction(argparse.Action):
    """``-h/--help`` of a command that takes game options: the help, ending with the options of the game
    named before ``--help`` (``crossenvs eval crisscross --help``), or with where to find them."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: Any = None
    ) -> None:
        parser.named_game = getattr(namespace, "game", None)
        parser.print_help()
        parser.exit()


class GameCommandParser(argparse.ArgumentParser):
    """A subcommand's parser whose help ends with the options of the game named before ``--help``
    (read from its schema only when help is shown: that loads the game's module), or a pointer
    to them: every game's options, repeated in every command's help, drowned the command's own."""

    lists_game_options = False
    named_game: str | None = None

    def format_help(self) -> str:
        text = super().format_help()
        return text + "\n" + self.game_options_text() if self.lists_game_options else text

    def game_options_text(self) -> str:
        """The named game's options, or how to see them (an unknown name says why it is not one)."""
        if self.named_game is not None:
            try:
                name = canonical_game(self.named_game)
            except CrossenvsError as exc:
                return f"game options: {exc}\n"
            return f"{name} {options_text(name, indent='')}"  # crisscross options:\n  size=8 ...
        game = next(action for action in self._actions if action.dest == "game")
        naming = f"{'--game ' if game.option_strings else ''}GAME --help"
        return (
            f"game options (--option KEY=VALUE): {self.prog} {naming} lists that game's,\ncrossenvs list every game's\n"
        )


def options_text(name: str, indent: str = "  ") -> str:
    """A game's options from its schema, one line each: ``size=8  an integer from 3 to 19: the board...``."""
    schema = game_class(name).OPTION_SCHEMA
    if not len(schema):
        return f"{indent}options: none\n"
    lines = [f"{indent}options:"]
    lines += [f"{indent}  {o.name}={o.default!r}  ({o.values_text()}) {o.help}" for o in schema]
    return "\n".join(lines) + "\n"


def add_game_arguments(parser: argparse.ArgumentParser, seed_help: str | None) -> None:
    """``GAME``, ``--option KEY=VALUE`` (repeatable) and ``--seed`` (unless ``seed_help`` is None): the flags of
    a command that plays a game."""
    parser.add_argument("game", metavar="GAME", help=f"one of {', '.join(list_games())} (any case)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable; see below)"
    )
    if seed_help is not None:
        parser.add_argument("--seed", type=int, default=0, help=seed_help)


def game_of(args: argparse.Namespace) -> Game:
    """The game ``GAME --option KEY=VALUE ...`` names (made only after the command's checks passed)."""
    return make_game(args.game, **parse_options(args.option))


def canonical_game(text: str) -> str:
    """A registered game's name from what a person typed: any case, ``-`` or spaces for ``_``.

    ``Crisscross``, ``charing-cross`` and ``Charing Cross`` all name a game; anything else is an
    :class:`UnknownGameError` that lists the games and suggests the nearest.
    """
    name = text.strip().lower().replace("-", "_").replace(" ", "_")
    return game_spec(name).name


def chosen_ladder(game: Game, flag: str) -> Any:
    """The ladder a ``--ladder [FILE]`` flag names: the game's shipped one, or the file."""
    from ..eval.ladder import load_ladder

    return load_ladder(game, None if flag == SHIPPED_LADDER else flag)


def import_module(name: str, given_as: str = "--import") -> None:
    """Import a module by name, or a ``.py`` file by path (its folder joins ``sys.path``); an error names it as
    the user gave it (``given_as``: the flag, or the argument's name)."""
    path = Path(name)
    try:
        if path.suffix == ".py":
            if not path.is_file():
                raise InvalidOptionError(f"{given_as} {name}: no such file")
            sys.path.insert(0, str(path.resolve().parent))
            importlib.import_module(path.stem)
        else:
            importlib.import_module(name)
    except ImportError as exc:
        raise InvalidOptionError(f"{given_as} {name}: {exc}") from None
    except SyntaxError as exc:  # other errors in the user's module keep their traceback, which shows where
        raise InvalidOptionError(f"{given_as} {name}: {exc.msg} ({exc.filename}, line {exc.lineno})") from None
