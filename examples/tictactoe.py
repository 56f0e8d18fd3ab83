"""A game of your own in one module: tic-tac-toe on crossenvs' public API.

Import this module (or run ``crossenvs --import examples/tictactoe.py ...``) and tic-tac-toe works
everywhere a built-in game does: ``crossenvs.make_game("tictactoe")``, the PettingZoo entry module
``crossenvs.tictactoe_v0``, ``gymnasium.make("crossenvs/TicTacToe-v0")``, the vector env, MCTS,
the arena, the CLI, and the contract suite ``crossenvs.testing.check_game("tictactoe")``.

What a game supplies:

* the state: a ``board`` (int8, here 3x3: 0 empty, 1 X, 2 O) and a ``meta`` vector whose first
  slots are the common ones of :mod:`crossenvs.kernels.state` (to move, ply, status, passes);
* three numba kernels at module level, with these exact signatures, that never allocate:
  ``apply_kernel(board, meta, action) -> bool`` (play in place; False and untouched if illegal),
  ``mask_kernel(board, meta, out)`` and ``observe_kernel(board, meta, player, out)``;
* a :class:`crossenvs.Game` subclass: sizes, the setup, notation, and how text positions finish
  loading (the base class does the rest: legality checks, text, rendering, envs); optionally its
  ``facts`` (:class:`crossenvs.GameFacts`: its name as people write it and a paragraph of rules,
  which the web page shows; without them it shows the registry name and the one-line summary)
  and its ``max_game_length`` (the longest game in actions, which OpenSpiel needs);
* one :func:`crossenvs.register_game` call.

Actions are the squares a1..c3 (id = row * 3 + column); X moves first. Observations are two
planes from the player's own point of view: its own marks, the opponent's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import crossenvs
from crossenvs import Game, GameFacts, IllegalActionError, PositionTextError, State
from crossenvs.core.geometry import parse_square, square_name
from crossenvs.core.view import GameView
from crossenvs.kernels import state as st
from crossenvs.kernels.portable import flat_view

SIZE = 3
EMPTY, CROSS, NOUGHT = 0, 1, 2
LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]], dtype=np.int64
)


@njit(cache=True)
def winner(board: np.ndarray) -> int:
    """The mark (X or O) that owns a full line, else EMPTY."""
    flat = flat_view(board)  # a 1-d view: reshape would link C code on a GPU, ravel may copy
    for k in range(LINES.shape[0]):
        a, b, c = flat[LINES[k, 0]], flat[LINES[k, 1]], flat[LINES[k, 2]]
        if a != EMPTY and a == b and b == c:
            return a
    return EMPTY


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= SIZE * SIZE:
        return False
    row, col = action // SIZE, action % SIZE
    if board[row, col] != EMPTY:
        return False
    board[row, col] = meta[st.TO_MOVE] + 1
    meta[st.PLY] += 1
    mark = winner(board)
    if mark != EMPTY:
        meta[st.STATUS] = st.STATUS_WIN_0 if mark == CROSS else st.STATUS_WIN_1
    elif meta[st.PLY] == SIZE * SIZE:
        meta[st.STATUS] = st.STATUS_DRAW
    else:
        meta[st.TO_MOVE] = 1 - meta[st.TO_MOVE]
    return True


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    playing = meta[st.STATUS] == st.STATUS_PLAYING
    for a in range(SIZE * SIZE):
        out[a] = 1 if playing and board[a // SIZE, a % SIZE] == EMPTY else 0


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    mine = player + 1
    for r in range(SIZE):
        for c in range(SIZE):
            out[r, c, 0] = 1.0 if board[r, c] == mine else 0.0
            out[r, c, 1] = 1.0 if board[r, c] != EMPTY and board[r, c] != mine else 0.0


class TicTacToeView(GameView):
    """How the board looks (the rules do not need it): red crosses, blue noughts."""

    piece_colours = {CROSS: (200, 40, 40), NOUGHT: (40, 80, 200)}


class TicTacToe(Game):
    """Three in a row on a 3x3 board; X moves first."""

    name = "tictactoe"
    view_class = TicTacToeView
    facts = GameFacts(
        display_name="Tic-tac-toe",
        rules_summary="Players take turns marking an empty square of a 3x3 grid, X first. Three of your marks "
        "in a row, a column or a diagonal win; a full grid without a line is a draw.",
    )
    MAX_PASSES = 0  # no pass in this game: a ``passes`` header is refused
    max_game_length = SIZE * SIZE  # each move fills a square (OpenSpiel needs the longest game)
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)
    owner_colour = {CROSS: "x", NOUGHT: "o"}

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.height = self.width = SIZE
        self.num_actions = SIZE * SIZE
        self.observation_shape = (SIZE, SIZE, 2)
        self.colours = ("x", "o")
        self.cell_letters = {EMPTY: ".", CROSS: "X", NOUGHT: "O"}

    def initial_state(self) -> State:
        return State(np.zeros((SIZE, SIZE), dtype=np.int8), np.zeros(st.META_SIZE, dtype=np.int32))

    def action_to_str(self, state: State, action: int) -> str:
        if not 0 <= int(action) < self.num_actions:
            raise IllegalActionError(f"tictactoe: action {action!r} is not an id in 0..8")
        return square_name(int(action) // SIZE, int(action) % SIZE)

    def str_to_action(self, state: State, text: str) -> int:
        try:
            row, col = parse_square(text, SIZE, SIZE)
        except ValueError as exc:
            raise IllegalActionError(f"tictactoe: {exc}") from None
        return row * SIZE + col

    def _finish_loaded_state(self, state: State, parsed) -> None:
        crosses, noughts = int((state.board == CROSS).sum()), int((state.board == NOUGHT).sum())
        if crosses - noughts not in (0, 1):
            raise PositionTextError(f"tictactoe: {crosses} X and {noughts} O cannot happen (X moves first)")
        state.meta[st.PLY] = crosses + noughts
        mark = winner(state.board)
        if mark != EMPTY:
            state.meta[st.STATUS] = st.STATUS_WIN_0 if mark == CROSS else st.STATUS_WIN_1
        elif crosses + noughts == SIZE * SIZE:
            state.meta[st.STATUS] = st.STATUS_DRAW
        elif state.meta[st.TO_MOVE] != crosses - noughts:  # in play, X (seat 0) moves when the counts are equal
            mover = self.colours[crosses - noughts]
            raise PositionTextError(f"tictactoe: with {crosses} X and {noughts} O, {mover} is to move")

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """Marks swapped and the other player to move: each seat sees what the other saw."""
        swapped = np.where(state.board == EMPTY, EMPTY, 3 - state.board).astype(np.int8)
        meta = state.meta.copy()
        meta[st.TO_MOVE] = 1 - meta[st.TO_MOVE]
        return State(swapped, meta), (1, 0)


crossenvs.register_game("tictactoe", TicTacToe, env_name="TicTacToe", summary="three in a row on a 3x3 board")
