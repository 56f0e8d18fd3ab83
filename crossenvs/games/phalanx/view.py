"""How Crossings and Neo-Crossings look: :class:`PhalanxView`, a checkered board of white and black stones."""

from __future__ import annotations

from ...core.view import GameView
from .rules import BLACK, WHITE


class PhalanxView(GameView):
    """How Crossings and Neo-Crossings look: a checkered board of white and black stones."""

    piece_colours = {WHITE: (238, 236, 228), BLACK: (40, 40, 40)}

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        return (214, 190, 150) if (row + col) % 2 == 0 else (240, 222, 186)

    def piece_kind(self, code: int) -> str:
        return "stone"
