"""Shared phalanx mechanics of Crossings and Neo-Crossings (docs/crossings.md, docs/neo_crossings.md).

Both games move lines of stones the same way; they differ only in three rule hooks that each
game module supplies as numba functions and passes to the generic kernels of :mod:`.rules`:

* ``frozen_squares(colour) -> uint64``: the squares (a bitboard, bit ``row * 8 + col``) on which
  a stone of ``colour`` is frozen: it never moves and is never captured. Crossings: its far
  rank. Neo-Crossings: none.
* ``capture(board, row, col, dr, dc, run)``: take the captured stones off the board once a group
  moving by ``(dr, dc)`` has landed on the enemy stone at ``(row, col)``, the first of an enemy
  run of ``run`` stones. Crossings takes that one stone, Neo-Crossings the whole run. Whether
  the capture is legal is the same in both games and decided here: the run is shorter than the
  group and the landed-on stone is not frozen.
* ``allowed(board, meta, row, col, dr, dc, k, length) -> bool``: called for a move (the group
  of ``length`` stones from tail ``(row, col)``, moving ``k`` by ``(dr, dc)``) that brings one of
  the mover's stones onto his far rank from another rank; False makes it illegal (Neo-Crossings'
  symmetry rule, which plays the move on a copy with :func:`play_move` to judge the result;
  Crossings allows every such move).

Movement (written once, here): a *tail* stone and a direction define the group, the run of
consecutive friendly stones from the tail forward; its front stone is the *head*. The group moves
``k`` squares, ``1 <= k <= L`` (its length); the squares the head passes over must be empty, and
it lands on an empty square or on an enemy stone (a capture attempt, legal as said above).
A single stone steps one square and never captures (no enemy run is shorter than one).

Legality is computed on bitboards (:func:`direction_moves`), for every tail at once: the mask of
3,585 ids has a few dozen ones, and finding them stone by stone cost more than the rest of a
batched step. The apply kernel asks the same function about its one tail, so the mask and
:func:`apply_action` cannot disagree.

The win test is shared too: at the start of his turn, a player with more stones on his far rank
than the opponent has on his wins (in Crossings those stones are exactly the frozen ones). A
player without a legal move passes (``stalemate="pass"``; two passes in a row draw) or loses
(``stalemate="loss"``), and reaching ``move_cap`` plies without a result draws (docs/README.md, conventions).

Action encoding (both games)
----------------------------
Actions are named in the acting player's frame: White sees the board as it is, Black turned
half a turn (docs/README.md, conventions), so both push their stones "up" from row 0. With ``square =
row * 8 + col`` of the tail in that frame, ``direction`` in ``0..7`` (N, NE, E, SE, S, SW, W, NW
in that frame) and ``distance`` ``k`` in ``1..7``::

    action = (square * 8 + direction) * 7 + (k - 1)        # 0 .. 3583
    action = 3584                                          # pass (only when nothing else is legal)

``num_actions = 3585``. Notation (both pages, action encoding): a single stone ``d5-d6``; a line
``<tail>-<head>-<destination of the head>``, e.g. ``c2-c4-c6``; ``pass``. (An id whose head would
leave the board names no move; it is written ``#<id>``, e.g. ``#3583``, which reads back.)

Observation (shared planes; a game may append its own)
------------------------------------------------------
float32 ``(8, 8, C)`` in the observer's frame (row 0 is the observer's home rank):

* plane 0: the observer's stones;
* plane 1: the opponent's stones;
* plane 2: the observer's stones on his far rank, as a count / 8 in every cell;
* plane 3: the opponent's stones on his far rank, as a count / 8 in every cell;
* plane 4: all ones if the previous turn was a pass (one more pass draws);
* plane 5: plies played / ``move_cap`` in every cell (how near the draw by the cap is).
"""

from __future__ import annotations

# The rooms. Every public name of the one-module phalanx stays importable from here (the games import it as ph).
from .game import *  # noqa: F403
from .rules import *  # noqa: F403
from .view import *  # noqa: F403
