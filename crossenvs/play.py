"""Terminal play (``crossenvs play``): a person against any :class:`~crossenvs.players.Player`.

The person types moves in the game's notation, one line per decision; the board is printed with
the game's legend beside it and the last turn's cells bracketed. Every line of input is either
played or answered with a message and a new prompt, so play never ends in a traceback: bad
notation, an illegal move, or a shorthand that fits several moves (Crosse's ``f4-i5`` without its
token) are explained. Ctrl-C and the end of input leave the game record and the position text
behind, so an abandoned game can be looked at or set up again with ``from_text``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

import numpy as np

from .core.errors import CrossenvsError, IllegalActionError
from .core.game import Cell, Game
from .core.geometry import squares_named
from .core.state import State
from .players import Player

INTERRUPTED = 130  # the exit status of a program stopped by Ctrl-C (128 + SIGINT)
CLEAR_LINE = "\r\x1b[K"  # back to the start of the terminal line, erasing it
WORDS = {"quit": "quit", "exit": "quit", "help": "help", "?": "help", "": "help"}
HELP_HINT = "type 'help' for the legal moves"
WAIT_SLICE = 0.05  # seconds between looks at a thinking opponent: how soon Ctrl-C is noticed
T = TypeVar("T")


@dataclass
class Match:
    """One game in progress: the position, the moves so far in notation, the last turn's cells."""

    game: Game
    state: State
    record: list[str] = field(default_factory=list)
    last_move: list[Cell] = field(default_factory=list)
    last_mover: int = -1

    def play(self, action: int) -> str:
        """Apply ``action``; returns its notation. The cells are read before the move (ids are the mover's)."""
        game, mover = self.game, self.game.current_player(self.state)
        notation = game.action_to_str(self.state, action)
        cells = game.action_cells(self.state, action)
        # A turn of several decisions (hops, a re-placement then a move) stays marked as a whole.
        self.last_move = list(dict.fromkeys([*self.last_move, *cells])) if mover == self.last_mover else cells
        self.last_mover = mover
        self.state = game.apply(self.state, action)
        self.record.append(notation)
        return notation


def play(game: Game, opponent: Player, human: int, out: TextIO, source: TextIO) -> int:
    """Play to the end; the exit status: 0, or 130 after Ctrl-C."""
    match = Match(game, game.initial_state())
    out.write(
        f"You play {game.colours[human]} against {opponent.name}. "
        "Type a move, 'help' for the legal moves, 'quit' to stop.\n"
    )
    try:
        while not game.is_terminal(match.state):
            if game.current_player(match.state) != human:
                opponent_turn(match, opponent, out)
            elif not human_turn(match, out, source):
                out.write("bye\n")
                return 0
    except KeyboardInterrupt:
        abandon(match, out, "interrupted")
        return INTERRUPTED
    except EOFError:
        abandon(match, out, "end of input")
        return 0
    finish(match, human, out)
    return 0


def opponent_turn(match: Match, opponent: Player, out: TextIO) -> None:
    """Say that the opponent searches (a search can take seconds), then what it played."""
    show_board(match, out)
    out.write(f"{opponent.name} is thinking...")
    out.flush()
    action = interruptible(opponent.act, match.game, match.state)
    out.write(CLEAR_LINE if is_tty(out) else "\n")
    out.write(f"{opponent.name} plays {match.play(action)}\n")


def interruptible(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread while this thread waits in short slices.

    Python delivers Ctrl-C to the main thread only between bytecodes: during one long numba
    search (MCTS-5000 thinks for seconds) it would wait for the search to end. Waiting here
    instead, Ctrl-C ends the game at once; the abandoned search finishes in its daemon thread.
    Whatever the function raises is raised here.
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # handed to the waiting thread as it is
            outcome["error"] = error

    worker = threading.Thread(target=work, name="crossenvs-opponent", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(WAIT_SLICE)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def human_turn(match: Match, out: TextIO, source: TextIO) -> bool:
    """Show the board and read lines until one is a legal move (played: True) or 'quit' (False)."""
    show_board(match, out)
    while True:
        out.write("your move> ")
        out.flush()
        line = source.readline()
        if not line:
            raise EOFError
        text = line.strip()
        word = WORDS.get(text.lower())
        if word == "quit":
            return False
        if word == "help":
            out.write(f"legal moves: {' '.join(legal_notations(match.game, match.state))}\n")
            continue
        try:
            action, shorthand = read_move(match.game, match.state, text)
        except CrossenvsError as exc:
            out.write(f"{exc}\n")
            continue
        notation = match.play(action)
        if shorthand:
            out.write(f"(read as {notation})\n")
        return True


def read_move(game: Game, state: State, text: str, help_hint: str = HELP_HINT) -> tuple[int, bool]:
    """The legal action ``text`` names, and whether it was a shorthand; ``IllegalActionError`` saying why not.

    The game's own notation comes first; only text it refuses is tried as a shorthand
    (:meth:`~crossenvs.core.game.Game.shorthand_actions`), played when it fits one legal move.
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
    actions = game.shorthand_actions(state, text)
    if len(actions) == 1:
        return actions[0]
    if actions:
        choices = " or ".join(game.action_to_str(state, action) for action in actions)
        raise IllegalActionError(f"{text!r} fits {choices}: type one of them")
    if not isinstance(refusal, IllegalActionError):  # a game's stray ValueError, worded as ours
        refusal = IllegalActionError(f"{game.name}: cannot read move {text!r}: {refusal}")
    raise IllegalActionError(f"{refusal}; {legal_hint(game, state, text, help_hint)}")


def legal_hint(game: Game, state: State, text: str, help_hint: str = HELP_HINT) -> str:
    """The legal moves from the square the text starts with, else a pointer to 'help'."""
    named = squares_named(text, game.height, game.width)
    if named:
        same_start = [
            n for n in legal_notations(game, state) if squares_named(n, game.height, game.width)[:1] == named[:1]
        ]
        if same_start:
            return f"legal moves from that square: {' '.join(same_start)}"
    return help_hint


def legal_notations(game: Game, state: State) -> list[str]:
    return [game.action_to_str(state, int(action)) for action in game.legal_actions(state)]


def show_board(match: Match, out: TextIO) -> None:
    text = match.game.render_ansi(match.state, match.last_move, legend=True, colour=is_tty(out))
    out.write(text)


def finish(match: Match, human: int, out: TextIO) -> None:
    """The final board, why the game ended, and what that means for the person."""
    show_board(match, out)
    out.write(f"{end_line(match.game, match.state, human)}\n")
    out.write(f"moves: {' '.join(match.record)}\n")


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


def abandon(match: Match, out: TextIO, why: str) -> None:
    """One line that says so, with the record, then the position text (nothing is lost)."""
    moves = " ".join(match.record) or "none"
    out.write(f"\ngame abandoned ({why}) at ply {match.state.ply}; moves: {moves}; position:\n")
    out.write(match.game.to_text(match.state))


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


def is_tty(out: TextIO) -> bool:
    """A real terminal gets colours and in-place updates; files and pipes get plain lines."""
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())
