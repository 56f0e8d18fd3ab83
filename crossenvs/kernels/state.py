"""The game state record shared by every game.

A state is two small numpy arrays of fixed shape per game, so that a batch of games is just the
same arrays with a leading batch axis, and a batch runner calls the per-game kernels (see
:mod:`crossenvs.core.game`) on each slice:

* ``board``: int8 ``(H, W)``, indexed ``board[rank - 1, file]`` (row 0 is rank 1, the bottom
  edge). Cell codes are defined per game (0 is always empty).
* ``meta``: int32 ``(K,)``. The first :data:`META_SIZE` slots are common to every game (below);
  a game appends its own slots (move tokens, a pending decision, a jump in progress...).

States are values: engine functions never modify a state they receive, they return a new one.
"""

from __future__ import annotations

import numpy as np

# Common meta slots (every game's meta vector starts with these).
TO_MOVE = 0  # seat (0 or 1) that must decide now; player 0 moves first
PLY = 1  # plies (turns) counted so far, for the move cap (docs/README.md, conventions)
STATUS = 2  # one of the STATUS_* codes below
PASSES = 3  # consecutive passes so far (two in a row draw, docs/README.md, conventions)
META_SIZE = 4

#: the most plies a position read from text may have played (docs/README.md, position text). Far
#: below int32's 2**31 - 1: every built-in game ends within its move cap (at most 10**6) or its
#: board (Crisscross), so no sequence of moves from a position that reads can wrap the counter.
MAX_PLY = 10**9

STATUS_PLAYING = 0
STATUS_WIN_0 = 1  # player 0 won
STATUS_WIN_1 = 2  # player 1 won
STATUS_DRAW = 3

#: per-seat returns indexed by status: (0, 0) while playing or drawn, +1/-1 for a win. The one
#: place a status becomes rewards (engine outcomes, envs, search).
SEAT_RETURNS = np.array([[0.0, 0.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])


class State:
    """One position: ``board`` (int8) and ``meta`` (int32). Compared by value."""

    __slots__ = ("board", "meta")

    def __init__(self, board: np.ndarray, meta: np.ndarray) -> None:
        self.board = board
        self.meta = meta

    def copy(self) -> State:
        return State(self.board.copy(), self.meta.copy())

    @property
    def to_move(self) -> int:
        return int(self.meta[TO_MOVE])

    @property
    def ply(self) -> int:
        return int(self.meta[PLY])

    @property
    def status(self) -> int:
        return int(self.meta[STATUS])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return np.array_equal(self.board, other.board) and np.array_equal(self.meta, other.meta)

    def __hash__(self) -> int:
        return hash((self.board.tobytes(), self.meta.tobytes()))

    def __repr__(self) -> str:
        return f"State(to_move={self.to_move}, ply={self.ply}, status={self.status}, board=\n{self.board[::-1]})"
