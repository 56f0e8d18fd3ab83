"""Numba code that is generic over a game, compiled once per game and cached on disk.

Numba cannot cache a function that receives other jitted functions as arguments, and a cached
function keeps calling the version of another kernel it was compiled against. Both problems
are solved here, in one place:

* **Per-game copies.** Code that drives any game (the vector env's batch loops, MCTS) is written
  once as a *template module*: ordinary numba code that calls the game's kernels through the
  module globals ``apply_kernel``, ``mask_kernel`` and ``observe_kernel``, bound by the line
  ``apply_kernel, mask_kernel, observe_kernel = game_kernels()``. :func:`specialize` writes a
  copy of the template in which that line imports one game's kernels instead, imports it, and
  returns the module. Every game, built-in or a user's own, gets its own file and so its own
  numba cache entries: there is no table of game ids for a dispatcher to get wrong.
* **A cache that cannot go stale.** :func:`use_versioned_cache` (called on ``import crossenvs``)
  points numba's cache at a folder named after a hash of the package's sources, so an edited
  package never reads kernels cached for other sources, whichever entry point starts it. It
  deletes nothing: the folder is marked as used and other versions' old folders pruned on the
  package's first use of its cache (:func:`prepared_cache_root`, the first per-game copy). The
  per-game copies of a user's game are named after a hash of the module defining its kernels and
  of the kernels' bytecode (helper modules those kernels import are not covered).

The cache lives under ``$CROSSENVS_CACHE_DIR`` (else a ``NUMBA_CACHE_DIR`` you set, else
``~/.cache/crossenvs``); ``import crossenvs`` sets ``NUMBA_CACHE_DIR`` to the version's folder.
"""

from __future__ import annotations

import importlib
import marshal
import os
import sys
import threading
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ..core.errors import CrossenvsError
from ..core.waits import compile_wait
from .cache import digest, game_entry, game_hash, generated_module

#: the line of a template module that a per-game copy replaces
KERNELS_LINE = "apply_kernel, mask_kernel, observe_kernel = game_kernels()"
KERNEL_ROLES = ("apply_kernel", "mask_kernel", "observe_kernel")


class KernelError(CrossenvsError, TypeError):
    """A game's kernels cannot be specialised (e.g. they are not module-level functions)."""


def game_kernels() -> tuple[Any, Any, Any]:
    """Stand-ins for a game's kernels in a template module; per-game copies import the real ones."""

    def unbound(*args: Any) -> Any:
        raise KernelError("this is a template module; use crossenvs.kernels.specialize.specialize(template, game)")

    return unbound, unbound, unbound


def _import_path(kernel: Any, role: str, game_name: str) -> tuple[str, str]:
    """``(module, name)`` from which ``kernel`` can be imported; a clear error when it cannot."""
    function = getattr(kernel, "py_func", kernel)  # NUMBA_DISABLE_JIT=1 leaves plain functions
    module_name, name = getattr(function, "__module__", None), getattr(function, "__qualname__", "")
    module = sys.modules.get(module_name or "")
    if module is None or "." in name or getattr(module, name, None) is not kernel:
        raise KernelError(
            f"{game_name}: {role} must be a module-level function of an imported module (numba kernels are "
            f"specialised per game by importing them), got {kernel!r}"
        )
    return module_name, name


def _kernel_code(kernel: Any) -> bytes:
    """The kernel's own bytecode and constants: a game defined without a source file (a notebook's
    ``__main__``) still gets a new copy when its kernels change.

    Marshal format 2, which writes no back-references: later formats mark objects by their reference
    count, which compiling the kernel changes, so a process that compiled the game's kernels before
    specialising named its copy differently from one that loaded them from the cache, and compiled
    the copy again."""
    code = getattr(getattr(kernel, "py_func", kernel), "__code__", None)
    return marshal.dumps(code, 2) if code is not None else b""


def _module_source(module_name: str) -> bytes:
    """What keys a copy to the module defining a game's kernels: a built-in game's sources and what they import
    (:func:`~crossenvs.kernels.cache.game_hash`), else the module's own source."""
    path = getattr(sys.modules[module_name], "__file__", None)
    if not path or not Path(path).is_file():
        return module_name.encode()
    entry = game_entry(Path(path))
    return game_hash(entry).encode() if entry is not None else Path(path).read_bytes()


#: what each template compiles, for the first-use notice
_TEMPLATE_WORDS = {
    "crossenvs.envs.game_batch": "the vector env's batch loops",
    "crossenvs.players.mcts": "the MCTS search",
    "crossenvs.az.tree": "AlphaZero's tree search",
    "crossenvs.core.fused": "the single-game stepper",
    "crossenvs.eval.solve_kernel": "the exact solver",
}


def _cold(stem: str) -> bool:
    """Whether numba has no cached machine code yet for the copy ``stem`` (its index files are missing)."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    # the copy's own functions, or those of its generated loops (named after it): a process that ran only
    # small batches compiled the loops alone, the kernels inlined into them
    return bool(folder) and not any(Path(folder).rglob(f"{stem}*.nbi"))


def _compile_notice(template: str, game_class: type) -> None:
    """One line before a first-use compile, so a wait of many seconds is not a silent one: through
    :func:`crossenvs.core.waits.say`, so terminals, notebooks, pipes and logs all show it (and a terminal
    a progress bar); silenced by ``CROSSENVS_COMPILE_NOTICE=0`` or the ``crossenvs`` logger's level."""
    compile_wait(template, _TEMPLATE_WORDS.get(template, template), getattr(game_class, "name", game_class.__name__))


_LOCK = threading.Lock()


def specialize(template: str, game_class: type) -> ModuleType:
    """The copy of template module ``template`` bound to ``game_class``'s kernels (made once per process)."""
    with _LOCK:  # threads asking for the same game share one copy
        return _specialize(template, game_class)


@cache
def _specialize(template: str, game_class: type) -> ModuleType:
    """The copy of template module ``template`` bound to ``game_class``'s kernels, imported.

    The copy is written once into :func:`cache_root` under a name that hashes the template, the
    kernels' import paths and the source of the modules defining them, so numba caches its
    compiled functions like any module's.
    """
    template_module = importlib.import_module(template)
    source = Path(template_module.__file__).read_text()
    if source.count(KERNELS_LINE) != 1:
        raise KernelError(f"template {template} must contain the line {KERNELS_LINE!r} exactly once")
    paths = [_import_path(getattr(game_class, role), role, game_class.__name__) for role in KERNEL_ROLES]
    imports = "\n".join(f"from {module} import {name} as {role}" for (module, name), role in zip(paths, KERNEL_ROLES))
    header = f"# {template} specialised for {game_class.__module__}.{game_class.__qualname__}; generated, do not edit\n"
    text = (
        header
        + source.replace(KERNELS_LINE, imports)
        + f"\nSPECIALISED_FOR = {getattr(game_class, 'name', game_class.__name__)!r}\n"
    )
    kernel_sources = [_module_source(module) for module in sorted({module for module, _ in paths})]
    kernel_sources += [_kernel_code(getattr(game_class, role)) for role in KERNEL_ROLES]
    stem = f"{template.rpartition('.')[2]}__{game_class.__name__.lower()}__{digest(text.encode(), *kernel_sources)}"
    if _cold(stem):
        _compile_notice(template, game_class)
    return generated_module(stem, text)
