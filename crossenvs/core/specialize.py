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

import hashlib
import importlib
import importlib.util
import marshal
import os
import shutil
import sys
import tempfile
import threading
import time
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from .errors import CrossenvsError
from .waits import compile_notice, compile_seconds, say

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: the line of a template module that a per-game copy replaces
KERNELS_LINE = "apply_kernel, mask_kernel, observe_kernel = game_kernels()"
KERNEL_ROLES = ("apply_kernel", "mask_kernel", "observe_kernel")


class KernelError(CrossenvsError, TypeError):
    """A game's kernels cannot be specialised (e.g. they are not module-level functions)."""


def _digest(*chunks: bytes) -> str:
    hasher = hashlib.sha256()
    for chunk in chunks:
        hasher.update(chunk)
        hasher.update(b"\0")
    return hasher.hexdigest()[:16]


@cache
def package_hash() -> str:
    """A hash of every source file of the package (numba's own index keys numba's and Python's versions)."""
    sources = sorted(PACKAGE_ROOT.rglob("*.py"))
    chunks = []
    for path in sources:
        chunks += [str(path.relative_to(PACKAGE_ROOT)).encode(), path.read_bytes()]
    return _digest(*chunks)


def cache_base() -> Path:
    """Where versions' caches live: ``$CROSSENVS_CACHE_DIR``, else a ``NUMBA_CACHE_DIR`` the user set,
    else ``~/.cache/crossenvs`` (a temporary folder when home is not writable)."""
    if os.environ.get("CROSSENVS_CACHE_DIR"):
        return Path(os.environ["CROSSENVS_CACHE_DIR"])
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:  # the user's own, or ours inherited from a parent process (then use its base)
        path = Path(numba_dir)
        return path.parent if path.name.startswith("numba-") else path
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "crossenvs")
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        base = Path(tempfile.gettempdir(), "crossenvs-cache")
    return base


def cache_root() -> Path:
    """The folder of this package version's compiled kernels and per-game copies."""
    return cache_base() / f"numba-{package_hash()}"


def use_versioned_cache() -> Path:
    """Point numba's disk cache at :func:`cache_root` (the environment too, so subprocesses agree).

    numba reads ``NUMBA_CACHE_DIR`` when it is imported and again before compiling; its config is
    set directly as well in case numba was imported first. It must run before the first kernel is
    decorated (numba fixes a kernel's cache folder then, and makes it), so the core calls it on
    import; it only names the folder, and :func:`prepared_cache_root` prunes when the cache is first used.
    """
    root = cache_root()
    os.environ["NUMBA_CACHE_DIR"] = str(root)
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = str(root)
    return root


@cache
def prepared_cache_root() -> Path:
    """:func:`cache_root`, made and marked as the most recently used version, other versions' old
    folders pruned: once per process, when the package first writes to its cache, not on import."""
    root = cache_root()
    _prune_old_versions(root, keep=KEEP_VERSIONS)
    return root


#: how many versions' caches stay on disk (every edit of the sources starts a new one) ...
KEEP_VERSIONS = 6
#: ... unless a version was used this recently (a long run of an older checkout keeps its folder)
KEEP_SECONDS = 24 * 3600


def _prune_old_versions(root: Path, keep: int) -> None:
    """Remove version folders beyond the ``keep`` most recently used, if unused for a day."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        os.utime(root)  # marks this version as the most recently used
        versions = sorted(root.parent.glob("numba-*"), key=lambda path: path.stat().st_mtime, reverse=True)
        for old in [path for path in versions if path != root][max(0, keep - 1) :]:
            if time.time() - old.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # a cache folder that cannot be listed is no reason to fail an import
        pass


def game_kernels() -> tuple[Any, Any, Any]:
    """Stand-ins for a game's kernels in a template module; per-game copies import the real ones."""

    def unbound(*args: Any) -> Any:
        raise KernelError("this is a template module; use crossenvs.core.specialize.specialize(template, game)")

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
    path = getattr(sys.modules[module_name], "__file__", None)
    return Path(path).read_bytes() if path and Path(path).is_file() else module_name.encode()


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
    return bool(folder) and not any(Path(folder).rglob(f"{stem}.*.nbi"))


def _compile_notice(template: str, game_class: type) -> None:
    """One line before a first-use compile, so a wait of many seconds is not a silent one: through
    :func:`crossenvs.core.waits.say`, so terminals, notebooks, pipes and logs all show it (and a terminal
    a progress bar); silenced by ``CROSSENVS_COMPILE_NOTICE=0`` or the ``crossenvs`` logger's level."""
    what = _TEMPLATE_WORDS.get(template, template)
    say(compile_notice(template, what, getattr(game_class, "name", game_class.__name__)), compile_seconds(template))


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
    text = header + source.replace(KERNELS_LINE, imports)
    kernel_sources = [_module_source(module) for module in sorted({module for module, _ in paths})]
    kernel_sources += [_kernel_code(getattr(game_class, role)) for role in KERNEL_ROLES]
    stem = f"{template.rpartition('.')[2]}__{game_class.__name__.lower()}__{_digest(text.encode(), *kernel_sources)}"
    folder = prepared_cache_root() / "specialized"
    path = folder / f"{stem}.py"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(temporary, path)  # atomic: concurrent writers write the same text
    if _cold(stem):
        _compile_notice(template, game_class)
    module_name = f"crossenvs._specialized.{stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
