"""A PPO self-play run's settings: the :class:`Config` read from YAML, checked, and the memory it will need."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from crossenvs.core.registry import make_game
from crossenvs.trainer.config import (
    ConfigError,
    check_config_memory,
    check_ranges,
    load_run_config,
)

#: stable-baselines3 seeds numpy's legacy generator, which takes 32 bits
SB3_SEED_LIMIT = 2**32


@dataclasses.dataclass
class Config:
    """A run's settings; ``crossenvs/configs/<game>.yaml`` documents each one."""

    game: str
    options: dict = dataclasses.field(default_factory=dict)
    policy: str = "cnn"
    net_width: int = 128
    num_envs: int = 64
    total_steps: int = 1_000_000
    max_minutes: float = 8.0
    snapshot_every: int = 50_000
    pool_size: int = 8
    random_share: float = 0.25
    learning_rate: float = 3e-4
    n_steps: int = 64
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 0.99
    ent_coef: float = 0.01
    checkpoint_every: int = 100_000
    eval_games: int = 200
    seed: int = 0


def load_config(path: Path | str, overrides: dict[str, Any] | None = None) -> Config:
    """Read and check a YAML config: unknown keys and wrong types stop the run, naming the key."""
    return load_run_config(Config, path, overrides, _check_ranges)


def _check_ranges(config: Config, where: str) -> None:
    """Values out of range, a policy that does not exist, or a config too big for memory, refused."""
    make_game(config.game, **config.options)  # InvalidOptionError names a bad option
    if config.policy not in ("cnn", "mlp"):
        raise ConfigError(f"{where}: 'policy' must be 'cnn' or 'mlp', got {config.policy!r}")
    check_ranges(
        config,
        where,
        at_least_one=("num_envs", "total_steps", "snapshot_every", "pool_size", "n_steps", "batch_size", "n_epochs",
                      "checkpoint_every", "eval_games", "net_width"),
    )  # fmt: skip
    checks = [
        ("seed", config.seed < SB3_SEED_LIMIT, "below 2**32 (stable-baselines3 seeds numpy's 32-bit generator)"),
        ("random_share", 0.0 <= config.random_share <= 1.0, "between 0 and 1"),
        ("learning_rate", config.learning_rate > 0, "positive"),
        ("gamma", 0 < config.gamma <= 1, "in (0, 1]"),
        ("ent_coef", config.ent_coef >= 0, "0 or more"),
        ("batch_size", config.batch_size <= config.num_envs * config.n_steps, "at most num_envs * n_steps"),
    ]
    for name, ok, what in checks:
        if not ok:
            raise ConfigError(f"{where}: '{name}' must be {what}, got {getattr(config, name)}")
    check_config_memory(memory_needed(config), where, "num_envs, n_steps, net_width or pool_size")


def memory_needed(config: Config) -> dict[str, int]:
    """Bytes a run needs, estimated from the config alone (before any folder or buffer exists): the rollout
    buffer (float32 observations and masks, flattened once more for training), the envs, and the policy's
    parameters times weights, gradients and Adam's two moments, plus the frozen copies in the opponent pool."""
    game = make_game(config.game, **config.options)
    cells, planes = math.prod(game.observation_shape[:2]), game.observation_shape[2]
    observation, actions, width = cells * planes, game.num_actions, config.net_width
    if config.policy == "cnn":  # BoardCNN, then SB3's default 64-64 heads
        parameters = 9 * 64 * (planes + 64) + 64 * cells * width + 2 * (width * 64 + 64 * 64) + 64 * (actions + 1)
    else:  # the flattened board into two width-width MLPs (policy and value)
        parameters = 2 * (observation * width + width * width) + width * (actions + 1)
    rollout = config.num_envs * config.n_steps * 4 * (observation + actions + 8)
    return {
        "rollout buffer (num_envs x n_steps)": 2 * rollout,
        "envs (num_envs)": config.num_envs * 4 * 4 * (observation + actions),
        "policy and optimiser (net_width)": 16 * parameters,
        "opponent pool (pool_size x net_width)": 4 * parameters * (config.pool_size + 1),
    }
