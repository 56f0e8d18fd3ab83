"""Crosse, the abstract no-dice version by João Pedro Neto of David Rea's 1968 game: full rules
in ``docs/crosse.md``.

Rules in brief
--------------
10x10 board. Outside the central 4x4 only the 42 dark squares (file + rank even) are used, as
in checkers; the centre e5 f5 e6 f6 is never used; the 12 cells around it form the *Crosse*
(the ring, ``d4 e4 f4 g4 g5 g6 g7 f7 e7 d7 d6 d5``, anticlockwise), with corners d4, g4, d7, g7.
Black starts on ranks 1-3 plus f4, White on ranks 8-10 plus e7 (16 stones each). A turn is

* a **jump sequence**, compulsory whenever one exists: one stone hops over adjacent enemy
  stones (diagonally anywhere; orthogonally only when the jumped stone and the landing cell are
  both ring cells), capturing each at once, and keeps hopping while it can. Among all sequences
  of all stones the player must pick one that captures the **most** stones; or
* a **token move**: the player spends one of his unused tokens ``1F 2F 3F 1B 2B 3B`` and moves
  a stone along a path of exactly n one-cell steps, all forward (F) or all backward (B), never
  visiting a cell twice, onto an empty cell (the cells passed may hold any stones). Outside the
  ring forward is toward the opponent; on the ring it is anticlockwise for both players; the
  horizontal steps between the ring and the outside (g4-h4, g6-h6, d7-c7, d5-c5) are sideways
  and count as either. After his sixth move a player gets a fresh set of six tokens.

**Corner cover**: when an action leaves the mover holding all four corners and he did not hold
them all before, his stones on his first row (rank 1 for Black, rank 10 for White) are removed
and he takes another turn. While the cover holds, a stone that ends an action on his first row
is removed and he takes another turn. **Goal** (a give-away game): after every action a player
whose stones are all gone, or are exactly four stones on the four corners, wins (the mover's
opponent is tested first). A player with no legal action passes; two passes in a row draw.

Options
-------
* ``first_player`` (``"black"`` | ``"white"``, default ``"black"``): the colour of seat 0.
* ``stuck_tokens`` (default ``"refresh"``): what happens when a player has no jump and no move
  with his remaining tokens. ``"refresh"``: his set is refreshed to all six at the start of the
  turn (before the mask is computed, so the mask and the token planes show the new set); if even
  the full set allows no move, he passes. ``"keep"``: he passes and keeps his tokens.
  ``"pass_refresh"``: he passes and his set is refreshed for his next turn.
* ``cover_removal`` (``"auto"`` | ``"optional"``, default ``"auto"``): with ``"optional"``,
  completing the cover asks the player whether to remove his first-row stones (actions
  ``remove`` / ``keep``; not asked when his first row is empty). The extra turn follows either
  way. The upkeep removal (rule 8) is never optional.
* ``move_cap`` (int, default 600): the game is drawn once this many plies are played and no one
  has won (a removal answer owed on the last ply is given first: ``remove`` may still win).

A ply is a token move, a whole jump sequence, a pass or an extra turn; single hops and the
removal decision are actions but not plies (docs/crosse.md, rule 11).

Players and frames
------------------
Actions and observations are egocentric (docs/README.md, conventions): White sees the board turned
half a turn, so that every player starts at the bottom, moves forward up the board, and sees
the ring's forward direction anticlockwise (the half turn keeps it anticlockwise).

Action encoding
---------------
``num_actions = 1095``, named in the acting player's frame (``square = row * 10 + col``, row 0
is the player's first row):

* ids ``0..963``: **token moves**, one per geometrically possible ``(from, token, to)``: the
  moves of a stone are the same on any board, since the cells passed may hold anything; only
  the empty destination and the remaining tokens vary. Ids ascend by from-square, then token
  (``1F 2F 3F 1B 2B 3B``), then to-square (:data:`MOVE_FROM`, :data:`MOVE_TOKEN`,
  :data:`MOVE_TO`). The same from-to pair reachable with two tokens is two actions.
* ids ``964..1091``: **hops**, one per geometrically possible ``(from, over, to)`` jump
  (:data:`HOP_FROM`, :data:`HOP_OVER`, :data:`HOP_TO`), ascending by from-square then direction
  N, NE, E, SE, S, SW, W, NW. A jump sequence is one hop action after another by the same
  player; at each hop the mask allows only hops lying on a sequence that captures the maximum
  number of stones.
* ``1092``: pass (only when nothing else is legal); ``1093`` / ``1094``: ``remove`` / ``keep``,
  the removal decision of ``cover_removal="optional"``.

Notation (docs/crosse.md, action encoding): ``3F:f4-i5`` (token move), ``h6xf8`` (one hop), ``pass``, ``remove``,
``keep``.

Observation
-----------
float32 ``(10, 10, 26)`` in the observer's frame:

* plane 0: the observer's stones; plane 1: the opponent's stones;
* plane 2: usable cells (the 54 cells a stone may stand on); plane 3: ring cells; plane 4: the
  four ring corners; plane 5: the observer's first row; plane 6: the opponent's first row
  (planes 2-6 are constant: the frames make the geometry the same for both players);
* planes 7-12: the observer's tokens ``1F 2F 3F 1B 2B 3B``, all ones if still unused;
* planes 13-18: the opponent's tokens, likewise;
* plane 19: all ones if the observer holds all four corners; plane 20: the opponent does;
* plane 21: the stone in the middle of a jump sequence (one cell; all zero when none);
* plane 22: all ones during a jump sequence whose player held all four corners when it began
  (that decides whether ending it on his first row removes the stone);
* plane 23: all ones while the observer must decide whether to remove his first-row stones;
* plane 24: all ones if the previous turn was a pass (one more pass draws);
* plane 25: plies played / ``move_cap`` in every cell.

Rewards and end
---------------
+1 / -1 for a win (a player with no stones, or with only four stones on the four corners);
0 to both for two passes in a row or the move cap.

Position text
-------------
Cells ``B`` and ``W`` for stones; empty cells are ``.``, and also ``-`` (light square), ``o``
(ring), ``+`` (ring corner) or ``#`` (centre), as in the diagrams of docs/crosse.md; the writer uses
those markers. Headers: ``to_move`` (required), ``ply``, ``passes``, ``tokens_black`` and
``tokens_white`` (the unused tokens, e.g. ``1F 3B``; absent means the full set), and for a turn
in progress ``jumping`` (the square of the stone in the middle of a jump sequence) with
``cover_before`` (``yes``/``no``: whether the mover held all four corners when the sequence
began), or ``removal: pending`` (a removal decision of ``cover_removal="optional"``). A loaded
position starts its turn like any other: with ``stuck_tokens="refresh"`` a player stuck with his
remaining tokens gets the full set at once.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

# The game's rooms. Every public name of the one-module crosse stays importable from here.
from .game import *  # noqa: F403
from .rules import *  # noqa: F403
from .tables import *  # noqa: F403
from .text import *  # noqa: F403
from .view import *  # noqa: F403
