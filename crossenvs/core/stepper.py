"""The fast single-game path: one game played in place, its next decision ready after each move.

:meth:`Game.apply` returns a new :class:`State` and checks its input thoroughly, and the mask and
the observation are further calls: right for analysis, slow for an RL loop, where each numba
call from Python costs about a microsecond. A :class:`Stepper` owns one game's arrays and
buffers, and each :meth:`Stepper.step` is a single numba call (:mod:`crossenvs.kernels.fused`) that
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

from collections.abc import Callable
from functools import partial
from typing import Protocol

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.numba_internals import compiled_entry
from crossenvs.kernels.specialize import specialize
from crossenvs.kernels.state import State
from crossenvs.support.actions import action_id
from crossenvs.support.errors import IllegalActionError, InvalidStateError


class SteppableGame(Protocol):
    """What a :class:`Stepper` reads of its game (a :class:`~crossenvs.core.game.Game` has all of it)."""

    name: str
    num_actions: int
    observation_shape: tuple[int, int, int]

    def initial_state(self) -> State: ...

    def outcome(self, state: State) -> tuple[float, float] | None: ...


def bind_buffers(kernel: Callable[..., int], *buffers: np.ndarray) -> Callable[[int], int]:
    """``kernel`` with ``buffers`` bound as its leading arguments: ``call(action)``.

    Numba's dispatcher works out the types of all six arguments on every call, a third of a
    microsecond, as much as a small game's whole move. The buffers never change, so they are
    typed once: the call goes straight to the machine code compiled for them (its
    ``entry_point``), which still converts the arrays but skips the type search. Safe only because the caller never rebinds the buffers and passes a
    checked Python int. Without numba (``NUMBA_DISABLE_JIT=1``) the plain function is bound.
    """
    kernel(*buffers, -1)  # compiles, or loads from the cache, the version for these types
    return partial(compiled_entry(kernel, *buffers, -1), *buffers)


class Stepper:
    """One game of ``game``, played in place; its buffers are rewritten by every step.

    ``mask`` (int8, ``num_actions``), ``ids[:num_legal]`` (the legal ids, ascending; also
    :attr:`legal_actions`) and ``observation`` (float32, the view of :attr:`to_move`) describe
    the decision now due; they are live buffers: copy what you keep. The game is over exactly
    when ``num_legal`` is 0: the contract suite holds every game to having a legal move while it
    goes on (a player who cannot move has ``pass``). ``board`` and ``meta`` are the position,
    also rewritten in place (:meth:`state` copies them).
    """

    def __init__(self, game: SteppableGame, state: State | None = None) -> None:
        self.game = game
        self._num_actions = game.num_actions
        self._initial = game.initial_state()  # reset copies it: building a start (Crosse's) costs more
        self.board = np.empty_like(self._initial.board, order="C")  # C order: kernels read whole words
        self.meta = np.empty_like(self._initial.meta, order="C")
        self.mask = np.zeros(game.num_actions, dtype=np.int8)
        #: the legal ids of the decision now due are ``ids[:num_legal]`` (a fixed buffer: index it
        #: directly in a hot loop; :attr:`legal_actions` slices it for you)
        self.ids = np.zeros(game.num_actions, dtype=np.int64)
        self.observation = np.zeros(game.observation_shape, dtype=np.float32)
        self.num_legal = 0  # 0 exactly when the game is over (a game in play always has a move)
        kernel = specialize("crossenvs.kernels.fused", type(game)).step
        self._load(self._initial)
        self._step = bind_buffers(kernel, self.board, self.meta, self.mask, self.ids, self.observation)
        self.reset(state)

    def _load(self, state: State) -> None:
        """Copy ``state`` into the stepper's own arrays (the bound kernel keeps reading those)."""
        if state.board.shape != self.board.shape or state.meta.shape != self.meta.shape:
            raise InvalidStateError(
                f"{self.game.name}: a state with a board of shape {state.board.shape} and meta of shape "
                f"{state.meta.shape} is not a position of this game, whose are {self.board.shape} and "
                f"{self.meta.shape} (make the stepper with the options the state was made with)"
            )
        self.board[...] = state.board
        self.meta[...] = state.meta

    def reset(self, state: State | None = None) -> None:
        """Start again from ``state`` (copied) or the initial position."""
        self._load(self._initial if state is None else state)
        self.num_legal = self._step(-1)

    def step(self, action: int) -> bool:
        """Play ``action`` for :attr:`to_move`; False (and nothing changes) if the rules forbid it.

        A value that is no action id raises :class:`~crossenvs.support.errors.InvalidActionError`; a
        finished game raises :class:`~crossenvs.support.errors.IllegalActionError`.
        """
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = action_id(action, self._num_actions, f"{self.game.name}: the action")
        # step_id's three lines, not a call to it: a Python call is 5% of a Crossings move through this loop
        legal = self._step(action) if self.num_legal else self._game_over()
        if legal >= 0:
            self.num_legal = legal
        return legal >= 0

    def step_id(self, action: int) -> bool:
        """:meth:`step` for an action id its caller has checked already (an ``int`` in ``0..num_actions-1``, as
        ``crossenvs.support.actions.action_id`` returns): the envs check an action once, at their own
        ``step``, and come here. An unchecked value would index the kernel's tables out of range."""
        legal = self._step(action) if self.num_legal else self._game_over()
        if legal >= 0:
            self.num_legal = legal
        return legal >= 0

    def _game_over(self) -> int:
        """A move asked of a finished game: refused (typed ``int`` so the step's one line reads as it runs)."""
        raise IllegalActionError(f"{self.game.name}: the game is over; no action can be applied")

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
