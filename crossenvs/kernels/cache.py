"""Where compiled kernels live on disk, and why an edited package never loads stale machine code.

numba caches a compiled function beside a stamp of its own source file, but a cached function keeps
the machine code of every function it called when it was compiled: edit a rule and a cached loop over
it would still run the old one. So :func:`use_versioned_cache` (called on ``import crossenvs``, before
any kernel is decorated) points numba's cache at a folder named after a hash of the package's sources;
it deletes nothing. On the package's first write to its cache (:func:`prepared_cache_root`) the
folder is marked as used and other versions' old folders pruned. The per-game copies of templates
(:mod:`crossenvs.kernels.specialize`, the only code made at run time) are written into its
``specialized/`` folder (:func:`copies_folder`; ``crossenvs doctor`` prints it).

The cache lives under ``$CROSSENVS_CACHE_DIR`` (else a ``NUMBA_CACHE_DIR`` you set, else
``~/.cache/crossenvs``); ``import crossenvs`` sets ``NUMBA_CACHE_DIR`` to the version's folder.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from types import ModuleType

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def digest(*chunks: bytes) -> str:
    hasher = hashlib.sha256()
    for chunk in chunks:
        hasher.update(chunk)
        hasher.update(b"\0")
    return hasher.hexdigest()[:16]


def package_hash(root: Path = PACKAGE_ROOT) -> str:
    """A hash of every source file of the package (numba's own index keys numba's and Python's versions)."""
    return _package_hash(root)


@cache
def _package_hash(root: Path) -> str:
    chunks = []
    for path in sorted(root.rglob("*.py")):
        chunks += [str(path.relative_to(root)).encode(), path.read_bytes()]
    return digest(*chunks)


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


def copies_folder() -> Path:
    """Where the per-game copies of the templates are written: the only code made at run time."""
    return cache_root() / "specialized"


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


def generated_module(stem: str, text: str) -> ModuleType:
    """Import the generated source ``text`` as the module ``crossenvs._specialized.<stem>``, from a file.

    numba caches a function by its source file, so a per-game copy is written once into
    :func:`copies_folder` and imported from there: atomically (concurrent writers write the same
    text), and only when missing (an unchanged file keeps numba's stamps).
    """
    module_name = f"crossenvs._specialized.{stem}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    prepared_cache_root()
    folder = copies_folder()
    path = folder / f"{stem}.py"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(temporary, path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
