"""The Connect Four solver for callers: a :class:`~crossenvs.kernels.state.State` in, every move's exact score out.

One :class:`ConnectFourSolver` keeps its transposition table between calls, so the positions of one
game (or of a benchmark set that shares openings) get quicker as it goes; the table's size is checked
against free memory before it is made.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from crossenvs.eval.solver import SolverBudgetError
from crossenvs.kernels import state as st
from crossenvs.kernels.state import State
from crossenvs.support.checks import check_memory
from crossenvs.support.errors import InvalidArgumentError, InvalidStateError

from . import solver as kernel

#: the default transposition table: 2**23 slots (8 + 1 + 1 bytes each: 80 MiB)
DEFAULT_TABLE_BITS = 23
#: the default node budget of one call
DEFAULT_NODES = 2_000_000_000


@dataclass(frozen=True)
class MoveScores:
    """Each legal column's exact score for the player to move (see :mod:`.solver` for the scale)."""

    scores: dict[int, int]  # column -> score
    plies_played: int
    cells: int
    nodes: int
    seconds: float

    @property
    def best(self) -> int:
        """The position's own score: the best move's."""
        return max(self.scores.values())

    @property
    def optimal(self) -> list[int]:
        """The columns that keep the best score: the fastest win, or the slowest loss."""
        return sorted(col for col, score in self.scores.items() if score == self.best)

    @property
    def values(self) -> dict[int, int]:
        """Each column's game value, +1 win, 0 draw, -1 loss, for the player to move."""
        return {col: int(np.sign(score)) for col, score in self.scores.items()}

    @property
    def plies_left(self) -> int:
        """Plies to the end of the game when both sides play perfectly from here."""
        return plies_left(self.best, self.plies_played, self.cells)


def plies_left(score: int, plies_played: int, cells: int) -> int:
    """The plies a game has left from a position of ``score`` under perfect play: a draw fills the grid; a win
    of score ``s`` comes with the winner's disc number ``(cells + 1) // 2 + 1 - s`` (counted per player)."""
    left = cells - plies_played
    if score == 0:
        return left
    if score > 0:  # the mover wins with his own n-th disc from here
        mover_discs = (cells + 1 - plies_played) // 2 - score + 1
        return 2 * mover_discs - 1
    opponent_discs = (cells - plies_played) // 2 + score + 1  # the opponent's n-th disc from here
    return 2 * opponent_discs


def scores_to_values(scores: np.ndarray) -> np.ndarray:
    """Scores to game values (+1 win, 0 draw, -1 loss); a full column (``ABORTED``) stays out of range."""
    return np.where(scores == kernel.ABORTED, kernel.ABORTED, np.sign(scores))


class ConnectFourSolver:
    """Exact move scores of Connect Four positions of one grid size; the table lives as long as the solver."""

    def __init__(self, columns: int = 7, rows: int = 6, *, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        if (rows + 1) * columns > 64:
            raise InvalidArgumentError(
                f"connect_four: the exact solver holds a grid in 64 bits, (rows + 1) * columns; {columns}x{rows} "
                f"needs {(rows + 1) * columns} (use crossenvs.eval.solver.solve, which proves win/draw/loss on any size)"
            )
        if isinstance(table_bits, bool) or not isinstance(table_bits, int) or not 10 <= table_bits <= 32:
            raise InvalidArgumentError(f"table_bits must be from 10 to 32, got {table_bits!r}")
        check_memory(10 << table_bits, f"a transposition table of 2**{table_bits} slots", "give fewer table_bits")
        self.columns, self.rows = columns, rows
        self.masks = kernel.geometry(columns, rows)
        centre_out = sorted(range(columns), key=lambda c: (abs(2 * c - (columns - 1)), c))
        self.order = np.array(centre_out, dtype=np.int64)
        size = _prime_below(1 << table_bits)
        self.keys = np.zeros(size, dtype=np.uint64)
        self.values = np.zeros(size, dtype=np.int8)
        self.bounds = np.zeros(size, dtype=np.int8)
        # each ply's candidate moves and their threat counts (the search allocates nothing per position)
        self.move_scratch = np.zeros((columns * rows + 2, columns), dtype=np.uint64)
        self.score_scratch = np.zeros((columns * rows + 2, columns), dtype=np.int64)

    def bitboards(self, state: State) -> tuple[int, int, int]:
        """``(mover's discs, all discs, plies played)`` of a position on this solver's grid."""
        board = state.board
        if board.shape != (self.rows, self.columns):
            raise InvalidStateError(
                f"connect_four: the position is {board.shape[1]}x{board.shape[0]}, the solver's grid "
                f"{self.columns}x{self.rows}; make a ConnectFourSolver(columns, rows) of its size"
            )
        if int(state.meta[st.STATUS]) != st.STATUS_PLAYING:
            raise InvalidStateError("connect_four: the game is over; there is nothing to solve")
        mover_code = int(state.meta[st.TO_MOVE]) + 1
        rows, cols = np.nonzero(board)
        bits = cols.astype(np.int64) * (self.rows + 1) + rows
        mine = board[rows, cols] == mover_code
        mask = int(np.bitwise_or.reduce(np.left_shift(np.uint64(1), bits.astype(np.uint64)), initial=np.uint64(0)))
        position = int(
            np.bitwise_or.reduce(np.left_shift(np.uint64(1), bits[mine].astype(np.uint64)), initial=np.uint64(0))
        )
        return position, mask, int(rows.size)

    def move_scores(self, state: State, *, nodes: int = DEFAULT_NODES) -> MoveScores:
        """Every legal column's exact score; :class:`SolverBudgetError` past ``nodes`` positions."""
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise InvalidArgumentError(f"nodes must be a whole number of positions above 0, got {nodes!r}")
        position, mask, played = self.bitboards(state)
        counters = np.array([0, nodes], dtype=np.int64)
        out = np.empty(self.columns, dtype=np.int64)
        started = time.perf_counter()
        table = (self.keys, self.values, self.bounds, counters, self.move_scratch, self.score_scratch)
        done = kernel.move_scores(
            np.uint64(position), np.uint64(mask), played, (self.columns, self.rows, self.masks, self.order), table, out
        )
        if not done:
            raise SolverBudgetError(
                f"connect_four: not every move's score was proven within {nodes:,} positions "
                f"({time.perf_counter() - started:.1f} s); give a larger budget (nodes=...)"
            )
        scores = {col: int(out[col]) for col in range(self.columns) if out[col] != kernel.ABORTED}
        return MoveScores(scores, played, self.columns * self.rows, int(counters[0]), time.perf_counter() - started)


def _prime_below(n: int) -> int:
    """The largest prime below ``n``: a table indexed by the key modulo a prime spreads the keys evenly."""
    candidate = n - 1
    while any(candidate % d == 0 for d in range(2, int(candidate**0.5) + 1)):
        candidate -= 1
    return candidate
