"""A game between a person and players, as a model both faces share: the terminal and the browser.

:class:`GameInProgress` holds the one game (position, record, the last turn's cells); the move
readers turn what a person typed into a legal action or one clear error (the game's notation
first, then a shorthand of bare squares); :func:`end_line` words the end of a game for the
person. ``crossenvs.play.terminal`` (terminal) and :mod:`crossenvs.web` (browser) are views of it.
(A match of many games between players, for a score, is :func:`crossenvs.eval.arena.match`.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from crossenvs.kernels.state import State
from crossenvs.support.errors import CrossenvsError, IllegalActionError

from ..core.game import Game
from ..core.geometry import Cell, square_name, squares_named
from ..players import Player

HELP_HINT = "type 'help' for the legal moves"
_SQUARE_TEXT_RE = re.compile(r"[a-z][0-9]+")  # what shorthand_actions strips before checking the rest


@dataclass
class GameInProgress:
    """One game in progress: the position, the moves so far in notation, the last turn's cells, and
    the pieces the last action turned to the mover's side (Crisscross's flips; see ``GameView.turned_cells``)."""

    game: Game
    state: State
    record: list[str] = field(default_factory=list)
    last_move: list[Cell] = field(default_factory=list)
    last_mover: int = -1
    turned: list[Cell] = field(default_factory=list)

    def play(self, action: int) -> str:
        """Apply ``action``; returns its notation. The cells are read before the move (ids are the mover's)."""
        game, mover = self.game, self.game.current_player(self.state)
        notation = game.action_to_str(self.state, action)
        cells = game.action_cells(self.state, action)
        # A turn of several decisions (hops, a re-placement then a move) stays marked as a whole.
        self.last_move = list(dict.fromkeys([*self.last_move, *cells])) if mover == self.last_mover else cells
        self.last_mover = mover
        before, self.state = self.state, game.apply(self.state, action)
        self.turned = game.view.turned_cells(before, self.state)
        self.record.append(notation)
        return notation

    def turned_text(self) -> str:
        """What the last action turned, for a person: ``d3 e3 turn red`` ('' when it turned nothing)."""
        if not self.turned:
            return ""
        row, col = self.turned[0]
        colour = self.game.owner_colour[int(self.state.board[row, col])]
        names = " ".join(square_name(row, col) for row, col in sorted(self.turned, key=lambda cell: cell[::-1]))
        return f"{names} {'turns' if len(self.turned) == 1 else 'turn'} {colour}"


def read_move(game: Game, state: State, text: str, help_hint: str = HELP_HINT) -> tuple[int, bool]:
    """The legal action ``text`` names, and whether it was a shorthand; ``IllegalActionError`` saying why not.

    The game's own notation comes first; only text it refuses is tried as a shorthand
    (:func:`shorthand_actions`), played when it fits one legal move.
    ``help_hint`` ends an error that has no legal moves to name (the browser has no 'help').
    """
    try:
        action = game.str_to_action(state, text)
    except (CrossenvsError, ValueError) as exc:
        return read_shorthand(game, state, text, exc, help_hint), True
    if not 0 <= action < game.num_actions or not game.legal_mask(state)[action]:
        raise IllegalActionError(
            f"{game.action_to_str(state, action)} is not legal now; {legal_hint(game, state, text, help_hint)}"
        )
    return action, False


def read_shorthand(game: Game, state: State, text: str, refusal: Exception, help_hint: str = HELP_HINT) -> int:
    """The one legal action a shorthand fits; else the notation's own refusal, or the alternatives."""
    actions = shorthand_actions(game, state, text)
    if len(actions) == 1:
        return actions[0]
    if actions:
        choices = " or ".join(game.action_to_str(state, action) for action in actions)
        raise IllegalActionError(f"{text!r} fits {choices}: type one of them")
    if not isinstance(refusal, IllegalActionError):  # a game's stray ValueError, worded as ours
        refusal = IllegalActionError(f"{game.name}: cannot read move {text!r}: {refusal}")
    raise IllegalActionError(f"{refusal}; {legal_hint(game, state, text, help_hint)}")


def legal_hint(game: Game, state: State, text: str, help_hint: str = HELP_HINT) -> str:
    """Why not, where it can be said: a placement on a taken square, what a move looks like in a game of
    placements (it has no from-square), else the legal moves from the square the text starts with,
    else a pointer to 'help'."""
    named = squares_named(text, game.height, game.width)
    placing = bool(named) and _places_pieces(game, state)
    if placing and len(named) == 1 and state.board[named[0]] != 0:
        row, col = named[0]
        letter = game.cell_letters.get(int(state.board[row, col]), "?")
        return f"{text.strip()} is taken ({letter}); place on an empty square ({help_hint})"
    if placing:
        free = [square_name(*cell) for cell in named if state.board[cell] == 0] or legal_notations(game, state)
        return f"a move places one piece: type one empty square, such as {free[0]} ({help_hint})"
    if named:
        same_start = [
            n for n in legal_notations(game, state) if squares_named(n, game.height, game.width)[:1] == named[:1]
        ]
        if same_start:
            return f"legal moves from that square: {' '.join(same_start)}"
    return help_hint


def _places_pieces(game: Game, state: State) -> bool:
    """Whether the legal actions now are placements (one cell each), as in Crisscross."""
    legal = game.legal_actions(state)
    return legal.size > 0 and all(len(game.action_cells(state, int(a))) == 1 for a in legal[:8])


def legal_notations(game: Game, state: State) -> list[str]:
    return [game.action_to_str(state, int(action)) for action in game.legal_actions(state)]


def shorthand_actions(game: Game, state: State, text: str) -> list[int]:
    """The legal actions a bare list of squares may stand for, e.g. Crosse's ``f4-i5`` for ``3F:f4-i5``.

    For input that :meth:`~crossenvs.core.game.Game.str_to_action` refuses: text made of square
    names joined by ``-``, ``x`` or spaces matches each legal action whose notation names the
    same squares, so a player may leave out what only one move fits (one match is played, several
    are listed). Anything else in the text matches nothing, so a typo such as ``4F:f4-i5`` is
    never read as some other move.
    """
    squares = squares_named(text, game.height, game.width)
    if not squares or _SQUARE_TEXT_RE.sub("", text.lower()).strip(" -x"):
        return []
    return [
        int(action)
        for action in game.legal_actions(state)
        if squares_named(game.action_to_str(state, int(action)), game.height, game.width) == squares
    ]


def verdict(game: Game, state: State, human: int) -> str:
    """``win``, ``loss`` or ``draw`` for seat ``human`` of a finished game ('' while it goes on)."""
    outcome = game.outcome(state)
    if outcome is None:
        return ""
    return "draw" if outcome[human] == 0 else ("win" if outcome[human] > 0 else "loss")


def end_line(game: Game, state: State, human: int) -> str:
    """``Game over: Red wins: Red joined the top and bottom edges. You win.`` ('' while the game goes on).

    One wording for the terminal and the browser (:mod:`crossenvs.web`): the game's own end reason,
    then what it means for the person playing seat ``human``.
    """
    result = verdict(game, state, human)
    if not result:
        return ""
    words = {"win": "You win", "loss": "You lose", "draw": "A draw"}[result]
    return f"Game over: {game.end_reason(state)}. {words}."


def play_frames(game: Game, players: list[Player]) -> list[np.ndarray]:
    """One game between two players (seat order) as ``render_rgb`` frames, each outlining the move that made it."""
    state = game.initial_state()
    frames = [game.render_rgb(state)]
    while not game.is_terminal(state):
        action = players[game.current_player(state)].act(game, state)
        cells = game.action_cells(state, action)
        state = game.apply(state, action)
        frames.append(game.render_rgb(state, last_move=cells))
    return frames
