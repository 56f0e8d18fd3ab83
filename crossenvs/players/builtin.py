"""The built-in players: random, greedy, MCTS, any of them with random moves mixed in, a trained model's
``predict`` and a plain function."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from crossenvs.kernels.specialize import specialize
from crossenvs.kernels.state import State
from crossenvs.support.checks import check_count, check_memory
from crossenvs.support.errors import InvalidActionError, InvalidOptionError

from ..core.game import Game
from .base import Player, Positions


class RandomPlayer(Player):
    name = "random"
    vectorized = True
    deliberates = False  # a random pick is instant: nothing to announce

    def act(self, game: Game, state: State) -> int:
        return random_legal_action(game, state, self.rng)

    def act_batch(self, positions: Positions) -> np.ndarray:
        uniforms = positions.uniforms if positions.uniforms is not None else self.rng.random(len(positions))
        return random_legal_actions(positions.masks, uniforms)


def random_legal_action(game: Game, state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal action of ``state``, one draw of ``rng``: the package's one random pick."""
    from crossenvs.kernels import random_pick as kernels  # numba loads on first use, not on import crossenvs

    mask = np.ascontiguousarray(game.legal_mask(state), dtype=np.int8)
    return int(kernels.nth_legal(mask, rng.integers(kernels.count_legal(mask))))


def random_legal_actions(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``, chosen by the row's uniform draw in [0, 1)."""
    from crossenvs.kernels import random_pick as kernels

    actions = np.empty(len(masks), dtype=np.int64)
    kernels.random_legal_actions(masks, uniforms, actions)
    return actions


def plays_at_random(rng: np.random.Generator, percent: float) -> bool:
    """Whether this move is one of the ``percent`` in a hundred played at random (one draw of ``rng``)."""
    return bool(percent) and rng.random() * 100 < percent


class NoisyPlayer(Player):
    """Another player that plays ``percent`` of its moves uniformly at random, decided move by move.

    The spec ``noisy:<percent>:<spec>`` (``noisy:20:pretrained:0``). A family of fixed players below a
    strong one, for a ladder: an agent that wins every game against the strongest MCTS rung has no
    finite rating until rungs between them lose some games to it and win some against MCTS. The
    player's own stream decides which moves are random and picks them; the inner player keeps its own.
    """

    def __init__(self, inner: Player, percent: int, seed: int | None = None) -> None:
        self.percent = check_count(
            percent, "noisy:<percent>:<player>: the percentage of moves played at random", 0, 100
        )
        self.inner = inner
        super().__init__(seed)
        self.name = f"noisy{self.percent}-{inner.name}"
        self.vectorized = inner.vectorized
        self.simulations = getattr(inner, "simulations", 0)

    def seed(self, seed: int | None) -> None:
        """Restart both streams: this player's from ``seed``, the inner player's from a draw of it."""
        super().seed(seed)
        self.inner.seed(None if seed is None else int(self.rng.integers(2**63 - 1)))

    def act(self, game: Game, state: State) -> int:
        if plays_at_random(self.rng, self.percent):
            return random_legal_action(game, state, self.rng)
        return self.inner.act(game, state)

    def act_batch(self, positions: Positions) -> np.ndarray:
        draws = self.rng.random(len(positions)) * 100
        at_random = draws < self.percent
        actions = np.empty(len(positions), dtype=np.int64)
        if at_random.any():
            actions[at_random] = random_legal_actions(positions.masks[at_random], self.rng.random(int(at_random.sum())))
        if not at_random.all():
            actions[~at_random] = self.inner.act_batch(positions.take(np.flatnonzero(~at_random)))
        return actions

    def start_games(self, ids: np.ndarray, uniforms: np.ndarray) -> None:
        self.inner.start_games(ids, uniforms)

    def interrupt(self) -> None:
        self.inner.interrupt()

    def clear_interrupt(self) -> None:
        self.inner.clear_interrupt()


class GreedyPlayer(Player):
    name = "greedy"

    def act(self, game: Game, state: State) -> int:
        seat = game.current_player(state)
        enemy = [code for code, colour in game.owner_colour.items() if colour != game.colours[seat]]
        before = int(np.isin(state.board, enemy).sum())
        best, best_taken = [], -1
        for action in game.legal_actions(state):
            after = game.apply(state, int(action))
            outcome = game.outcome(after)
            if outcome is not None and outcome[seat] > 0:
                return int(action)
            taken = before - int(np.isin(after.board, enemy).sum())
            if taken > best_taken:
                best, best_taken = [int(action)], taken
            elif taken == best_taken:
                best.append(int(action))
        return best[self.rng.integers(len(best))]


#: the most simulations an MCTS player searches per move (its tree keeps a node per simulation)
MAX_MCTS_SIMULATIONS = 10_000_000
#: the most simulations a network-guided search (az:, pretrained) runs per move
MAX_SEARCH_SIMULATIONS = 100_000


class MCTSPlayer(Player):
    """UCT over the game's own kernels; ``simulations`` per move, exploration constant ``c``."""

    def __init__(self, simulations: int = 200, c: float = 1.4, seed: int | None = None) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
            raise InvalidOptionError(f"mcts needs a whole number of simulations >= 1, got {simulations!r}")
        if simulations > MAX_MCTS_SIMULATIONS:
            raise InvalidOptionError(f"mcts searches at most {MAX_MCTS_SIMULATIONS:,} simulations, got {simulations:,}")
        super().__init__(seed)
        self.simulations = int(simulations)
        self.c = float(c)
        self.name = f"mcts{self.simulations}"

    def act(self, game: Game, state: State) -> int:
        return self._search(game, state.board, state.meta, int(self.rng.integers(2**31)))

    def _search(self, game: Game, board: np.ndarray, meta: np.ndarray, seed: int) -> int:
        self._check_memory(game)
        search = specialize("crossenvs.players.mcts", type(game)).search
        return int(search(board, meta, game.num_actions, self.simulations, self.c, seed, self.stop_flag))

    def _check_memory(self, game: Game) -> None:
        """The tree takes a node per simulation (position, untried actions, counters): refuse what cannot fit."""
        if getattr(self, "_fits", None) is type(game):
            return
        start = game.initial_state()
        node = start.board.nbytes + start.meta.nbytes + game.num_actions + 8 * 8
        check_memory(
            node * (self.simulations + 1), f"MCTS-{self.simulations:,} on {game.name}", "ask for fewer simulations"
        )
        self._fits = type(game)

    def act_batch(self, positions: Positions) -> np.ndarray:
        """The searches of a batch side by side on the CPU's cores: the same actions as :meth:`act` row by row.

        The numba search releases the GIL and numba keeps a random stream per thread, seeded by
        each search, so threads change nothing but the time (an arena match of an agent against
        MCTS-1000 should take about 1/cores as long). The seeds are drawn in row order,
        as the loop over :meth:`act` would draw them.
        """
        count = len(positions)
        seeds = [int(self.rng.integers(2**31)) for _ in range(count)]

        def one(row: int) -> int:
            return self._search(positions.game, positions.boards[row], positions.metas[row], seeds[row])

        workers = min(count, os.cpu_count() or 1)
        if workers == 1:
            return np.array([one(row) for row in range(count)], dtype=np.int64)
        with ThreadPoolExecutor(workers) as pool:
            return np.fromiter(pool.map(one, range(count)), dtype=np.int64, count=count)


class ModelPlayer(Player):
    """A trained model with an SB3-style ``predict(observations, action_masks=...)``; deterministic by default.

    A model whose ``predict`` takes no mask (plain PPO) is given none; should it pick an illegal
    action, the first legal one is played instead.
    """

    vectorized = True

    def __init__(self, model: Any, name: str = "model", deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model = model
        self.name = name
        self.deterministic = deterministic
        try:
            self._takes_masks = "action_masks" in inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            self._takes_masks = False

    def act_batch(self, positions: Positions) -> np.ndarray:
        return self._predict(positions.observations, positions.masks)

    def act(self, game: Game, state: State) -> int:
        observation = game.observe(state, game.current_player(state))
        return int(self._predict(observation[None], game.legal_mask(state)[None])[0])

    def _predict(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        kwargs: dict[str, Any] = {"deterministic": self.deterministic}
        if self._takes_masks:
            kwargs["action_masks"] = masks.astype(bool)
        actions, _ = self.model.predict(observations, **kwargs)
        return _legal_or_first(np.asarray(actions, dtype=np.int64).reshape(len(masks)), masks)


class FunctionPlayer(Player):
    """A function as a player: ``f(observation, action_mask) -> action``, or with ``batched=True``
    ``f(observations (n, ...), masks (n, A)) -> actions (n,)``. Observations are the acting
    player's own (egocentric) view, so a policy trained on either seat plays the other."""

    def __init__(self, function: Callable[..., Any], batched: bool = False, name: str | None = None) -> None:
        super().__init__(None)
        self.function = function
        self.vectorized = batched
        self.name = name or getattr(function, "__name__", "function")

    def act(self, game: Game, state: State) -> int:
        observation, mask = game.observe(state, game.current_player(state)), game.legal_mask(state)
        chosen = self.function(observation[None], mask[None]) if self.vectorized else self.function(observation, mask)
        try:
            return int(np.asarray(chosen).reshape(-1)[0])
        except (TypeError, ValueError, IndexError):
            raise InvalidActionError(f"player {self.name} returned {chosen!r}; it must return an action id") from None

    def act_batch(self, positions: Positions) -> np.ndarray:
        if not self.vectorized:
            return super().act_batch(positions)
        chosen = self.function(positions.observations, positions.masks)
        try:
            return np.asarray(chosen, dtype=np.int64).reshape(len(positions))
        except (TypeError, ValueError):
            raise InvalidActionError(
                f"player {self.name} returned {chosen!r} for {len(positions)} games; it must return one action id each"
            ) from None


def _legal_or_first(actions: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``actions`` with any illegal (or out-of-range) pick replaced by the row's first legal action."""
    in_range = (actions >= 0) & (actions < masks.shape[1])
    rows = np.arange(len(actions))
    legal = in_range & (masks[rows, np.where(in_range, actions, 0)] != 0)
    if not legal.all():
        actions = actions.copy()
        actions[~legal] = masks[~legal].argmax(axis=1)
    return actions
