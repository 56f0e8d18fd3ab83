"""A trainer's config: a YAML mapping read strictly, then a dataclass filled key by key.

:func:`config_from_dict` refuses unknown keys and wrong types naming the key, so a typo stops a run
before any work starts; :func:`check_config_memory` refuses a config that cannot fit in memory, before
any run folder exists.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

from crossenvs.core.registry import list_games
from crossenvs.support.checks import check_memory, check_seed
from crossenvs.support.errors import CrossenvsError
from crossenvs.support.extras import import_extra

ConfigType = TypeVar("ConfigType")


class ConfigError(CrossenvsError, ValueError):
    """A config file that cannot be used; the message names the key."""


class _DuplicateKey(Exception):
    """A key written twice in one YAML mapping: the key and the lines of both."""


@functools.cache
def unique_key_loader() -> type:
    """YAML's safe loader, refusing a key written twice in one mapping (PyYAML keeps the last one silently, so a
    setting changed near the top of a config could be undone further down). Made on first use: PyYAML comes with
    the train extra, and this module is imported by what needs no YAML (the device search, the command line)."""
    yaml = import_extra("yaml", "reading a trainer's config", "train")

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            lines: dict[Any, int] = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # merge keys (<<) may repeat; other odd keys are the base loader's to judge
                key, line = self.construct_object(key_node), key_node.start_mark.line + 1
                if key in lines:
                    raise _DuplicateKey(key, lines[key], line)
                lines[key] = line
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def read_yaml_config(path: Path | str) -> dict[str, Any]:
    """The mapping in a YAML file; a clear error when it is missing, not UTF-8, malformed, repeats a key
    or is not a mapping."""
    path = Path(path)
    loader = unique_key_loader()
    yaml = import_extra("yaml", "reading a trainer's config", "train")
    if path.is_dir():
        raise ConfigError(f"config {path} is a folder, not a YAML file")
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = path.read_bytes()
        raw = yaml.load(data.decode("utf-8"), Loader=loader) or {}
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save the config as UTF-8"
        ) from None
    except _DuplicateKey as exc:
        key, first, second = exc.args
        raise ConfigError(f"{path}: the key {key!r} is written twice (lines {first} and {second}); keep one") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys to values")
    return raw


_CONFIG_TYPES: dict[str, tuple[type, str]] = {
    "int": (int, "a whole number"),
    "float": (float, "a number"),
    "str": (str, "a text string"),
    "dict": (dict, "a mapping of names to values"),
}
"""A config field's annotation -> its Python type and how an error message names it."""


def config_from_dict(
    cls: type[ConfigType], raw: dict[str, Any], where: str = "config", from_command_line: Collection[str] = ()
) -> ConfigType:
    """An instance of dataclass ``cls`` from ``raw``; unknown keys, a missing game and wrong types are refused.

    A key in ``from_command_line`` came from ``--set`` or a flag, so its error names that, not the file ``where``.
    """
    fields = {field.name: field for field in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        typed = [key for key in unknown if key in from_command_line]
        source = f"--set {', '.join(f'{key}=...' for key in typed)}" if typed else where
        raise ConfigError(f"{source}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(fields)}")
    if "game" not in raw:
        raise ConfigError(f"{where}: the key 'game' is required ({', '.join(list_games())})")
    values = {}
    for name, value in raw.items():
        expected, described = _CONFIG_TYPES[fields[name].type]
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or isinstance(value, bool):
            source = f"the command line (--set {name}=...)" if name in from_command_line else where
            raise ConfigError(f"{source}: '{name}' must be {described}, got {value!r}")
        values[name] = value
    if values["game"] not in list_games():
        raise ConfigError(f"{where}: 'game' {values['game']!r} is not one of {', '.join(list_games())}")
    return cls(**values)


def load_run_config(
    cls: type[ConfigType], path: Path | str, overrides: dict[str, Any] | None, check: Callable[[Any, str], None]
) -> ConfigType:
    """A trainer's run config: the YAML file read (unknown keys and wrong types stop the run, naming the key), the
    command line's ``overrides`` laid over it where not None, then ``check(config, where)``, its refusal naming
    the command line where its values are to blame, else the file."""
    file_raw = read_yaml_config(path)
    given = {key: value for key, value in (overrides or {}).items() if value is not None}
    config = config_from_dict(cls, {**file_raw, **given}, str(path), from_command_line=given)
    check_naming_the_source(check, cls, file_raw, config, str(path), given)
    return config


def check_ranges(
    config: Any,
    where: str,
    *,
    at_least_one: Collection[str] = (),
    not_negative: Collection[str] = (),
    positive: Collection[str] = (),
) -> None:
    """The range checks every trainer's config makes: counts of at least 1, of 0 or more, and positive numbers,
    each refusal naming its key; then the wall-clock cap and the seed."""
    for names, lowest, what in ((at_least_one, 1, "at least 1"), (not_negative, 0, "0 or more")):
        for name in names:
            if getattr(config, name) < lowest:
                raise ConfigError(f"{where}: '{name}' must be {what}, got {getattr(config, name)}")
    for name in positive:
        if not getattr(config, name) > 0:
            raise ConfigError(f"{where}: '{name}' must be positive, got {getattr(config, name)}")
    check_wall_clock(config.max_minutes, where)
    check_seed(config.seed, f"{where}: 'seed'")


def check_naming_the_source(
    check: Callable[[Any, str], None], cls: type, file_raw: dict[str, Any], merged: Any, path: str, given: dict
) -> None:
    """``check(config, where)`` on the run's config, naming the command line where its values are to blame
    (the merged config is refused, the file's own values pass), else the file ``path``."""
    try:
        check(merged, path)
    except ConfigError as refused:
        if not given or not _passes(check, cls, file_raw, path):
            raise
        named = [key for key in given if f"'{key}'" in str(refused)] or list(given)  # the keys the error is about
        where = f"the command line ({', '.join(f'--set {key}=...' for key in named)})"
        raise ConfigError(str(refused).replace(path, where, 1)) from None


def _passes(check: Callable[[Any, str], None], cls: type, raw: dict[str, Any], path: str) -> bool:
    try:
        check(config_from_dict(cls, raw, path), path)
    except ConfigError:
        return False
    return True


def check_config_memory(parts: dict[str, int], where: str, keys: str) -> None:
    """Refuse a config whose buffers and network cannot fit in memory, before any run folder exists.

    ``parts`` maps what needs memory (replay buffer, network and optimiser...) to its bytes; ``keys`` names
    the config keys that shrink them.
    """
    biggest = ", ".join(f"{name} {size / 2**30:,.2f} GiB" for name, size in sorted(parts.items(), key=lambda i: -i[1]))
    check_memory(sum(parts.values()), f"{where}: this config ({biggest})", f"lower {keys}")


def check_wall_clock(minutes: float, where: str) -> None:
    """Every run has a finite wall-clock cap (``max_minutes`` > 0): a config can never run for hours unbidden."""
    if not (math.isfinite(minutes) and minutes > 0):
        raise ConfigError(
            f"{where}: 'max_minutes' must be a finite number of minutes above 0 (the run's wall-clock cap; "
            f"--max-minutes overrides it), got {minutes}"
        )
