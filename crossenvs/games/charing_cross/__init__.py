"""Charing Cross (BGDF, 2011, "Lokinervio"): full rules in ``docs/charing_cross.md``.

Rules in brief
--------------
8x8 board. Each side has two knights and two rooks. White's knights start on a4, a5 and race to
file h; White's rooks start on d8, e8 and race to rank 1. Black's knights start on h4, h5 (goal:
file a) and his rooks on d1, e1 (goal: rank 8). On his turn a player makes one action with one
piece:

* **forward move**: one square toward the piece's goal, straight or diagonal (three candidate
  squares), onto an empty square that is not an *edge* for that piece type (knights: ranks 1
  and 8; rooks: files a and h);
* **jump**: over an adjacent piece of either colour (with ``self_jump`` on, also one's own), in
  any of the 8 directions, onto the empty square directly beyond; no edge or direction limits.

A piece that ends its action on one of its goal squares wins at once. Otherwise, after a jump,
the jumped piece is lifted and its **owner** puts it back on a vacant home square of its pair
(the two squares where that colour's pieces of that type start): with both vacant the owner
chooses (a separate decision, ``@a4``), with one it goes there, with none it leaves the game for
good. If the owner was the jumper's opponent, he chooses and then plays his own turn; if he
jumped his own piece, he chooses and then the opponent moves. A player with no legal action
passes (two passes in a row draw), and the game is drawn once ``move_cap`` plies are played.
Re-placement choices are not plies.

Options
-------
``first_player`` (``"white"`` | ``"black"``, default ``"white"``): the colour of seat 0, which
moves first. ``self_jump`` (bool or ``"on"``/``"off"``, default on): may a piece jump its own
side's pieces. ``move_cap`` (int, default 200).

Players and frames
------------------
Observations and actions are egocentric (docs/README.md, conventions): Black sees the board turned
half a turn, so that in his frame, as in White's, his knights start on the left and run right
and his rooks start at the top and run down.

Action encoding
---------------
``num_actions = 1089``, all in the acting player's frame (``square = row * 8 + col``, row 0 is
the player's bottom rank; ``direction`` 0..7 = N, NE, E, SE, S, SW, W, NW in that frame):

* ``(square * 8 + direction) * 2 + 0``: forward move one square (ids 0..1023, even);
* ``(square * 8 + direction) * 2 + 1``: jump over the neighbour in ``direction`` (odd);
* ``1024 + square``: re-place the pending piece on ``square`` (only its two home squares can be
  legal, and only while a choice is pending);
* ``1088``: pass (legal only when nothing else is).

Notation (docs/charing_cross.md, action encoding): ``a4-b5`` (forward move), ``a4-a6`` (jump), ``@a4`` (re-placement),
``pass``.

Observation
-----------
float32 ``(8, 8, 17)`` in the observer's frame:

* planes 0-3: own knights, own rooks, opponent knights, opponent rooks;
* plane 4: the squares the pending piece may be re-placed on (all zero when no choice is pending);
* plane 5: all ones while a re-placement choice is pending and the observer owns that piece;
* planes 6-9: goal squares of own knights, own rooks, opponent knights, opponent rooks;
* plane 10: edge squares of knights (forbidden for their forward moves);
* plane 11: edge squares of rooks;
* planes 12-13: own home squares, opponent home squares;
* plane 14: all ones if the previous turn was a pass (one more pass draws);
* plane 15: plies played / ``move_cap`` in every cell;
* plane 16: all ones while the observer must re-place a piece that his opponent jumped, so
  that he also plays the next turn (after re-placing a piece he jumped himself, the opponent
  moves).

Rewards and end
---------------
+1 / -1 when a piece reaches its goal; 0 to both for two passes in a row or the move cap.

Position text
-------------
Cells ``.``, ``N``/``R`` (White knight/rook), ``n``/``r`` (Black). Headers ``to_move``
(required), ``ply``, ``passes``, and while a choice is pending ``pending`` (the letter of the
lifted piece; ``to_move`` is its owner, who decides) with ``jumper`` (the colour that jumped).
A piece standing on its goal square means its side has won.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

# The game's rooms. Every public name of the one-module charing_cross stays importable from here.
from .game import *  # noqa: F403
from .rules import *  # noqa: F403
from .view import *  # noqa: F403
