"""The optional dependencies: which extra brings a package, the line that installs it, one error when missing.

The environments install light (numpy, numba, gymnasium, pettingzoo, Pillow); everything else comes with an
extra of ``pyproject.toml``. A module that needs one imports it under :func:`needs_extra`, so a user without
it meets one line naming the extra and the command that installs it, never a ``No module named 'yaml'``
from deep inside. crossenvs is not on PyPI, so that command is the editable install from a checkout:
``pip install "crossenvs[x]"`` would find nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import ModuleType

from crossenvs.support.errors import CrossenvsError

#: the CPU build of torch at the tested version, from torch's own index: PyPI's torch brings GBs of CUDA
#: libraries, and a loose pin would take them too
CPU_TORCH = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"

#: what ``pip install`` calls a module that is not named as it is imported
PIP_NAMES = {
    "yaml": "PyYAML",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
    "ray": "ray[rllib]",
    "pyspiel": "open_spiel",
    "numba_cuda": "numba-cuda",
}


class MissingExtraError(CrossenvsError, ModuleNotFoundError):
    """A package of an extra is not installed; the message names the extra and the line that installs it."""


def install_line(extra: str) -> str:
    """The command that installs ``extra`` from a checkout of crossenvs (the package is not on PyPI)."""
    return f'pip install -e ".[{extra}]"'


def install_hint(extra: str, module: str | None = None) -> str:
    """What to type, in the checkout's folder; torch's CPU build first when torch is what is missing."""
    line = install_line(extra)
    if module == "torch":
        line = f"{CPU_TORCH} (the CPU build; plain pip install torch for a GPU), then {line}"
    return f"{line} (in a crossenvs checkout)"


def missing_extra(what: str, module: str, extra: str) -> MissingExtraError:
    """The error for ``what``, which needs ``module`` of ``extra``."""
    name = PIP_NAMES.get(module, module)
    return MissingExtraError(
        f"{what}: {name} is not installed; it comes with the {extra} extra: {install_hint(extra, module)}",
        name=module,
    )


def _top(exc: ModuleNotFoundError) -> str:
    return (exc.name or "crossenvs").partition(".")[0]


@contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Imports under this block that fail for a package outside crossenvs raise :class:`MissingExtraError`.

    ``what`` names the feature for the user (``"the AlphaZero network"``); a missing module of crossenvs
    itself is a bug of ours and stays a ``ModuleNotFoundError``.
    """
    try:
        yield
    except MissingExtraError:
        raise
    except ModuleNotFoundError as exc:
        if _top(exc) == "crossenvs":
            raise
        raise missing_extra(what, _top(exc), extra) from None


def import_extra(module: str, what: str, extra: str) -> ModuleType:
    """``module``, imported; when a package outside crossenvs is missing, :class:`MissingExtraError`."""
    with needs_extra(extra, what):
        return importlib.import_module(module)


def check_installed(what: str, needs: Mapping[str, str]) -> None:
    """Refuse ``what`` in one line when a module of ``needs`` (module -> its extra) is not installed, naming every
    missing one and the one command that installs them all; checked before long work starts."""
    missing = {module: extra for module, extra in needs.items() if importlib.util.find_spec(module) is None}
    if not missing:
        return
    names = " and ".join(PIP_NAMES.get(module, module) for module in missing)
    extras = list(dict.fromkeys(missing.values()))
    comes = f"the {' and '.join(extras)} extra{'s' if len(extras) > 1 else ''}"
    verb, they = ("is", "it comes") if len(missing) == 1 else ("are", "they come")
    hint = install_hint(",".join(extras), "torch" if "torch" in missing else None)
    raise MissingExtraError(
        f"{what}: {names} {verb} not installed; {they} with {comes}: {hint}", name=next(iter(missing))
    )
