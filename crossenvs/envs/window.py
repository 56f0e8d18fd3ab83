"""``render_mode="human"``: a pygame window showing the board, as PettingZoo classic's envs open one.

The window shows the very frame ``render_mode="rgb_array"`` returns (:meth:`Game.render_rgb
<crossenvs.core.view.GameView.render_rgb>`, the drawing the GIFs are made of), so the two cannot
disagree. pygame comes with the ``window`` extra and is imported only when a human-mode env is made:
without it that env is one :class:`~crossenvs.support.extras.MissingExtraError` naming the extra. The
window keeps the env's ``render_fps`` (a frame is held that long) and answers its close button: the
frames after it are dropped, and the game goes on.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from crossenvs.support.errors import CrossenvsError
from crossenvs.support.extras import import_extra


class NoWindowError(CrossenvsError, RuntimeError):
    """Human mode asked for where no window can open (no display): the message says what to use instead."""


def import_pygame() -> ModuleType:
    """pygame, or one error naming the ``window`` extra (checked when the env is made, not at its first step)."""
    return import_extra("pygame", 'render_mode="human" (a window showing the board)', "window")


class BoardWindow:
    """One window, sized to the first frame; :meth:`show` draws a frame, :meth:`close` ends the window."""

    def __init__(self, title: str, fps: float) -> None:
        self.pygame = import_pygame()
        self.title, self.fps = title, fps
        self.screen = None  # opened at the first frame, when its size is known
        self.clock = None
        self.closed_by_user = False

    def show(self, frame: np.ndarray) -> None:
        """Draw ``frame`` (H, W, 3 uint8) and hold it ``1 / fps`` seconds, keeping the window responsive."""
        if self.closed_by_user:
            return
        pygame = self.pygame
        height, width = frame.shape[:2]
        if self.screen is None or self.screen.get_size() != (width, height):
            self.open(width, height)
        pygame.surfarray.blit_array(self.screen, np.ascontiguousarray(frame.transpose(1, 0, 2)))
        pygame.display.flip()
        if any(event.type == pygame.QUIT for event in pygame.event.get()):
            self.close()
            self.closed_by_user = True
            return
        self.clock.tick(self.fps)

    def open(self, width: int, height: int) -> None:
        """The window, or one error saying why there is none (a machine without a screen) and what would do."""
        pygame = self.pygame
        try:
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self.screen = pygame.display.set_mode((width, height))
        except pygame.error as exc:
            raise NoWindowError(
                f'render_mode="human" opens a window, and pygame could not ({exc}); on a machine without a screen '
                'use render_mode="rgb_array" (the same frames as arrays), or SDL_VIDEODRIVER=dummy for an offscreen '
                "window"
            ) from None
        self.clock = pygame.time.Clock()

    def pixels(self) -> np.ndarray:
        """What the window shows now, (H, W, 3) uint8, read back from the display (for tests and screenshots)."""
        return self.pygame.surfarray.array3d(self.screen).transpose(1, 0, 2).copy()

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None
