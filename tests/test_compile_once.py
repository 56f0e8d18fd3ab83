"""First use compiles once, says what it compiles in words a user knows, and a second process compiles nothing.

(tests/test_wheel.py runs every command and snippet of the README twice from an installed wheel and
checks the second run is silent; these are the quicker checks of the mechanisms behind that.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CROSSENVS_CACHE_DIR": str(cache), "CROSSENVS_COMPILE_NOTICE": "1"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)


#: tic-tac-toe's kernels' code bytes (what names its per-game copies) before and after they compile
CODE_BEFORE_AND_AFTER_COMPILING = f"""
import sys
sys.path.insert(0, {str(ROOT / "examples")!r})
import crossenvs, tictactoe
from crossenvs.kernels.specialize import _kernel_code
kernels = (tictactoe.apply_kernel, tictactoe.mask_kernel, tictactoe.observe_kernel)
before = [_kernel_code(kernel) for kernel in kernels]
game = crossenvs.make_game("tictactoe")
game.observe(game.apply(game.initial_state(), 4), 0)
assert tictactoe.observe_kernel.signatures and tictactoe.apply_kernel.signatures
assert [_kernel_code(kernel) for kernel in kernels] == before, "compiling changed the kernels' code bytes"
"""


def test_compiling_a_games_kernels_leaves_the_name_of_its_per_game_copies_unchanged(tmp_path):
    """Was: a per-game copy was named after marshal's bytes of the kernels' code, and those mark objects
    by reference count, which compiling a kernel changes; so a process that compiled the game's
    kernels before specialising (the pretrained agent) wrote one copy, the next process (loading them
    from the cache) another, and compiled it again: "compiling ... first use only" on the second run too."""
    result = run_python(CODE_BEFORE_AND_AFTER_COMPILING, tmp_path)  # a cache of its own: the kernels compile
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_the_solver_says_what_it_compiles_and_a_second_solve_compiles_nothing(tmp_path):
    """Was: `compiling crossenvs.eval.solve_kernel for crisscross`, and the recursive search compiled in every process."""
    solve = "from crossenvs.cli import main; raise SystemExit(main(['solve', 'crisscross', '--option', 'size=3']))"
    first = run_python(solve, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "crossenvs: compiling the exact solver for crisscross, first use only" in first.stderr
    second = run_python(solve, tmp_path)
    assert second.returncode == 0 and "red wins with best play" in second.stdout, second.stderr
    assert "compiling" not in second.stderr


def templates() -> set[str]:
    """Every template module the package specialises (named as ``specialize("<module>", ...)`` is called)."""
    sources = "\n".join(path.read_text() for path in (ROOT / "crossenvs").rglob("*.py"))
    return set(re.findall(r"specialize\(\s*\"([\w.]+)\"", sources))


def test_every_template_the_package_specialises_is_named_in_words():
    """A template without its words (``COMPILING``) would be announced by its module name."""
    import importlib

    assert "crossenvs.eval.solve_kernel" in templates()
    unnamed = {t for t in templates() if not isinstance(getattr(importlib.import_module(t), "COMPILING", None), str)}
    assert not unnamed, unnamed
