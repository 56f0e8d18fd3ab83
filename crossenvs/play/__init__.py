"""A person plays a game: the game in progress both faces share, and the terminal face (``crossenvs play``).

:mod:`~crossenvs.play.game_in_progress` is the one game a person plays (position, record, the last
turn's cells), the move readers and the words for its end; :mod:`~crossenvs.play.terminal` is terminal
play (:func:`play`). The browser (:mod:`crossenvs.web`) is the other face of the same game in progress.
"""

from __future__ import annotations

from .game_in_progress import GameInProgress, end_line, legal_notations, read_move, shorthand_actions
from .terminal import play

__all__ = ["GameInProgress", "end_line", "legal_notations", "play", "read_move", "shorthand_actions"]
