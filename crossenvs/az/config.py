"""An AlphaZero run's settings: the :class:`Config` read from YAML, checked, and the memory it will need.

Everything is checked before any folder exists: an unknown game or option, a value out of range, a
player spec that does not parse, or buffers and networks that cannot fit in this machine's memory.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path
from typing import Any

from crossenvs.az.network import PRECISION_CHOICES
from crossenvs.core.registry import make_game
from crossenvs.eval.ladder.adaptive import MAX_GAMES
from crossenvs.players import make_player
from crossenvs.trainer.config import (
    ConfigError,
    check_config_memory,
    check_ranges,
    load_run_config,
)


@dataclasses.dataclass
class Config:
    """A run's settings; ``crossenvs/configs/alphazero/crisscross6.yaml`` documents each one."""

    game: str
    options: dict = dataclasses.field(default_factory=dict)
    num_envs: int = 256
    simulations: int = 32
    max_considered: int = 16
    fast_simulations: int = 0  # playout-cap randomisation: 0 off, else the cheap searches' simulations
    full_search_share: float = 0.25  # with fast_simulations: the share of moves searched in full (and learnt from)
    random_opening_plies: int = 0  # self-play games open with 0 to this many random moves, not learnt from
    channels: int = 32
    blocks: int = 3
    learning_rate: float = 0.002
    weight_decay: float = 0.0001
    batch_size: int = 512
    replay_size: int = 100_000
    train_ratio: float = 4.0
    max_minutes: float = 8.0
    checkpoint_minutes: float = 1.0
    eval_games: int = 100
    eval_simulations: int = 64
    eval_opponent: str = "mcts:1000"
    eval_ladder_games: int = MAX_GAMES  # crossenvs rate's default: one procedure, one rating
    precision: str = "auto"
    seed: int = 0
    # only with --actors (crossenvs.az.ray_actors)
    actor_steps: int = 4
    publish_every: int = 8
    max_policy_lag: int = 1000
    actor_restarts: int = 10

    def check(self, where: str, local_actors: int = 0) -> None:
        """Refuse a config that cannot run, before any folder exists; ``local_actors``: Ray actors this machine
        will also hold (``--actors`` without ``--address``), counted in the memory it needs."""
        game = make_game(self.game, **self.options)  # unknown game or option: a clear error
        check_ranges(
            self,
            where,
            at_least_one=("num_envs", "max_considered", "channels", "batch_size", "replay_size", "eval_games",
                          "actor_steps", "publish_every"),
            not_negative=("simulations", "random_opening_plies", "blocks", "eval_simulations", "eval_ladder_games",
                          "max_policy_lag", "actor_restarts", "weight_decay"),
            positive=("learning_rate", "train_ratio", "checkpoint_minutes"),
        )  # fmt: skip
        self.check_playout_cap(where)
        if self.max_policy_lag < self.publish_every:
            raise ConfigError(
                f"{where}: 'max_policy_lag' ({self.max_policy_lag}) must be at least 'publish_every' "
                f"({self.publish_every}), or the actors' positions would be dropped as soon as new weights are out"
            )
        if self.precision not in PRECISION_CHOICES:
            choices = ", ".join(PRECISION_CHOICES)
            raise ConfigError(f"{where}: 'precision' must be one of {choices}, got {self.precision!r}")
        make_player(self.eval_opponent, game=game)  # an unknown player spec stops the run before it starts
        needed = memory_needed(self, game)
        if local_actors:
            needed[f"{local_actors} local Ray actor(s) (--actors)"] = local_actors * actor_memory_needed(self, game)
            needed["a local Ray's own processes"] = LOCAL_RAY_BYTES
        keys = "num_envs, simulations, replay_size, channels or blocks" + (", or --actors" if local_actors else "")
        check_config_memory(needed, where, keys)

    def check_playout_cap(self, where: str) -> None:
        if self.fast_simulations < 0 or (self.fast_simulations and self.fast_simulations >= self.simulations):
            raise ConfigError(
                f"{where}: 'fast_simulations' must be 0 (every move searched in full) or from 1 to 'simulations' - 1 "
                f"({self.simulations - 1}), got {self.fast_simulations}"
            )
        if not 0 < self.full_search_share <= 1:
            raise ConfigError(
                f"{where}: 'full_search_share' must be above 0 and at most 1 (the share of moves searched in full), "
                f"got {self.full_search_share}"
            )


def memory_needed(config: Config, game) -> dict[str, int]:
    """Bytes a run needs, estimated from the config before any folder or buffer exists: the replay buffer (and
    the copy written with latest.pt), the search trees, the games' histories, the network's parameters times
    weights, gradients and AdamW's two moments, and its activations for a training batch or a search step."""
    height, width, planes = game.observation_shape
    cells, actions, observation = height * width, game.num_actions, height * width * planes
    channels = config.channels
    nodes = config.simulations + 1 + (config.fast_simulations + 1 if config.fast_simulations else 0)  # both trees
    parameters = 9 * channels * (planes + 2 * channels * config.blocks) + cells * (4 * actions + 2 * 64) + 64
    meta = len(game.initial_state().meta)
    return {
        "replay buffer (replay_size)": 2 * config.replay_size * replay_row_bytes(game),
        "search trees (num_envs x simulations)": config.num_envs * nodes * (cells + 4 * meta + 8 * actions + 16),
        "game histories (num_envs)": config.num_envs * 2 * cells * 4 * (observation + actions),
        "network and optimiser (channels, blocks)": 16 * parameters,
        "activations (batch_size, num_envs, channels)": 12
        * max(3 * config.batch_size, config.num_envs)
        * channels
        * cells
        * (2 * config.blocks + 2),
    }


#: a self-play actor's process before its games: Python, torch, numba's kernels and Ray's worker, its measured
#: memory rounded up (measured: docs/benchmarks.md, section 'AlphaZero on Ray')
ACTOR_PROCESS_BYTES = 300 * 2**20
#: the processes of a Ray started on this machine (raylet, GCS, agents), measured the same way and rounded up
LOCAL_RAY_BYTES = 400 * 2**20


def actor_memory_needed(config: Config, game) -> int:
    """Bytes one Ray actor needs: its process, and the search trees, histories, weights and activations of its
    own ``num_envs`` games (no replay buffer, optimiser or training batch: those stay with the learner)."""
    parts = memory_needed(config, game)
    height, width, _ = game.observation_shape
    activations = 12 * config.num_envs * config.channels * height * width * (2 * config.blocks + 2)
    return (
        ACTOR_PROCESS_BYTES
        + parts["search trees (num_envs x simulations)"]
        + parts["game histories (num_envs)"]
        + parts["network and optimiser (channels, blocks)"] // 4
        + activations
    )


def replay_row_bytes(game) -> int:
    """One position in the replay buffer: its observation and policy in float16, its result in float32."""
    return 2 * math.prod(game.observation_shape) + 2 * game.num_actions + 4


def load_config(path: Path | str, overrides: dict[str, Any] | None = None, local_actors: int = 0) -> Config:
    """Read and check a YAML config; ``overrides`` (the command line's) replace its keys where not None."""
    return load_run_config(Config, path, overrides, functools.partial(Config.check, local_actors=local_actors))
