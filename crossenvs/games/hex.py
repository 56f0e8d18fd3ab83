"""Hex (Piet Hein 1942, John Nash 1948): a reference game for comparison with other engines (``docs/hex.md``).

Crossenvs plays Hex so that its speed and its rules can be set beside OpenSpiel's ``hex`` and
pgx's ``hex`` on the same game (``benchmarks/peer_check.py``, ``benchmarks/bench.py``).

Rules in brief
--------------
An N x N rhombus of hexagonal cells starts empty. Black moves first. On a turn a player places
one stone of his colour on any empty cell; there is no pass. Black must join the bottom and top
rows (rank 1 and rank N), White the left and right files (file a and the last file), through a
chain of adjacent stones. A cell ``(row, col)`` touches six others: ``(row, col ± 1)``,
``(row ± 1, col)``, ``(row + 1, col - 1)`` and ``(row - 1, col + 1)``. The first player to join
his edges wins; the board can never fill without a winner, so there is no draw.

Swap rule (option ``swap``, off by default as in OpenSpiel, on in pgx): White's first turn may
be ``swap`` instead of a stone. Black's one stone, at ``(row, col)``, is then replaced by a
White stone at ``(col, row)`` and Black moves again: White has taken over Black's opening move,
mirrored into his own direction.

Options
-------
``size`` (int, default 11): the board is ``size`` x ``size``, any size from 2 to 19.
``swap`` (flag, default off): the swap rule above.

Players and frames
------------------
Seat 0 (``player_0``) is Black, seat 1 is White. Observations and actions are egocentric
(docs/README.md, conventions): White sees the board *transposed*, so that in his own frame he too
joins the bottom row to the top row. The transposition keeps the six neighbours of a cell.

Action encoding
---------------
``num_actions = N * N`` (``N * N + 1`` with the swap rule). Action ``a < N * N`` places a stone on
``(row, col) = divmod(a, N)`` of the acting player's frame (row 0 is the player's first edge); for
Black that is the board square itself, for White the transposed one. Action ``N * N`` is the
swap. Notation: the square, e.g. ``c4``, and ``swap``. OpenSpiel and pgx number the cells
alike (``row * N + col``, Black joining row 0 to row N - 1, the same six neighbours, the swap as
id ``N * N``), so Black's ids are theirs and White's are theirs transposed (docs/hex.md).

Observation
-----------
float32 tensor of shape ``(N, N, 2)`` (``(N, N, 3)`` with the swap rule) in the observer's frame:

* plane 0: the observer's stones;
* plane 1: the opponent's stones;
* plane 2 (swap rule only): 1 everywhere while the swap may be played (White's first turn).

Rewards and end
---------------
+1 to the player who joins his edges, -1 to the other.

Position text
-------------
Cells ``.`` empty, ``B`` black, ``W`` white; headers ``to_move`` (``black``/``white``, required)
and ``ply``. The result is derived from the board. With the swap rule, ``swap`` is open at ply 1
with White to move whatever the board holds (see :func:`_swap`).

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
from crossenvs.support.errors import IllegalActionError

from ..core.facts import GameFacts
from ..core.options import flag, integer
from ..core.text import ParsedPosition
from ..kernels.portable import scratch_array
from .connection import ConnectionGame, ConnectionView

EMPTY, BLACK, WHITE = 0, 1, 2
EDGES = {BLACK: "the bottom and top rows", WHITE: "the left and right files"}  # what each side joins
MIN_SIZE, MAX_SIZE = 2, 19
SWAP_TEXT = "swap"
#: meta slot: 1 when the swap rule is on (an option, kept in the state so that the kernels read it)
SWAP_RULE = st.META_SIZE
HEX_META_SIZE = st.META_SIZE + 1

# Row and column steps to the six neighbours of a cell.
_STEP_ROWS = np.array([1, -1, 0, 0, 1, -1], dtype=np.int64)
_STEP_COLS = np.array([0, 0, 1, -1, -1, 1], dtype=np.int64)


@njit(cache=True, inline="always")
def _frame_of(player: int) -> int:
    """Black plays in the board's own frame, White in the transposed one."""
    return TRANSPOSE if player == 1 else IDENTITY


@njit(cache=True, inline="always")
def swap_open(meta: np.ndarray) -> bool:
    """The swap may be played: the rule is on and it is White's first turn (ply 1)."""
    return meta[SWAP_RULE] != 0 and meta[st.STATUS] == st.STATUS_PLAYING and meta[st.PLY] == 1 and meta[st.TO_MOVE] == 1


# Scratch space of the largest board (kernels/portable.py: no kernel allocates, so the GPU can run it).
_SEEN = scratch_array((MAX_SIZE, MAX_SIZE), np.bool_)
_STACK = scratch_array(MAX_SIZE * MAX_SIZE, np.int8)  # rows or columns: each below MAX_SIZE


@njit(cache=True)
def joins_edges(board: np.ndarray, row: int, col: int) -> bool:
    """Does the chain through the stone on ``(row, col)`` join its owner's two edges?

    Black's edges are rows 0 and N-1, White's files 0 and N-1. Only the new stone's chain can
    have become a winning one, so the search starts there and stops at the first chain that
    touches both edges.
    """
    n = board.shape[0]
    mine = board[row, col]
    seen = _SEEN()
    seen[:n, :n] = False
    stack_r = _STACK()
    stack_c = _STACK()
    stack_r[0] = row
    stack_c[0] = col
    seen[row, col] = True
    top = 1
    low = high = False
    while top > 0:
        top -= 1
        r, c = stack_r[top], stack_c[top]
        along = r if mine == BLACK else c
        low = low or along == 0
        high = high or along == n - 1
        if low and high:
            return True
        for k in range(6):
            nr, nc = r + _STEP_ROWS[k], c + _STEP_COLS[k]
            if 0 <= nr < n and 0 <= nc < n and not seen[nr, nc] and board[nr, nc] == mine:
                seen[nr, nc] = True
                stack_r[top] = nr
                stack_c[top] = nc
                top += 1
    return False


@njit(cache=True)
def _swap(board: np.ndarray) -> None:
    """Every stone changes colour and moves to its cell mirrored across the long diagonal, (row, col) -> (col, row).

    In play the board then holds one stone, Black's first, which becomes White's on the mirrored
    cell: the swap of OpenSpiel and pgx. On any board read from text the same map is a bijection
    that keeps every chain (and turns a joined one into the other side's), so the swap is legal
    wherever the rule says it is, whatever the stones.
    """
    n = board.shape[0]
    for r in range(n):
        for c in range(r, n):
            upper, lower = board[r, c], board[c, r]
            board[r, c] = 0 if lower == EMPTY else 3 - lower
            board[c, r] = 0 if upper == EMPTY else 3 - upper


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Play ``action`` for the player to move, in place. False (nothing changed) if illegal."""
    n = board.shape[0]
    if action < 0 or action > n * n or meta[st.STATUS] != st.STATUS_PLAYING:
        return False
    player = meta[st.TO_MOVE]
    if action == n * n:
        if not swap_open(meta):
            return False
        _swap(board)
        meta[st.PLY] += 1
        meta[st.TO_MOVE] = 0
        return True
    frame_row, frame_col = square_of(action, n)
    row, col = frame_to_board(frame_row, frame_col, _frame_of(player), n, n)
    if board[row, col] != EMPTY:
        return False
    board[row, col] = player + 1
    meta[st.PLY] += 1
    if joins_edges(board, row, col):
        meta[st.STATUS] = st.STATUS_WIN_0 + player
    meta[st.TO_MOVE] = 1 - player
    return True


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each empty cell of the acting player's frame, and for the swap while open."""
    mark_empty_cells(board, _frame_of(meta[st.TO_MOVE]), meta[st.STATUS] == st.STATUS_PLAYING, out)
    cells = board.shape[0] * board.shape[0]
    if out.shape[0] > cells:
        out[cells] = 1 if swap_open(meta) else 0


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """Planes 0/1: the observer's / the opponent's stones, in the observer's frame; plane 2: swap open."""
    fill_seat_planes(board, _frame_of(player), player, out)
    if out.shape[2] > 2:
        value = 1.0 if swap_open(meta) else 0.0
        for r in range(out.shape[0]):
            for c in range(out.shape[1]):
                out[r, c, 2] = value


class HexView(ConnectionView):
    """How Hex looks: black and white stones, each side's edges in its colour."""

    piece_colours = {BLACK: (30, 30, 30), WHITE: (235, 235, 235)}
    piece_noun, edges = "stone", EDGES


class Hex(ConnectionGame):
    """Hex on an N x N rhombus, swap rule optional (see the module docstring)."""

    name = "hex"
    view_class = HexView
    facts = GameFacts(
        display_name="Hex",
        rules_summary="Players take turns placing a stone on any empty cell of a rhombus of hexagons. Black wants "
        "a chain of touching stones from the bottom edge to the top, White from the left edge to the right; the "
        "first to complete one wins, and someone always does. With the swap rule White may, on his first turn, "
        "take over Black's first stone instead of placing one. Played here as a reference game, to compare "
        "crossenvs with other engines on the same game.",
    )
    OPTION_SCHEMA = (
        integer("size", 11, MIN_SIZE, MAX_SIZE, "the board is size x size (size² cells)", label="Board size"),
        flag("swap", False, "White's first turn may take over Black's first stone", label="Swap rule"),
    )
    colours = ("black", "white")
    cell_letters = {EMPTY: ".", BLACK: "B", WHITE: "W"}
    owner_colour = {BLACK: "black", WHITE: "white"}
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.swap = self.options["swap"]
        if self.swap:  # one more action, and a plane that says whether it is open
            self.num_actions += 1
            self.observation_shape = (self.size, self.size, 3)

    @property
    def swap_action(self) -> int | None:
        """The id of the swap, or None without the swap rule."""
        return self.size * self.size if self.swap else None

    @property
    def max_game_length(self) -> int:
        """Each stone fills a cell, and the swap (at most one) fills none: size² + 1 actions at most."""
        return self.size * self.size + (1 if self.swap else 0)

    # ----------------------------------------------------------------- contract
    def initial_state(self) -> State:
        meta = np.zeros(HEX_META_SIZE, dtype=np.int32)
        meta[SWAP_RULE] = 1 if self.swap else 0
        return State(np.zeros((self.size, self.size), dtype=np.int8), meta)

    # ----------------------------------------------------------------- notation
    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The half turn: it keeps the six neighbours and each player's pair of edges (the swap maps to itself)."""
        grid = np.arange(self.size * self.size).reshape(self.size, self.size)
        turned = grid[::-1, ::-1].ravel()
        extra = [self.size * self.size] if self.swap else []
        return [
            (grid.ravel().copy(), np.array([*grid.ravel(), *extra])),
            (turned.copy(), np.array([*turned, *extra])),
        ]

    def action_to_str(self, state: State, action: int) -> str:
        if int(action) == self.swap_action:
            return SWAP_TEXT
        return super().action_to_str(state, action)

    def str_to_action(self, state: State, text: str) -> int:
        if text.strip().lower() == SWAP_TEXT:
            if self.swap_action is None:
                raise IllegalActionError("hex: 'swap' needs the swap rule (option swap=True)")
            return self.swap_action
        return super().str_to_action(state, text)

    # ----------------------------------------------------------------- text and rendering
    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        self._check_ply_room(state, parsed)
        # Both sides can never be joined at once (two crossing chains share a cell), and a full
        # board always holds a winner: any stone's chain decides.
        for seat, code in enumerate((BLACK, WHITE)):
            rows, cols = np.nonzero(state.board == code)
            if any(joins_edges(state.board, int(r), int(c)) for r, c in zip(rows, cols)):
                state.meta[st.STATUS] = st.STATUS_WIN_0 + seat
                return

    def end_cause(self, state: State) -> str:
        """docs/hex.md: the mover joined his two edges."""
        seat = 0 if int(state.meta[st.STATUS]) == st.STATUS_WIN_0 else 1
        return f"{self.colours[seat].capitalize()} joined {EDGES[seat + 1]}"
