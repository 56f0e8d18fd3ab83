"""The single-agent gymnasium view: the learner plays one seat, an opponent the other.

``gymnasium.make("crossenvs/<Game>-v0", opponent=..., **game_options)``, where ``opponent`` is
any player spec of :func:`crossenvs.players.make_player` (``"random"``, ``"mcts:200"``, a
checkpoint path, a model, a callable ``f(observation, action_mask)``, a Player). The learner's seat is
drawn from the env's seed at each reset; the opponent moves inside ``reset`` and ``step``
until the learner must decide again, so every observation the learner gets is its own turn.
``action_masks()`` serves MaskablePPO; ``info["action_mask"]`` (int8) carries the same mask with
every observation, so a gymnasium vector env of these needs no ``call("action_masks")``. An illegal learner action ends the episode with reward
-1 and ``info["illegal_action"] = True`` (as PettingZoo's ``env()`` does); an illegal opponent
action raises :class:`IllegalActionError`, since that is a bug in the opponent.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from crossenvs.support.actions import action_id
from crossenvs.support.checks import check_seed
from crossenvs.support.errors import CallOrderError, IllegalActionError, InvalidActionError

from .. import players
from ..core.game import Cell, Game
from .aec import RENDER_MODES, SteppedEnv, SteppedGame, check_render_mode, resolve_game


class CrossSingleAgentEnv(SteppedEnv, gymnasium.Env):
    """One seat against a built-in opponent (random unless told otherwise)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(
        self,
        game: str | Game = "crisscross",
        opponent: Any = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.game = resolve_game(game, options)
        self.opponent = players.make_player(opponent, game=self.game)
        self.render_mode = check_render_mode(render_mode)
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.learner = 0
        self._game = SteppedGame(self.game)  # one numba call a move (crossenvs.core.stepper)
        self._episode_over = False  # set by the end of the game or an illegal learner move
        self._last_move: list[Cell] = []  # cells of the last move, for render()

    # ----------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=check_seed(seed))
        if seed is not None:
            self.opponent.seed(int(self.np_random.integers(2**31)))
        self.learner = int(self.np_random.integers(2))
        self._game.stepper.reset()
        self._last_move = []
        self._let_opponent_play()
        self._episode_over = self._game.over
        if self.render_mode == "human":
            self.render()  # the board the learner first sees
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._episode_over:
            raise CallOrderError("step() called after the episode ended; call reset() first")
        action = action_id(action, self.game.num_actions)
        try:
            self._play(action)  # the one legality check
        except IllegalActionError:
            self._episode_over = True
            return self._observation(), -1.0, True, False, {**self._info(), "illegal_action": True}
        self._let_opponent_play()
        outcome = self._game.outcome()
        self._episode_over = outcome is not None
        reward = 0.0 if outcome is None else float(outcome[self.learner])
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, outcome is not None, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask of the learner (all False once the game is over)."""
        if self._episode_over:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self._game.mask().astype(bool)

    # ----------------------------------------------------------------- internals
    def _play(self, action: int) -> None:
        """Apply ``action``, remembering its cells for ``render`` when rendering."""
        before = self.state if self.render_mode is not None else None
        self._game.play(action)
        if before is not None:
            self._last_move = self.game.action_cells(before, int(action))

    def _let_opponent_play(self) -> None:
        """The opponent decides until it is the learner's turn or the game ends."""
        while not self._game.over and self._game.to_move != self.learner:
            action = self.opponent.act(self.game, self.state)
            try:
                action = action_id(action, self.game.num_actions, "its action")
                self._play(action)
            except (IllegalActionError, InvalidActionError) as exc:
                raise type(exc)(f"the opponent {self.opponent.name} chose a bad action: {exc}") from None

    def _observation(self) -> np.ndarray:
        return self._game.observe(self.learner)

    def _info(self) -> dict[str, Any]:
        """The learner's seat and legal mask (int8; all zeros once the episode is over)."""
        return {"learner_seat": self.learner, "action_mask": self.action_masks().view(np.int8)}
