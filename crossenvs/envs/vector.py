"""Batched environments: many games of one kind stepped together inside numba (as pgx does with JAX).

Two faces over one batch of states (``boards`` (B, H, W) int8, ``metas`` (B, K) int32, the same
records as :class:`~crossenvs.kernels.state.State` with a batch axis):

* :class:`CrossVectorEnv`, a ``gymnasium.vector.VectorEnv`` for two players: in every game the
  player to act decides; ``step`` takes one action per game and returns the reward of the
  player who acted (both seats' rewards in the info). Self-play training drives this one.
* :class:`~crossenvs.envs.sb3_vec.CrossSB3VecEnv` (its own module, :mod:`crossenvs.envs.sb3_vec`), a stable-baselines3 ``VecEnv`` for single-agent training: the
  learner's seat is drawn per game at every reset, and an opponent (any player of
  :mod:`crossenvs.players`, asked once for all games that need an opponent move) plays inside ``step``.

Both auto-reset a finished game at once and keep what it ended on in the info. An illegal action
ends that game with -1 for the player who made it (as PettingZoo's standard wrapper does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from crossenvs.support.actions import action_ids
from crossenvs.support.checks import check_seed, reset_mask
from crossenvs.support.errors import CallOrderError, InvalidOptionError

from ..core.game import Cell, Game
from .aec import render_state
from .batch import DEVICES, GameBatch, StepResult

VECTOR_RENDER_MODES = ["rgb_array", "ansi"]  # "human" would print every game of the batch


#: up to this many games ended in a step, their final views are handed over by a loop over them; more, by whole-array
#: operations (a few games a step, as in a small batch, pay the latter's fixed cost several times over)
FEW_ENDED = 16


class CrossVectorEnv(VectorEnv):
    """B games of one game as a ``gymnasium.vector.VectorEnv``, both seats played by the caller (self-play).

    Every step takes one action per game (``action_space`` is ``MultiDiscrete``) for the player
    to act there, and returns the observation of the player to act next in each game (its own
    egocentric view). The info has that player's seat (``current_player``) and legal mask
    (``action_mask``, int8, usable as ``single_action_space.sample(mask=...)``).

    Rewards, shape (B,), are the reward of the player who just acted (zero-sum games: the other
    seat gets the negative, except after an illegal action, which costs only its maker -1);
    ``info["seat_rewards"]`` (B, 2) has both seats' rewards. Non-zero only on the step that ends
    a game.

    Autoreset is ``SAME_STEP`` (``metadata["autoreset_mode"]``): a finished game restarts at
    once, and what it ended on is in the info, following gymnasium's convention for that mode:
    ``final_obs`` (an object array, fresh arrays in the rows of games that ended, ``None``
    elsewhere; the view of the player who made the last move), ``_final_obs`` (which rows),
    ``final_obs_by_seat`` (both seats' views, (2, H, W, C) per ended row); these three appear only
    on steps where a game ended. ``final_ply`` (plies the ended games lasted, 0 elsewhere) and
    ``illegal_action`` (B,) are in every step's info.
    The games have no chance: ``seed`` seeds the action space's sampling and the per-game random
    streams of :meth:`random_actions` only.
    ``reset(options={"reset_mask": mask})`` restarts only the games where ``mask`` is True.
    """

    metadata = {"render_modes": VECTOR_RENDER_MODES, "autoreset_mode": AutoresetMode.SAME_STEP, "render_fps": 2}

    #: where this class's games live when ``device`` is not given (:class:`DeviceVectorEnv`: ``"cuda"``)
    default_device = "cpu"

    def __new__(cls, *args: Any, device: str | None = None, **kwargs: Any) -> Any:
        """``device="cuda"`` gives the same games on a GPU: a :class:`DeviceVectorEnv`, a subclass."""
        device = device or cls.default_device
        if device not in DEVICES:
            raise InvalidOptionError(f"device must be one of {DEVICES}, got {device!r}")
        if device == "cuda" and cls is CrossVectorEnv:
            cls = DeviceVectorEnv
        return super().__new__(cls)

    def __init__(
        self,
        game: str | Game = "crisscross",
        num_envs: int = 64,
        render_mode: str | None = None,
        device: str | None = None,
        **options: Any,
    ) -> None:
        device = device or self.default_device
        if device != self.default_device:  # CrossVectorEnv(device="cuda") is a DeviceVectorEnv by now
            raise InvalidOptionError(f"{type(self).__name__} runs on {self.default_device!r}, not {device!r}")
        if render_mode is not None and device != "cpu":
            raise InvalidOptionError("render_mode needs device='cpu'; on a GPU, render env.state(i) yourself")
        if render_mode is not None and render_mode not in VECTOR_RENDER_MODES:
            raise InvalidOptionError(f"render_mode {render_mode!r} is not one of {VECTOR_RENDER_MODES} (or None)")
        self._batch = GameBatch(game, num_envs, options, device)
        self.game = self._batch.game
        self.num_envs = self._batch.num_envs
        self.render_mode = render_mode
        kind = "vector" if device == "cpu" else "device_vector"
        self.metadata = {**self.metadata, "name": f"{self.game.name}_{kind}_v0"}
        self._declare_spaces()
        self._last_moves: list[list[Cell]] = [[] for _ in range(self.num_envs)]  # for render()

    def _declare_spaces(self) -> None:
        self.single_observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Restart every game (or those of ``options["reset_mask"]``); returns observations and info."""
        self._check_open()
        seed = check_seed(seed)
        mask = reset_mask(options, self.num_envs)
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
            self.action_space.seed(seed)
        observations, masks, players = self._batch.reset(seed, mask)
        for index in range(self.num_envs) if mask is None else np.flatnonzero(mask):
            self._last_moves[index] = []
        return observations, {"action_mask": masks, "current_player": players}

    def step(self, actions: Sequence[int] | np.ndarray):
        """One action per game, for its player to act. Returns obs, rewards (B,), terminations, truncations, info.

        One call into numba for the whole batch (:meth:`GameBatch.step <crossenvs.envs.batch.GameBatch.step>`);
        what stays in Python is the action check and, for the games that ended, gymnasium's final-observation keys.
        """
        self._check_open()
        actions = action_ids(actions, self.num_envs, self.game.num_actions)
        before = [self.state(i) for i in range(self.num_envs)] if self.render_mode is not None else None
        result = self._batch.step(actions)
        if before is not None:
            moves = zip(before, actions, result.illegal, result.ended)
            self._last_moves = [
                self.game.action_cells(b, int(a)) if not bad and not e else [] for b, a, bad, e in moves
            ]
        info = {"action_mask": result.masks, "current_player": result.players}
        if result.ended.any():  # most steps of a small batch end no game: no index array for them
            info.update(self._final_views(np.flatnonzero(result.ended), result))
        info.update(seat_rewards=result.seat_rewards, final_ply=result.final_ply, illegal_action=result.illegal)
        return result.observations, result.rewards, result.ended, np.zeros(self.num_envs, dtype=bool), info

    def random_actions(self) -> np.ndarray:
        """A uniform random legal action in every game (-1 where none), each from its game's own random stream.

        The streams are seeded by ``reset(seed=...)`` (fresh entropy before that), one per game, so
        a game's picks do not depend on the others; the device env draws the same ones.
        """
        return self._batch.random_actions()

    def render(self) -> tuple[np.ndarray, ...] | tuple[str, ...] | None:
        """Every game drawn, its last move marked: RGB frames (``rgb_array``) or text boards (``ansi``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= when creating the env")
            return None
        return tuple(
            render_state(self.game, self.state(index), self.render_mode, self._last_moves[index])
            for index in range(self.num_envs)
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release beyond the arrays; ``close`` marks the env closed."""

    def state(self, index: int):
        """Game ``index`` as a :class:`~crossenvs.kernels.state.State` (a copy), for rendering or analysis."""
        return self._batch.state(index)

    @property
    def boards(self) -> np.ndarray:
        """(B, H, W) int8: the games' boards (on the CPU live arrays: read, do not write; a device env's are copies)."""
        return self._batch.boards

    @property
    def metas(self) -> np.ndarray:
        """(B, K) int32: the games' meta records (on the CPU live arrays; a device env's are copies)."""
        return self._batch.metas

    # ----------------------------------------------------------------- internals
    def _check_open(self) -> None:
        if self.closed:
            raise CallOrderError(f"this {type(self).__name__} is closed; make a new one")

    def _final_views(self, ids: np.ndarray, result: StepResult) -> dict[str, np.ndarray]:
        """Gymnasium's same-step final-observation keys for the games ``ids`` that just ended (fresh arrays)."""
        final_obs = np.empty(self.num_envs, dtype=object)  # None where no game ended
        by_seat = np.empty(self.num_envs, dtype=object)
        views = result.final_observations[ids]  # (n, 2, H, W, C): a copy, the caller's
        if len(ids) <= FEW_ENDED:  # a loop beats building lists and index arrays for a few games
            for row, game in enumerate(ids.tolist()):
                by_seat[game] = views[row]
                final_obs[game] = views[row, result.movers[game]].copy()
        else:  # many: whole-array operations (a list into an object array's rows: one array per row)
            by_seat[ids] = list(views)
            final_obs[ids] = list(views[np.arange(len(ids)), result.movers[ids]])
        return {"final_obs": final_obs, "_final_obs": result.ended.copy(), "final_obs_by_seat": by_seat}


class DeviceVectorEnv(CrossVectorEnv):
    """B games of one game on a GPU, both seats played by the caller (self-play), as torch CUDA tensors.

    ``CrossVectorEnv(game, num_envs, device="cuda")`` makes one: the same :class:`~crossenvs.envs.batch.GameBatch`,
    on the device backend. ``reset()`` and ``step(actions)`` return what the CPU env returns, as the batch's own
    device tensors (clone what you keep): observations (B, H, W, C) float32 of the player to act next in each
    game; ``info["action_mask"]`` (B, A) int8 and ``info["current_player"]`` (B,) int64; ``info["seat_rewards"]``
    (B, 2), ``info["final_ply"]`` and ``info["illegal_action"]`` after a step. A finished game restarts in the
    same step (SAME_STEP autoreset); both seats' views of the position it ended on are the rows of
    ``info["final_observations"]`` (B, 2, H, W, C) where it ended (gymnasium's object arrays of the CPU env
    would be a copy to the host). ``random_actions()`` draws a uniform legal action per game on the device, from
    per-game random streams seeded by ``reset(seed=...)``: the CPU env's kernel and streams.
    numba-cuda is loaded only when one is made.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}
    default_device = "cuda"  # the CPU env's __init__, on the device backend

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """One action per game (a (B,) integer tensor on the GPU, or an array), for the player to act there."""
        self._check_open()
        result = self._batch.step(actions)
        info = {"action_mask": result.masks, "current_player": result.players, "seat_rewards": result.seat_rewards,
                "final_ply": result.final_ply, "illegal_action": result.illegal,
                "final_observations": result.final_observations}  # fmt: skip
        return result.observations, result.rewards, result.ended, result.ended & False, info

    def device_positions(self) -> tuple[Any, Any]:
        """Every game's board and meta where they live (numba device arrays, no copy): what a device search reads."""
        return self._batch.device_positions()

    def states(self) -> tuple[np.ndarray, np.ndarray]:
        """(boards, metas) copied to the host: for checks and rendering, not for the hot loop."""
        return self._batch.states()

    def compiled_kernels(self) -> list[Any]:
        """The env's CUDA kernels as numba-cuda compiled them (``crossenvs doctor`` reads their registers)."""
        return self._batch.compiled_kernels()

    def render(self) -> None:
        """Nothing: a device env has no render mode (render ``env.state(i)`` yourself)."""
        return None


def __getattr__(name: str) -> Any:
    """``CrossSB3VecEnv`` where it was first found: it lives in :mod:`crossenvs.envs.sb3_vec`, since importing
    stable-baselines3 imports torch (most of this module's import time, for every two-player env user)."""
    if name == "CrossSB3VecEnv":
        from .sb3_vec import CrossSB3VecEnv

        return CrossSB3VecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
