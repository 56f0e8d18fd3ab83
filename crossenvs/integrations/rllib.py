"""Ray RLlib (new API stack, ``ray[rllib]==2.60``) for every game: env, masked model, league, player.

What RLlib offers out of the box does not fit these games: its ``PettingZooEnv`` hands
``Dict`` observations to PPO, which has no default encoder for them; its action-masking
module expects the keys ``observations`` and ``action_mask``; its default CNN only knows a few
image sizes. This module is the glue, tested on all five games:

* :class:`CrossMultiAgentEnv`: a turn-based ``MultiAgentEnv``. Only the agent to act gets an
  observation, ``{"observations": float32 (H, W, C), "action_mask": float32 (num_actions,)}``,
  so when the rules give one agent two decisions in a row (Crosse hops and extra turns, Charing
  Cross re-placements) it simply gets two observations in a row. At the end both agents get
  their last observation and their reward (+1/-1/0). An illegal action (RLlib's env checker
  steps one sampled action) ends the game with -1 for the mover and is counted in
  ``illegal_actions``, so a run can show that training sampled none.
* :class:`MaskedBoardModule`: a torch ``RLModule`` for PPO sized from the observation space:
  3x3 convolutions that keep the board's height and width, a policy head over all action ids
  and a value head. Logits of illegal actions are set to ``FLOAT_MIN`` in every forward pass
  (sampling, inference and training), so an illegal action has probability 0. With
  ``model_config={"uniform": True}`` it is the random opponent: uniform over legal actions.
* League self-play: :func:`league_config` builds the PPO config in which ``main`` plays both
  seats against ``random`` and against frozen snapshots of itself; :func:`add_snapshot` adds one
  with ``Algorithm.add_module``; :class:`LeagueCallbacks` logs main's score and illegal actions.
* :class:`RLlibPlayer`: a checkpoint as a :class:`crossenvs.players.Player` (spec
  ``rllib:<path>``), loaded without starting Ray, playing the most likely legal action.
"""

from __future__ import annotations

import copy
import json
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from ..core.actions import action_id
from ..core.errors import CallOrderError, CheckpointError, InvalidActionError, InvalidOptionError
from ..core.game import Game
from ..core.state import State
from ..envs.aec import resolve_game
from ..players import Player, Positions

OBS = "observations"  # the keys RLlib's action-masking example uses
MASK = "action_mask"
AGENTS = ("player_0", "player_1")
MAIN = "main"
RANDOM = "random"
#: written into every checkpoint folder: which game (and options) its modules play
METADATA = "crossenvs.json"
#: the model of ``main`` unless a config says otherwise
DEFAULT_MODEL = {"channels": 32, "layers": 2, "head_channels": 4, "value_hidden": 64}


# ----------------------------------------------------------------------------- the env
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


# ----------------------------------------------------------------------------- the model
class MaskedBoardModule(TorchRLModule, ValueFunctionAPI):
    """A small CNN for PPO over one game's board, illegal actions masked out of every forward pass.

    ``model_config``: ``channels`` per 3x3 convolution, ``layers`` of them (padding keeps the
    board's height and width, so any board size works), ``head_channels`` (a 1x1 convolution
    before the flattened policy layer keeps it small for Crossings' 3,585 actions),
    ``value_hidden``; ``uniform: True`` makes it the random opponent (zero logits, then masked).
    """

    def setup(self) -> None:
        config = {**DEFAULT_MODEL, **(self.model_config or {})}
        height, width, planes = self.observation_space[OBS].shape
        actions, channels = int(self.action_space.n), int(config["channels"])
        layers: list[nn.Module] = []
        for index in range(int(config["layers"])):
            layers += [nn.Conv2d(planes if index == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        heads = int(config["head_channels"])
        self.policy = nn.Sequential(
            nn.Conv2d(channels, heads, 1), nn.ReLU(), nn.Flatten(), nn.Linear(heads * height * width, actions)
        )
        self.value = nn.Sequential(
            nn.Conv2d(channels, 2, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * height * width, int(config["value_hidden"])),
            nn.ReLU(),
            nn.Linear(int(config["value_hidden"]), 1),
        )
        self.uniform = bool(config.get("uniform", False))

    def _embed(self, batch: dict[str, Any]) -> torch.Tensor:
        return self.trunk(batch[Columns.OBS][OBS].permute(0, 3, 1, 2))

    def masked_logits(self, embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Policy logits with ``FLOAT_MIN`` on every action whose mask is 0: probability exactly 0."""
        logits = torch.zeros(mask.shape, device=mask.device) if self.uniform else self.policy(embeddings)
        return logits.masked_fill(mask <= 0, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(embeddings, batch[Columns.OBS][MASK])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {
            Columns.ACTION_DIST_INPUTS: self.masked_logits(embeddings, batch[Columns.OBS][MASK]),
            Columns.EMBEDDINGS: embeddings,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.value(embeddings).squeeze(-1)


def module_spec(game: Game, model_config: dict[str, Any] | None = None) -> RLModuleSpec:
    """The spec of a :class:`MaskedBoardModule` for ``game`` (spaces given, never guessed)."""
    return RLModuleSpec(
        module_class=MaskedBoardModule,
        observation_space=observation_space(game),
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config={**DEFAULT_MODEL, **(model_config or {})},
    )


# ----------------------------------------------------------------------------- the league
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
        # Sampling runs the module on one observation at a time. With torch's default thread
        # pool a 2-core machine with anything else running spent 9.5 ms per forward pass
        # (1 thread: 0.67 ms), so env runners, the local one too, use one thread.
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


# ----------------------------------------------------------------------------- checkpoints
def save_checkpoint(algo: Algorithm, folder: str | Path, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """``algo.save_to_path`` into ``folder``, atomically: written beside it, then renamed, with a
    ``crossenvs.json`` naming the game, so a reader never finds half a checkpoint."""
    folder = Path(folder)
    temporary = folder.with_name(f".{folder.name}.tmp")
    algo.save_to_path(str(temporary.resolve()))  # pyarrow, underneath, wants absolute paths
    document = {"game": game.name, "options": dict(game.options), "module": MAIN, **(extra or {})}
    (temporary / METADATA).write_text(json.dumps(document, indent=2))
    os.replace(temporary, folder)
    return folder


def module_folder(path: str | Path, module: str = MAIN) -> tuple[Path, dict[str, Any] | None]:
    """The RLModule folder a path means, and the checkpoint's ``crossenvs.json`` when there is one.

    ``path`` may be an Algorithm checkpoint (``save_to_path``), a run folder of
    ``training/rllib_selfplay.py`` (its newest checkpoint) or an RLModule folder itself.
    """
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"rllib checkpoint {path} does not exist")
    if (path / "checkpoints").is_dir():
        found = sorted(p for p in (path / "checkpoints").iterdir() if p.is_dir() and not p.name.startswith("."))
        if not found:
            raise CheckpointError(f"rllib run {path} has no checkpoints yet (checkpoints/ is empty)")
        path = found[-1]
    # an Algorithm checkpoint and a MultiRLModule folder hold a class file too: look inside first
    candidates = [path / "learner_group" / "learner" / "rl_module" / module, path / module, path]
    folder = next((c for c in candidates if (c / "class_and_ctor_args.pkl").is_file()), None)
    if folder is None:
        raise CheckpointError(
            f"{path} is no RLlib checkpoint: expected an Algorithm checkpoint (with learner_group/learner/"
            f"rl_module/{module}/), a run folder of training/rllib_selfplay.py, or an RLModule folder"
        )
    metadata = next((p / METADATA for p in (folder, *folder.parents) if (p / METADATA).is_file()), None)
    return folder, (json.loads(metadata.read_text()) if metadata else None)


def load_module(path: str | Path, game: Game | None = None, module: str = MAIN) -> RLModule:
    """The RLModule of a checkpoint, on CPU, without starting Ray; checked against ``game`` if given."""
    folder, metadata = module_folder(path, module)
    try:
        loaded = RLModule.from_checkpoint(folder.resolve())  # pyarrow, underneath, wants absolute paths
    except Exception as exc:  # pickle, torch and pyarrow errors all mean "unreadable"
        raise CheckpointError(f"rllib checkpoint {folder} is unreadable: {type(exc).__name__}: {exc}") from None
    if game is not None:
        check_fits(loaded, metadata, game, path)
    loaded.eval()
    return loaded


def check_fits(module: RLModule, metadata: dict[str, Any] | None, game: Game, path: str | Path) -> None:
    """Refuse a module trained for another game or board size, naming both."""
    if metadata is not None and (metadata["game"], metadata["options"]) != (game.name, dict(game.options)):
        raise CheckpointError(
            f"rllib checkpoint {path} was trained on {metadata['game']} {metadata['options']}, not on {game!r}"
        )
    space = module.observation_space
    shape = tuple(space[OBS].shape) if isinstance(space, gym.spaces.Dict) else None
    if shape != game.observation_shape or int(module.action_space.n) != game.num_actions:
        raise CheckpointError(
            f"rllib checkpoint {path} takes observations {shape} with {module.action_space.n} actions; {game!r} has "
            f"{game.observation_shape} and {game.num_actions}: another game or board size"
        )


# ----------------------------------------------------------------------------- the player
class RLlibPlayer(Player):
    """An RLlib checkpoint's module as a player: the most likely legal action, all games of a batch
    in one forward pass. Loaded in-process (no Ray cluster), so arenas start it in seconds."""

    vectorized = True

    def __init__(self, path: str | Path, game: Game | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        self.path = Path(path)
        self.module = load_module(path, game)
        self._checked: set[tuple[str, tuple]] = set()
        self.name = f"rllib-{self.path.resolve().name}"

    def act(self, game: Game, state: State) -> int:
        observation = game.observe(state, game.current_player(state))[None]
        return int(self._decide(game, observation, game.legal_mask(state)[None])[0])

    def act_batch(self, positions: Positions) -> np.ndarray:
        return self._decide(positions.game, positions.observations, positions.masks)

    def _decide(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        key = (game.name, tuple(sorted(game.options.items())))
        if key not in self._checked:  # once per game kind, not per move
            check_fits(self.module, module_folder(self.path)[1], game, self.path)
            self._checked.add(key)
        batch = {OBS: torch.as_tensor(observations, dtype=torch.float32), MASK: torch.as_tensor(masks).float()}
        with torch.no_grad():
            logits = self.module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=1).numpy().astype(np.int64)


def from_spec(argument: str, game: Game | None, seed: int | None) -> RLlibPlayer:
    """``rllib:<path>``: an Algorithm checkpoint, a run folder (its newest checkpoint) or an RLModule folder."""
    if not argument:
        raise InvalidOptionError("player 'rllib' needs a checkpoint: rllib:<path>, e.g. rllib:runs/rllib/crosse-<time>")
    return RLlibPlayer(argument, game=game, seed=seed)
