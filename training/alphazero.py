"""Gumbel AlphaZero: self-play with tree search over hundreds of games at once, in one file.

    python training/alphazero.py --config configs/alphazero/crisscross6.yaml    # a new run under runs/
    python training/alphazero.py --resume runs/az-crisscross-20261123-140000    # continue a run
    python training/alphazero.py --resume runs/... --from-checkpoint runs/.../checkpoints/seconds_000300.pt
    python training/alphazero.py --config ... --max-minutes 2 --device auto     # CUDA when present
    python training/alphazero.py --config ... --actors 2 [--address HOST:6379] # self-play on Ray actors

How it works:

* **Self-play.** ``num_envs`` games are stepped together in the vector env. Before every move,
  :class:`crossenvs.az.search.GumbelSearch` searches all of them at once: each simulation walks
  every game's tree in numba over the game's real kernels, and the network evaluates all the new
  leaves in one forward pass. Root actions are chosen by Gumbel sampling with sequential halving
  (so 16-64 simulations still improve the policy), and the policy target is the improved policy
  ``softmax(logits + sigma(completed Q))`` (Danihelka et al., 2022; mctx's ``gumbel_muzero_policy``).
  A player who acts twice in a row (Crosse hops, Charing Cross re-placements) keeps the sign of
  its values: the search flips signs only where the player to move changes.
* **Learning.** Each finished game's positions enter a replay buffer with the game's result for
  the player who moved there. After every search step the network (a small residual CNN,
  :class:`crossenvs.az.network.AlphaZeroNet`) takes ``train_ratio`` gradient samples per new
  position: cross-entropy to the improved policy plus squared error to the result. Each sample
  is seen through one of the game's symmetries (``Game.symmetries``; Crisscross has four).
* **A run's folder.** ``config.yaml``; ``checkpoints/latest.pt`` (weights, optimiser, counters;
  written atomically every ``checkpoint_minutes`` and at the end), ``checkpoints/final.pt``, and
  ``checkpoints/seconds_<n>.pt`` (the network after n seconds, for ``crossenvs rating-plot``);
  ``tensorboard/``; ``summary.json``. ``--resume`` continues from ``latest.pt``, which keeps the
  replay buffer too (float16, ``replay_size`` positions: 21 MB for configs/alphazero/crisscross6.yaml).
  A run killed before its first checkpoint resumes from its config.yaml; a kill while writing
  leaves hidden ``.<name>.tmp`` files, removed on resume. ``--resume RUN --evaluate-only`` runs the
  final evaluation again (for a run killed during its final match). Should ``latest.pt`` be unreadable, the error names the newest good
  snapshot and the ``--from-checkpoint`` command that continues from it (a snapshot keeps the
  network and counters, not the optimiser, which starts afresh).
* **On Ray** (``--actors N``, :mod:`alphazero_ray`): N actors play the self-play, each its own
  batch of games with its own copy of the network, and this process is the learner (:class:`Run`
  is shared by both paths, so the folder, checkpoints and ``--resume`` are the same).
* **The end.** The final network plays ``eval_games`` games against ``eval_opponent`` (seats
  alternating) searching with ``eval_simulations``, through the project's arena, is rated on the
  game's fixed-anchor ladder (``eval_ladder_games`` games at most, :mod:`crossenvs.eval.ladder`),
  and the run prints one line: steps, positions per second, the score, the ladder rating.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import sys
import time
import typing
from pathlib import Path
from typing import Any

import numpy as np
import torch

import crossenvs
from crossenvs import checkpoints as ck
from crossenvs.az.network import PRECISION_CHOICES, AlphaZeroNet, autocast, evaluator, fastest_precision
from crossenvs.az.player import AlphaZeroPlayer
from crossenvs.az.search import GumbelSearch
from crossenvs.core.checks import check_seed
from crossenvs.core.errors import CheckpointError
from crossenvs.core.threads import torch_thread_choice
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.eval.arena import match
from crossenvs.eval.ladder import LadderError, check_agent, load_ladder, rate
from crossenvs.players import make_player

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    ConfigError,
    check_config_memory,
    check_from_checkpoint,
    check_resume_folder,
    check_wall_clock,
    config_from_dict,
    read_yaml_config,
    remove_incomplete,
    resume_offer,
    run_cli,
    script_text,
    set_aside,
    start_run_folder,
    trainer_parser,
    write_atomically,
)

ROOT = Path(__file__).resolve().parent.parent
#: the checkpoints a run can continue from: latest.pt (with the optimiser), final.pt, the snapshots
CHECKPOINT_FILE = ck.AZ_FILES


@dataclasses.dataclass
class Config:
    """A run's settings; ``configs/alphazero/crisscross6.yaml`` documents each one."""

    game: str
    options: dict = dataclasses.field(default_factory=dict)
    num_envs: int = 256
    simulations: int = 32
    max_considered: int = 16
    fast_simulations: int = 0  # playout-cap randomisation: 0 off, else the cheap searches' simulations
    full_search_share: float = 0.25  # with fast_simulations: the share of moves searched in full (and learnt from)
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
    eval_ladder_games: int = 60
    precision: str = "auto"
    seed: int = 0
    # only with --actors (training/alphazero_ray.py)
    actor_steps: int = 4
    publish_every: int = 8
    max_policy_lag: int = 1000
    actor_restarts: int = 10

    def check(self, where: str, local_actors: int = 0) -> None:
        """Refuse a config that cannot run, before any folder exists; ``local_actors``: Ray actors this machine
        will also hold (``--actors`` without ``--address``), counted in the memory it needs."""
        game = crossenvs.make_game(self.game, **self.options)  # unknown game or option: a clear error
        for name in (
            "num_envs", "max_considered", "channels", "batch_size", "replay_size", "eval_games", "actor_steps",
            "publish_every",
        ):  # fmt: skip
            if getattr(self, name) < 1:
                raise ConfigError(f"{where}: '{name}' must be at least 1, got {getattr(self, name)}")
        for name in (
            "simulations",
            "blocks",
            "eval_simulations",
            "eval_ladder_games",
            "max_policy_lag",
            "actor_restarts",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"{where}: '{name}' must be 0 or more, got {getattr(self, name)}")
        check_seed(self.seed, f"{where}: 'seed'")
        check_wall_clock(self.max_minutes, where)
        for name in ("learning_rate", "train_ratio", "checkpoint_minutes"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{where}: '{name}' must be positive, got {getattr(self, name)}")
        self.check_playout_cap(where)
        if self.max_policy_lag < self.publish_every:
            raise ConfigError(
                f"{where}: 'max_policy_lag' ({self.max_policy_lag}) must be at least 'publish_every' "
                f"({self.publish_every}), or the actors' positions would be dropped as soon as new weights are out"
            )
        if self.weight_decay < 0:
            raise ConfigError(f"{where}: 'weight_decay' must be 0 or more, got {self.weight_decay}")
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


#: a self-play actor's process before its games: Python, torch, numba's kernels and Ray's worker (measured
#: 260 MiB of memory its own, Crisscross 6x6 on 2026-11-26, psutil's USS, after its first steps)
ACTOR_PROCESS_BYTES = 300 * 2**20
#: the processes of a Ray started on this machine (raylet, GCS, agents: 390 MiB measured the same way)
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
    raw = read_yaml_config(path)
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    config = config_from_dict(Config, raw, str(path))
    config.check(str(path), local_actors)
    return config


# ----------------------------------------------------------------------------- replay
class Replay:
    """A ring buffer of (observation, improved policy, result for the mover)."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int) -> None:
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float16)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float16)
        self.results = np.zeros(capacity, dtype=np.float32)
        self.size = self.next = 0

    def add(self, observations: np.ndarray, policies: np.ndarray, results: np.ndarray) -> None:
        capacity = len(self.results)
        observations, policies, results = observations[-capacity:], policies[-capacity:], results[-capacity:]
        rows = (self.next + np.arange(len(results))) % capacity
        self.observations[rows], self.policies[rows], self.results[rows] = observations, policies, results
        self.next = (self.next + len(results)) % capacity
        self.size = min(capacity, self.size + len(results))

    def sample(self, rng: np.random.Generator, count: int, symmetries) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` positions drawn uniformly, each seen through one of the game's symmetries at random."""
        rows = rng.integers(self.size, size=count)
        observations = self.observations[rows].astype(np.float32)
        policies = self.policies[rows].astype(np.float32)
        cells = np.stack([cell for cell, _ in symmetries])
        actions = np.stack([action for _, action in symmetries])
        chosen = rng.integers(len(symmetries), size=count)
        flat = observations.reshape(count, cells.shape[1], -1)
        observations = np.take_along_axis(flat, cells[chosen][:, :, None], axis=1).reshape(observations.shape)
        policies = np.take_along_axis(policies, actions[chosen], axis=1)
        return observations, policies, self.results[rows]

    def state(self) -> dict[str, torch.Tensor]:
        """The positions held, oldest first, as tensors (saved with latest.pt, read back with weights_only=True)."""
        order = np.roll(np.arange(self.size), -self.next) if self.size == len(self.results) else np.arange(self.size)
        arrays = {"observations": self.observations, "policies": self.policies, "results": self.results}
        return {name: torch.from_numpy(np.ascontiguousarray(array[order])) for name, array in arrays.items()}

    def restore(self, state: dict[str, Any], path: Path) -> None:
        """The positions of :meth:`state` added back (the newest ``capacity`` of them, should the config have shrunk)."""
        try:
            observations, policies, results = (state[name].numpy() for name in ("observations", "policies", "results"))
            self.add(observations, policies, results)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise CheckpointError(
                f"checkpoint {path} holds a replay buffer that does not fit this run: {exc!r}"
            ) from None


# ----------------------------------------------------------------------------- self-play
class Finished(typing.NamedTuple):
    """The positions of the games one search step ended, with each one's result for its mover."""

    observations: np.ndarray
    policies: np.ndarray
    results: np.ndarray
    ended: int  # games ended
    tags: np.ndarray  # per position: the oldest tag of its game's steps (the Ray path's weights version)
    searched: int  # positions this step searched in full and kept for learning (0 after a fast search)


class SelfPlay:
    """The batch of games, their searches, and the positions of games still being played."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self.game = crossenvs.make_game(config.game, **config.options)
        self.env = CrossVectorEnv(self.game, num_envs=config.num_envs)
        self.search = GumbelSearch(self.game, config.num_envs, config.simulations, config.max_considered)
        self.fast_search = None  # playout-cap randomisation (KataGo): most moves cheap, learnt from only the full ones
        if config.fast_simulations:
            considered = min(config.max_considered, config.fast_simulations)
            self.fast_search = GumbelSearch(self.game, config.num_envs, config.fast_simulations, considered)
        self.full_search_share = config.full_search_share
        self.rng = rng
        self.history: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(config.num_envs)]
        self.env.reset()

    def step(self, evaluate, tag: int = 0) -> Finished:
        """One searched move in every game; the positions of the games that ended, each tagged with the oldest
        ``tag`` its game was searched with (the Ray path's weights version: a game is kept or dropped whole)."""
        boards, metas = self.env.boards.copy(), self.env.metas.copy()
        movers = metas[:, crossenvs.core.state.TO_MOVE].copy()
        full = self.fast_search is None or self.rng.random() < self.full_search_share
        search = self.search if full else self.fast_search
        actions, policies, _, observations = search.run(boards, metas, evaluate, self.rng)
        if full:  # a cheap search's policy is a poor target, so its positions are not learnt from (KataGo)
            for i in range(len(actions)):
                self.history[i].append((observations[i], policies[i], int(movers[i]), tag))
        searched = len(actions) if full else 0
        _, _, terminations, _, info = self.env.step(actions)
        rewards = info["seat_rewards"]
        finished = []
        for i in np.flatnonzero(terminations):
            if self.history[i]:
                oldest = min(step_tag for *_, step_tag in self.history[i])  # a game is as old as its first move
                finished += [(o, p, rewards[i, seat], oldest) for o, p, seat, _ in self.history[i]]
            self.history[i] = []
        ended = int(terminations.sum())
        if not finished:
            shape = (0, *self.game.observation_shape)
            empty_policies = np.zeros((0, self.game.num_actions), np.float32)
            return Finished(
                np.zeros(shape, np.float32), empty_policies, np.zeros(0, np.float32), ended, np.zeros(0, int), searched
            )
        observations, policies, results, tags = zip(*finished)
        return Finished(
            np.stack(observations), np.stack(policies), np.array(results, np.float32), ended, np.array(tags), searched
        )


def train_step(
    net: AlphaZeroNet, optimizer: torch.optim.Optimizer, batch, device: str, precision: str = "float32"
) -> dict[str, float]:
    observations, policies, results = (torch.from_numpy(array).to(device) for array in batch)
    net.train()
    with autocast(device, precision):
        logits, values = net(observations)
    logits, values = logits.float(), values.float()  # the losses in float32
    policy_loss = -(policies * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_loss = torch.mean((values - results) ** 2)
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    net.eval()
    return {"loss/policy": policy_loss.item(), "loss/value": value_loss.item()}


# ----------------------------------------------------------------------------- resuming
def learner(net: AlphaZeroNet, optimizer: torch.optim.Optimizer, device: str, precision: str = "float32"):
    """``learn(size, batch)``: one :func:`train_step`, on the CPU on torch's threads or one, whichever is faster now."""
    step = functools.partial(train_step, net, optimizer, device=device, precision=precision)
    return torch_thread_choice(step) if device == "cpu" else lambda size, batch: step(batch)


def read_document(path: Path) -> dict[str, Any]:
    """A checkpoint's contents (:func:`crossenvs.checkpoints.read_alphazero` checks the network's), with counters."""
    document = ck.read_alphazero(path, AlphaZeroNet)
    try:
        int(document["counters"]["moves"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is corrupt or unreadable: its counters are missing ({exc!r})"
        ) from None
    return document


def usable(path: Path) -> bool:
    try:
        read_document(path)
    except CheckpointError:
        return False
    return True


def checkpoint_to_resume(run_dir: Path, args: argparse.Namespace) -> tuple[Path | None, dict[str, Any] | None]:
    """``latest.pt``, or the checkpoint ``--from-checkpoint`` names, read before any work; should it be unreadable,
    the error names the newest good snapshot before it and the command that resumes from there. ``(None, None)``
    for a run killed before its first checkpoint: it starts again from its config.yaml."""
    folder = run_dir / ck.CHECKPOINTS
    if folder.is_dir():
        remove_incomplete(folder)  # the .<name>.tmp files a kill during a write left
    if args.from_checkpoint:
        names = "latest.pt, final.pt or seconds_<n>.pt"
        chosen = check_from_checkpoint(args.from_checkpoint, folder, CHECKPOINT_FILE, names)
    else:
        chosen = folder / ck.AZ_LATEST
    snapshots = sorted(folder.glob(ck.AZ_SNAPSHOT_GLOB), key=ck.az_snapshot_seconds, reverse=True)
    if not chosen.exists() and not snapshots and not (folder / ck.AZ_FINAL).exists():
        return None, None
    try:
        return chosen, read_document(chosen)
    except CheckpointError as exc:
        older = (path for path in snapshots if ck.az_snapshot_seconds(path) < ck.az_snapshot_seconds(chosen))
        previous = next((path for path in older if usable(path)), None)
        raise resume_offer(script_text(__file__), args.resume, str(exc), previous) from None


def restore(net: AlphaZeroNet, optimizer: torch.optim.Optimizer, counters: dict, document: dict, path: Path) -> None:
    """Network, counters and, where the checkpoint keeps it (latest.pt), the optimiser's state."""
    try:
        net.load_state_dict(document["state_dict"])
        if "optimizer" in document:
            optimizer.load_state_dict(document["optimizer"])
    except (RuntimeError, ValueError, KeyError) as exc:
        raise CheckpointError(
            f"checkpoint {path} does not fit this run's network (config.yaml changed?): {exc}"
        ) from None
    if "optimizer" not in document:
        print(f"note: {path.name} keeps no optimiser state, so AdamW starts afresh")
    counters.update(document["counters"])


def superseded(chosen: Path, wall_seconds: float) -> list[Path]:
    """When a run continues from a checkpoint older than latest.pt: latest.pt, final.pt and the later snapshots,
    the line of history it leaves (moved aside, so --resume and rating-plot see one line)."""
    if chosen.name == ck.AZ_LATEST:
        return []
    folder = chosen.parent
    ends = [
        folder / name for name in (ck.AZ_LATEST, ck.AZ_FINAL) if (folder / name).exists() and folder / name != chosen
    ]
    later = [
        path
        for path in folder.glob(ck.AZ_SNAPSHOT_GLOB)
        if round(wall_seconds) < ck.az_snapshot_seconds(path) < math.inf
    ]
    return sorted(ends + later)


# ----------------------------------------------------------------------------- a run
def train(args: argparse.Namespace) -> dict[str, Any]:
    """A run: self-play here (the default) or on Ray actors (``--actors N``); the same folder either way."""
    device = ck.resolve_device(args.device)
    if args.resume and args.evaluate_only:
        return evaluate_only(args, device)
    if getattr(args, "actors", 0):
        import alphazero_ray  # Ray only when asked for

        connection = alphazero_ray.connect(args.address, args.actors)  # refused, or too few CPUs: before any folder
        run = Run.open(args, device, local_actors=args.actors if connection.address == "local" else 0)
        alphazero_ray.self_play_on_actors(run, connection)
    else:
        run = Run.open(args, device)
        self_play_here(run)
    return run.finish()


def self_play_here(run: Run) -> None:
    """The single-process loop: one batch of games, searched and learnt from in turn."""
    selfplay = SelfPlay(run.config, run.rng)
    evaluate = evaluator(run.net, run.device, run.precision)
    run.start(f"{run.config.max_minutes:g} min of self-play on {run.device} ({run.precision})")
    while run.time_left():
        finished = selfplay.step(evaluate)
        run.absorb(finished, moves=1, positions=finished.searched)


class Run:
    """A run's learner side: folder, network, optimiser, replay buffer, counters and checkpoints.

    Self-play, here or on Ray actors, hands it finished games through :meth:`absorb`, which trains
    ``train_ratio`` samples per new position and writes the checkpoints when they are due.
    """

    def __init__(self, config: Config, run_dir: Path, device: str) -> None:
        self.config, self.run_dir, self.device = config, run_dir, device
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.game = crossenvs.make_game(config.game, **config.options)
        shape, actions = self.game.observation_shape, self.game.num_actions
        self.net = AlphaZeroNet(shape, actions, config.channels, config.blocks).to(device).eval()
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.counters: dict[str, Any] = {"moves": 0, "positions": 0, "updates": 0, "games": 0, "wall_seconds": 0.0}
        self.replay = Replay(config.replay_size, shape, actions)
        self.symmetries = self.game.symmetries()
        self.latest = run_dir / ck.CHECKPOINTS / ck.AZ_LATEST
        self.precision = config.precision
        self.session: dict[str, Any] = {}  # what the closing summary adds (the Ray path's counts)
        self.no_progress = False

    @classmethod
    def open(cls, args: argparse.Namespace, device: str, local_actors: int = 0) -> Run:
        """A new run's folder from ``--config``, or ``--resume``'s run restored from its checkpoint (``local_actors``:
        see :meth:`Config.check`)."""
        overrides = {"max_minutes": args.max_minutes}
        document = None
        if args.resume:
            run_dir = check_resume_folder(args.resume)
            config = load_config(run_dir / "config.yaml", overrides, local_actors)
            chosen, document = checkpoint_to_resume(run_dir, args)
            if chosen is None:
                print(f"resuming {run_dir}: no checkpoint yet, so the run starts from its config.yaml")
        else:
            config = load_config(args.config, overrides, local_actors)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = (Path(args.run_dir) if args.run_dir else ROOT / "runs" / f"az-{config.game}-{stamp}").resolve()
            start_run_folder(run_dir, "--run-dir" if args.run_dir else "run folder", config)
        run = cls(config, run_dir, device)
        run.no_progress = args.no_progress
        if document is not None:
            run.restore(document, chosen)
        if config.precision == "auto":
            run.precision = fastest_precision(run.net, device, config.num_envs)
        run.learn = learner(run.net, run.optimizer, device, run.precision)
        return run

    def restore(self, document: dict[str, Any], chosen: Path) -> None:
        restore(self.net, self.optimizer, self.counters, document, chosen)
        set_aside(superseded(chosen, self.counters["wall_seconds"]), self.run_dir / ck.CHECKPOINTS)
        self.rng = np.random.default_rng([self.config.seed, self.counters["moves"]])  # fresh streams from here on
        moves, positions = self.counters["moves"], self.counters["positions"]
        print(f"resuming {self.run_dir} from {chosen.name} at move {moves:,} ({positions:,} positions)")
        if "replay" in document:
            self.replay.restore(document["replay"], chosen)
            print(f"replay buffer restored: {self.replay.size:,} positions")

    def start(self, where: str) -> None:
        """Print what runs where, and start the clock, the progress bar and TensorBoard."""
        print(f"{self.game.name}{self.config.options}: {where} -> {self.run_dir}", flush=True)  # a log shows it at once
        self.writer = tensorboard_writer(self.run_dir)
        self.progress = progress_bar(self.config.max_minutes * 60, self.no_progress)
        self.started = self.last_checkpoint = time.monotonic()
        self.wall_before, self.positions_before = self.counters["wall_seconds"], self.counters["positions"]
        self.owed = 0.0  # gradient samples owed to the positions generated so far

    def time_left(self) -> bool:
        return time.monotonic() - self.started < self.config.max_minutes * 60

    def absorb(self, finished: Finished, moves: int, positions: int) -> None:
        """Take ``moves`` search steps' worth of self-play (``positions`` searched), then train what is owed."""
        config, counters = self.config, self.counters
        counters["moves"] += moves
        counters["positions"] += positions
        counters["games"] += finished.ended
        if len(finished.results):
            self.replay.add(finished.observations, finished.policies, finished.results)
        self.owed += config.train_ratio * positions
        losses: dict[str, float] = {}
        while self.replay.size >= config.batch_size and self.owed >= config.batch_size:
            losses = self.learn(config.batch_size, self.replay.sample(self.rng, config.batch_size, self.symmetries))
            counters["updates"] += 1
            self.owed -= config.batch_size
        for name, value in losses.items():
            self.writer.add_scalar(name, value, counters["positions"])
        self.progress.update(time.monotonic() - self.started, counters)
        if time.monotonic() - self.last_checkpoint >= config.checkpoint_minutes * 60:
            self.checkpoint()
            self.last_checkpoint = time.monotonic()

    def checkpoint(self) -> None:
        """latest.pt (with optimiser and replay buffer) and the snapshot for rating against wall-clock time."""
        self.counters["wall_seconds"] = self.wall_before + time.monotonic() - self.started
        ck.save_alphazero(self.latest, self.net, self.game, latest_extra(self.optimizer, self.counters, self.replay))
        snapshot = self.run_dir / ck.CHECKPOINTS / ck.az_snapshot_name(self.counters["wall_seconds"])
        ck.save_alphazero(snapshot, self.net, self.game, {"counters": self.counters})

    def close(self) -> bool:
        """Close the progress bar and TensorBoard's writer of a run that started; whether it had."""
        if not hasattr(self, "started"):
            return False
        self.progress.close()
        self.writer.close()
        return True

    def finish(self) -> dict[str, Any]:
        """The last checkpoints, final.pt, and the final evaluation with its closing line."""
        self.progress.close()
        seconds = time.monotonic() - self.started
        self.checkpoint()
        counters = self.counters
        final = ck.save_alphazero(
            self.run_dir / ck.CHECKPOINTS / ck.AZ_FINAL, self.net, self.game, {"counters": counters}
        )
        self.writer.close()
        speed = round((counters["positions"] - self.positions_before) / max(seconds, 1e-9), 1)
        session = {"positions_per_second": speed, **self.session}
        return final_evaluation(self.config, self.run_dir, final, counters, self.device, session, self.precision)


def latest_extra(optimizer: torch.optim.Optimizer, counters: dict, replay: Replay) -> dict[str, Any]:
    """What latest.pt keeps besides the network: the optimiser, the counters and the replay buffer."""
    return {"optimizer": optimizer.state_dict(), "counters": counters, "replay": replay.state()}


def final_evaluation(
    config: Config, run_dir: Path, final: Path, counters: dict, device: str, session: dict, precision: str = ""
) -> dict[str, Any]:
    """The final network against ``eval_opponent``, ``summary.json`` and the closing line."""
    game = crossenvs.make_game(config.game, **config.options)
    agent = AlphaZeroPlayer(final, config.eval_simulations, game=game, device=device)
    opponent = make_player(config.eval_opponent, game=game)
    evaluation = match(game, agent, opponent, config.eval_games, seed=(config.seed + 1) % 2**63)
    ladder = ladder_rating(game, agent, config)
    summary = {
        "game": config.game,
        "options": config.options,
        "positions": counters["positions"],
        "updates": counters["updates"],
        **session,
        "device": device,
        "precision": precision,
        "checkpoint": str(final),
        "opponent": opponent.name,
        **evaluation,
        **ladder,
    }
    write_atomically(run_dir / "summary.json", json.dumps(summary, indent=2))
    speed = f", {session['positions_per_second']:,.0f} positions/s" if "positions_per_second" in session else ""
    print(
        f"{config.game}{config.options}: {counters['positions']:,} positions ({counters['updates']:,} updates)"
        f"{speed} on {device} ({precision or 'evaluation only'}); vs {opponent.name} "
        f"{evaluation['score']:.1%} score ({evaluation['win_rate']:.1%} wins) over {evaluation['games']} games, both "
        f"seats, searching {config.eval_simulations} simulations; {ladder.get('ladder_text', 'no ladder rating')}; "
        f"checkpoint {final}"
    )
    return summary


def ladder_rating(game, agent: AlphaZeroPlayer, config: Config) -> dict[str, Any]:
    """The final agent on the game's shipped fixed-anchor ladder (``eval_ladder_games`` games at most), a rating
    comparable across runs; nothing when the config asks for no games or no ladder is shipped for this game."""
    if config.eval_ladder_games < 2:
        return {}
    try:
        ladder = load_ladder(game)
        check_agent(ladder, game)
    except LadderError as exc:
        return {"ladder_text": f"no ladder rating ({exc})"}
    result = rate(game, agent, ladder, max_games=config.eval_ladder_games, batch=10, seed=config.seed)
    fit = result.fit
    return {
        "ladder_rating": round(fit.rating, 1),
        "ladder_low": round(fit.low, 1) if math.isfinite(fit.low) else None,
        "ladder_high": round(fit.high, 1) if math.isfinite(fit.high) else None,
        "ladder_games": fit.games,
        "ladder_text": f"ladder rating {fit.rating:.0f} (95% {fit.interval_text()}, {fit.games} games)",
    }


def evaluate_only(args: argparse.Namespace, device: str) -> dict[str, Any]:
    """``--resume RUN --evaluate-only``: the final evaluation again, of final.pt (else latest.pt, or the
    ``--from-checkpoint``), for a run killed during its final match; nothing is trained."""
    run_dir = check_resume_folder(args.resume)
    config = load_config(run_dir / "config.yaml", {"max_minutes": args.max_minutes})
    folder = run_dir / ck.CHECKPOINTS
    if args.from_checkpoint:
        names = "latest.pt, final.pt or seconds_<n>.pt"
        chosen = check_from_checkpoint(args.from_checkpoint, folder, CHECKPOINT_FILE, names)
    else:
        chosen = next((folder / name for name in (ck.AZ_FINAL, ck.AZ_LATEST) if (folder / name).exists()), None)
        if chosen is None:
            raise CheckpointError(f"--evaluate-only: {folder} holds neither final.pt nor latest.pt to evaluate")
    counters = read_document(chosen)["counters"]
    print(f"evaluating {chosen} again (no training)")
    return final_evaluation(config, run_dir, chosen, counters, device, {})


def tensorboard_writer(run_dir: Path):
    """TensorBoard's writer when it is installed, else a stand-in that drops the scalars."""
    try:
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(str(run_dir / "tensorboard"))
    except ImportError:

        class Silent:
            def add_scalar(self, *args, **kwargs) -> None:
                pass

            def close(self) -> None:
                pass

        return Silent()


class progress_bar:
    """A tqdm bar over the wall-clock budget (silent with ``--no-progress``)."""

    def __init__(self, seconds: float, silent: bool) -> None:
        from tqdm import tqdm

        interval = 0.5 if sys.stderr.isatty() else 30.0  # a log file gets a line every 30 s, not every move
        self.bar = tqdm(total=round(seconds), unit="s", disable=silent, dynamic_ncols=True, mininterval=interval)

    def update(self, elapsed: float, counters: dict[str, Any]) -> None:
        whole = min(self.bar.total, round(elapsed))
        if whole > self.bar.n:
            self.bar.set_postfix(positions=counters["positions"], updates=counters["updates"], refresh=False)
            self.bar.update(whole - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def main(argv: list[str] | None = None) -> int:
    parser = trainer_parser(
        "Gumbel AlphaZero self-play training on a crossenvs game.",
        "configs/alphazero/crisscross6.yaml",
        "runs/az-<game>-<time>",
    )
    parser.add_argument(
        "--actors",
        type=int,
        default=0,
        metavar="N",
        help="self-play on N Ray actors, one CPU each, this process learning (default 0: all in this process)",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="with --actors: the Ray cluster to join (host:port of its head, or 'auto'); default a local one",
    )
    return run_cli(train, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
