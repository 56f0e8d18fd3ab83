"""League self-play: the PPO config in which ``main`` meets ``random`` and frozen snapshots of itself."""

from __future__ import annotations

import copy
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("rllib", "the RLlib integration"):
    import torch
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

from crossenvs.support.errors import CheckpointError

from ...checkpoints.rllib import save_rllib
from ...core.game import Game
from .env import AGENTS, CrossMultiAgentEnv
from .module import module_spec

MAIN = "main"
RANDOM = "random"


class LeagueMapping:
    """Agent -> module for one episode: ``main`` in one seat, one league opponent in the other.

    Which seat main takes and which opponent it meets are drawn from the episode id, so both
    agents of an episode agree and over many episodes main plays both seats against every
    opponent equally often. A class rather than a closure: it travels to remote env runners.
    """

    def __init__(self, opponents: Sequence[str] = (RANDOM,)) -> None:
        self.opponents = tuple(opponents)

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if episode is None:
            return MAIN
        draw = zlib.crc32(str(episode.id_).encode())
        if AGENTS.index(agent_id) == draw % 2:
            return MAIN
        return self.opponents[(draw // 2) % len(self.opponents)]


class LeagueCallbacks(RLlibCallback):
    """Logs main's score per finished episode (1 win, 0.5 draw, 0 loss; overall and per opponent)
    and the illegal actions sampled (``illegal_actions``, over the run: the masks keep it 0)."""

    def on_environment_created(self, *, env_runner: Any = None, **kwargs: Any) -> None:
        # Sampling runs the module on one observation at a time: torch's thread pool costs more
        # than such a small pass gains, many times more beside a busy neighbour, so env runners,
        # the local one too, use one thread.
        torch.set_num_threads(1)
        # RLlib's env checker has just stepped one sampled, likely illegal, action: not training's
        for env in _games(env_runner):
            env.illegal_actions = 0
        self._counted = 0

    def on_sample_end(self, *, env_runner: Any = None, metrics_logger: Any = None, **kwargs: Any) -> None:
        total = sum(env.illegal_actions for env in _games(env_runner))
        metrics_logger.log_value("illegal_actions", total - getattr(self, "_counted", 0), reduce="lifetime_sum")
        self._counted = total

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        infos = episode.get_infos(-1)
        modules = {agent: episode.module_for(agent) for agent in infos}
        for agent, info in infos.items():
            if modules[agent] != MAIN or "outcome" not in info:
                continue
            score = (info["outcome"] + 1.0) / 2.0
            opponent = next((module for other, module in modules.items() if other != agent), "none")
            metrics_logger.log_value("main_score", score, window=200)
            metrics_logger.log_value(f"main_score_vs_{opponent}", score, window=200)


def _games(env_runner: Any) -> list[CrossMultiAgentEnv]:
    """The game envs of an env runner (inside RLlib's vector env and gymnasium's wrappers)."""
    return [env.unwrapped for env in getattr(env_runner.env, "envs", [])]


def league_config(
    game: Game,
    *,
    env_runners: int = 0,
    envs_per_runner: int = 1,
    learners: int = 0,
    gpus_per_learner: float = 0.0,
    batch: int = 2000,
    minibatch: int = 250,
    epochs: int = 4,
    lr: float = 3e-4,
    entropy: float = 0.01,
    model: dict[str, Any] | None = None,
    seed: int | None = None,
) -> PPOConfig:
    """PPO with ``main`` (trained) against ``random`` (uniform legal moves); snapshots join later.

    ``batch`` counts env steps per learner per iteration, both seats' (only main's are learned
    from). Masks are in the env, so RLlib's env checker stays on.
    """
    options = dict(game.options)
    return (
        PPOConfig()
        .environment(CrossMultiAgentEnv, env_config={"game": game.name, "options": options})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=learners, num_gpus_per_learner=gpus_per_learner)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=lr,
            entropy_coeff=entropy,
        )
        .multi_agent(policies={MAIN, RANDOM}, policy_mapping_fn=LeagueMapping((RANDOM,)), policies_to_train=[MAIN])
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MAIN: module_spec(game, model),
                    RANDOM: module_spec(game, {**(model or {}), "uniform": True}),
                }
            )
        )
        .callbacks(LeagueCallbacks)
        .debugging(seed=seed)
    )


def league_opponents(algo: Algorithm) -> list[str]:
    """The modules main meets: ``random`` and every snapshot added so far."""
    return [module for module in algo.config.policies if module != MAIN]


def add_snapshot(algo: Algorithm, recent: int | None = None) -> str:
    """Freeze main's current weights as a new league module ``main_v<n>`` (``Algorithm.add_module``).

    From the next episodes on, main meets ``random`` or a snapshot, uniformly; with ``recent``,
    only the newest ``recent`` snapshots (older ones stay loaded but are not drawn).
    """
    snapshots = [module for module in league_opponents(algo) if module != RANDOM]
    module_id = f"{MAIN}_v{len(snapshots) + 1}"
    snapshots.append(module_id)
    if recent is not None:
        snapshots = snapshots[-recent:]
    # the learner's weights: an env runner's copy may be one update behind
    path = f"learner/rl_module/{MAIN}"
    weights = algo.learner_group.get_state(components=path)["learner"]["rl_module"][MAIN]
    algo.add_module(
        module_id=module_id,
        module_spec=copy.deepcopy(algo.config.rl_module_spec.rl_module_specs[MAIN]),
        new_agent_to_module_mapping_fn=LeagueMapping([RANDOM, *snapshots]),
        new_should_module_be_updated=[MAIN],
    )
    # add_module builds a fresh network: give it main's weights, in the learners and in every env
    # runner (Algorithm.set_state syncs only the modules being trained to the env runners)
    algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: weights}}}})
    algo.env_runner_group.foreach_env_runner(_LoadWeights(module_id, weights))
    return module_id


class _LoadWeights:
    """Sets one module's weights in an env runner (a class: it travels to remote runners)."""

    def __init__(self, module_id: str, weights: dict[str, Any]) -> None:
        self.module_id, self.weights = module_id, weights

    def __call__(self, env_runner: Any) -> None:
        env_runner.module[self.module_id].set_state(self.weights)


def restore_league(algo: Algorithm, checkpoint: str | Path, opponents: Sequence[str], recent: int | None) -> None:
    """``algo`` (built by :func:`league_config`) brought back to ``checkpoint``: the league's snapshots
    ``opponents`` (as :func:`league_opponents` listed them when it was saved) added again, then every
    module's weights, the learner's optimiser and the env runners' state read from the checkpoint.

    RLlib restores only modules that exist, so the snapshots are re-created first, in their order
    (their ids are numbered, so the same calls give the same ids); their weights are then pushed to
    every env runner, as :func:`add_snapshot` does.
    """
    for expected in [module for module in opponents if module != RANDOM]:
        added = add_snapshot(algo, recent)
        if added != expected:
            raise CheckpointError(
                f"checkpoint {checkpoint}: its league {list(opponents)} is not one this trainer made "
                f"(expected {added!r}, found {expected!r})"
            )
    algo.restore_from_path(str(Path(checkpoint).resolve()))
    state = algo.learner_group.get_state(components="learner/rl_module")["learner"]["rl_module"]
    for module_id, weights in state.items():
        if module_id != RANDOM:
            algo.env_runner_group.foreach_env_runner(_LoadWeights(module_id, weights))


def save_checkpoint(algo: Algorithm, folder: str | Path, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """``algo`` saved into ``folder`` atomically, with a ``crossenvs.json`` naming the game and ``main``
    (:func:`crossenvs.checkpoints.save_rllib`)."""
    return save_rllib(algo, folder, game, MAIN, extra)
