"""Crisscross (Mark Steere, 2023): full rules in ``docs/crisscross.md``.

Rules in brief
--------------
An N x N board starts empty. Red moves first. On a turn a player places one checker of his
colour on any empty square; there is no passing. Red must connect the top and bottom edges
(rank N to rank 1), Blue the left and right edges (file a to the last file), through
orthogonally adjacent checkers.

Capture: the new checker lies in a horizontal and a vertical segment (maximal runs of the
mover's colour through it). Beyond each of the four ends of those two segments, a closed run of
enemy checkers that is followed by one of the mover's checkers, or by the board edge (every
edge counts as the mover's on his turn), is flanked. All flanked runs flip at once; flipped
checkers capture nothing further. Only runs on the lines of the new segments are taken. After
the flips, a player with a connection between his edges wins. A full board without a winner
is a draw, so a game lasts at most N² plies and needs no move cap.

Options
-------
``size`` (int, default 8): the board is ``size`` x ``size``, any size from 3 to 19.

Players and frames
------------------
Seat 0 (``player_0``) is Red, seat 1 is Blue. Observations and actions are egocentric
(docs/README.md, conventions): Blue sees the board *transposed*, so that in his own frame he too
connects the bottom row to the top row, and one network can play both seats.

Action encoding
---------------
``num_actions = N * N``. Action ``a`` places a checker on the square at ``(row, col) =
divmod(a, N)`` of the acting player's frame, where row 0 is the player's bottom edge. For Red
that is square ``(file col, rank row + 1)``; for Blue the transpose, ``(file row, rank col + 1)``.
Notation (docs/crisscross.md, action encoding): the square, e.g. ``c4``.

Observation
-----------
float32 tensor of shape ``(N, N, 2)`` in the observing player's frame, indexed like the
actions (row 0 is that player's first edge):

* plane 0: the observer's checkers;
* plane 1: the opponent's checkers.

Everything else is visible on the board (no hidden state, no pass, no cap).

Rewards and end
---------------
+1 to the winner and -1 to the loser when a move completes a connection; 0 to both when the
board fills without a winner.

Position text
-------------
Cells ``.`` empty, ``R`` red, ``B`` blue; headers ``to_move`` (``red``/``blue``, required) and
``ply`` (no ``passes``: there is no pass). The result is derived from the board: a connected
player has won, a full board without one is a draw.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.codec import square_of
from crossenvs.kernels.frames import IDENTITY, TRANSPOSE, frame_to_board, mark_empty_cells
from crossenvs.kernels.observation import fill_seat_planes
from crossenvs.kernels.state import State

from ..core.facts import GameFacts
from ..core.options import integer
from ..core.text import ParsedPosition
from ..kernels.portable import scratch_array
from .connection import ConnectionGame, ConnectionView

EMPTY, RED, BLUE = 0, 1, 2
EDGES = {RED: "the top and bottom edges", BLUE: "the left and right edges"}  # what each side connects
MIN_SIZE, MAX_SIZE = 3, 19

# Row and column steps of the four rays from the ends of the new segments.
_RAY_ROWS = np.array([1, -1, 0, 0], dtype=np.int64)
_RAY_COLS = np.array([0, 0, 1, -1], dtype=np.int64)


@njit(cache=True, inline="always")
def _frame_of(player: int) -> int:
    """Red plays in the board's own frame, Blue in the transposed one."""
    return TRANSPOSE if player == 1 else IDENTITY


@njit(cache=True)
def _flip_flanked_runs(board: np.ndarray, row: int, col: int, mine: int) -> None:
    """Flip every enemy run flanked beyond an end of the new checker's two segments.

    The four rays never share a cell, so flipping one run cannot change the test of another:
    doing them in turn equals doing them at once, and no flip triggers a further capture.
    """
    n = board.shape[0]
    enemy = 3 - mine
    for ray in range(4):
        dr, dc = _RAY_ROWS[ray], _RAY_COLS[ray]
        r, c = row, col
        while 0 <= r + dr < n and 0 <= c + dc < n and board[r + dr, c + dc] == mine:
            r += dr
            c += dc
        run = 0
        rr, rc = r + dr, c + dc
        while 0 <= rr < n and 0 <= rc < n and board[rr, rc] == enemy:
            rr += dr
            rc += dc
            run += 1
        closed = not (0 <= rr < n and 0 <= rc < n) or board[rr, rc] == mine
        if run > 0 and closed:
            for k in range(1, run + 1):
                board[r + k * dr, c + k * dc] = mine


# Scratch space of the largest board (kernels/portable.py: no kernel allocates, so the GPU can run it).
_SEEN = scratch_array((MAX_SIZE, MAX_SIZE), np.bool_)
_STACK = scratch_array(MAX_SIZE * MAX_SIZE, np.int8)  # rows or columns: each below MAX_SIZE


@njit(cache=True)
def has_connection(board: np.ndarray, player: int) -> bool:
    """Does ``player`` join his two edges (rows 0 and N-1 of his own frame) orthogonally?"""
    n = board.shape[0]
    mine = player + 1
    frame = _frame_of(player)
    seen = _SEEN()
    seen[:n, :n] = False
    stack_r = _STACK()
    stack_c = _STACK()
    top = 0
    for c in range(n):
        br, bc = frame_to_board(0, c, frame, n, n)
        if board[br, bc] == mine:
            seen[0, c] = True
            stack_r[top] = 0
            stack_c[top] = c
            top += 1
    while top > 0:
        top -= 1
        r, c = stack_r[top], stack_c[top]
        if r == n - 1:
            return True
        for ray in range(4):
            nr, nc = r + _RAY_ROWS[ray], c + _RAY_COLS[ray]
            if 0 <= nr < n and 0 <= nc < n and not seen[nr, nc]:
                br, bc = frame_to_board(nr, nc, frame, n, n)
                if board[br, bc] == mine:
                    seen[nr, nc] = True
                    stack_r[top] = nr
                    stack_c[top] = nc
                    top += 1
    return False


@njit(cache=True)
def _board_full(board: np.ndarray) -> bool:
    for cell in board.flat:
        if cell == EMPTY:
            return False
    return True


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Play ``action`` for the player to move, in place. False (nothing changed) if illegal."""
    n = board.shape[0]
    if action < 0 or action >= n * n or meta[st.STATUS] != st.STATUS_PLAYING:
        return False
    player = meta[st.TO_MOVE]
    frame_row, frame_col = square_of(action, n)
    row, col = frame_to_board(frame_row, frame_col, _frame_of(player), n, n)
    if board[row, col] != EMPTY:
        return False
    mine = player + 1
    board[row, col] = mine
    _flip_flanked_runs(board, row, col, mine)
    meta[st.PLY] += 1
    if has_connection(board, player):
        meta[st.STATUS] = st.STATUS_WIN_0 + player
    elif _board_full(board):
        meta[st.STATUS] = st.STATUS_DRAW
    meta[st.TO_MOVE] = 1 - player
    return True


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each empty square of the acting player's frame (all 0 once over)."""
    mark_empty_cells(board, _frame_of(meta[st.TO_MOVE]), meta[st.STATUS] == st.STATUS_PLAYING, out)


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """Planes 0/1: the observer's / the opponent's checkers, in the observer's frame."""
    fill_seat_planes(board, _frame_of(player), player, out)


class CrisscrossView(ConnectionView):
    """How Crisscross looks: colours, labels and the legend (the rules are in :class:`Crisscross`)."""

    piece_colours = {RED: (205, 45, 45), BLUE: (45, 85, 205)}
    turns_pieces = True  # flanked runs flip
    piece_noun, edges = "checker", EDGES


class Crisscross(ConnectionGame):
    """Crisscross on an N x N board (see the module docstring)."""

    name = "crisscross"
    view_class = CrisscrossView
    facts = GameFacts(
        display_name="Crisscross",
        rules_summary="Players take turns placing a checker on any empty square. Red wants a chain of touching "
        "checkers (side by side, not diagonally) from the top edge to the bottom edge, Blue from the left edge "
        "to the right. A new checker that closes in a straight run of enemy checkers between itself and another "
        "of yours flips the whole run to your colour. A full board with no chain is a draw.",
    )
    OPTION_SCHEMA = (
        integer("size", 8, MIN_SIZE, MAX_SIZE, "the board is size x size (size² actions)", label="Board size"),
    )
    colours = ("red", "blue")
    cell_letters = {EMPTY: ".", RED: "R", BLUE: "B"}
    owner_colour = {RED: "red", BLUE: "blue"}
    cell_word = "squares"
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    @property
    def max_game_length(self) -> int:
        """Every action fills an empty square (flips never empty one), so the board is full after size² of them."""
        return self.size * self.size

    # ----------------------------------------------------------------- contract
    def initial_state(self) -> State:
        return State(np.zeros((self.size, self.size), dtype=np.int8), np.zeros(st.META_SIZE, dtype=np.int32))

    # ----------------------------------------------------------------- notation
    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The board flipped top to bottom and/or left to right: each player's goal (its own frame's
        first and last rows) and the capture rule look the same. Action ids are frame squares too."""
        grid = np.arange(self.size * self.size).reshape(self.size, self.size)
        flips = (grid, grid[::-1], grid[:, ::-1], grid[::-1, ::-1])
        return [(flipped.ravel().copy(), flipped.ravel().copy()) for flipped in flips]

    # ----------------------------------------------------------------- text and rendering
    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        self._check_ply_room(state, parsed)
        # Both sides can never connect at once: two orthogonal paths that cross share a cell.
        if has_connection(state.board, 0):
            state.meta[st.STATUS] = st.STATUS_WIN_0
        elif has_connection(state.board, 1):
            state.meta[st.STATUS] = st.STATUS_WIN_1
        elif not (state.board == EMPTY).any():
            state.meta[st.STATUS] = st.STATUS_DRAW

    def end_cause(self, state: State) -> str:
        """docs/crisscross.md, rules 6-7: the mover connected his two edges, or the board is full."""
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_DRAW:
            return "the board is full and nobody is connected"
        seat = 0 if status == st.STATUS_WIN_0 else 1
        return f"{self.colours[seat].capitalize()} joined {EDGES[seat + 1]}"
