"""render_mode="human": the board in a pygame window, the same frame as rgb_array, read back from the display.

Most tests use SDL's offscreen ``dummy`` video driver: pygame draws into the window's surface exactly as on a
desktop, and the test reads those pixels back. One test opens the window on a real X server (Xvfb, which
``make test`` installs as it installs the browser) in a process of its own, as a user's script would, and
looks at a screenshot of the screen: what the X server shows, not what pygame says it drew.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

pygame = pytest.importorskip("pygame", reason='needs the window extra: pip install -e ".[window]"')

import crossenvs  # noqa: E402
from crossenvs.support.extras import MissingExtraError  # noqa: E402


@pytest.fixture(autouse=True)
def offscreen(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    yield
    pygame.display.quit()


def human_env(**options):
    env = crossenvs.crisscross_v0.env(render_mode="human", **options)
    env.unwrapped.metadata["render_fps"] = 1000  # frames held a millisecond, not half a second
    return env


def _red_and_empty_centres(game) -> tuple[tuple[int, int], tuple[int, int]]:
    """Pixel (row, column) of a1's centre and of d4's on a 4x4 board, as render_rgb lays the cells out."""
    cell_pixels, margin = 48, 48 // 2 + 8  # render_rgb's layout: 48-pixel cells inside the margin
    height = game.observation_shape[0]
    a1 = (margin + (height - 1) * cell_pixels + cell_pixels // 2, margin + cell_pixels // 2)  # rank 1 at the bottom
    d4 = (margin + cell_pixels // 2, margin + 3 * cell_pixels + cell_pixels // 2)
    return a1, d4


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
    centre, empty_centre = _red_and_empty_centres(game)  # a1 and d4, still empty
    from crossenvs.games.crisscross import RED, CrisscrossView

    red = list(CrisscrossView.piece_colours[RED])  # the first mover's colour, (205, 45, 45)
    assert env.unwrapped.state.board[0, 0] == RED  # a1 holds Red's stone
    assert frame[centre].tolist() == red and frame[empty_centre].tolist() != red
    env.close()


#: a user's script: Crisscross 4x4 in a window, Red's stone on a1, the window held until stdin says go
WINDOW_SCRIPT = """
import sys
import crossenvs
env = crossenvs.crisscross_v0.env(size=4, render_mode="human")
env.reset(seed=0)
env.step(env.unwrapped.game.str_to_action(env.unwrapped.state, "a1"))
print("shown", flush=True)
sys.stdin.readline()
env.close()
"""


@pytest.fixture
def x_screen():
    """A virtual X screen (Xvfb) on a free display number; its name, e.g. ":3". A missing Xvfb fails with the
    command that installs it: a skip would hide in CI that no real screen was ever tried."""
    xvfb = shutil.which("Xvfb")
    assert xvfb, "Xvfb is not installed: `make test` installs it (apt-get install xvfb)"
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    with os.fdopen(read_end) as announced:
        number = announced.readline().strip()  # Xvfb writes its display number once it accepts clients
    try:
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_on_a_real_x_screen_the_screenshot_shows_the_position(x_screen):
    """The window on Xvfb, placed at the screen's corner (no window manager, so no frame): the screenshot's corner is
    the rgb_array frame pixel for pixel, a1's centre is Red's colour and d4's is not."""
    from PIL import ImageGrab

    from crossenvs.games.crisscross import RED, CrisscrossView

    user_env = {key: value for key, value in os.environ.items() if key != "SDL_VIDEODRIVER"}
    user_env.update(DISPLAY=x_screen, SDL_VIDEO_WINDOW_POS="0,0")
    script = subprocess.Popen(
        [sys.executable, "-c", WINDOW_SCRIPT], env=user_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert script.stdout.readline().strip() == "shown"
        screenshot = np.asarray(ImageGrab.grab(xdisplay=x_screen).convert("RGB"))
    finally:
        script.communicate("go\n", timeout=60)
    assert script.returncode == 0
    twin = crossenvs.crisscross_v0.env(size=4, render_mode="rgb_array")
    twin.reset(seed=0)
    game = twin.unwrapped.game
    twin.step(game.str_to_action(twin.unwrapped.state, "a1"))
    frame = twin.render()
    height, width = frame.shape[:2]
    shown = screenshot[:height, :width]
    assert np.array_equal(shown, frame)
    a1, d4 = _red_and_empty_centres(game)
    red = list(CrisscrossView.piece_colours[RED])
    assert shown[a1].tolist() == red and shown[d4].tolist() != red
    assert not screenshot[height:, :].any() and not screenshot[:, width:].any()  # nothing else on the screen


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
