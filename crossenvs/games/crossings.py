"""Crossings (Robert Abbott, 1969): full rules in ``docs/crossings.md``; movement in :mod:`.phalanx`.

Rules in brief
--------------
8x8 board; White (16 stones on ranks 1-2) moves first, Black holds ranks 7-8. A turn moves a
single stone one square, or a line (phalanx) of your stones along its own direction by up to
its length (see :mod:`crossenvs.games.phalanx`).

* **Capture**: a group whose head lands on an enemy stone takes **only that stone**, if the
  enemy run from it onward (frozen stones included) is shorter than the group and the stone
  is not frozen.
* **Freezing**: a stone that reaches its far rank (rank 8 for White, rank 1 for Black) is
  frozen at once and for good: it never moves, cannot be captured, and still blocks. A group
  with a frozen member cannot move.
* **Win** at the start of your turn: you have more frozen (crossed) stones than the opponent.
  So a crossing must be answered by a counter-crossing at once.
* **No legal move**: pass (two passes in a row draw), or lose with ``stalemate="loss"``.
* **Cap**: a draw once ``move_cap`` plies have been played without a result.

Options
-------
``stalemate`` (``"pass"`` | ``"loss"``, default ``"pass"``), ``move_cap`` (int, default 400).

Players, actions, notation
--------------------------
Seat 0 (``player_0``) is White, seat 1 Black. ``num_actions = 3585``: tail square x direction x
distance in the mover's frame (Black sees the board turned half a turn), plus ``pass``; the
layout is in :mod:`crossenvs.games.phalanx`. Notation ``d5-d6``, ``c2-c4-c6``, ``pass``.

Observation
-----------
float32 ``(8, 8, 8)`` in the observer's frame: the six shared planes of
:mod:`crossenvs.games.phalanx` (own stones, opponent stones, far-rank counts of both, a pass
pending, progress to the cap), then

* plane 6: the observer's frozen stones;
* plane 7: the opponent's frozen stones.

Rewards and end
---------------
+1 / -1 for a win or loss (the win test above, or a stalemate under ``stalemate="loss"``),
0 to both for a draw by two passes or by the cap.

Position text
-------------
Cells ``.``, ``W``, ``B``; headers ``to_move`` (``white``/``black``, required), ``ply``,
``passes``. A stone on its far rank is frozen, so the board says everything. The start-of-turn
tests run on a position read from text.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.facts import GameFacts
from ..core.options import move_cap
from . import crossings as rules  # this module: its hooks go to phalanx's kernels as ``rules.<hook>`` (see below)
from . import phalanx as ph


# ----------------------------------------------------------------------------- rule hooks
# The hooks reach phalanx's kernels as ``rules.<hook>``, an attribute of this module imported by name:
# numba resolves that at compile time, where a bare global function passed as an argument would be
# embedded as a Python object pointer, which stops numba caching the compiled kernels on disk.
@njit(cache=True)
def frozen_squares(colour: int) -> np.uint64:
    """docs/crossings.md, crossing and freezing: a stone on its far rank has crossed and is frozen for good."""
    return ph.FAR_RANK[colour]


@njit(cache=True)
def capture_head_only(board: np.ndarray, row: int, col: int, dr: int, dc: int, run: int) -> None:
    """docs/crossings.md, capture: only the landed-on stone goes (legality is shared, see :mod:`.phalanx`)."""
    board[row, col] = ph.EMPTY


@njit(cache=True)
def any_crossing(board, meta, row, col, dr, dc, k, length) -> bool:
    """Crossings has no symmetry rule: every crossing is allowed."""
    return True


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    return ph.apply_action(board, meta, action, rules.frozen_squares, rules.capture_head_only, rules.any_crossing)


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    ph.legal_mask(board, meta, out, rules.frozen_squares, rules.any_crossing)


@njit(cache=True)
def actions_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> int:
    return ph.legal_ids(board, meta, out, rules.frozen_squares, rules.any_crossing)


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """The shared planes, then planes 6/7: the observer's / the opponent's frozen stones."""
    ph.observe(board, meta, player, out, rules.frozen_squares, True)


@njit(cache=True)
def start_turn_kernel(board: np.ndarray, meta: np.ndarray) -> None:
    ph.start_turn(board, meta, rules.frozen_squares, rules.any_crossing)


class CrossingsView(ph.PhalanxView):
    """How Crossings looks: colours, labels and the legend (the rules are in :class:`Crossings`)."""

    def piece_kind(self, code: int) -> str:
        """A stone on its far rank is frozen: the board shows it by where it stands."""
        return f"stone (frozen on rank {ph.SIZE if code == ph.WHITE else 1})"


class Crossings(ph.PhalanxGame):
    """Crossings (see the module docstring)."""

    name = "crossings"
    view_class = CrossingsView
    facts = GameFacts(
        display_name="Crossings",
        rules_summary="Each side starts with two rows of stones. On your turn move one stone one square, or push a "
        "straight line of your stones along its own direction by up to its length; the front stone may capture "
        "a single enemy stone it lands on. A stone that reaches the far rank is frozen there, and whoever has "
        "more frozen stones at the start of his turn wins, so every crossing must be answered at once.",
    )
    OPTION_SCHEMA = (ph.STALEMATE, move_cap(400))
    num_planes = ph.SHARED_PLANES + 2
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    actions_kernel = staticmethod(actions_kernel)
    observe_kernel = staticmethod(observe_kernel)
    start_turn_kernel = staticmethod(start_turn_kernel)
    crossed_stones = "frozen stones on his far rank"
