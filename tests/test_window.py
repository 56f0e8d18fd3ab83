"""render_mode="human": the board in a pygame window, the same frame as rgb_array, read back from the display.

SDL's offscreen ``dummy`` video driver stands in for a screen (CI has no X server): pygame draws into the
window's surface exactly as on a desktop, and the test reads those pixels back.
"""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
import pytest

pygame = pytest.importorskip("pygame", reason='needs the window extra: pip install -e ".[window]"')

import crossenvs  # noqa: E402
from crossenvs.core.extras import MissingExtraError  # noqa: E402


@pytest.fixture(autouse=True)
def offscreen(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    yield
    pygame.display.quit()


def human_env(**options):
    env = crossenvs.crisscross_v0.env(render_mode="human", **options)
    env.unwrapped.metadata["render_fps"] = 1000  # frames held a millisecond, not half a second
    return env


def test_the_window_shows_the_rgb_array_frame_at_reset_and_after_each_move():
    env, twin = human_env(size=6), crossenvs.crisscross_v0.env(size=6, render_mode="rgb_array")
    env.reset(seed=0)
    twin.reset(seed=0)
    window = env.unwrapped._board_window
    start = window.pixels()
    assert pygame.display.get_caption()[0] == "crossenvs: Crisscross"
    assert np.array_equal(start, twin.render())
    env.step(14)
    twin.step(14)
    after = window.pixels()
    assert np.array_equal(after, twin.render())
    changed = np.argwhere((after != start).any(axis=2))
    assert len(changed) > 100  # the stone and the last-move mark, drawn where the move was
    env.close()
    assert env.unwrapped._board_window is None and not pygame.display.get_init()


def test_a_known_position_in_pixels():
    """Red's stone on a1 of an empty 4x4 Crisscross board: the centre of that cell is Red's colour in the window,
    an empty cell's centre is not."""
    env = human_env(size=4)
    env.reset(seed=0)
    game = env.unwrapped.game
    action = game.str_to_action(env.unwrapped.state, "a1")
    env.step(action)
    frame = env.unwrapped._board_window.pixels()
    cell_pixels, margin = 48, 48 // 2 + 8  # render_rgb's layout: 48-pixel cells inside the margin
    height = game.observation_shape[0]
    centre = (margin + (height - 1) * cell_pixels + cell_pixels // 2, margin + cell_pixels // 2)  # rank 1 at the bottom
    empty_centre = (margin + cell_pixels // 2, margin + 3 * cell_pixels + cell_pixels // 2)  # d4, still empty
    from crossenvs.games.crisscross import RED, CrisscrossView

    red = list(CrisscrossView.piece_colours[RED])  # the first mover's colour, (205, 45, 45)
    assert env.unwrapped.state.board[0, 0] == RED  # a1 holds Red's stone
    assert frame[centre].tolist() == red and frame[empty_centre].tolist() != red
    env.close()


def test_the_gymnasium_env_draws_the_learners_board_too():
    env = gymnasium.make("crossenvs/Crisscross-v0", size=5, render_mode="human").unwrapped
    env.metadata = {**env.metadata, "render_fps": 1000}
    env.reset(seed=1)
    legal = np.flatnonzero(env.action_masks())
    env.step(int(legal[0]))
    assert np.array_equal(env._board_window.pixels(), env.game.render_rgb(env.state, last_move=env._last_move))
    env.close()


def test_closing_the_window_ends_the_frames_not_the_game():
    env = human_env(size=5)
    env.reset(seed=0)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    env.step(0)  # the close button is read: the window goes
    window = env.unwrapped._board_window
    assert window.closed_by_user and window.screen is None
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # the game goes on
    assert window.screen is None


def test_without_pygame_a_human_env_is_one_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # what an install without the extra has
    with pytest.raises(MissingExtraError, match=r"render_mode=\"human\".*window"):
        crossenvs.crisscross_v0.env(render_mode="human")
    with pytest.raises(MissingExtraError, match="window"):
        gymnasium.make("crossenvs/Crisscross-v0", render_mode="human")
    crossenvs.crisscross_v0.env(render_mode="rgb_array")  # the other modes need nothing more


def test_no_screen_is_one_error_saying_what_to_use(monkeypatch):
    from crossenvs.envs.window import NoWindowError

    monkeypatch.setenv("SDL_VIDEODRIVER", "no_such_driver")  # what a machine without a display gives pygame
    env = human_env(size=4)
    with pytest.raises(NoWindowError, match=r'pygame could not .* use render_mode="rgb_array"'):
        env.reset(seed=0)
