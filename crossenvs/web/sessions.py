"""Games in progress on the server: one :class:`Session` per game, kept in a bounded :class:`SessionStore`.

A session is a :class:`~crossenvs.play.game_in_progress.GameInProgress` (the terminal's game record and last-move marking)
plus what the browser adds: the person's seat, an opponent, and the positions before every action
for undo. Sessions share nothing: each has its own game, state, players and random streams, and
its id is 128 random bits, so a page cannot reach another's game by guessing.

The opponent searches outside the session's lock (states are values, so it reads a position no
one changes) with a ``thinking`` flag set: the page can read the state meanwhile, while a move or
an undo is refused with 409 until the reply is in.

A reply is cancelled once its game is closed (``DELETE``, dropped from the store) or its request
is gone (the client disconnected): the opponent is interrupted (:meth:`Player.interrupt
<crossenvs.players.Player.interrupt>`: MCTS, a compiled call without the GIL, polls a flag byte
between simulations, and the network search between its steps), the move of the search that
stops is thrown away, and no further search starts for that game.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError

from ..core.game import Cell, Game
from ..core.geometry import square_name
from ..core.view import status_line
from ..play.game_in_progress import GameInProgress, end_line, legal_notations, read_move, verdict
from ..players import Player
from .board import layout, legal_moves
from .errors import ServerFullError, TurnError, UnknownSessionError

#: games the server holds at once; when all are taken, a finished or long-untouched one makes room
MAX_SESSIONS = 64
#: a game untouched this long (seconds) is dropped
IDLE_SECONDS = 6 * 3600
#: a game untouched this long (seconds) counts as abandoned: it may make room for a new one when the server is full
STALE_SECONDS = 15 * 60
#: what ends an error about typed notation that names no square with legal moves (the terminal says 'help'):
#: the API's own way to them, since a program as well as the page reads the answer (the page's hint line
#: says what to click)
MOVES_HINT = "GET /api/games/{id}/moves lists the legal moves"


@dataclass(frozen=True)
class Snapshot:
    """What one action changed, to take it back: the position and the last-move marking before it."""

    state: State
    last_move: list[Cell]
    last_mover: int
    mover: int


class Session:
    """One game between the person (seat ``human``) and ``opponent``."""

    def __init__(self, game: Game, opponent: Player, human: int, state: State) -> None:
        self.id = secrets.token_urlsafe(16)
        self.game = game
        self.opponent = opponent
        self.human = human
        self.match = GameInProgress(game, state)
        self.history: list[Snapshot] = []
        self.thinking = False
        self.closed = False
        self.last_used = time.monotonic()
        self._lock = threading.Lock()
        self._layout = layout(game)
        self._all_tokens = game.view.move_tokens(game.initial_state())

    # ------------------------------------------------------------------ actions
    def move(self, action: int | None = None, text: str | None = None) -> None:
        """Play the person's action, given by id or in notation (Crosse shorthand too); 400/409 if it cannot be."""
        with self._lock:
            self._check_persons_turn()
            state = self.match.state
            if text is not None:
                action, _ = read_move(self.game, state, text, MOVES_HINT.format(id=self.id))
            elif action is None or not (0 <= action < self.game.num_actions and self.game.legal_mask(state)[action]):
                raise illegal_action(self.game, state, action)
            self._play(int(action))

    def reply(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """The opponent plays until it is the person's turn again or the game ends (several actions in a row:
        a Crosse jump sequence hop by hop, an extra turn, a Charing Cross re-placement).

        Stops between searches once the session is closed or ``cancelled()`` is true; the move of a search
        that ends after that is not played (see the module docstring)."""
        self.claim_reply()
        self.claimed_reply(cancelled)

    def claim_reply(self) -> None:
        """Mark the opponent thinking (409 if it is already), before its search is queued."""
        with self._lock:
            if self.thinking:
                raise TurnError(f"{self.opponent.name} is thinking already; wait for its move")
            self.thinking = True

    def claimed_reply(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """The searches of :meth:`reply`, after :meth:`claim_reply`; clears ``thinking`` however they end."""
        try:
            while True:
                with self._lock:
                    state = self.match.state
                    self.opponent.clear_interrupt()  # under the lock that close() takes: no interrupt is lost
                    if self.closed or cancelled():
                        return
                    if self.game.is_terminal(state) or self.game.current_player(state) == self.human:
                        return
                action = self.opponent.act(self.game, state)
                with self._lock:
                    if self.closed or cancelled():
                        return  # the game was closed, or its page left, while the opponent searched
                    self._play(int(action))
        finally:
            with self._lock:
                self.thinking = False
                self.last_used = time.monotonic()

    def close(self) -> None:
        """Forget the game: a search under way is stopped and not played, and no further one starts."""
        with self._lock:
            self.closed = True
            self.opponent.interrupt()

    def interrupt_reply(self) -> None:
        """The page that asked for the reply has gone: stop the search under way (the game stays open)."""
        with self._lock:
            if self.thinking:
                self.opponent.interrupt()

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.game.is_terminal(self.match.state)

    def undo(self) -> None:
        """Take back the person's last action and every opponent action after it; 409 if there is none."""
        with self._lock:
            if self.thinking:
                raise TurnError(f"{self.opponent.name} is thinking; undo once its move is in")
            if not any(snapshot.mover == self.human for snapshot in self.history):
                raise TurnError("nothing to undo: you have not moved yet in this game")
            while True:
                snapshot = self.history.pop()
                del self.match.record[-1]
                if snapshot.mover == self.human:
                    break
            self.match.state = snapshot.state
            self.match.last_move = list(snapshot.last_move)
            self.match.last_mover = snapshot.last_mover

    def _play(self, action: int) -> None:
        mover = self.game.current_player(self.match.state)
        match = self.match
        self.history.append(Snapshot(match.state, list(match.last_move), match.last_mover, mover))
        match.play(action)
        self.last_used = time.monotonic()

    def _check_persons_turn(self) -> None:
        if self.thinking:
            raise TurnError(f"{self.opponent.name} is thinking; wait for its move")
        if self.game.is_terminal(self.match.state):
            raise TurnError(f"the game is over ({self.game.end_reason(self.match.state)}); start a new one or undo")
        if self.game.current_player(self.match.state) != self.human:
            raise TurnError(f"it is {self.opponent.name}'s turn, not yours; ask it to reply first")

    # ------------------------------------------------------------------ what the page shows
    def describe(self) -> dict[str, Any]:
        """The whole state as the page needs it (docs: Evaluation, play in the browser)."""
        with self._lock:
            self.last_used = time.monotonic()
            game, state, human = self.game, self.match.state, self.human
            over = game.is_terminal(state)
            yours = not over and not self.thinking and game.current_player(state) == human
            record = [
                {"colour": game.colours[snapshot.mover], "notation": notation, "yours": snapshot.mover == human}
                for snapshot, notation in zip(self.history, self.match.record)
            ]
            return {
                "id": self.id,
                "game": game.name,
                "options": game.options,
                "colours": list(game.colours),
                "you": {"seat": human, "colour": game.colours[human]},
                "opponent": self.opponent.name,
                **self._layout,
                "board": state.board.tolist(),
                "to_move": game.colours[game.current_player(state)],
                "your_turn": yours,
                "thinking": self.thinking,
                "status": status_line(game.view, state),
                "tokens": self._tokens_now(state),
                "legal": legal_moves(game, state) if yours else {"moves": {}, "placements": [], "choices": []},
                "last_move": [square_name(row, col) for row, col in self.match.last_move],
                "record": record,
                "position": game.to_text(state),
                "can_undo": not self.thinking and any(s.mover == human for s in self.history),
                "over": over,
                "result": self._result(state) if over else None,
            }

    def _result(self, state: State) -> dict[str, str]:
        return {
            "outcome": verdict(self.game, state, self.human),
            "reason": self.game.end_reason(state),
            "line": end_line(self.game, state, self.human),
        }

    def _tokens_now(self, state: State) -> dict[str, Any] | None:
        """The view's move tokens (Crosse's), each colour's unused ones beside the full set; None in games without."""
        unused = self.game.view.move_tokens(state)
        if self._all_tokens is None or unused is None:
            return None
        return {colour: {"all": self._all_tokens[colour], "unused": unused[colour]} for colour in self.game.colours}


def illegal_action(game: Game, state: State, action: int | None) -> IllegalActionError:
    """The error for an action id that is not legal now, naming it and the legal moves."""
    if action is not None and 0 <= action < game.num_actions:
        named = f"{game.action_to_str(state, action)} (action {action}) is not legal now"
    else:
        named = f"action {action} is no action id of {game.name} (0..{game.num_actions - 1})"
    return IllegalActionError(f"{game.name}: {named}; legal moves: {' '.join(legal_notations(game, state))}")


class SessionStore:
    """The sessions of one server, at most ``limit``; idle ones expire after ``idle_seconds``.

    When all ``limit`` slots are taken, a new game takes the slot of a finished game, else of one
    untouched for ``stale_seconds`` (abandoned), the least recently used first; a game in
    progress is never dropped for another, and when every game is in progress a new one is refused
    (503, :class:`~crossenvs.web.errors.ServerFullError`)."""

    def __init__(
        self, limit: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS, stale_seconds: float = STALE_SECONDS
    ) -> None:
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.stale_seconds = stale_seconds
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def add(self, session: Session) -> Session:
        """Keep ``session``, dropping expired ones and, when full, a finished or abandoned one; 503 if none is."""
        with self._lock:
            now = time.monotonic()
            for key in [k for k, s in self._sessions.items() if now - s.last_used > self.idle_seconds]:
                self._sessions.pop(key).close()
            if len(self._sessions) >= self.limit:
                waiting = [s for s in self._sessions.values() if not s.thinking]
                finished = [s for s in waiting if s.over]
                stale = [s for s in waiting if now - s.last_used > self.stale_seconds]
                if not (finished or stale):
                    minutes = round(self.stale_seconds / 60)
                    raise ServerFullError(
                        f"all {self.limit} game slots on this server hold games in progress; finish or close one "
                        f"(a game untouched for {minutes} minutes makes room), or try again later"
                    )
                self._sessions.pop(min(finished or stale, key=lambda s: s.last_used).id).close()
            self._sessions[session.id] = session
            return session

    def get(self, session_id: str) -> Session:
        """The session ``session_id``; 404 if there is none (never made, expired or closed)."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None or (time.monotonic() - session.last_used > self.idle_seconds and not session.thinking):
                if session is not None:
                    self._sessions.pop(session_id).close()
                raise UnknownSessionError(f"no game {session_id[:40]!r} on this server (expired, or never made)")
            return session

    def remove(self, session_id: str) -> None:
        """Forget the session ``session_id``; 404 if there is none."""
        self.get(session_id)
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is not None:
            session.close()

    def __len__(self) -> int:
        return len(self._sessions)
