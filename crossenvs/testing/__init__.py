"""The contract suite every game passes: ``check_game(game)`` (built-in games and yours alike).

What a game must satisfy to work with every part of crossenvs, checked over random games:

* a game in play has a legal action (a player who cannot move has ``pass``);
* every action id agrees between the legal mask and ``apply`` (sampled states: every id on some,
  a sample of the refused ones on the rest); ``legal_actions`` equals the mask's ids, ascending;
* ``apply`` never touches its input state, and a refused id leaves the kernel's arrays untouched;
* position text and notation round-trip;
* observations have the declared shape, are float32 and lie in [0, 1], for both seats;
* the egocentric twin holds where the game defines :meth:`~crossenvs.core.game.Game.egocentric_twin`;
* each of :meth:`~crossenvs.core.game.Game.symmetries` (training's data augmentation) permutes
  cells and ids and commutes with the rules: on positions with seat 0 to move (seat 0's frame is
  the board's; the state's meta is kept), the transformed board has the transformed mask and
  seat-0 observation, and the transformed move gives the transformed result;
* values that are no action id (out of range, floats, bools, ``None``...) raise
  ``InvalidActionError``; a 0-d integer array is an id;
* a finished game has an empty mask, no legal actions, an outcome, and refuses every action;
* the kernels give the same playthrough with numba switched off (``NUMBA_DISABLE_JIT=1``);
* the fast in-place path (``game.stepper()``) equals ``apply``/``legal_mask``/``observe``, move
  for move, and refuses what ``apply`` refuses without changing anything;
* the vector env equals independent single games fed the same actions (auto-resets included);
* golden playthrough files of the game (``<golden_dir>/*.txt``, found by their header) replay.

Any failure raises ``AssertionError`` naming the position. A :class:`CheckReport` says how much
was checked, so a caller can insist that games did finish and twins were compared.

>>> from crossenvs.testing import check_game
>>> report = check_game("crisscross", size=4, plies=40, numba_parity=False, vector_steps=10)
>>> report.games_finished > 0
True

The project's own checks (the device env and search against the CPU ones, the compiled CUDA code,
the peers, the rating calibration) are not a game author's: they live in ``crossenvs.selfcheck``.
"""

from __future__ import annotations

from ..core.playthrough import golden_header
from .contract import CheckReport, check_game

#: what the API reference documents: the contract suite
__all__ = ["CheckReport", "check_game", "golden_header"]
