"""Numba code that is generic over a game, compiled once per game and cached on disk: the per-game copies.

Numba never loads from its disk cache a function that receives another jitted function as an
argument, and a cached function keeps calling the version of another kernel it was compiled
against. So code that drives any game (the vector env's batch loops, the search's tree walk, MCTS,
the single-game stepper, the solver) is written once as a *template module*: ordinary numba code
that calls the game's kernels through the module globals ``apply_kernel``, ``mask_kernel`` and
``observe_kernel``, bound by the line ``apply_kernel, mask_kernel, observe_kernel = game_kernels()``.
:func:`specialize` writes a copy of the template in which that one line imports one game's kernels
instead (on one line: every other line keeps its number, so a traceback's line is the template's),
imports it, and returns the module. Every game, built-in or a user's own, gets its own file and so
its own numba cache entries: there is no table of game ids for a dispatcher to get wrong.

These copies are the only code made at run time. They are written into
:func:`crossenvs.kernels.cache.copies_folder` (``crossenvs doctor`` prints where), named after the
template, the game and a hash of the template's text and of the module defining the kernels (for a
user's game: that module's source and the kernels' bytecode; helper modules it imports are not
covered). A template says in words what it compiles (its ``COMPILING``), for the first-use notice.
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

from crossenvs.kernels.cache import digest, generated_module
from crossenvs.support.errors import CrossenvsError
from crossenvs.support.waits import compile_wait

#: the line of a template module that a per-game copy replaces
KERNELS_LINE = "apply_kernel, mask_kernel, observe_kernel = game_kernels()"
KERNEL_ROLES = ("apply_kernel", "mask_kernel", "observe_kernel")


class KernelError(CrossenvsError, TypeError):
    """A game's kernels cannot be specialised (e.g. they are not module-level functions), or do not compile for CUDA."""


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
    """What keys a copy to the module defining a game's kernels: its source (a built-in game's sources also key
    the whole cache folder, :func:`crossenvs.kernels.cache.package_hash`)."""
    path = getattr(sys.modules[module_name], "__file__", None)
    if not path or not Path(path).is_file():
        return module_name.encode()
    return Path(path).read_bytes()


def _cold(stem: str) -> bool:
    """Whether numba has no cached machine code yet for the copy ``stem`` (its index files are missing)."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    return bool(folder) and not any(Path(folder).rglob(f"{stem}*.nbi"))


_LOCK = threading.Lock()


def specialize(template: str, game_class: type) -> ModuleType:
    """The copy of template module ``template`` bound to ``game_class``'s kernels (made once per process)."""
    with _LOCK:  # threads asking for the same game share one copy
        return _specialize(template, game_class)


@cache
def _specialize(template: str, game_class: type) -> ModuleType:
    """The copy of template module ``template`` bound to ``game_class``'s kernels, imported.

    The kernels' line becomes one line of three imports, and the copy's own lines (what it is, which
    game) are appended at the end: every line of the template keeps its number in the copy.
    """
    template_module = importlib.import_module(template)
    source = Path(template_module.__file__).read_text()
    if source.count(KERNELS_LINE) != 1:
        raise KernelError(f"template {template} must contain the line {KERNELS_LINE!r} exactly once")
    paths = [_import_path(getattr(game_class, role), role, game_class.__name__) for role in KERNEL_ROLES]
    imports = "; ".join(f"from {module} import {name} as {role}" for (module, name), role in zip(paths, KERNEL_ROLES))
    game_name = getattr(game_class, "name", game_class.__name__)
    text = (
        source.replace(KERNELS_LINE, imports)
        + f"\n# {template} specialised for {game_class.__module__}.{game_class.__qualname__}; generated, do not edit\n"
        + f"SPECIALISED_FOR = {game_name!r}\n"
    )
    kernel_sources = [_module_source(module) for module in sorted({module for module, _ in paths})]
    kernel_sources += [_kernel_code(getattr(game_class, role)) for role in KERNEL_ROLES]
    stem = f"{template.rpartition('.')[2]}__{game_class.__name__.lower()}__{digest(text.encode(), *kernel_sources)}"
    if _cold(stem):
        compile_wait(template, getattr(template_module, "COMPILING", template), game_name)
    return generated_module(stem, text)
