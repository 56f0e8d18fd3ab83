"""An AlphaZero run's learner side (:class:`Run`) and the single-process self-play loop that feeds it.

Self-play, here (:func:`self_play_here`) or on Ray actors (:mod:`crossenvs.az.ray_actors`), hands
the run finished games through :meth:`Run.absorb`, which trains ``train_ratio`` gradient samples
per new position and writes the checkpoints when they are due; so the folder, checkpoints and
``--resume`` are the same either way.

A run's folder: ``config.yaml``; ``checkpoints/latest.pt`` (weights, optimiser, counters and the
replay buffer, written atomically every ``checkpoint_minutes`` and at the end),
``checkpoints/final.pt``, and ``checkpoints/seconds_<n>.pt`` (the network after n seconds, for
``crossenvs rating-plot``); ``tensorboard/``; ``summary.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train alphazero"):
    import torch

from crossenvs import checkpoints as ck
from crossenvs.az.config import Config, load_config
from crossenvs.az.evaluation import final_evaluation
from crossenvs.az.learn import learner
from crossenvs.az.network import AlphaZeroNet, auto_precision, device_evaluator, evaluator
from crossenvs.az.replay import Replay
from crossenvs.az.resume import checkpoint_to_resume, latest_extra, rates_from_config, restore, superseded
from crossenvs.az.selfplay import Finished, SelfPlay
from crossenvs.core.registry import make_game
from crossenvs.trainer.command import new_run_config
from crossenvs.trainer.folders import check_resume_folder, set_aside, start_new_run


def check_self_play_here(device: str) -> None:
    """What the device path needs beyond torch's GPU (numba-cuda and the driver), checked before a run's folder
    is made: one :class:`~crossenvs.kernels.cuda.CudaUnavailableError` naming what is missing."""
    chosen = torch.device(device)
    if chosen.type == "cuda":
        from crossenvs.kernels.cuda import CudaUnavailableError, cuda_module

        if chosen.index is not None and chosen.index != torch.cuda.current_device():
            raise CudaUnavailableError(
                f"--device {device}: the device path runs on the current GPU; choose another with "
                f"CUDA_VISIBLE_DEVICES={chosen.index} and --device cuda"
            )
        cuda_module()


def self_play_here(run: Run) -> None:
    """The single-process loop: one batch of games, searched and learnt from in turn (on the GPU end to end
    when the run's device is CUDA: games, trees, network and replay buffer)."""
    on_device = torch.device(run.device).type == "cuda"
    selfplay = SelfPlay(run.config, run.rng, device="cuda" if on_device else "cpu")
    evaluate = device_evaluator(run.net, run.precision) if on_device else evaluator(run.net, run.device, run.precision)
    run.announce(
        f"{run.config.max_minutes:g} min of self-play on {run.device} ({run.precision}; {run.precision_reason})"
    )
    # The first search step compiles the search on a cold cache (about a minute, announced with its own line):
    # the clock starts after it, so a short run's minutes go to self-play and learning, not to the compiler.
    finished = selfplay.step(evaluate)
    run.start()
    run.absorb(finished, moves=1, positions=finished.searched)
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
        self.game = make_game(config.game, **config.options)
        shape, actions = self.game.observation_shape, self.game.num_actions
        self.net = AlphaZeroNet(shape, actions, config.channels, config.blocks).to(device).eval()
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.counters: dict[str, Any] = {"moves": 0, "positions": 0, "updates": 0, "games": 0, "wall_seconds": 0.0}
        self.replay = Replay(config.replay_size, shape, actions, device)  # on the GPU with the network
        self.symmetries = self.game.symmetries()
        self.latest = run_dir / ck.CHECKPOINTS / ck.AZ_LATEST
        self.precision = config.precision
        self.precision_reason = "set in the config"  # or why auto chose it
        self.session: dict[str, Any] = {}  # what the closing summary adds (the Ray path's counts)
        self.no_progress = False

    @classmethod
    def open(cls, args: argparse.Namespace, device: str, local_actors: int = 0) -> Run:
        """A new run's folder from ``--game`` or ``--config`` (:func:`~crossenvs.trainer.command.new_run_config`),
        or ``--resume``'s run restored from its checkpoint (``local_actors``: see :meth:`Config.check`)."""
        overrides = {"max_minutes": args.max_minutes}
        document = None
        if args.resume:
            run_dir = check_resume_folder(args.resume)
            config = load_config(run_dir / "config.yaml", overrides, local_actors)
            chosen, document = checkpoint_to_resume(run_dir, args)
            if chosen is None:
                print(f"resuming {run_dir}: no checkpoint yet, so the run starts from its config.yaml")
        else:
            path, changes = new_run_config(args, "alphazero", overrides)
            config = load_config(path, changes, local_actors)
            run_dir = start_new_run(args, f"az-{config.game}", config)
        run = cls(config, run_dir, device)
        run.no_progress = args.no_progress
        if document is not None:
            run.restore(document, chosen)
        if config.precision == "auto":  # the same choice in every run on this machine
            run.precision, run.precision_reason = auto_precision(device)
        run.learn = learner(run.net, run.optimizer, device, run.precision)
        return run

    def restore(self, document: dict[str, Any], chosen: Path) -> None:
        restore(self.net, self.optimizer, self.counters, document, chosen)
        rates_from_config(self.optimizer, self.config.learning_rate, self.config.weight_decay)
        set_aside(superseded(chosen, self.counters["wall_seconds"]), self.run_dir / ck.CHECKPOINTS)
        self.rng = np.random.default_rng([self.config.seed, self.counters["moves"]])  # fresh streams from here on
        moves, positions = self.counters["moves"], self.counters["positions"]
        print(f"resuming {self.run_dir} from {chosen.name} at move {moves:,} ({positions:,} positions)")
        if "replay" in document:
            self.replay.restore(document["replay"], chosen)
            print(f"replay buffer restored: {self.replay.size:,} positions")

    def announce(self, where: str) -> None:
        """Print what runs where, at once (a log shows it before any wait)."""
        print(f"{self.game.name}{self.config.options}: {where} -> {self.run_dir}", flush=True)

    def start(self, where: str | None = None) -> None:
        """Start the clock, the progress bar and TensorBoard (announcing ``where`` first, when given)."""
        if where is not None:
            self.announce(where)
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
        session = {"positions_per_second": speed, "precision_reason": self.precision_reason, **self.session}
        return final_evaluation(self.config, self.run_dir, final, counters, self.device, session, self.precision)


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
