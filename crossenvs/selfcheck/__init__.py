"""The project's own checks, which no game author calls: the device env and search step for step against the CPU
ones (``device.py``, what ``crossenvs doctor`` runs on a card), the compiled CUDA code (``compiled.py``,
``compiled_checks.py``), the CUDA build run on this CPU (``host_run.py``, ``host_device.py``), the
reference games against other engines (``peers.py``; the peers, the ``bench`` extra, only when run),
the rating calibration (``rating_calibration.py``) and the benchmarks' one timing harness (``timing.py``).

A game author's suite is :mod:`crossenvs.testing` (:func:`~crossenvs.testing.check_game`).
"""

from __future__ import annotations

from .compiled import check_compiled_code as check_compiled_code
from .compiled import game_label as game_label
from .device import DeviceReport as DeviceReport
from .device import SearchReport as SearchReport
from .device import _compare_searches as _compare_searches  # tests/test_device*.py compare with these
from .device import _count as _count
from .device import check_device_env as check_device_env
from .device import check_device_search as check_device_search
from .device import check_device_torchrl as check_device_torchrl
from .device import linear_evaluator as linear_evaluator
