"""A process that sees only the base install and the extras it names, whatever else lies in site-packages.

A test environment has every extra installed, so an ``import yaml`` that the base install lacks passes
every test there (it did: ``crossenvs --help`` crashed for every user of the README's install line while
the suite was green). :func:`hide_extras` makes every installed distribution that neither the base
requirements nor the named extras pull in (followed through their own requirements) impossible to import,
read from crossenvs' installed metadata, so a checkout and a wheel are checked alike.

It imports the standard library only, and must run before anything else is imported (numba itself
imports PyYAML and SciPy when it finds them), so a test starts a fresh process with this file's folder
on ``sys.path`` (:data:`PRELUDE`) rather than importing it beside crossenvs.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable
from importlib import metadata
from importlib.machinery import ModuleSpec

#: the first lines of a fresh process that sees the base install and the extras in ``sys.argv[1]`` (comma
#: separated, possibly empty); the folder of this file is ``sys.argv[2]``
PRELUDE = """
import sys
sys.path.insert(0, sys.argv[2])
from without_extras import hide_extras
hide_extras([extra for extra in sys.argv[1].split(",") if extra])
del sys.path[0]
"""

#: installed with every virtual environment's pip, never by an extra
ALWAYS = frozenset({"pip", "setuptools", "pkg_resources", "_distutils_hack", "crossenvs"})


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(distribution: str, extras: Iterable[str] = ()) -> list[str]:
    """The names ``distribution`` requires, its base requirements and those of ``extras`` (markers of other
    extras skipped, platform markers taken as true)."""
    try:
        lines = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return []
    wanted = {_normal(extra) for extra in extras}
    names = []
    for line in lines:
        requirement, _, marker = line.partition(";")
        extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", marker)
        if extra and _normal(extra.group(1)) not in wanted:
            continue
        name = re.match(r"[A-Za-z0-9_.-]+", requirement.strip()).group(0)
        bracket = re.search(r"\[([^\]]+)\]", requirement)  # ray[rllib]: the extras of a requirement count too
        names.append((name, tuple(part.strip() for part in bracket.group(1).split(",")) if bracket else ()))
    return names


def _closure(extras: Iterable[str]) -> set[str]:
    """The distributions crossenvs with ``extras`` pulls in, by normalised name."""
    seen: set[str] = set()
    stack = [("crossenvs", tuple(extras))]
    while stack:
        name, its_extras = stack.pop()
        key = (_normal(name), its_extras)
        if key in seen:
            continue
        seen.add(key)
        stack.extend(_requirements(name, its_extras))
    return {name for name, _ in seen}


@functools.cache
def _modules_by_distribution() -> dict[str, set[str]]:
    modules: dict[str, set[str]] = {}
    for module, distributions in metadata.packages_distributions().items():
        for distribution in distributions:
            modules.setdefault(_normal(distribution), set()).add(module)
    return modules


def visible_modules(extras: Iterable[str] = ()) -> set[str]:
    """The top-level modules the base install and ``extras`` bring (of those installed here)."""
    by_distribution = _modules_by_distribution()
    return set().union(*(by_distribution.get(name, set()) for name in _closure(extras))) | ALWAYS


def hidden_modules(extras: Iterable[str] = ()) -> set[str]:
    """Every installed top-level module that the base install and ``extras`` do not bring."""
    return set().union(*_modules_by_distribution().values()) - visible_modules(extras)


class _Hiding:
    """One of ``sys.meta_path``'s finders, blind to the hidden modules: so ``importlib.util.find_spec`` answers
    None for them and importing one raises ``ModuleNotFoundError``, exactly as if it were not installed."""

    def __init__(self, finder: object, hidden: set[str]) -> None:
        self.finder, self.hidden = finder, hidden

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name.partition(".")[0] in self.hidden or not hasattr(self.finder, "find_spec"):
            return None
        return self.finder.find_spec(name, path, target)

    def __getattr__(self, attribute: str) -> object:
        return getattr(self.finder, attribute)


def hide_extras(extras: Iterable[str] = ()) -> set[str]:
    """From now on in this process, only the base install and ``extras`` can be imported; returns what is hidden.

    Call it first thing in a fresh process. What a ``.pth`` file imported at start-up (numba-cuda's and
    cuda-bindings' redirectors import the ``cuda`` namespace) is dropped from ``sys.modules``, so the next
    import of it fails too.
    """
    hidden = hidden_modules(extras)
    for name in [name for name in sys.modules if name.partition(".")[0] in hidden]:
        del sys.modules[name]
    sys.meta_path[:] = [_Hiding(finder, hidden) for finder in sys.meta_path]
    return hidden
