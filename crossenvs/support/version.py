"""The package's version, in the core so that any layer can write it into the files it makes (a PPO
checkpoint's metadata); the package root re-exports it as ``crossenvs.__version__``."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("crossenvs")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"
