"""Terminal play (``crossenvs play``): a person against any :class:`~crossenvs.players.Player`.

The person types moves in the game's notation, one line per decision; the board is printed with
the game's legend beside it and the last turn's cells bracketed. Every line of input is either
played or answered with a message and a new prompt, so play never ends in a traceback: bad
notation, an illegal move, or a shorthand that fits several moves (Crosse's ``f4-i5`` without its
token) are explained. A move that turns pieces (Crisscross's flips) says which. Ctrl-C and the end of input leave the game record and the position text
behind, so an abandoned game can be looked at or set up again with ``from_text``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

from crossenvs.support.errors import CrossenvsError

from ..core.game import Game
from ..players import Player
from .game_in_progress import GameInProgress, end_line, legal_notations, read_move

INTERRUPTED = 130  # the exit status of a program stopped by Ctrl-C (128 + SIGINT)
CLEAR_LINE = "\r\x1b[K"  # back to the start of the terminal line, erasing it
WORDS = {"quit": "quit", "exit": "quit", "help": "help", "?": "help", "": "help"}
WAIT_SLICE = 0.05  # seconds between looks at a thinking opponent: how soon Ctrl-C is noticed
T = TypeVar("T")


def play(game: Game, opponent: Player, human: int, out: TextIO, source: TextIO) -> int:
    """Play to the end; the exit status: 0, or 130 after Ctrl-C."""
    ongoing = GameInProgress(game, game.initial_state())
    out.write(
        f"You play {game.colours[human]} against {opponent.name}. "
        "Type a move, 'help' for the legal moves, 'quit' to stop.\n"
    )
    try:
        while not game.is_terminal(ongoing.state):
            if game.current_player(ongoing.state) != human:
                opponent_turn(ongoing, opponent, out)
            elif not human_turn(ongoing, out, source):
                out.write("bye\n")
                return 0
    except KeyboardInterrupt:
        abandon(ongoing, out, "interrupted")
        return INTERRUPTED
    except EOFError:
        abandon(ongoing, out, "end of input")
        return 0
    finish(ongoing, human, out)
    return 0


def opponent_turn(ongoing: GameInProgress, opponent: Player, out: TextIO) -> None:
    """Say that the opponent searches (a search can take seconds), then what it played."""
    show_board(ongoing, out)
    if opponent.deliberates:
        out.write(f"{opponent.name} is thinking...")
        out.flush()
    action = interruptible(opponent.act, ongoing.game, ongoing.state)
    if opponent.deliberates:
        out.write(CLEAR_LINE if is_tty(out) else "\n")
    notation = ongoing.play(action)
    turned = ongoing.turned_text()
    out.write(f"{opponent.name} plays {notation}{': ' + turned if turned else ''}\n")


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


def human_turn(ongoing: GameInProgress, out: TextIO, source: TextIO) -> bool:
    """Show the board and read lines until one is a legal move (played: True) or 'quit' (False)."""
    show_board(ongoing, out)
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
            out.write(f"legal moves: {' '.join(legal_notations(ongoing.game, ongoing.state))}\n")
            continue
        try:
            action, shorthand = read_move(ongoing.game, ongoing.state, text)
        except CrossenvsError as exc:
            out.write(f"{exc}\n")
            continue
        notation = ongoing.play(action)
        if shorthand:
            out.write(f"(read as {notation})\n")
        if ongoing.turned:
            out.write(f"you play {notation}: {ongoing.turned_text()}\n")
        return True


def show_board(ongoing: GameInProgress, out: TextIO) -> None:
    text = ongoing.game.render_ansi(ongoing.state, ongoing.last_move, legend=True, colour=is_tty(out))
    out.write(text)


def finish(ongoing: GameInProgress, human: int, out: TextIO) -> None:
    """The final board, why the game ended, and what that means for the person."""
    show_board(ongoing, out)
    out.write(f"{end_line(ongoing.game, ongoing.state, human)}\n")
    out.write(f"moves: {' '.join(ongoing.record)}\n")


def abandon(ongoing: GameInProgress, out: TextIO, why: str) -> None:
    """One line that says so, with the record, then the position text (nothing is lost)."""
    moves = " ".join(ongoing.record) or "none"
    out.write(f"\ngame abandoned ({why}) at ply {ongoing.state.ply}; moves: {moves}; position:\n")
    out.write(ongoing.game.to_text(ongoing.state))


def is_tty(out: TextIO) -> bool:
    """A real terminal gets colours and in-place updates; files and pipes get plain lines."""
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())
