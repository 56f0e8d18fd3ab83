"""What a newcomer meets first: a visible first-use compile, and a clear error for a missing extra."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

VECTOR_STEP = (
    "from crossenvs.envs.vector import CrossVectorEnv; CrossVectorEnv('crisscross', num_envs=4, size=4).reset(seed=0)"
)


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=600
    )


@pytest.mark.slow
def test_a_cold_cache_says_it_is_compiling_once_and_only_once(tmp_path):
    """On a fresh kernel cache the first vector env sat silent for many seconds."""
    first = run_python(VECTOR_STEP, CROSSENVS_CACHE_DIR=str(tmp_path), CROSSENVS_COMPILE_NOTICE="1")
    assert first.returncode == 0, first.stderr
    assert "compiling the vector env's batch loops for crisscross, first use only" in first.stderr
    second = run_python(VECTOR_STEP, CROSSENVS_CACHE_DIR=str(tmp_path), CROSSENVS_COMPILE_NOTICE="1")
    assert second.returncode == 0 and "compiling" not in second.stderr
    quiet = run_python(VECTOR_STEP, CROSSENVS_CACHE_DIR=str(tmp_path / "other"), CROSSENVS_COMPILE_NOTICE="0")
    assert quiet.returncode == 0 and "compiling" not in quiet.stderr


WITHOUT_TORCH = "import sys; sys.modules['torch'] = None  # as if torch were not installed\n"


@pytest.mark.parametrize(
    "code",
    [
        "from crossenvs.cli import main; sys.exit(main(['eval', 'crisscross', '--option', 'size=6', "
        "'--players', 'pretrained', 'random', '--games', '2']))",
        "import crossenvs.agents\ntry:\n    crossenvs.agents.load('crisscross', size=6)\n"
        "except crossenvs.CrossenvsError as e:\n    print(e, file=sys.stderr); sys.exit(2)",
        "import gymnasium, crossenvs\ntry:\n    gymnasium.make('crossenvs/Crisscross-v0', size=6, opponent='pretrained')\n"
        "except crossenvs.CrossenvsError as e:\n    print(e, file=sys.stderr); sys.exit(2)",
    ],
    ids=["cli", "agents.load", "gymnasium.make"],
)
def test_pretrained_without_torch_names_the_extra(code):
    result = run_python(WITHOUT_TORCH + code)
    assert result.returncode == 2, result.stderr
    assert 'pip install -e ".[agents]"' in result.stderr
    assert "Traceback" not in result.stderr
    cpu_first = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (the CPU build; plain pip"
    assert cpu_first in result.stderr  # PyPI's torch alone would bring GBs of CUDA libraries to a CPU machine
    assert result.stderr.index(cpu_first) < result.stderr.index('".[agents]"')
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEP_TICTACTOE = (
    "import crossenvs\ngame = crossenvs.make_game('tictactoe')\nstepper = game.stepper()\n"
    "while stepper.num_legal:\n    stepper.step(int(stepper.ids[0]))\nprint('outcome', stepper.outcome)\n"
)


def test_a_game_imported_under_two_module_names_shares_the_kernel_cache(tmp_path):
    """numba's cache of a game's kernels, built under one module name, imports that name again when
    another process loads the file under another (``examples.tictactoe`` then ``tictactoe``): the
    second import used to fail as a second game of the same name."""
    cache = str(tmp_path)
    first = subprocess.run(
        [sys.executable, "-c", "import examples.tictactoe\n" + STEP_TICTACTOE],
        capture_output=True, text=True, cwd=REPOSITORY, env={**os.environ, "CROSSENVS_CACHE_DIR": cache},
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = subprocess.run(
        [sys.executable, "-c", "import sys\nsys.path.insert(0, 'examples')\nimport tictactoe\n" + STEP_TICTACTOE],
        capture_output=True, text=True, cwd=REPOSITORY, env={**os.environ, "CROSSENVS_CACHE_DIR": cache},
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
