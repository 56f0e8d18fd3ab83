"""Opponents for the single-agent view: who moves for the other seat inside ``step``.

An opponent is anything :func:`as_opponent` accepts:

* ``None`` or ``"random"``: uniform over legal actions (:class:`RandomOpponent`);
* a callable ``f(observation, action_mask) -> action``;
* an object with an SB3-style ``predict(observation, action_masks=..., deterministic=...)``
  (MaskablePPO, or plain PPO, whose ``predict`` has no mask argument).

Observations passed to an opponent are from the opponent's own (egocentric) point of view, so a
policy trained on either seat can play the other.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import InvalidOptionError

Opponent = Callable[[np.ndarray, np.ndarray], int]


def random_legal_action(action_mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly drawn legal action."""
    legal = np.flatnonzero(action_mask)
    return int(legal[rng.integers(legal.size)])


class RandomOpponent:
    """Plays uniformly among legal actions; reseeded by the env at each seeded reset."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return random_legal_action(action_mask, self.rng)


class PredictOpponent:
    """Adapts an object with an SB3-style ``predict`` method (a trained model) to an opponent."""

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic
        try:
            self._takes_masks = "action_masks" in inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            self._takes_masks = False

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        kwargs: dict[str, Any] = {"deterministic": self.deterministic}
        if self._takes_masks:
            kwargs["action_masks"] = action_mask.astype(bool)
        action, _ = self.model.predict(observation, **kwargs)
        return int(np.asarray(action).reshape(-1)[0])


def as_opponent(spec: Any) -> Opponent:
    """Normalise an opponent spec (see the module docstring) to a callable."""
    if spec is None or (isinstance(spec, str) and spec == "random"):
        return RandomOpponent()
    if hasattr(spec, "predict"):
        return PredictOpponent(spec)
    if callable(spec):
        return spec
    raise InvalidOptionError(
        f"opponent {spec!r} is not usable: give 'random', a callable (observation, action_mask) -> action, "
        "or an object with a predict(observation, action_masks=...) method"
    )
