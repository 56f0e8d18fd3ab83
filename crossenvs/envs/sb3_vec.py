"""The batched env as a stable-baselines3 ``VecEnv``: one learner, the opponent inside ``step``.

Apart from :mod:`crossenvs.envs.vector` (the two-player face) because stable-baselines3 imports torch, a wait that a
user of the two-player env, a gymnasium loop or a pgx-style benchmark need not sit through.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from crossenvs.kernels import batch_kernels as bk
from crossenvs.kernels import state as st
from crossenvs.support.actions import action_ids
from crossenvs.support.checks import check_seed
from crossenvs.support.errors import InvalidActionError, InvalidOptionError
from crossenvs.support.extras import missing_extra

from .. import players
from ..core.game import Game
from .batch import GameBatch

try:  # the SB3 face needs the train extra; the two-player face does not
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv
except ImportError:  # pragma: no cover - exercised only without stable-baselines3
    _SB3VecEnv = object


def _seat_rewards(status: np.ndarray) -> np.ndarray:
    """(n, 2) returns of games from their status codes (0 while playing)."""
    return st.SEAT_RETURNS[status].astype(np.float32)


class CrossSB3VecEnv(_SB3VecEnv):
    """A stable-baselines3 ``VecEnv`` of B games against an opponent that plays inside ``step``.

    The learner's seat is drawn per game at every reset, from that game's own random stream
    (derived from ``seed``; a game plays the same whatever the others do). ``opponent`` is any
    player spec of :func:`crossenvs.players.make_player` (default ``"random"``, drawn in numba from
    the games' own streams; ``"mcts:200"``, a model, a Player...): its ``act_batch`` is called
    once per round for all games where it must act, and its ``start_games`` hook when games
    start (training's opponent pool picks a member per game there).
    ``action_masks()`` (and ``env_method("action_masks")``) gives the learner's masks, which is
    what sb3-contrib's MaskablePPO reads. Rewards are the learner's: +1 / -1 / 0 at the end, -1
    for an illegal learner action. Each ``infos[i]`` has ``learner_seat`` and, when game i just
    ended, ``terminal_observation`` (and ``illegal_action`` if that ended it).
    """

    def __init__(
        self,
        game: str | Game = "crisscross",
        num_envs: int = 64,
        opponent: Any = "random",
        seed: int | None = None,
        **options: Any,
    ) -> None:
        if _SB3VecEnv is object:
            raise missing_extra("CrossSB3VecEnv", "stable_baselines3", "train")
        seed = check_seed(seed)
        self._batch = GameBatch(game, num_envs, options)
        self.game = self._batch.game
        self.all_ids = np.arange(self._batch.num_envs, dtype=np.int64)
        self.opponent = players.make_player(opponent, game=self.game, seed=seed)
        observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32)
        self.render_mode = None  # SB3 reads it; these games are drawn through the engine (game.render_rgb)
        super().__init__(self._batch.num_envs, observation_space, spaces.Discrete(self.game.num_actions))
        self._seed_streams(seed)
        self.learner = np.zeros(self.num_envs, dtype=np.int64)
        self._masks = np.zeros((self.num_envs, self.game.num_actions), dtype=np.int8)
        self._actions = np.zeros(self.num_envs, dtype=np.int64)

    # ----------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        if getattr(self, "_seeds", None) and self._seeds[0] is not None:  # VecEnv.seed(seed) was called
            self._seed_streams(check_seed(self._seeds[0]))
            self._reset_seeds()
        ids = self.all_ids
        self._start_games(ids)
        return self._learner_view()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """SB3's seeding (used at the next ``reset``), with the seed checked now."""
        return super().seed(check_seed(seed))

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = action_ids(actions, self.num_envs, self.game.num_actions)

    def step_wait(self):
        batch = self._batch
        ok = batch.apply(self.all_ids, self._actions)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        rewards[~ok] = -1.0
        illegal = ~ok
        ended = illegal.copy()
        self._let_opponent_play(np.flatnonzero(ok), ended)
        finished = ended | (batch.status() != st.STATUS_PLAYING)
        won = _seat_rewards(batch.status())
        rewards[finished & ok] = won[finished & ok, self.learner[finished & ok]]
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if finished.any():
            ids = np.flatnonzero(finished)
            final, _ = batch.view(ids, self.learner[ids])
            for row, index in enumerate(ids):
                infos[index]["terminal_observation"] = final[row]
                if illegal[index]:
                    infos[index]["illegal_action"] = True
            self._start_games(ids)
        for index in range(self.num_envs):
            infos[index]["learner_seat"] = int(self.learner[index])
        return self._learner_view(), rewards, finished, infos

    def action_masks(self) -> np.ndarray:
        """(B, A) bool: the learner's legal actions in every game."""
        return self._masks.astype(bool)

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    # ----------------------------------------------------------------- internals
    def _start_games(self, ids: np.ndarray) -> None:
        """Fresh games with a newly drawn learner seat; the opponent moves first where it must."""
        self._batch.restart_games(ids)
        self.learner[ids] = self._uniforms(ids) < 0.5
        self.opponent.start_games(ids, self._uniforms(ids))
        self._let_opponent_play(ids, np.zeros(self.num_envs, dtype=bool))

    def _let_opponent_play(self, ids: np.ndarray, ended: np.ndarray) -> None:
        """The opponent decides in games ``ids`` until the learner is to act or the game is over."""
        batch = self._batch
        while True:
            ids = ids[(batch.status()[ids] == st.STATUS_PLAYING) & (batch.to_move(ids) != self.learner[ids])]
            if len(ids) == 0:
                return
            seats = 1 - self.learner[ids]
            observations, masks = batch.view(ids, seats)
            actions = self._opponent_actions(ids, observations, masks)
            ok = batch.apply(ids, actions)
            if not ok.all():
                raise InvalidOptionError(f"the opponent chose illegal actions {actions[~ok][:5].tolist()}")

    def _seed_streams(self, seed: int | None) -> None:
        """Per-game random streams (learner seats, random opponent moves) derived from ``seed``."""
        self._keys = bk.game_keys(seed, self.num_envs)
        self._draws = np.zeros(self.num_envs, dtype=np.uint64)

    def _uniforms(self, ids: np.ndarray) -> np.ndarray:
        out = np.empty(len(ids), dtype=np.float64)
        bk.per_game_uniforms(self._keys, self._draws, bk.as_ids(ids), out)
        return out

    def _opponent_actions(self, ids: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = self._batch
        positions = players.Positions(
            self.game, batch.boards[ids], batch.metas[ids], observations, masks, ids, uniforms=self._uniforms(ids)
        )
        chosen = self.opponent.act_batch(positions)
        try:
            return np.asarray(chosen, dtype=np.int64).reshape(len(ids))
        except (TypeError, ValueError):
            raise InvalidActionError(
                f"the opponent {self.opponent.name} returned {chosen!r} for {len(ids)} games; "
                f"act_batch must give one integer action id per game"
            ) from None

    def _learner_view(self) -> np.ndarray:
        observations, self._masks = self._batch.view(self.all_ids, self.learner)
        return observations

    def _indices(self, indices) -> range | list[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)
