"""The option schema: declared once per game, checked by the base class, read by everything that shows options."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import crossenvs
from crossenvs import Game, InvalidOptionError, game_class, game_spec, list_games, make_game
from crossenvs.core.options import RESERVED_NAMES, OptionSchema, choice, flag, integer
from crossenvs.envs.aec import CrossAECEnv, make_env, make_raw_env
from crossenvs.envs.single_agent import CrossSingleAgentEnv
from crossenvs.envs.vector import CrossSB3VecEnv, CrossVectorEnv, DeviceVectorEnv

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("name", list_games())
def test_every_game_declares_its_options_with_help_and_defaults_that_pass(name):
    cls = game_class(name)
    assert isinstance(cls.OPTION_SCHEMA, OptionSchema)
    assert {option.name: option.default for option in cls.OPTION_SCHEMA} == cls.OPTIONS
    for option in cls.OPTION_SCHEMA:
        assert option.help and option.name not in RESERVED_NAMES
        assert option.check(name, option.default) == option.default
    assert make_game(name).options == cls.OPTIONS


def test_values_come_back_in_normal_form():
    game = make_game("charing_cross", first_player=" BLACK ", self_jump="off", move_cap=50)
    assert game.options == {"first_player": "black", "self_jump": False, "move_cap": 50}
    assert make_game("neo_crossings", symmetry_rule=0).options["symmetry_rule"] is False


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 20}, "size must be an integer from 3 to 19, got 20"),
        ({"size": True}, "size must be an integer"),
        ({"size": "6"}, "size must be an integer"),
        ({"sise": 6}, "unknown option.*sise.*did you mean 'size'"),
        ({"name": "x"}, "unknown option.*name"),
        ({"game": "crosse"}, "unknown option.*game"),
    ],
)
def test_bad_options_get_one_clear_error(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        make_game("crisscross", **options)


def test_choice_and_flag_errors_name_the_values():
    with pytest.raises(InvalidOptionError, match=r"stalemate must be one of 'pass', 'loss', got 'draw'"):
        make_game("crossings", stalemate="draw")
    with pytest.raises(InvalidOptionError, match="self_jump must be on or off"):
        make_game("charing_cross", self_jump="maybe")


def test_an_option_named_like_a_parameter_reaches_the_option_check_not_a_type_error():
    """``make_game("crosse", name=...)`` and ``crisscross_v0.env(game=...)`` used to end in a raw TypeError."""
    with pytest.raises(InvalidOptionError, match="crosse: unknown option"):
        make_game("crosse", name="x")
    with pytest.raises(InvalidOptionError, match="crisscross: unknown option"):
        crossenvs.crisscross_v0.env(game="crosse")
    with pytest.raises(InvalidOptionError, match="crisscross: unknown option"):
        crossenvs.crisscross_v0.raw_env(name="crosse")


@pytest.mark.parametrize(
    "declare",
    [
        lambda: integer("render_mode", 1, 0, 2, "collides with a parameter"),
        lambda: choice("not a name", "a", ("a",), "not an identifier"),
        lambda: integer("size", 30, 3, 19, "default out of range"),
        lambda: flag("fast", True, ""),
        lambda: OptionSchema([flag("x", True, "one"), flag("x", False, "two")]),
    ],
)
def test_a_wrong_declaration_fails_when_the_game_is_defined(declare):
    with pytest.raises(InvalidOptionError):
        declare()


def test_a_game_that_declares_an_options_dict_is_told_to_use_the_schema():
    with pytest.raises(InvalidOptionError, match="OPTION_SCHEMA"):
        type("Legacy", (Game,), {"OPTIONS": {"size": 3}})


def test_the_reserved_names_cover_every_parameter_beside_options():
    """Option names must never collide with a keyword of a function that also takes ``**options``."""
    for function in (
        crossenvs.make_game,
        make_env,
        make_raw_env,
        CrossAECEnv.__init__,
        CrossSingleAgentEnv.__init__,
        CrossVectorEnv.__init__,
        CrossVectorEnv.__new__,
        DeviceVectorEnv.__init__,
        CrossSB3VecEnv.__init__,
        crossenvs.crisscross_v0.env,
        crossenvs.crisscross_v0.raw_env,
    ):
        parameters = inspect.signature(function).parameters.values()
        named = {p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        assert named <= RESERVED_NAMES, f"{function.__qualname__}: {named - RESERVED_NAMES} not reserved"


BUILT_IN = [name for name in list_games() if str(game_spec(name).target).startswith("crossenvs.games.")]


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_docs_option_table_matches_the_schema(name):
    """Each game's page lists exactly its declared options, defaults and values (the schema is the source)."""
    page = (DOCS / f"{name}.md").read_text()
    section = page.split("## Options", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    table = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        table[cells[0].strip("`")] = (cells[1].strip("`"), cells[2])
    schema = game_class(name).OPTION_SCHEMA
    assert list(table) == [option.name for option in schema]
    for option in schema:
        default, values = table[option.name]
        assert default == (f'"{option.default}"' if isinstance(option.default, str) else repr(option.default))
        if option.kind == "choice":
            assert re.findall(r'"([^"]+)"', values) == list(option.choices), values
        elif option.kind == "integer":
            assert f"integer from {option.low:,} to {option.high:,}" in values, values
        else:
            assert values.startswith("`True`/`False`"), values
