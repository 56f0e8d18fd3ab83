"""Players: one protocol for everything that chooses moves, and one spec parser for all of them.

A :class:`Player` decides for the seat to act, one position at a time (``act(game, state)``)
or for a batch of games at once (``act_batch(positions)``, one call for all games of a
vectorised env that wait on it). The same players serve everywhere: as opponents of the
gymnasium env and of the vector envs, in arenas, in the CLI and in training's opponent pool.
With a PettingZoo AEC env, ask ``player.act(env.unwrapped.game, env.unwrapped.state)``.

Built in:

* :class:`RandomPlayer`: uniform over legal actions;
* :class:`GreedyPlayer`: one ply: an immediate win, else the action removing the most enemy
  pieces from the board (captures, flips, jumped pieces), else random;
* :class:`MCTSPlayer`: UCT with random rollouts in numba (:mod:`crossenvs.eval.mcts`);
* :class:`ModelPlayer`: a trained model with an SB3-style ``predict`` (a MaskablePPO checkpoint);
* :class:`FunctionPlayer`: a function of observation and mask (or of batches of them).

:func:`make_player` reads a spec: ``random``, ``greedy``, ``mcts`` / ``mcts:<simulations>``, the
path of a checkpoint ``.zip``, an object with ``predict``, a callable, or a Player. Other kinds of
agent add their own prefix with :func:`register_player_kind`; ``az:<checkpoint>[:<simulations>]``
is an AlphaZero checkpoint (:mod:`crossenvs.az`) searching with that many simulations, and
``pretrained[:<simulations>]`` the agent shipped for the game at hand (:mod:`crossenvs.agents`),
and ``rllib:<checkpoint>`` a Ray RLlib checkpoint (:mod:`crossenvs.integrations.rllib`).
"""

from __future__ import annotations

import importlib
import inspect
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .core.checks import check_memory, check_seed, whole_number
from .core.errors import CheckpointError, InvalidActionError, InvalidOptionError
from .core.game import Game
from .core.specialize import specialize
from .core.state import State


@dataclass
class Positions:
    """A batch of games in which one player must act, with what any kind of player needs.

    ``observations`` and ``masks`` are those of the player to act in each game; ``ids`` are the
    games' slots in their env (a player that keeps a choice per game, like training's opponent
    pool, keys on them); ``uniforms``, when the env keeps a random stream per game, hold one
    draw per game so that random choices do not depend on the other games in the batch.
    """

    game: Game
    boards: np.ndarray  # (n, H, W) int8
    metas: np.ndarray  # (n, K) int32
    observations: np.ndarray  # (n, *observation_shape) float32
    masks: np.ndarray  # (n, num_actions) int8
    ids: np.ndarray  # (n,) int64
    uniforms: np.ndarray | None = None  # (n,) float64 in [0, 1)

    def __len__(self) -> int:
        return len(self.ids)

    def state(self, row: int) -> State:
        """Position ``row`` as a :class:`State` (a copy)."""
        return State(self.boards[row].copy(), self.metas[row].copy())

    def take(self, rows: np.ndarray) -> Positions:
        """The sub-batch of the given rows."""
        uniforms = None if self.uniforms is None else self.uniforms[rows]
        return Positions(
            self.game,
            self.boards[rows],
            self.metas[rows],
            self.observations[rows],
            self.masks[rows],
            self.ids[rows],
            uniforms,
        )


class Player(ABC):
    """Chooses actions for the player to act; ``seed`` makes its choices reproducible.

    Subclasses implement :meth:`act`. :meth:`act_batch` loops it unless the player can decide
    for many games in one call (``vectorized = True``: random play, network forward passes),
    which arenas use to play all the games of a pairing together in the vector env.
    """

    name: str = "player"
    #: True when act_batch decides for a whole batch at once (not a loop over act)
    vectorized: bool = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the player's random choices from ``seed`` (None or ``0..2**63-1``, checked here
        so a bad seed names itself instead of failing inside numpy)."""
        self.rng = np.random.default_rng(check_seed(seed, f"{type(self).__name__} seed"))

    @abstractmethod
    def act(self, game: Game, state: State) -> int:
        """A legal action for the player to decide in ``state``."""

    def act_batch(self, positions: Positions) -> np.ndarray:
        """One legal action per game of ``positions`` (int64, shape (n,))."""
        return np.array([self.act(positions.game, positions.state(k)) for k in range(len(positions))], dtype=np.int64)

    def start_games(self, ids: np.ndarray, uniforms: np.ndarray) -> None:
        """Games ``ids`` of a vector env start (one uniform draw each): a hook for per-game choices."""
        return None  # most players choose nothing per game

    def __repr__(self) -> str:
        return self.name


class RandomPlayer(Player):
    name = "random"
    vectorized = True

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, positions: Positions) -> np.ndarray:
        from . import player_kernels  # numba loads on first use, not on import crossenvs

        uniforms = positions.uniforms if positions.uniforms is not None else self.rng.random(len(positions))
        actions = np.empty(len(positions), dtype=np.int64)
        player_kernels.random_legal_actions(positions.masks, uniforms, actions)
        return actions


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
        search = specialize("crossenvs.eval.mcts", type(game)).search
        return int(search(board, meta, game.num_actions, self.simulations, self.c, seed))

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


# ----------------------------------------------------------------------------- checkpoints
def load_checkpoint(path: str | Path, game: Game | None = None, env: Any = None, device: str = "cpu") -> Any:
    """A MaskablePPO checkpoint; one clear error when it is missing, unreadable or made for another game.

    ``env`` is handed to the model (training resumes with it); with ``game`` the checkpoint's
    observation shape and number of actions must match the game's.
    """
    path = Path(path)
    if not path.is_file():
        hint = "; an AlphaZero checkpoint is written az:<file>.pt" if path.suffix == ".pt" else ""
        raise CheckpointError(f"checkpoint {path} does not exist{hint}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise InvalidOptionError(
            'loading MaskablePPO checkpoints needs the train extra: pip install "crossenvs[train]"'
        ) from None
    try:
        model = MaskablePPO.load(path, env=env, device=device)
    except Exception as exc:  # zip, pickle and torch errors all mean "unreadable"
        hint = " (an AlphaZero checkpoint? write az:<file>.pt)" if path.suffix == ".pt" else ""
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable as a MaskablePPO .zip{hint}: {type(exc).__name__}: {exc}"
        ) from None
    if game is not None:
        shape, actions = tuple(model.observation_space.shape), int(model.action_space.n)
        if shape != game.observation_shape or actions != game.num_actions:
            raise CheckpointError(
                f"checkpoint {path} was trained on observations {shape} with {actions} actions; {game!r} has "
                f"{game.observation_shape} and {game.num_actions}: another game or board size"
            )
    return model


# ----------------------------------------------------------------------------- specs
#: a factory reads the argument after "prefix:" for a game (or None) and a seed
PlayerFactory = Callable[[str, Game | None, int | None], "Player"]
#: spec prefix -> its factory, or "module:function" imported on first use
_KINDS: dict[str, PlayerFactory | str] = {}
#: spec prefix -> how its specs are written, for help texts and errors
_USAGE: dict[str, str] = {}
#: spec prefix -> the extra that a lazily imported kind needs
_EXTRAS: dict[str, str] = {}


def register_player_kind(
    prefix: str, factory: PlayerFactory | str, usage: str | None = None, *, extra: str | None = None
) -> None:
    """Let ``make_player`` read ``<prefix>`` and ``<prefix>:<argument>`` specs (e.g. ``az:run/best.pt``).

    ``factory`` is a function, or ``"module:function"`` imported when a spec first asks for it:
    kinds that live above the players (AlphaZero, the pretrained agents, RLlib) register that
    way from the package root, so this module never imports them. ``extra`` names the
    installation extra such a module needs, for the error when it is missing.
    """
    _KINDS[prefix] = factory
    _USAGE[prefix] = usage or f"{prefix}[:...]"
    if extra:
        _EXTRAS[prefix] = extra


def _factory(prefix: str) -> PlayerFactory:
    """The factory of a kind, importing its module now if it was registered by name."""
    factory = _KINDS[prefix]
    if not isinstance(factory, str):
        return factory
    module, _, function = factory.partition(":")
    try:
        return getattr(importlib.import_module(module), function)
    except ImportError as exc:
        extra = _EXTRAS.get(prefix, "")
        hint = f': pip install "crossenvs[{extra}]"' if extra else ""
        raise InvalidOptionError(f"{prefix} players need the {extra or 'optional'} extra{hint} ({exc})") from None


def _mcts(argument: str, game: Game | None, seed: int | None) -> Player:
    count = whole_number(argument or "200", "mcts:<simulations>", 1, MAX_MCTS_SIMULATIONS)
    return MCTSPlayer(count, seed=seed)


register_player_kind("random", lambda argument, game, seed: RandomPlayer(seed), "random")
register_player_kind("greedy", lambda argument, game, seed: GreedyPlayer(seed), "greedy")
register_player_kind("mcts", _mcts, "mcts[:<simulations>]")


def player_specs() -> str:
    """The spec forms ``make_player`` reads, for help texts and errors."""
    return f"{', '.join(_USAGE.values())} or a checkpoint .zip path"


def make_player(spec: Any, game: Game | None = None, seed: int | None = None, *, paths: bool = True) -> Player:
    """A player from a spec (see the module docstring). With ``game``, a checkpoint must fit it.

    ``paths=False`` reads registered kinds only, never a file named by the spec (a file called
    ``random`` in the working folder would otherwise win): for a server reading specs from a page,
    whose working folder is not the page's to choose (:mod:`crossenvs.web` checks checkpoint paths itself).

    >>> make_player("mcts:50").simulations
    50
    """
    if isinstance(spec, Player):
        return spec
    if spec is None:
        return RandomPlayer(seed)
    if not isinstance(spec, (str, Path)):
        if hasattr(spec, "predict"):
            return ModelPlayer(spec, name=type(spec).__name__, seed=seed)
        if callable(spec):
            return FunctionPlayer(spec)
        raise InvalidOptionError(
            f"player {spec!r} is not usable: give a spec string ({player_specs()}), a Player, "
            "a model with predict(observations, action_masks=...) or a callable (observation, mask)"
        )
    text = str(spec).strip()
    prefix, _, argument = text.partition(":")
    if prefix in _KINDS and not (paths and Path(text).is_file()):
        return _factory(prefix)(argument, game, seed)
    if paths and (text.endswith(".zip") or Path(text).is_file()):
        return ModelPlayer(load_checkpoint(text, game), name=Path(text).stem, seed=seed)
    raise InvalidOptionError(f"unknown player {text!r}: use {player_specs()}")
