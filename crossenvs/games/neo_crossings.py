"""Neo-Crossings: full rules in ``docs/neo_crossings.md``; movement shared with Crossings (:mod:`.phalanx`).

Rules in brief
--------------
8x8 board; White (16 stones on ranks 1-2) moves first, Black holds ranks 7-8. A turn moves a
single stone one square, or a line (phalanx) of your stones along its own direction by up to
its length (see :mod:`crossenvs.games.phalanx`). A group whose head lands on an enemy stone
captures **the whole enemy run** from that stone onward along the line of movement, if that
run is shorter than the moving group; the head stops on the first captured square. Stones on
the far rank are ordinary stones: they move and can be taken.

* **Symmetry rule** (``symmetry_rule``): a move that brings one of the mover's stones onto his
  far rank from another rank is illegal if the resulting position is its own 180° turn with
  the colours swapped (this defeats the mimic strategy).
* **Win** at the start of your turn: you have more stones on your far rank (rank 8 for White,
  rank 1 for Black) than the opponent has on his.
* **No legal move**: pass (two passes in a row draw), or lose with ``stalemate="loss"``.
* **Cap**: a draw once ``move_cap`` plies have been played without a result.

Options
-------
``stalemate`` (``"pass"`` | ``"loss"``, default ``"pass"``), ``symmetry_rule`` (bool or
``"on"``/``"off"``, default on), ``move_cap`` (int, default 400).

Players, actions, notation
--------------------------
Seat 0 (``player_0``) is White, seat 1 Black. ``num_actions = 3585``: tail square x direction x
distance in the mover's frame (Black sees the board turned half a turn), plus ``pass``; the
layout is in :mod:`crossenvs.games.phalanx`. Notation ``d5-d6``, ``c2-c4-c6``, ``pass``.

Observation
-----------
float32 ``(8, 8, 6)`` in the observer's frame: the six shared planes of
:mod:`crossenvs.games.phalanx` (own stones, opponent stones, far-rank counts of both, a pass
pending, progress to the cap). Nothing else is hidden: every stone on a far rank is a stone
like any other.

Rewards and end
---------------
+1 / -1 for a win or loss (the win test above, or a stalemate under ``stalemate="loss"``),
0 to both for a draw by two passes or by the cap.

Position text
-------------
Cells ``.``, ``W``, ``B``; headers ``to_move`` (``white``/``black``, required), ``ply``,
``passes``. The start-of-turn tests run on a position read from text, so a diagram in which the
side to move is ahead on far-rank stones reads as a finished game.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.facts import GameFacts
from ..core.options import flag, move_cap
from ..kernels.portable import scratch_array
from . import neo_crossings as rules  # this module: its hooks go to phalanx's kernels as ``rules.<hook>`` (see below)
from . import phalanx as ph


# ----------------------------------------------------------------------------- rule hooks
# The hooks reach phalanx's kernels as ``rules.<hook>``, an attribute of this module imported by name:
# numba resolves that at compile time, where a bare global function passed as an argument would be
# embedded as a Python object pointer, which stops numba caching the compiled kernels on disk.
@njit(cache=True)
def frozen_squares(colour: int) -> np.uint64:
    """Neo-Crossings freezes nothing: a crossed stone can move and be captured."""
    return np.uint64(0)


@njit(cache=True)
def capture_whole_run(board: np.ndarray, row: int, col: int, dr: int, dc: int, run: int) -> None:
    """docs/neo_crossings.md, capture: the whole enemy run goes (legality is shared, see :mod:`.phalanx`)."""
    for i in range(run):
        board[row + i * dr, col + i * dc] = ph.EMPTY


_BOARD = scratch_array((ph.SIZE, ph.SIZE), np.int8)  # the board after the crossing, for the symmetry test


@njit(cache=True)
def not_self_symmetric(board, meta, row, col, dr, dc, k, length) -> bool:
    """docs/neo_crossings.md, symmetry rule: refuse a crossing whose result is its 180° turn, colours swapped."""
    if meta[ph.SYMMETRY_RULE] == 0:
        return True
    # The loops run to the board's own size, not the constant: unrolled 64 times, as a constant
    # bound lets a GPU compiler do, the copy lived in registers and the step kernel took 250 of them
    # (the search's 255, with spills); a loop keeps it in the thread's stack: 127, and no spills.
    size = board.shape[0]
    after = _BOARD()
    for r in range(size):
        for c in range(size):
            after[r, c] = board[r, c]
    ph.play_move(after, row, col, dr, dc, k, length, board[row, col], rules.capture_whole_run)
    last = size - 1
    for r in range(size):
        for c in range(size):
            turned = after[last - r, last - c]
            if after[r, c] != (ph.EMPTY if turned == ph.EMPTY else 3 - turned):
                return True
    return False


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    return ph.apply_action(board, meta, action, rules.frozen_squares, rules.capture_whole_run, rules.not_self_symmetric)


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    ph.legal_mask(board, meta, out, rules.frozen_squares, rules.not_self_symmetric)


@njit(cache=True)
def actions_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> int:
    return ph.legal_ids(board, meta, out, rules.frozen_squares, rules.not_self_symmetric)


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    ph.observe(board, meta, player, out, rules.frozen_squares, False)


@njit(cache=True)
def start_turn_kernel(board: np.ndarray, meta: np.ndarray) -> None:
    ph.start_turn(board, meta, rules.frozen_squares, rules.not_self_symmetric)


class NeoCrossings(ph.PhalanxGame):
    """Neo-Crossings (see the module docstring)."""

    name = "neo_crossings"
    facts = GameFacts(
        display_name="Neo-Crossings",
        rules_summary="Stones move as in Crossings: one stone a step, or a line of stones along its direction by "
        "up to its length. A line that lands on an enemy line captures the whole enemy run in front of it, and "
        "nothing is frozen. At the start of your turn, if you have more stones on your far rank than your "
        "opponent has on his, you win; a symmetry rule forbids simply mirroring the opponent.",
    )
    OPTION_SCHEMA = (
        ph.STALEMATE,
        flag(
            "symmetry_rule",
            True,
            "refuse a crossing whose result is its own 180° turn with colours swapped",
            advanced=True,
        ),
        move_cap(400),
    )
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    actions_kernel = staticmethod(actions_kernel)
    observe_kernel = staticmethod(observe_kernel)
    start_turn_kernel = staticmethod(start_turn_kernel)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.symmetry_rule = self.options["symmetry_rule"]

    def initial_state(self) -> ph.State:
        state = super().initial_state()
        state.meta[ph.SYMMETRY_RULE] = self.symmetry_rule
        return state
