"""The examples no other test runs, each at a smoke size: they run to their end and print what they promise.

examples/ppo_device.py and examples/torchrl_selfplay.py are run by tests/test_learning.py (to a win rate),
examples/tictactoe.py by tests/test_example_game.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_the_tianshou_example_trains_both_phases_and_shows_the_losses_never_reach_the_learner(capsys, one_torch_thread):
    """Tianshou comes with the docs extra (``make test`` installs it). The example's point is that a seat losing
    to its opponent's last move never receives its -1 through Tianshou's PettingZooEnv: the smoke run must show
    the learner's wins as +1s and no -1 in either phase."""
    import tianshou_selfplay  # examples/, on sys.path from conftest

    result = tianshou_selfplay.main(["--epochs", "1", "--epoch-steps", "200", "--hidden", "16", "--games", "10"])
    printed = capsys.readouterr().out
    phases = re.findall(
        r"phase vs (random|frozen copy): rewards reaching each seat in the replay buffer: (.+)", printed
    )
    assert [label for label, _ in phases] == ["random", "frozen copy"], printed
    for _, seats in phases:
        learner = ast.literal_eval(seats)["player_0"]  # the example prints rewards_by_seat's dict
        assert learner["-1s"] == 0 and learner["+1s"] > 0, seats
    assert result["games"] == 10 and "DQN vs random over 10 games" in printed


@pytest.mark.browser
def test_the_screenshot_script_writes_every_games_start_view_and_a_crosse_game_in_play(tmp_path, capsys):
    """examples/serve_screenshots.py (Chromium, as the browser tests) into a temporary folder, not docs/images."""
    import serve_screenshots

    serve_screenshots.main(["--out", str(tmp_path)])
    written = sorted(path.name for path in tmp_path.glob("*.png"))
    expected = sorted([f"serve_{game}.png" for game in serve_screenshots.GAMES] + ["serve_crosse_play.png"])
    assert written == expected
    assert capsys.readouterr().out.count("wrote ") == len(expected)
