"""A game as a turn-based RLlib ``MultiAgentEnv`` whose observations carry the legal actions."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("rllib", "the RLlib integration"):
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

from crossenvs.kernels.state import State
from crossenvs.support.actions import action_id
from crossenvs.support.errors import CallOrderError, InvalidActionError, InvalidOptionError

from ...core.game import Game
from ...envs.aec import resolve_game

OBS = "observations"  # the keys RLlib's action-masking example uses
MASK = "action_mask"
AGENTS = ("player_0", "player_1")


class CrossMultiAgentEnv(MultiAgentEnv):
    """One game as a turn-based RLlib ``MultiAgentEnv``; ``config = {"game": name, "options": {...}}``.

    Agents ``player_0`` (moves first) and ``player_1``. Each step returns an observation only for
    the agent that decides next (the same one again when the rules say so); rewards come at the
    end, to both agents, with ``terminateds["__all__"] = True``. Games end by their rules (every
    game has a move cap or a bounded length), so there is no truncation.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - {"game", "options"})
        if unknown:
            raise InvalidOptionError(f"CrossMultiAgentEnv config: unknown key(s) {unknown}; give 'game' and 'options'")
        self.game: Game = resolve_game(config.get("game", "crisscross"), dict(config.get("options") or {}))
        self.agents = self.possible_agents = list(AGENTS)
        space = observation_space(self.game)
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: gym.spaces.Discrete(self.game.num_actions) for agent in AGENTS}
        self.illegal_actions = 0  # over the env's life, every episode
        self.state: State = self.game.initial_state()
        self._seen: set[str] = set()  # agents that had an observation this episode
        self._over = False  # after an illegal action: the game is over, its state not terminal

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new game, from the setup or from ``options={"position": <position text>}``.

        The games have no chance, so ``seed`` only seeds the action spaces.
        """
        if seed is not None:
            for offset, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + offset)
        text = (options or {}).get("position")
        self.state = self.game.initial_state() if text is None else self.game.from_text(text)
        self._over = False
        mover = AGENTS[self.game.current_player(self.state)]
        self._seen = {mover}
        return {mover: self._observe(mover)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if self._over or self.game.is_terminal(self.state):
            raise CallOrderError(f"{self.game.name}: the game is over; call reset() to start another")
        mover = AGENTS[self.game.current_player(self.state)]
        if mover not in action_dict:
            raise InvalidActionError(f"it is {mover}'s turn, but the actions are for {sorted(action_dict)}")
        action = action_id(action_dict[mover], self.game.num_actions, f"{self.game.name}: the action of {mover}")
        after = self.state.copy()
        if not self.game.apply_kernel(after.board, after.meta, action):
            self.illegal_actions += 1
            return self._illegal_end(mover)
        self.state = after
        outcome = self.game.outcome(after)
        if outcome is not None:
            return self._end(dict(zip(AGENTS, outcome)), {})
        following = AGENTS[self.game.current_player(after)]
        self._seen.add(following)
        return {following: self._observe(following)}, {mover: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        playing = not (self._over or self.game.is_terminal(self.state))
        on_move = playing and self.game.current_player(self.state) == seat
        mask = self.game.legal_mask(self.state) if on_move else np.zeros(self.game.num_actions, dtype=np.int8)
        return {OBS: self.game.observe(self.state, seat), MASK: mask.astype(np.float32)}

    def _end(self, rewards: dict[str, float], flags: dict[str, dict]) -> tuple[dict, dict, dict, dict, dict]:
        """The last step: observations, rewards and ``outcome`` infos for the agents that played."""
        ended = [agent for agent in AGENTS if agent in self._seen]
        observations = {agent: self._observe(agent) for agent in ended}
        infos = {agent: {"outcome": float(rewards[agent]), **flags.get(agent, {})} for agent in ended}
        terminateds = {agent: True for agent in ended} | {"__all__": True}
        return observations, {a: float(rewards[a]) for a in ended}, terminateds, {"__all__": False}, infos

    def _illegal_end(self, mover: str) -> tuple[dict, dict, dict, dict, dict]:
        """As PettingZoo's ``env()``: the game ends, -1 for the mover, 0 for the other."""
        rewards = {agent: (-1.0 if agent == mover else 0.0) for agent in AGENTS}
        self._over = True
        return self._end(rewards, {mover: {"illegal_action": True}})


def observation_space(game: Game) -> gym.spaces.Dict:
    """What an agent sees: the egocentric planes and the legal actions as 0/1 floats."""
    return gym.spaces.Dict(
        {
            OBS: gym.spaces.Box(0.0, 1.0, game.observation_shape, dtype=np.float32),
            MASK: gym.spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
        }
    )
