"""The PettingZoo AEC environment over any game.

``make_raw_env`` gives the bare env, which raises :class:`IllegalActionError` on an illegal
action. ``make_env`` adds what PettingZoo classic's standard wrappers add: an illegal action
ends the game with -1 for the mover, an out-of-range action raises, and the call order is
enforced (fused into one layer for speed, see :mod:`crossenvs.envs.wrappers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from crossenvs.kernels.state import State
from crossenvs.support.actions import action_id
from crossenvs.support.checks import check_seed
from crossenvs.support.errors import InvalidOptionError

from ..core.game import Cell, Game
from ..core.registry import make_game
from .window import BoardWindow, import_pygame
from .wrappers import StandardRulesWrapper

RENDER_MODES = ["human", "ansi", "rgb_array"]


class SteppedGame:
    """One game of an env, played through the single-game stepper (:class:`~crossenvs.core.stepper.Stepper`):
    one numba call a move writes the next mask and observation.

    What an env reads of it (the position, the seat to move, observations, the mask, the outcome) is what
    :class:`~crossenvs.core.game.Game`'s own calls give, and a move the rules refuse raises the error
    :meth:`Game.apply <crossenvs.core.game.Game.apply>` raises for it.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.stepper = game.stepper()

    @property
    def state(self) -> State:
        """The position (a copy); setting it restarts the stepper there."""
        return self.stepper.state()

    @state.setter
    def state(self, state: State) -> None:
        self.game.check_state(state)
        self.stepper.reset(state)

    def play(self, action: int) -> None:
        """``action``, an id the env's ``step`` has checked (``crossenvs.support.actions.action_id``), for the
        seat to move: one stepper call. A move the rules refuse raises :meth:`Game.illegal_move
        <crossenvs.core.game.Game.illegal_move>`'s error, made from the position the stepper kept (the rules
        are not run a second time to word it); a finished game raises the stepper's."""
        if not self.stepper.step_id(action):
            raise self.game.illegal_move(self.stepper.state(), action)

    @property
    def to_move(self) -> int:
        return self.stepper.to_move

    @property
    def over(self) -> bool:
        return not self.stepper.num_legal

    def outcome(self) -> tuple[float, float] | None:
        return self.stepper.outcome

    def observe(self, seat: int) -> np.ndarray:
        """``seat``'s observation (a fresh array): the stepper's where ``seat`` is to move, else the game's."""
        if seat == self.stepper.to_move:
            return self.stepper.observation.copy()
        return self.game.observe(self.stepper.state(), seat)

    def mask(self) -> np.ndarray:
        """The legal mask of the seat to move (a fresh int8 array; zeros once the game is over)."""
        return self.stepper.mask.copy()


class SteppedEnv:
    """An env whose game is a :class:`SteppedGame` (``self._game``): its ``state`` is the game's position; it
    renders it in its ``render_mode``, in a window in human mode."""

    _game: SteppedGame
    _board_window: BoardWindow | None = None

    def render(self) -> np.ndarray | str | None:
        """The board in ``render_mode``, the cells of the last move marked (either side's); in human mode it is
        drawn in a window (the ``rgb_array`` frame) and nothing is returned."""
        if self.render_mode == "human":
            if self._board_window is None:
                title = f"crossenvs: {self.game.facts.display_name}"
                self._board_window = BoardWindow(title, self.metadata["render_fps"])
            self._board_window.show(self.game.render_rgb(self.state, last_move=self._last_move))
            return None
        return render_state(self.game, self.state, self.render_mode, self._last_move)

    def close(self) -> None:
        """Close the window of human mode, if one was opened; nothing else to release."""
        if self._board_window is not None:
            self._board_window.close()
            self._board_window = None

    @property
    def state(self) -> State:
        """The position (a copy); setting it continues the game from there."""
        return self._game.state

    @state.setter
    def state(self, state: State) -> None:
        self._game.state = state


def resolve_game(game: str | Game, options: dict[str, Any]) -> Game:
    """A Game from a name plus options, or a ready Game (then options must be empty)."""
    if isinstance(game, Game):
        if options:
            raise InvalidOptionError("pass options either to make_game or to the env, not both")
        return game
    return make_game(game, **options)


def check_render_mode(render_mode: str | None) -> str | None:
    """The mode, once it is known and what it needs is installed (human mode's window: the ``window`` extra)."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise InvalidOptionError(f"render_mode {render_mode!r} is not one of {RENDER_MODES}")
    if render_mode == "human":
        import_pygame()
    return render_mode


def render_state(
    game: Game, state: State, render_mode: str | None, last_move: Sequence[Cell] = ()
) -> np.ndarray | str | None:
    """Render for a gymnasium/PettingZoo ``render()`` call in ``rgb_array`` or ``ansi`` mode, the last move marked
    (human mode is the env's window, :class:`SteppedEnv`)."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode= when creating the env")
        return None
    if render_mode == "rgb_array":
        return game.render_rgb(state, last_move=last_move)
    return game.render_ansi(state, last_move)


class CrossAECEnv(SteppedEnv, AECEnv, EzPickle):
    """Two-player AEC env: agents ``player_0`` (moves first) and ``player_1``.

    Observation of each agent: ``{"observation": float32 (H, W, C) egocentric planes,
    "action_mask": int8 (num_actions,)}``; the mask is all zeros for the agent not on move.
    Rewards are +1/-1/0 when the game ends. The same agent is selected again when the rules give
    it the next decision.

    The games are turn-based (one agent decides at a time, sometimes twice in a row), so the env
    declares ``is_parallelizable: False`` and PettingZoo's ``aec_to_parallel`` refuses it.
    """

    metadata = {"render_modes": RENDER_MODES, "name": "crossenvs_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: str | Game = "crisscross", render_mode: str | None = None, **options: Any) -> None:
        EzPickle.__init__(self, game, render_mode, **options)
        super().__init__()
        self.game = resolve_game(game, options)
        self.metadata = {**self.metadata, "name": f"{self.game.name}_v0"}
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in self.possible_agents}
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._no_actions = np.zeros(self.game.num_actions, dtype=np.int8)
        self._game = SteppedGame(self.game)  # one numba call a move (crossenvs.core.stepper)
        self._last_move: list[Cell] = []  # cells of the last move, for render()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. The games have no chance; ``seed`` seeds the action spaces."""
        seed = check_seed(seed)
        if seed is not None:
            for offset, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + offset)
        self._game.stepper.reset()
        self._last_move = []
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self._game.to_move]
        if self.render_mode == "human":
            self.render()  # the starting board

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # .get: an agent that has finished may already be gone from terminations
        on_move = agent == self.agent_selection and not self.terminations.get(agent, True)
        mask = self._game.mask() if on_move else self._no_actions.copy()
        return {"observation": self._game.observe(self._seat[agent]), "action_mask": mask}

    def step(self, action: int) -> None:
        """``action`` for the agent to act: checked here, once (an id in range, else ``InvalidActionError``),
        then played; an illegal move raises ``IllegalActionError`` (the wrapped env ends the game instead)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._play(agent, action_id(action, self.game.num_actions, f"{self.game.name}: {agent}'s action"))

    def _play(self, agent: str, action: int) -> None:
        """``agent``'s move ``action``, an id already checked (by :meth:`step`, or by the wrapper's step, which
        checks it once for its mask lookup and comes here): the rules run once, in the stepper."""
        self._cumulative_rewards[agent] = 0
        before = self.state if self.render_mode is not None else None
        self._game.play(action)  # IllegalActionError names the move
        if before is not None:
            self._last_move = self.game.action_cells(before, action)
        outcome = self._game.outcome()
        if outcome is not None:
            for index, name in enumerate(self.agents):
                self.rewards[name] = outcome[index]
                self.terminations[name] = True
        self.agent_selection = self.agents[self._game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


def make_raw_env(game: str | Game, render_mode: str | None = None, **options: Any) -> CrossAECEnv:
    """The bare AEC env: an illegal action raises ``IllegalActionError``."""
    return CrossAECEnv(game, render_mode=render_mode, **options)


def make_env(game: str | Game, render_mode: str | None = None, **options: Any) -> AECEnv:
    """The AEC env with the standard protections (illegal action: -1 for the mover, game over)."""
    return StandardRulesWrapper(make_raw_env(game, render_mode=render_mode, **options), illegal_reward=-1)
