"""Shared helpers for the tests."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

# Two xdist workers share the machine's cores, and torch gives each process a thread per core: their pools
# waited on each other (the training-speed benchmark test took 105-123 s, against 11.8 s with one thread
# each). Before torch is imported, so this process and every subprocess it starts take one.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

from crossenvs import make_game

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import tictactoe  # noqa: E402, F401 - registers the example game, so every registry-driven test covers it

#: Crosse's worked example C4 (docs/crosse.md): White must jump twice, one hop per decision
CROSSE_C4 = """
10  - . - . - W - . - .
 9  . - . - . - B - . -
 7  . - . B o o B - . -
 6  - . - W # # o W - .
 4  - . - + o o W B - .
"""

#: the smallest AlphaZero config that trains, checkpoints and evaluates (seconds on a CPU)
AZ_TINY = {
    "game": "crisscross",
    "options": {"size": 4},
    "num_envs": 16,
    "simulations": 4,
    "channels": 8,
    "blocks": 1,
    "batch_size": 32,
    "max_minutes": 0.05,
    "checkpoint_minutes": 0.05,
    "eval_games": 4,
    "eval_simulations": 4,
    "eval_opponent": "random",
}


#: Seconds the longest test files took from a cold cache on two workers on the 2-core VM (tests/compile_log.py
#: measures them). Under xdist they run first, longest first (``make test`` passes --no-loadscope-reorder so that
#: xdist keeps this order instead of sorting files by their number of tests, which sent the long files with few
#: tests, Ray's and the docs', last): then no long file starts near the end while the other worker idles. The
#: figures only order files: a stale one costs a few minutes at worst, never a result. Files not named follow.
LONG_FILES = {
    "test_host_run.py": 400,  # numba-cuda compiles every setup's kernels for the launch test and the host run
    "test_wheel.py": 360,  # fresh environments per install line; one compiles every snippet's kernels anew
    "test_compiled_code.py": 280,
    "test_alphazero_ray.py": 280,
    "test_alphazero.py": 170,
    "test_docs.py": 170,
    "test_solver.py": 160,
    "test_connect_four_truth.py": 140,  # our solver against bitbully, the perfect player on every class
    "test_benchmark_smoke.py": 150,
    "test_device_alphazero.py": 130,
    "test_device.py": 110,
    "test_contract.py": 110,
    "test_first_contact.py": 95,
    "test_on_a_card.py": 60,  # every step of the device session's script under the simulator
    "test_phalanx_invariants.py": 90,
    "test_training.py": 70,
    "test_learning.py": 90,
    "test_doctor.py": 55,
    "test_rllib.py": 100,
    "test_compile_once.py": 45,
    "test_envs.py": 45,
    "test_first_contact_more.py": 45,
    "test_tutorial.py": 40,
    "test_example_game.py": 40,
    "test_serve_api.py": 35,
    "test_export.py": 35,  # torch's exporter, four exports
    "test_no_silent_wait.py": 50,  # every command started in a process of its own, up to five seconds each
}


def pytest_configure(config):
    """``CROSSENVS_COMPILE_LOG=<folder>``: every numba compile logged with its test (tests/compile_log.py says how)."""
    if os.environ.get("CROSSENVS_COMPILE_LOG"):
        import compile_log

        config.pluginmanager.register(compile_log, "compile_log")  # its own pytest_configure runs on registering


def pytest_collection_modifyitems(config, items):
    """Under xdist, the long files first (see :data:`LONG_FILES`); a serial run keeps the collection order."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: -LONG_FILES.get(item.path.name, 0))  # stable: a file's tests keep their order


@functools.cache
def training_script(name: str) -> ModuleType:
    """``training/<name>.py`` loaded as a module, for tests that call its ``main`` in this process: the scripts
    are leaves, not a package, and no test puts training/ on ``sys.path`` (the library is ``crossenvs``)."""
    path = Path(__file__).resolve().parent.parent / "training" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"training_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def benchmark_script(name: str) -> Iterator[ModuleType]:
    """``benchmarks/<name>.py`` loaded as a module while a test file uses it; listed in ``sys.modules`` meanwhile,
    since its dataclasses look their module up while being defined."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def trainer_error(main, arguments: list[str], capsys) -> str:
    """The one line a trainer prints for a refused command (exit code 2), run in this process (a subprocess
    would import torch and the trainer's modules again: seconds a command)."""
    assert main(["--no-progress", "--device", "cpu", *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def position(diagram: str, to_move: str, ply: int = 0) -> str:
    """Position text from a rule-book diagram (docs/<game>.md) plus the headers the diagram leaves out."""
    return f"to_move: {to_move}\nply: {ply}\n{diagram}"


def position_from_squares(size: int, to_move: str, pieces: dict[str, list[str]], ply: int = 0) -> str:
    """Position text for a list-style example such as 'Red c6, c5; Blue d6' (letter -> squares)."""
    rows = [["."] * size for _ in range(size)]
    for letter, squares in pieces.items():
        for square in squares:
            rows[int(square[1:]) - 1]["abcdefghijklmnopqrs".index(square[0])] = letter
    lines = [f"{rank + 1} " + " ".join(rows[rank]) for rank in range(size - 1, -1, -1)]
    return f"to_move: {to_move}\nply: {ply}\n" + "\n".join(lines) + "\n"


def play(game, state, *moves: str):
    """The state after playing moves given in notation, one after another."""
    for move in moves:
        state = game.apply(state, game.str_to_action(state, move))
    return state


def legal_moves(game, state) -> set[str]:
    """The legal actions of a state, in notation."""
    return {game.action_to_str(state, int(a)) for a in game.legal_actions(state)}


def play_random_games(game, rng: np.random.Generator, min_plies: int):
    """Yield (state_before, action, state_after) over random games until min_plies are played."""
    played = 0
    while played < min_plies:
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            action = int(legal[rng.integers(legal.size)])
            after = game.apply(state, action)
            yield state, action, after
            state = after
            played += 1


@pytest.fixture(scope="session")
def crisscross8():
    return make_game("crisscross")


@pytest.fixture(scope="session")
def crisscross6():
    return make_game("crisscross", size=6)


@pytest.fixture
def read_only(monkeypatch):
    """Make a folder read-only. Root writes through permission bits, so there the write probe is told too."""
    from crossenvs.support import command_args as checks

    folders: list[Path] = []

    def make(folder: Path) -> Path:
        folder.chmod(0o555)
        folders.append(folder.resolve())
        if os.geteuid() == 0:
            real = checks.writable_folder
            monkeypatch.setattr(checks, "writable_folder", lambda f: Path(f).resolve() not in folders and real(f))
        return folder

    yield make
    for folder in folders:
        folder.chmod(0o755)


@pytest.fixture
def one_torch_thread():
    """Torch on one thread, as under xdist, for the small networks of the training tests: two thread pools on a
    busy 2-core machine waited on each other (tests/test_learning.py's gymnasium test took 64 s instead of 5)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
