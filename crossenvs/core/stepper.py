"""The fast single-game path: one game played in place, its next decision ready after each move.

:meth:`Game.apply` returns a new :class:`State` and checks its input thoroughly, and the mask and
the observation are further calls: right for analysis, slow for an RL loop, where each numba
call from Python costs about a microsecond. A :class:`Stepper` owns one game's arrays and
buffers, and each :meth:`Stepper.step` is a single numba call (:mod:`crossenvs.core.fused`) that
applies the move and writes the next decision's legal mask, legal ids and observation (of the
player to decide) into those buffers.

>>> import crossenvs
>>> game = crossenvs.make_game("crisscross", size=4)
>>> stepper = game.stepper()
>>> while stepper.num_legal:  # 0 once the game is over
...     played = stepper.step(int(stepper.ids[0]))  # the next observation is in stepper.observation
>>> stepper.outcome in {(1.0, -1.0), (-1.0, 1.0)}
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import state as st
from .actions import action_id
from .errors import IllegalActionError
from .specialize import specialize
from .state import State

if TYPE_CHECKING:
    from .game import Game


class Stepper:
    """One game of ``game``, played in place; its buffers are rewritten by every step.

    ``mask`` (int8, ``num_actions``), ``ids[:num_legal]`` (the legal ids, ascending; also
    :attr:`legal_actions`) and ``observation`` (float32, the view of :attr:`to_move`) describe
    the decision now due; they are live buffers: copy what you keep. The game is over exactly
    when ``num_legal`` is 0: the contract suite holds every game to having a legal move while it
    goes on (a player who cannot move has ``pass``).
    """

    def __init__(self, game: Game, state: State | None = None) -> None:
        self.game = game
        self._step = specialize("crossenvs.core.fused", type(game)).step
        self._num_actions = game.num_actions
        self.mask = np.zeros(game.num_actions, dtype=np.int8)
        #: the legal ids of the decision now due are ``ids[:num_legal]`` (a fixed buffer: index it
        #: directly in a hot loop; :attr:`legal_actions` slices it for you)
        self.ids = np.zeros(game.num_actions, dtype=np.int64)
        self.observation = np.zeros(game.observation_shape, dtype=np.float32)
        self.num_legal = 0  # 0 exactly when the game is over (a game in play always has a move)
        self.reset(state)

    def reset(self, state: State | None = None) -> None:
        """Start again from ``state`` (copied) or the initial position."""
        state = self.game.initial_state() if state is None else state
        self.board, self.meta = state.board.copy(), state.meta.copy()
        self.num_legal = self._step(self.board, self.meta, -1, self.mask, self.ids, self.observation)

    def step(self, action: int) -> bool:
        """Play ``action`` for :attr:`to_move`; False (and nothing changes) if the rules forbid it.

        A value that is no action id raises :class:`~crossenvs.core.errors.InvalidActionError`; a
        finished game raises :class:`~crossenvs.core.errors.IllegalActionError`.
        """
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = action_id(action, self._num_actions, f"{self.game.name}: the action")
        if not self.num_legal:
            raise IllegalActionError(f"{self.game.name}: the game is over; no action can be applied")
        legal = self._step(self.board, self.meta, action, self.mask, self.ids, self.observation)
        if legal < 0:
            return False
        self.num_legal = legal
        return True

    @property
    def legal_actions(self) -> np.ndarray:
        """The legal ids of the decision now due, ascending (a view of a live buffer)."""
        return self.ids[: self.num_legal]

    @property
    def is_terminal(self) -> bool:
        return not self.num_legal

    @property
    def to_move(self) -> int:
        """The seat that decides now (whose view :attr:`observation` is)."""
        return int(self.meta[st.TO_MOVE])

    @property
    def outcome(self) -> tuple[float, float] | None:
        """Rewards of both seats once the game is over, else None."""
        return self.game.outcome(self.state()) if self.is_terminal else None

    def state(self) -> State:
        """The position as a :class:`State` (a copy)."""
        return State(self.board.copy(), self.meta.copy())
