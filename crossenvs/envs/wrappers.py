"""PettingZoo's three standard wrappers fused into one layer.

PettingZoo classic wraps each env in ``TerminateIllegalWrapper`` (an illegal move ends the game
with -1 for the mover), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. Stacked,
every attribute read in ``last()`` and ``step()`` walks three ``__getattr__`` hops, which cost
more than our whole game step. :class:`StandardRulesWrapper` does the same three jobs with the
hot attributes forwarded in one hop. ``tests/test_wrappers.py`` checks that it behaves exactly
like the stack, move for move, including illegal actions. One deliberate difference: a value
that is no action id (out of range, a float, ``None`` for a live agent) raises
:class:`~crossenvs.support.errors.InvalidActionError` ("action is not in action space: ...")
where the stack's ``AssertOutOfBoundsWrapper`` raises a bare ``AssertionError`` (and accepts
``True`` as action 1); and ``step()`` or ``observe()`` before ``reset()`` raises
:class:`~crossenvs.support.errors.ResetFirstError` (an ``AssertionError`` too) that says what to call.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from crossenvs.support.actions import action_id
from crossenvs.support.errors import ResetFirstError

_BEFORE_RESET = "{} cannot be accessed before reset"


def _forwarded(name: str) -> property:
    """A read-only property reading ``name`` from the raw env (after reset only)."""

    def get(self: StandardRulesWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format(name))
        return getattr(self._raw, name)

    return property(get, doc=f"The raw env's ``{name}``.")


class StandardRulesWrapper(OrderEnforcingWrapper):
    """Order enforcement, action-id checks and illegal-move termination (-1), in one layer."""

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def __init__(self, env: AECEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._illegal_reward = float(illegal_reward)
        self._prev_mask: Any = None
        self._terminated_by_illegal_move = False

    @property
    def num_agents(self) -> int:
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("num_agents"))
        return len(self._raw.agents)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._prev_mask = None
        self._terminated_by_illegal_move = False
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise self._reset_first("observe()")
        observation = self._raw.observe(agent)
        if agent == self._raw.agent_selection:
            self._prev_mask = observation["action_mask"]
        return observation

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise self._reset_first("step()")
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if not (action is None and dead):
            action = action_id(action, raw.game.num_actions, f"action is not in action space: {agent}'s action")
        if self._prev_mask is None:
            self.observe(agent)
        mask, self._prev_mask = self._prev_mask, None
        if dead:
            raw._was_dead_step(action)
        elif not mask[action]:
            self._end_game_for_illegal_move(agent)
        else:
            raw._play(agent, action)  # checked above, once; the rules run once, in the raw env's stepper

    def _reset_first(self, call: str) -> ResetFirstError:
        return ResetFirstError(
            f"{self._raw.game.name}: {call} before reset(); call env.reset(seed=...) first, then step through "
            "env.agent_iter()"
        )

    def _end_game_for_illegal_move(self, agent: str) -> None:
        """As PettingZoo's TerminateIllegalWrapper: the mover gets the penalty, all agents end."""
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated_by_illegal_move = True

    def __str__(self) -> str:
        return str(self._raw)
