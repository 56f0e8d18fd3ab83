"""The engine contract every game implements (docs/architecture.md, the engine).

A :class:`Game` holds the static facts of one game with its options (sizes, number of actions,
observation shape, house rules) and offers pure functions over :class:`~crossenvs.kernels.state.State`
values. The shared parts live here: the option check, outcomes, ``apply`` with its legality
check, legal masks, observations, position text and rendering. A game module supplies the
rules as three numba kernels with one signature for every game, which is what lets a batch
runner (the vector env) drive any game by looping them over a leading batch axis:

* ``apply_kernel(board, meta, action) -> bool``: play in place; False, untouched, if illegal;
* ``mask_kernel(board, meta, out)``: ``out[a] = 1`` for each legal action (all 0 once over);
* ``observe_kernel(board, meta, player, out)``: fill ``out`` (float32, values in [0, 1]).

plus its notation and how its own state slots read and write as text.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.conventions import PASSES_TO_DRAW, passes_draw
from crossenvs.kernels.state import State
from crossenvs.support.actions import action_id
from crossenvs.support.errors import (
    IllegalActionError,
    InvalidArgumentError,
    InvalidOptionError,
    InvalidStateError,
    PositionTextError,
)

from .facts import GameFacts
from .geometry import Cell, squares_named
from .options import OptionSchema
from .stepper import Stepper
from .text import ParsedPosition, format_position_text, parse_int_header, parse_position_text, shorten
from .view import GameView

PASS_TEXT = "pass"  # the notation of the pass action in every game that has one
#: the side of a cell in ``render_rgb``, in pixels (a larger one is an image of gigabytes)
MIN_CELL_PIXELS, MAX_CELL_PIXELS = 8, 512

__all__ = ["PASS_TEXT", "Cell", "Game", "is_raw_id_text", "raw_id_text"]


def raw_id_text(action: int) -> str:
    """Notation of an action id that names no move at all (e.g. one that leaves the board): ``#<id>``."""
    return f"#{int(action)}"


def is_raw_id_text(text: str) -> bool:
    return text.strip().startswith("#")


#: what a game's :class:`~crossenvs.core.view.GameView` defines, never its rules class
VIEW_HOOKS = frozenset(
    {
        "piece_colours",
        "piece_kind",
        "piece_label",
        "empty_markers",
        "edge_colours",
        "cell_fill",
        "status_note",
        "move_tokens",
        "legend",
    }
)


def _move_text(game: Game, value: Any) -> str:
    if not isinstance(value, str):
        raise IllegalActionError(f"{game.name}: a move is written as text, got {value!r}")
    return value


def _action_id(game: Game, value: Any) -> int:
    return action_id(value, game.num_actions, f"{game.name}: the action")


#: the notation methods whose argument the base class checks, and how
_NOTATION_ARGUMENTS = {"str_to_action": _move_text, "action_to_str": _action_id}


def _checked_arguments(notation: Callable[..., Any]) -> Callable[..., Any]:
    """A game's ``action_to_str`` / ``str_to_action``, run only on a state of the game and an id or a text.

    Wrapped once when the subclass is defined, so every game's notation refuses bad arguments with
    one clear error without each game checking them itself.
    """
    if getattr(notation, "_checks_arguments", False):
        return notation
    check_argument = _NOTATION_ARGUMENTS[notation.__name__]

    @functools.wraps(notation)
    def checked(self: Game, state: State, value: Any) -> Any:
        self.check_state(state)
        return notation(self, state, check_argument(self, value))

    checked._checks_arguments = True  # type: ignore[attr-defined]
    return checked


class Game(ABC):
    """Base class of the five games. Subclasses set the class attributes and the abstract hooks."""

    #: registry name, e.g. ``"crisscross"``
    name: ClassVar[str]
    #: the game's options as data (:mod:`crossenvs.core.options`); anything else is refused
    OPTION_SCHEMA: ClassVar[OptionSchema] = OptionSchema()
    #: option name -> default, derived from :attr:`OPTION_SCHEMA` when a subclass is defined
    OPTIONS: ClassVar[dict[str, Any]] = {}
    #: the common header keys plus the game's own
    BASE_HEADER_KEYS: ClassVar[tuple[str, ...]] = ("to_move", "ply", "passes")
    EXTRA_HEADER_KEYS: ClassVar[tuple[str, ...]] = ()
    #: the largest ``passes`` header: two passes in a row draw (docs/README.md, conventions); 0 in
    #: a game without a pass, which then refuses any other value
    MAX_PASSES: ClassVar[int] = PASSES_TO_DRAW

    # Set by each game: as class attributes where they are fixed, in __init__ where options decide them
    height: int
    width: int
    num_actions: int
    observation_shape: tuple[int, int, int]
    #: colour name of seat 0 and seat 1 (seat 0 moves first)
    colours: tuple[str, str]
    #: cell code -> letter used in position text (code 0 is empty, ``.``)
    cell_letters: dict[int, str]
    #: cell code -> colour name of the side the piece belongs to (baselines count captures with it)
    owner_colour: ClassVar[dict[int, str]] = {}
    #: how the game looks (colours, legend, labels): a view beside the rules, not part of them
    view_class: ClassVar[type[GameView]] = GameView
    #: the game's name as people write it and a paragraph of rules (:class:`~crossenvs.core.facts.GameFacts`);
    #: blank facts are completed from the registration (:attr:`crossenvs.GameSpec.facts`)
    facts: ClassVar[GameFacts] = GameFacts()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Read the subclass's option declaration: a tuple of options becomes its schema and defaults."""
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("OPTION_SCHEMA")
        if declared is not None and not isinstance(declared, OptionSchema):
            cls.OPTION_SCHEMA = OptionSchema(declared)
        if "OPTIONS" in cls.__dict__ and cls.__dict__["OPTIONS"] != cls.OPTION_SCHEMA.defaults:
            raise InvalidOptionError(
                f"{cls.__name__}: declare options in OPTION_SCHEMA (crossenvs.core.options: choice, integer, flag), "
                "not as an OPTIONS dict; OPTIONS is derived from it"
            )
        cls.OPTIONS = cls.OPTION_SCHEMA.defaults
        if not isinstance(cls.facts, GameFacts):
            raise InvalidOptionError(f"{cls.__name__}.facts must be a crossenvs.GameFacts, got {cls.facts!r}")
        looks = sorted(VIEW_HOOKS.intersection(cls.__dict__))
        if looks:
            raise InvalidOptionError(
                f"{cls.__name__} defines {', '.join(looks)}: how a game looks belongs in a view, not in its rules; "
                "move them to a crossenvs.core.view.GameView subclass and set view_class to it"
            )

        for method in _NOTATION_ARGUMENTS:
            if method in cls.__dict__:
                setattr(cls, method, _checked_arguments(cls.__dict__[method]))

    def __init__(self, **options: Any) -> None:
        #: every option's value in normal form (a choice in lower case, an int, a bool)
        self.options: dict[str, Any] = self.OPTION_SCHEMA.check(self.name, options)

    # ----------------------------------------------------------------- the rules (per game)
    @abstractmethod
    def initial_state(self) -> State:
        """The setup (the game's page under docs/)."""

    # The rules as numba kernels (see the module docstring); each game sets these three.
    apply_kernel: ClassVar[Callable[[np.ndarray, np.ndarray, int], bool]]
    mask_kernel: ClassVar[Callable[[np.ndarray, np.ndarray, np.ndarray], None]]
    observe_kernel: ClassVar[Callable[[np.ndarray, np.ndarray, int, np.ndarray], None]]
    #: optional fast path for :meth:`legal_actions` in games with thousands of action ids:
    #: ``actions_kernel(board, meta, out) -> n`` writes the n legal ids, ascending, into ``out``
    actions_kernel: ClassVar[Callable[[np.ndarray, np.ndarray, np.ndarray], int] | None] = None

    @abstractmethod
    def action_to_str(self, state: State, action: int) -> str:
        """Notation (the game's page under docs/) of ``action`` for the player who decides in ``state``."""

    @abstractmethod
    def str_to_action(self, state: State, text: str) -> int:
        """Inverse of :meth:`action_to_str`; ``IllegalActionError`` if the text names no action."""

    @abstractmethod
    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        """Fill derived slots (status, game slots) of a state read from text; raise if inconsistent."""

    # ----------------------------------------------------------------- shared mechanics
    def check_state(self, state: object) -> None:
        """Refuse what is not a position of this game before a kernel reads it out of bounds.

        A :class:`State` of another game (or board size) has other shapes: ``InvalidStateError``;
        anything else at all: ``InvalidArgumentError``.
        """
        if not isinstance(state, State):
            raise InvalidArgumentError(
                f"{self.name}: expected a State (from initial_state() or from_text()), got {type(state).__name__}"
            )
        board, meta = self._shapes
        if state.board.shape != board or state.meta.shape != meta:
            raise InvalidStateError(
                f"{self.name}: a state with a board of shape {state.board.shape} and meta of shape "
                f"{state.meta.shape} is not a position of {self!r} (board {board}, meta {meta})"
            )

    @cached_property
    def _shapes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        start = self.initial_state()
        return start.board.shape, start.meta.shape

    def current_player(self, state: State) -> int:
        """The seat (0 or 1) that must decide now."""
        self.check_state(state)
        return int(state.meta[st.TO_MOVE])

    def is_terminal(self, state: State) -> bool:
        self.check_state(state)
        return int(state.meta[st.STATUS]) != st.STATUS_PLAYING

    def outcome(self, state: State) -> tuple[float, float] | None:
        """None while playing, else per-seat returns: +1 win, -1 loss, 0 draw."""
        self.check_state(state)
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_PLAYING:
            return None
        first, second = st.SEAT_RETURNS[status]
        return (float(first), float(second))

    def stepper(self, state: State | None = None) -> Stepper:
        """The fast single-game path: this game played in place from ``state`` (or the start).

        One numba call per move applies it and writes the next legal mask, legal ids and
        observation into buffers the :class:`~crossenvs.core.stepper.Stepper` owns.
        """
        return Stepper(self, state)

    def legal_mask(self, state: State) -> np.ndarray:
        """int8 vector of length ``num_actions``: 1 for each legal action of the player to decide."""
        self.check_state(state)
        mask = np.empty(self.num_actions, dtype=np.int8)
        self.mask_kernel(state.board, state.meta, mask)
        return mask

    def observe(self, state: State, player: int) -> np.ndarray:
        """float32 tensor of ``observation_shape`` from ``player``'s point of view."""
        self.check_state(state)
        if isinstance(player, (bool, np.bool_)) or player not in (0, 1):
            raise InvalidArgumentError(f"{self.name}: player must be the seat 0 or 1, got {player!r}")
        out = np.empty(self.observation_shape, dtype=np.float32)
        self.observe_kernel(state.board, state.meta, int(player), out)
        return out

    def legal_actions(self, state: State) -> np.ndarray:
        """The legal action ids, ascending."""
        self.check_state(state)
        if self.actions_kernel is not None:
            ids = np.empty(self.num_actions, dtype=np.int64)
            return ids[: self.actions_kernel(state.board, state.meta, ids)]
        return self.legal_mask(state).view(np.bool_).nonzero()[0]  # several times np.flatnonzero's speed on int8

    def apply(self, state: State, action: int) -> State:
        """The state after ``action``; ``IllegalActionError`` naming the move if it is not legal.

        A value that is no action id at all (a float, a bool, out of range) raises
        :class:`InvalidActionError` instead (see :mod:`crossenvs.support.actions`).
        """
        self.check_state(state)
        if state.meta[st.STATUS] != st.STATUS_PLAYING:
            raise IllegalActionError(f"{self.name}: the game is over; no action can be applied")
        action = action_id(action, self.num_actions, f"{self.name}: the action")
        after = state.copy()
        if not self.apply_kernel(after.board, after.meta, action):
            raise self.illegal_move(state, action)
        return after

    def illegal_move(self, state: State, action: int) -> IllegalActionError:
        """The error for ``action`` (an id in range) that the rules refused in ``state``: the move in the game's
        notation, its id and the colour that tried it. Built from the position alone, so a caller whose kernel
        already refused the move (the envs' stepper) need not run the rules again to say so."""
        move = self.action_to_str(state, action)
        colour = self.colours[self.current_player(state)]
        return IllegalActionError(f"{self.name}: illegal move {move} (action {action}) for {colour}")

    def parse_raw_id(self, text: str) -> int:
        """Read ``#<id>`` (see :func:`raw_id_text`) back to the id; ``IllegalActionError`` if it is not one."""
        digits = text.strip()[1:]
        if not digits.isdigit() or not 0 <= int(digits) < self.num_actions:
            raise IllegalActionError(f"{self.name}: {text!r} is not an action id '#0'..'#{self.num_actions - 1}'")
        return int(digits)

    def player_of_colour(self, colour: str) -> int:
        """Seat of a colour name such as ``"red"``."""
        if isinstance(colour, str) and colour.strip().lower() in self.colours:
            return self.colours.index(colour.strip().lower())
        raise InvalidArgumentError(f"{colour!r} is not a colour of {self.name} ({' or '.join(self.colours)})")

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]] | None:
        """The position seen from the other side, for the contract suite's egocentricity check.

        Returns ``(twin, seats)``: seat ``s`` must see in ``state`` exactly what seat
        ``seats[s]`` sees in ``twin`` (and, when the twin's player to act is the image of this
        one, the legal masks agree). None (the default) when a game defines no twin.
        """
        return None

    @property
    def max_game_length(self) -> int | None:
        """The most actions a game from :meth:`initial_state` can take, or None when the game does not say.

        An upper bound that counts every action, those that are not plies too (hops in a
        sequence, re-placements, answers to a question of the rules). Libraries that size
        their buffers by it need it: OpenSpiel's ``max_game_length`` (its own tests check
        every game ends within it), so :mod:`crossenvs.integrations.openspiel` refuses a
        game that leaves it None.
        """
        return None

    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Symmetries of the egocentric encoding, for data augmentation in training.

        Each is ``(cells, actions)``: the transformed observation takes cell ``i``'s planes from
        cell ``cells[i]`` (cells are ``row * width + col``), and the transformed policy takes
        action ``a``'s probability from action ``actions[a]``; the value is unchanged. Only the
        identity unless a game knows better.
        """
        return [(np.arange(self.height * self.width), np.arange(self.num_actions))]

    # ----------------------------------------------------------------- position text
    def to_text(self, state: State) -> str:
        """Position text (docs/README.md) that :meth:`from_text` reads back to an equal state."""
        self.check_state(state)
        headers = [("to_move", self.colours[int(state.meta[st.TO_MOVE])]), ("ply", str(int(state.meta[st.PLY])))]
        if state.meta[st.PASSES]:
            headers.append(("passes", str(int(state.meta[st.PASSES]))))
        headers += self._extra_headers(state)
        return format_position_text(headers, self.text_rows(state))

    def text_rows(self, state: State) -> list[list[str]]:
        """The board as cell letters, ``rows[0]`` being rank 1 (position text and ansi rendering)."""
        return [[self.cell_text(r, c, int(code)) for c, code in enumerate(row)] for r, row in enumerate(state.board)]

    def cell_text(self, row: int, col: int, code: int) -> str:
        """The letter written for a cell; a game may mark empty cells by their kind (Crosse's ring)."""
        return self.cell_letters[code]

    def from_text(self, text: str) -> State:
        """Read position text; ``PositionTextError`` naming the line if it is malformed.

        Any input at all either reads to a state every kernel can run on or raises that error (a
        non-``str`` too): numbers are bounded before they reach the int32 meta, and each game
        checks that its headers fit the board (``tests/test_position_fuzz.py`` holds it to that).
        """
        parsed = parse_position_text(
            text,
            height=self.height,
            width=self.width,
            cell_letters="".join(self._text_letter_codes()),
            header_keys=self.BASE_HEADER_KEYS + self.EXTRA_HEADER_KEYS,
        )
        if "to_move" not in parsed.headers:
            raise PositionTextError(
                f"header 'to_move' is missing: give the side to move ({' or '.join(self.colours)}); "
                "it is never inferred from the pieces"
            )
        state = self.initial_state()
        letter_codes = self._text_letter_codes()
        state.board[:] = 0
        for row, cells in enumerate(parsed.cells):
            for col, letter in enumerate(cells):
                state.board[row, col] = letter_codes[letter] if letter is not None else 0
        state.meta[st.TO_MOVE] = self._read_to_move(parsed)
        state.meta[st.PLY] = self._read_ply(parsed)
        state.meta[st.STATUS] = st.STATUS_PLAYING
        state.meta[st.PASSES] = self._read_passes(parsed)
        self._finish_loaded_state(state, parsed)
        return state

    def _read_to_move(self, parsed: ParsedPosition) -> int:
        """The seat named by the ``to_move`` header (a colour, any case)."""
        value = parsed.headers["to_move"]
        if value.strip().lower() not in self.colours:
            raise parsed.error(
                "to_move", f"{shorten(value)} is not a colour of {self.name} ({' or '.join(self.colours)})"
            )
        return self.player_of_colour(value)

    def _read_ply(self, parsed: ParsedPosition) -> int:
        """The ``ply`` header, at most ``MAX_PLY`` (:mod:`crossenvs.kernels.state` says why)."""
        why = ", the most plies a position may have played (so that no game can overflow the ply counter)"
        return parse_int_header(parsed, "ply", 0, 0, st.MAX_PLY, why)

    def _read_passes(self, parsed: ParsedPosition) -> int:
        """The ``passes`` header: consecutive passes, at most :attr:`MAX_PASSES` (none without a pass)."""
        if self.MAX_PASSES == 0 and "passes" in parsed.headers:
            raise parsed.error(
                "passes", f"{self.name} has no pass, so there are no passes to count; leave the header out"
            )
        why = ": passes counts consecutive passes, and two in a row end the game"
        return parse_int_header(parsed, "passes", 0, 0, self.MAX_PASSES, why)

    def _text_letter_codes(self) -> dict[str, int]:
        """Letter -> cell code accepted when reading text (a game may add aliases)."""
        return {letter: code for code, letter in self.cell_letters.items()}

    def _extra_headers(self, state: State) -> list[tuple[str, str]]:
        """Header lines for the game's own state slots (written only where they matter)."""
        return []

    # ----------------------------------------------------------------- rendering
    @cached_property
    def view(self) -> GameView:
        """The game's :class:`~crossenvs.core.view.GameView` (its ``view_class``), for rendering."""
        return self.view_class(self)

    def render_ansi(
        self, state: State, last_move: Sequence[Cell] = (), *, legend: bool = False, colour: bool = False
    ) -> str:
        """The board as text with a status line, for terminals.

        ``last_move``: cells to bracket, ``[R]`` (from :meth:`action_cells` of the move just
        played, computed on the state before it). ``legend``: the :meth:`legend` beside the
        board. ``colour``: also show the marked cells in reverse video (only for a real
        terminal: without it the text stays plain, as files and tests want it).
        """
        self.check_state(state)
        return self.view.render_ansi(state, last_move, legend=legend, colour=colour)

    def render_rgb(self, state: State, cell_pixels: int = 48, last_move: Sequence[Cell] = ()) -> np.ndarray:
        """The board as an RGB image (H, W, 3) uint8, drawn with Pillow; ``last_move`` cells are outlined.

        ``cell_pixels`` is the side of a cell, from :data:`MIN_CELL_PIXELS` to :data:`MAX_CELL_PIXELS`
        (checked before the image is allocated).
        """
        self.check_state(state)
        if isinstance(cell_pixels, bool) or not isinstance(cell_pixels, (int, np.integer)):
            raise InvalidArgumentError(
                f"{self.name}: cell_pixels must be a whole number of pixels, got {cell_pixels!r}"
            )
        if not MIN_CELL_PIXELS <= cell_pixels <= MAX_CELL_PIXELS:
            raise InvalidArgumentError(
                f"{self.name}: cell_pixels must be from {MIN_CELL_PIXELS} to {MAX_CELL_PIXELS}, got {cell_pixels}"
            )
        return self.view.render_rgb(state, cell_pixels, last_move)

    def action_cells(self, state: State, action: int) -> list[Cell]:
        """The board cells ``(row, col)`` that ``action``, decided in ``state``, moves from and to.

        Asked of the state *before* the move, because ids are named in the mover's frame and a
        group's extent is read from the board. The default reads the squares its notation names
        (every game names real squares): the first and the last, so ``c2-c4-c6`` marks c2 and
        c6, ``3F:f4-i5`` f4 and i5, ``@a4`` a4, and ``pass`` nothing. Override where a move's
        cells are not in its notation.
        """
        self.check_state(state)
        squares = squares_named(self.action_to_str(state, int(action)), self.height, self.width)
        return list(dict.fromkeys(squares[:1] + squares[-1:]))

    # ----------------------------------------------------------------- how a game ended
    def end_reason(self, state: State) -> str:
        """Why the game ended, one line: ``White wins: Black has no legal move``; '' while it goes on."""
        self.check_state(state)
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_PLAYING:
            return ""
        if status == st.STATUS_DRAW:
            result = "Draw"
        else:
            result = f"{self.colours[0 if status == st.STATUS_WIN_0 else 1].capitalize()} wins"
        cause = self.end_cause(state)
        return f"{result}: {cause}" if cause else result

    def end_cause(self, state: State) -> str:
        """The rule that ended a finished game, for :meth:`end_reason` (games say which; '' if unknown).

        The default knows the shared convention only: two passes in a row draw.
        """
        if int(state.meta[st.STATUS]) == st.STATUS_DRAW and passes_draw(state.meta):
            return "two passes in a row"
        return ""

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"
