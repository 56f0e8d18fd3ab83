"""Golden playthroughs, and the numba kernels agreeing with their pure-Python run.

Regenerate the golden files after an intended change with
``CROSSENVS_REGENERATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from crossenvs import make_game
from crossenvs.core.playthrough import playthrough

GOLDEN = Path(__file__).parent / "golden"
CASES = {  # file name -> (game, options, seed)
    "crisscross_size5_seed0.txt": ("crisscross", {"size": 5}, 0),
    "crisscross_size8_seed1.txt": ("crisscross", {"size": 8}, 1),
    "charing_cross_seed0.txt": ("charing_cross", {}, 0),
    "crossings_seed1.txt": ("crossings", {}, 1),  # a Black win after 109 plies (a crossing left unanswered)
    "neo_crossings_seed0.txt": ("neo_crossings", {}, 0),  # a White win after 116 plies
    "crosse_cap80_seed6.txt": ("crosse", {"move_cap": 80}, 6),  # multi-hop jump sequences; drawn by the cap
    "crosse_white_keep_optional_seed2.txt": (  # White first, the other token and cover rules
        "crosse",
        {"first_player": "white", "stuck_tokens": "keep", "cover_removal": "optional", "move_cap": 50},
        2,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    game_name, options, seed = CASES[name]
    text = playthrough(make_game(game_name, **options), seed)
    path = GOLDEN / name
    if os.environ.get("CROSSENVS_REGENERATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"{path} is missing; run with CROSSENVS_REGENERATE_GOLDEN=1 to write it"
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernels_match_pure_python(name):
    """DESIGN.md §3: identical results with NUMBA_DISABLE_JIT=1."""
    game_name, options, seed = CASES[name]
    code = (
        "import sys; from crossenvs import make_game; from crossenvs.core.playthrough import playthrough; "
        f"sys.stdout.write(playthrough(make_game({game_name!r}, **{options!r}), {seed}))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    pure = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert pure == playthrough(make_game(game_name, **options), seed)
