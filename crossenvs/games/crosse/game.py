"""The :class:`Crosse` game class: options, setup, queries (``tokens``, ``move_ends``), notation, position
text and end causes. The rules it plays are the kernels of :mod:`.rules`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.conventions import passes_draw, seat_colour
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError, InvalidArgumentError, PositionTextError

from ...core.facts import GameFacts
from ...core.game import PASS_TEXT, Game
from ...core.geometry import parse_square, square_name
from ...core.options import choice, first_player, move_cap, seat_colours
from ...core.text import ParsedPosition, shorten
from .rules import (
    apply_kernel,
    has_first_row_stones,
    has_won,
    holds_cover,
    in_frame,
    mask_kernel,
    most_captures_from,
    move_block,
    observe_kernel,
    start_turn,
    stone_of,
)
from .tables import (
    BLACK,
    BLACK_STONE,
    CENTRE,
    COLOUR_NAMES,
    COVER_BEFORE,
    COVER_RULE,
    COVER_RULES,
    EMPTY,
    FULL_TOKENS,
    HOP_BASE,
    HOP_FROM,
    HOP_TO,
    IS_CORNER,
    IS_RING,
    JUMPING,
    JUMPS_LEFT,
    KEEP_ACTION,
    META_SIZE,
    MOVE_CAP,
    MOVE_FROM,
    MOVE_TO,
    MOVE_TOKEN,
    NUM_ACTIONS,
    NUM_HOPS,
    NUM_MOVES,
    NUM_PLANES,
    PASS_ACTION,
    REMOVAL_PENDING,
    REMOVE_ACTION,
    SEAT0_COLOUR,
    SETUP,
    SIZE,
    STUCK_RULE,
    STUCK_RULES,
    TOKEN_NAMES,
    TOKENS,
    USABLE,
    WHITE,
    WHITE_STONE,
)
from .text import _header_square, _parse_tokens, _token_index, tokens_text
from .view import CrosseView


class Crosse(Game):
    """Crosse, abstract no-dice version (see :mod:`crossenvs.games.crosse`)."""

    name = "crosse"
    view_class = CrosseView
    facts = GameFacts(
        display_name="Crosse",
        rules_summary="A give-away game on a 10x10 board with a ring of 12 cells around an unused centre. You move "
        "stones with six single-use tokens (1, 2 or 3 steps, forward or back); jumps capture, are compulsory "
        "and must take the most stones. Covering the ring's four corners sheds the stones on your first row. "
        "You win by getting rid of all your stones, or of all but four that hold the corners.",
    )
    OPTION_SCHEMA = (
        first_player("black", COLOUR_NAMES),
        choice(
            "stuck_tokens",
            "refresh",
            STUCK_RULES,
            "what a player with no move for his remaining tokens does",
            label="When no token can move",
            advanced=True,
        ),
        choice(
            "cover_removal",
            "auto",
            COVER_RULES,
            "completing the cover removes the first-row stones, or asks",
            label="Removing the first row",
            advanced=True,
        ),
        move_cap(600),
    )
    EXTRA_HEADER_KEYS = ("tokens_black", "tokens_white", "jumping", "cover_before", "removal")
    cell_letters = {EMPTY: ".", BLACK_STONE: "B", WHITE_STONE: "W"}
    owner_colour = {BLACK_STONE: "black", WHITE_STONE: "white"}
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    height = width = SIZE
    num_actions = NUM_ACTIONS
    observation_shape = (SIZE, SIZE, NUM_PLANES)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.move_cap = self.options["move_cap"]
        self.colours = seat_colours(self.options["first_player"], COLOUR_NAMES)

    @property
    def max_game_length(self) -> int:
        """``move_cap`` plies, plus the actions that are no ply: a hop before a sequence's last captures a
        stone, so there are fewer of them than stones at the start; a removal answer follows a ply."""
        answers = self.move_cap if self.options["cover_removal"] == "optional" else 0
        return self.move_cap + answers + int(np.count_nonzero(self.initial_state().board))

    def initial_state(self) -> State:
        board = np.zeros((SIZE, SIZE), dtype=np.int8)
        for code, squares in SETUP.items():
            for name in squares.split():
                board[parse_square(name, SIZE, SIZE)] = code
        meta = np.zeros(META_SIZE, dtype=np.int32)
        meta[SEAT0_COLOUR] = COLOUR_NAMES.index(self.colours[0])
        meta[MOVE_CAP] = self.move_cap
        meta[STUCK_RULE] = STUCK_RULES.index(self.options["stuck_tokens"])
        meta[COVER_RULE] = COVER_RULES.index(self.options["cover_removal"])
        meta[TOKENS] = meta[TOKENS + 1] = FULL_TOKENS
        start_turn(board, meta)
        return State(board, meta)

    # ----------------------------------------------------------------- queries
    def tokens(self, state: State, colour: str) -> list[str]:
        """The unused tokens of ``colour`` (``"black"`` or ``"white"``), e.g. ``["1F", "3B"]``."""
        return tokens_text(int(state.meta[TOKENS + self.player_of_colour(colour)])).split()

    def move_ends(self, state: State, square: str, token: str) -> set[str]:
        """The squares the stone on ``square`` can reach with ``token`` now (empty destinations).

        Geometry only: whose turn it is, the token being unused and compulsory jumps are not
        checked (docs/crosse.md, example C2).
        """
        self.check_state(state)
        if not isinstance(square, str) or not isinstance(token, str):
            raise InvalidArgumentError(f"{self.name}: give a square and a token as text, e.g. 'f4', '3F'")
        try:
            row, col = parse_square(square, SIZE, SIZE)
            index = _token_index(token)
        except ValueError as exc:
            raise InvalidArgumentError(f"{self.name}: {exc}") from None
        code = int(state.board[row, col])
        if code == EMPTY:
            raise InvalidArgumentError(f"{self.name}: no stone on {square}")
        colour = BLACK if code == BLACK_STONE else WHITE
        start = int(in_frame(row * SIZE + col, colour))
        ends = {int(in_frame(int(MOVE_TO[move]), colour)) for move in range(*move_block(start, index))}
        return {square_name(*divmod(end, SIZE)) for end in ends if state.board.flat[end] == EMPTY}

    # ----------------------------------------------------------------- notation
    def _colour_to_act(self, state: State) -> int:
        return COLOUR_NAMES.index(self.colours[self.current_player(state)])

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """The board turned half a turn, colours (and seat 0's colour) swapped: each seat sees the same."""
        board = state.board[::-1, ::-1].copy()
        swapped = np.where(board == 1, 2, np.where(board == 2, 1, 0)).astype(np.int8)
        meta = state.meta.copy()
        meta[SEAT0_COLOUR] = 1 - meta[SEAT0_COLOUR]
        if meta[JUMPING] >= 0:
            meta[JUMPING] = 99 - meta[JUMPING]
        return State(swapped, meta), (0, 1)

    def action_to_str(self, state: State, action: int) -> str:
        action = int(action)
        special = {PASS_ACTION: PASS_TEXT, REMOVE_ACTION: "remove", KEEP_ACTION: "keep"}
        if action in special:
            return special[action]
        colour = self._colour_to_act(state)

        def name(frame_square: int) -> str:
            return square_name(*divmod(int(in_frame(int(frame_square), colour)), SIZE))

        if action < NUM_MOVES:
            return f"{TOKEN_NAMES[MOVE_TOKEN[action]]}:{name(MOVE_FROM[action])}-{name(MOVE_TO[action])}"
        hop = action - HOP_BASE
        return f"{name(HOP_FROM[hop])}x{name(HOP_TO[hop])}"

    def str_to_action(self, state: State, text: str) -> int:
        move = text.strip()
        words = {PASS_TEXT: PASS_ACTION, "remove": REMOVE_ACTION, "keep": KEEP_ACTION}
        if move.lower() in words:
            return words[move.lower()]
        colour = self._colour_to_act(state)
        try:
            if ":" in move:
                token_text, squares = move.split(":", 1)
                token = _token_index(token_text)
                start, end = self._frame_squares(squares, "-", colour)
                for action in range(*move_block(start, token)):
                    if MOVE_TO[action] == end:
                        return action
                kind = "forward" if TOKEN_NAMES[token][1] == "F" else "backward"
                raise ValueError(f"no path of exactly {token % 3 + 1} {kind} step(s) leads there")
            if "x" in move.lower():
                if move.lower().count("x") > 1:
                    raise ValueError("one hop per action: play h6xf8, then f8xh10")
                start, end = self._frame_squares(move.lower(), "x", colour)
                for hop in range(NUM_HOPS):
                    if HOP_FROM[hop] == start and HOP_TO[hop] == end:
                        return HOP_BASE + hop
                raise ValueError("no single jump leads there")
            raise ValueError("expected a token move such as '3F:f4-i5', a hop such as 'h6xf8', or pass, remove, keep")
        except ValueError as exc:
            raise IllegalActionError(f"{self.name}: cannot read move {text!r}: {exc}") from None

    @staticmethod
    def _frame_squares(text: str, separator: str, colour: int) -> tuple[int, int]:
        parts = text.split(separator)
        if len(parts) != 2:
            raise ValueError(f"expected two squares joined by '{separator}'")
        squares = []
        for part in parts:
            row, col = parse_square(part, SIZE, SIZE)
            squares.append(int(in_frame(row * SIZE + col, colour)))
        return squares[0], squares[1]

    # ----------------------------------------------------------------- position text
    def cell_text(self, row: int, col: int, code: int) -> str:
        """Stones as ``B``/``W``; empty cells with the diagram markers of docs/crosse.md (board and setup)."""
        if code != EMPTY:
            return self.cell_letters[code]
        square = row * SIZE + col
        if IS_CORNER[square]:
            return "+"
        if IS_RING[square]:
            return "o"
        if square in CENTRE:
            return "#"
        return "." if USABLE[square] else "-"

    def _text_letter_codes(self) -> dict[str, int]:
        return {**super()._text_letter_codes(), "-": EMPTY, "o": EMPTY, "+": EMPTY, "#": EMPTY}

    def _extra_headers(self, state: State) -> list[tuple[str, str]]:
        meta = state.meta
        headers = []
        for colour in COLOUR_NAMES:
            tokens = int(meta[TOKENS + self.player_of_colour(colour)])
            if tokens != FULL_TOKENS:
                headers.append((f"tokens_{colour}", tokens_text(tokens)))
        if meta[JUMPING] >= 0:
            headers.append(("jumping", square_name(*divmod(int(meta[JUMPING]), SIZE))))
            headers.append(("cover_before", "yes" if meta[COVER_BEFORE] else "no"))
        if meta[REMOVAL_PENDING]:
            headers.append(("removal", "pending"))
        return headers

    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        self._check_markers(parsed)
        for (row, col), code in np.ndenumerate(board):
            if code != EMPTY and not USABLE[row * SIZE + col]:
                where = "in the centre" if row * SIZE + col in CENTRE else "on a light square outside the ring"
                raise PositionTextError(
                    f"{self.cell_letters[int(code)]} on {square_name(row, col)} is {where}: stones stand only on "
                    "the ring and the dark squares outside it"
                )
        for colour in COLOUR_NAMES:
            key = f"tokens_{colour}"
            if key in parsed.headers:
                meta[TOKENS + self.player_of_colour(colour)] = _parse_tokens(parsed, key)
        seat = self.current_player(state)
        winners = [s for s in (0, 1) if has_won(board, stone_of(int(seat_colour(meta[SEAT0_COLOUR], s))))]
        if winners:  # both only after a cover completed: the mover's opponent, who is to move (docs/crosse.md, rule 9)
            meta[st.STATUS] = st.STATUS_WIN_0 + (winners[0] if len(winners) == 1 else seat)
        elif passes_draw(meta) or (meta[st.PLY] >= meta[MOVE_CAP] and "removal" not in parsed.headers):
            meta[st.STATUS] = st.STATUS_DRAW  # (a pending removal answer comes before the cap's draw)
        turn_keys = [k for k in ("jumping", "cover_before", "removal") if k in parsed.headers]
        if meta[st.STATUS] != st.STATUS_PLAYING:
            if turn_keys:
                raise parsed.error(turn_keys[0], "the game is over in this position, so no turn is in progress")
            return
        if "removal" in parsed.headers:
            self._load_removal(state, parsed)
        elif "jumping" in parsed.headers:
            self._load_jump(state, parsed)
        elif "cover_before" in parsed.headers:
            raise parsed.error("cover_before", "'cover_before' belongs with 'jumping' (a jump sequence in progress)")
        else:
            start_turn(board, meta)

    @staticmethod
    def _check_markers(parsed: ParsedPosition) -> None:
        """Empty-cell markers other than ``.`` must match their cell: a mismatch means a shifted diagram."""
        kinds = {"-": "a light square outside the ring", "o": "a ring cell", "+": "a ring cell", "#": "the centre"}
        for row, letters in enumerate(parsed.cells):
            for col, letter in enumerate(letters):
                if letter not in kinds:
                    continue
                square = row * SIZE + col
                fits = {
                    "-": not USABLE[square] and square not in CENTRE,
                    "o": IS_RING[square],
                    "+": IS_RING[square],
                    "#": square in CENTRE,
                }[letter]
                if not fits:
                    raise PositionTextError(
                        f"cell {square_name(row, col)} is {letter!r}, which marks {kinds[letter]}; "
                        "check that the rank line is not shifted ('.' is an empty cell anywhere)"
                    )

    def _load_jump(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        colour = self._colour_to_act(state)
        row, col = _header_square(parsed, "jumping")
        if board[row, col] != stone_of(colour):
            raise parsed.error("jumping", f"no {COLOUR_NAMES[colour]} stone (the side to move) stands there")
        left = most_captures_from(board, row * SIZE + col, stone_of(colour), stone_of(1 - colour))
        if left == 0:
            raise parsed.error("jumping", "that stone has no further hop, so its sequence is over")
        answer = parsed.headers.get("cover_before", "no").strip().lower()
        if answer not in ("yes", "no"):
            raise parsed.error("cover_before", f"expected yes or no, got {shorten(answer)}")
        meta[JUMPING], meta[JUMPS_LEFT], meta[COVER_BEFORE] = row * SIZE + col, left, answer == "yes"

    def _load_removal(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        colour = self._colour_to_act(state)
        if parsed.headers["removal"].strip().lower() != "pending":
            raise parsed.error("removal", "the only value is 'pending'")
        if self.options["cover_removal"] != "optional":
            raise parsed.error("removal", "a removal decision exists only with cover_removal='optional'")
        if "jumping" in parsed.headers:
            raise parsed.error("removal", "a removal decision and a jump in progress exclude each other")
        if not holds_cover(board, stone_of(colour)) or not has_first_row_stones(board, colour):
            raise parsed.error(
                "removal", "the side to move must hold all four corners and have stones on its first row"
            )
        meta[REMOVAL_PENDING] = 1

    # ----------------------------------------------------------------- rendering
    def end_cause(self, state: State) -> str:
        """docs/crosse.md, rules 9-11: a winner has shed his stones, or kept only the four corners."""
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_DRAW:
            return super().end_cause(state) or f"the move cap ({self.move_cap} plies)"
        colour = self.colours[0 if status == st.STATUS_WIN_0 else 1]
        if not (state.board == stone_of(COLOUR_NAMES.index(colour))).any():
            return f"{colour.capitalize()} has no stones left"
        return f"{colour.capitalize()}'s only stones are the four ring corners"
