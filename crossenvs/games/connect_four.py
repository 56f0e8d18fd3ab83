"""Connect Four: a reference game for comparison with other engines (``docs/connect_four.md``).

Crossenvs plays Connect Four so that its speed and its rules can be set beside OpenSpiel's
``connect_four``, pgx's ``connect_four`` and PettingZoo's ``connect_four_v3`` on the same game
(``benchmarks/peer_check.py``, ``benchmarks/bench.py``).

Rules in brief
--------------
A grid of 7 columns and 6 rows stands upright and starts empty. Red moves first. On a turn a
player drops a disc of his colour into a column that is not full; it falls to the lowest empty
cell of that column. Four discs of one colour in a line (across, up, or diagonally) win; a full
grid without one is a draw.

Options
-------
``columns`` (int, default 7, 4 to 12) and ``rows`` (int, default 6, 4 to 12): the grid's size.
The line to make stays four.

Players and frames
------------------
Seat 0 (``player_0``) is Red, seat 1 is Yellow. The game looks the same from both sides (each
side drops into the same columns), so both play in the board's own frame; observations are
egocentric in their planes only (own discs first).

Action encoding
---------------
``num_actions = columns``. Action ``a`` drops a disc into column ``a`` (file ``a`` is column 0).
Notation: the file letter, e.g. ``d``. OpenSpiel, pgx and PettingZoo number the columns alike,
so the ids are theirs (docs/connect_four.md).

Observation
-----------
float32 tensor of shape ``(rows, columns, 2)``, row 0 the bottom row:

* plane 0: the observer's discs;
* plane 1: the opponent's discs.

Rewards and end
---------------
+1 to the player who makes four in a line and -1 to the other; 0 to both when the grid fills
without one.

Position text
-------------
Cells ``.`` empty, ``R`` red, ``Y`` yellow; headers ``to_move`` (``red``/``yellow``, required) and
``ply``. Discs stand on discs (none above an empty cell); the result is derived from the board.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from crossenvs.kernels import state as st
from crossenvs.kernels.frames import IDENTITY
from crossenvs.kernels.observation import fill_seat_planes
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError, PositionTextError

from ..core.facts import GameFacts
from ..core.game import Game
from ..core.geometry import FILE_LETTERS, Cell
from ..core.options import integer
from ..core.text import ParsedPosition
from ..core.view import GameView

EMPTY, RED, YELLOW = 0, 1, 2
LINE = 4  # discs in a line that win
MIN_SIZE, MAX_SIZE = 4, 12

# Row and column steps of the four line directions: across, up, and the two diagonals.
_LINE_ROWS = np.array([0, 1, 1, 1], dtype=np.int64)
_LINE_COLS = np.array([1, 0, 1, -1], dtype=np.int64)


@njit(cache=True)
def landing_row(board: np.ndarray, column: int) -> int:
    """The row a disc dropped into ``column`` lands on, or the height when the column is full."""
    height = board.shape[0]
    for row in range(height):
        if board[row, column] == EMPTY:
            return row
    return height


@njit(cache=True)
def makes_line(board: np.ndarray, row: int, col: int) -> bool:
    """Is the disc on ``(row, col)`` part of a line of four of its colour?"""
    height, width = board.shape
    mine = board[row, col]
    for k in range(4):
        dr, dc = _LINE_ROWS[k], _LINE_COLS[k]
        run = 1
        r, c = row + dr, col + dc
        while 0 <= r < height and 0 <= c < width and board[r, c] == mine:
            run += 1
            r += dr
            c += dc
        r, c = row - dr, col - dc
        while 0 <= r < height and 0 <= c < width and board[r, c] == mine:
            run += 1
            r -= dr
            c -= dc
        if run >= LINE:
            return True
    return False


@njit(cache=True)
def _top_row_full(board: np.ndarray) -> bool:
    top = board.shape[0] - 1
    for col in range(board.shape[1]):
        if board[top, col] == EMPTY:
            return False
    return True


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Drop a disc into column ``action`` for the player to move, in place. False (nothing changed) if illegal."""
    height, width = board.shape
    if action < 0 or action >= width or meta[st.STATUS] != st.STATUS_PLAYING:
        return False
    row = landing_row(board, action)
    if row == height:
        return False
    player = meta[st.TO_MOVE]
    board[row, action] = player + 1
    meta[st.PLY] += 1
    if makes_line(board, row, action):
        meta[st.STATUS] = st.STATUS_WIN_0 + player
    elif _top_row_full(board):
        meta[st.STATUS] = st.STATUS_DRAW
    meta[st.TO_MOVE] = 1 - player
    return True


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each column that is not full (all 0 once over)."""
    playing = meta[st.STATUS] == st.STATUS_PLAYING
    top = board.shape[0] - 1
    for col in range(board.shape[1]):
        out[col] = 1 if (playing and board[top, col] == EMPTY) else 0


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """Planes 0/1: the observer's / the opponent's discs."""
    fill_seat_planes(board, IDENTITY, player, out)


class ConnectFourView(GameView):
    """How Connect Four looks: red and yellow discs."""

    piece_colours = {RED: (205, 45, 45), YELLOW: (230, 190, 30)}

    def piece_kind(self, code: int) -> str:
        return "disc"


class ConnectFour(Game):
    """Connect Four on an upright grid of 7 columns and 6 rows (see the module docstring)."""

    name = "connect_four"
    view_class = ConnectFourView
    facts = GameFacts(
        display_name="Connect Four",
        rules_summary="Players take turns dropping a disc into a column of an upright grid; it falls to the lowest "
        "empty cell. Four of your discs in a line, across, up or diagonally, win; a full grid without one is a "
        "draw. Played here as a reference game, to compare crossenvs with other engines on the same game.",
    )
    OPTION_SCHEMA = (
        integer("columns", 7, MIN_SIZE, MAX_SIZE, "the grid is this many columns wide (one action each)"),
        integer("rows", 6, MIN_SIZE, MAX_SIZE, "the grid is this many rows high"),
    )
    colours = ("red", "yellow")
    cell_letters = {EMPTY: ".", RED: "R", YELLOW: "Y"}
    owner_colour = {RED: "red", YELLOW: "yellow"}
    MAX_PASSES = 0  # no pass in Connect Four: a 'passes' header is refused
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.width = self.options["columns"]
        self.height = self.options["rows"]
        self.num_actions = self.width
        self.observation_shape = (self.height, self.width, 2)

    @property
    def max_game_length(self) -> int:
        """Each disc fills a cell."""
        return self.height * self.width

    # ----------------------------------------------------------------- contract
    def initial_state(self) -> State:
        return State(np.zeros((self.height, self.width), dtype=np.int8), np.zeros(st.META_SIZE, dtype=np.int32))

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """Colours swapped: each seat sees in the twin what the other saw."""
        swapped = np.where(state.board == 0, 0, 3 - state.board).astype(np.int8)
        return State(swapped, state.meta.copy()), (1, 0)

    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The grid mirrored left to right (columns and their actions with it)."""
        grid = np.arange(self.height * self.width).reshape(self.height, self.width)
        columns = np.arange(self.width)
        return [(grid.ravel().copy(), columns.copy()), (grid[:, ::-1].ravel().copy(), columns[::-1].copy())]

    # ----------------------------------------------------------------- notation
    def action_to_str(self, state: State, action: int) -> str:
        return FILE_LETTERS[int(action)]

    def str_to_action(self, state: State, text: str) -> int:
        letter = text.strip().lower()
        files = FILE_LETTERS[: self.width]
        if len(letter) != 1 or letter not in files:
            raise IllegalActionError(f"connect_four: {text!r} is not a column; write its file letter, a..{files[-1]}")
        return files.index(letter)

    def action_cells(self, state: State, action: int) -> list[Cell]:
        """The cell the disc lands on (none when the column is full)."""
        self.check_state(state)
        column = int(action)
        row = landing_row(state.board, column) if 0 <= column < self.width else self.height
        return [(row, column)] if row < self.height else []

    # ----------------------------------------------------------------- text and rendering
    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        board = state.board
        ply, empty = int(state.meta[st.PLY]), int((board == EMPTY).sum())
        if ply + empty > st.MAX_PLY:
            raise parsed.error(
                "ply",
                f"{ply} is too large: the {empty} empty cells could take the game past ply {st.MAX_PLY}, "
                f"the most a position may have played (give at most {st.MAX_PLY - empty})",
            )
        floating = np.argwhere((board[1:] != EMPTY) & (board[:-1] == EMPTY))
        if floating.size:
            row, col = (int(v) for v in floating[0])
            raise PositionTextError(
                f"connect_four: the disc on {FILE_LETTERS[col]}{row + 2} floats above an empty cell; discs stand on discs"
            )
        lines = {
            seat: any(makes_line(board, int(r), int(c)) for r, c in np.argwhere(board == seat + 1)) for seat in (0, 1)
        }
        if lines[0] and lines[1]:
            raise PositionTextError("connect_four: both colours have four in a line; a game ends at the first")
        if lines[0] or lines[1]:
            state.meta[st.STATUS] = st.STATUS_WIN_0 if lines[0] else st.STATUS_WIN_1
        elif empty == 0:
            state.meta[st.STATUS] = st.STATUS_DRAW

    def end_cause(self, state: State) -> str:
        """docs/connect_four.md: four in a line, or the grid is full."""
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_DRAW:
            return "the grid is full and nobody has four in a line"
        return f"{self.colours[status - st.STATUS_WIN_0].capitalize()} made four in a line"
