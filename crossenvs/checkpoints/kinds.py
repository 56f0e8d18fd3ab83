"""Which kind a checkpoint is, and the player spec that plays it, for a file or an RLlib folder alike."""

from __future__ import annotations

from pathlib import Path

from .files import RLLIB, file_kind, spec_of
from .rllib import rllib_module_folder


def detect_kind(path: str | Path) -> str:
    """:data:`ALPHAZERO`, :data:`SB3` or :data:`RLLIB`: by the contents where they tell, else by the name.

    Both ``.pt`` and ``.zip`` files are zip archives: stable-baselines3's holds a ``data`` entry,
    torch's a ``<name>/data.pkl``. A folder is an RLlib checkpoint or refused.
    """
    path = Path(path)
    if path.is_dir():
        rllib_module_folder(path)  # refuses a folder that is not one, saying what would be
        return RLLIB
    return file_kind(path)


def spec_for(path: str | Path) -> str:
    """The player spec that plays checkpoint ``path``, whatever its kind (``az:<file>``, ``rllib:<folder>``...)."""
    return spec_of(detect_kind(path), path)
