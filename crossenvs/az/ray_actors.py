"""AlphaZero on Ray: self-play actors and one learner (``crossenvs train alphazero --actors N``).

    crossenvs train alphazero --config crisscross6 --actors 2     # a local Ray
    crossenvs train alphazero --config ... --actors 16 --address head-node:6379         # a cluster
    crossenvs train alphazero --resume runs/az-crisscross-... --actors 2                 # continue a run

How it works:

* **Actors.** Each :class:`SelfPlayActor` (one CPU) runs the single-process trainer's batched
  Gumbel self-play (:class:`crossenvs.az.selfplay.SelfPlay`: ``num_envs`` games searched together) with its
  own copy of the network on its CPU. Actors are spread over the cluster's nodes.
* **The learner** is this process (on the GPU with ``--device auto`` when there is one). It owns
  the replay buffer and trains exactly as the single-process trainer does (:class:`crossenvs.az.run.Run`:
  ``train_ratio`` samples per new position), and it writes the same run folder and checkpoints.
* **Weights.** Every ``publish_every`` updates the learner puts its weights in Ray's object store
  as a new *version*, named by its count of updates. Each request to an actor carries the newest
  version; the actor fetches and loads it only if it is newer than its own. A game's positions
  reach the learner when the game ends, tagged with the oldest version that searched the game;
  a game begun more than ``max_policy_lag`` updates before the learner's count, as from an actor
  that fell far behind, is dropped whole (``stale_positions`` in summary.json, beside the mean lag
  of the positions kept). Even a healthy actor's games are a game's length behind.
* **Backpressure.** Each actor has exactly one request (``actor_steps`` search steps) in flight:
  the learner asks again only once it has taken the answer, so neither a queue nor the object
  store can grow however fast the actors play, and only the newest weights stay referenced.
* **Faults.** An actor that dies (its process killed, its node lost) is restarted by Ray, at most
  ``actor_restarts`` times each; its games in progress are lost and the run goes on. A cluster that
  cannot be reached stops the run before its folder is made; one lost mid-run (the head node gone)
  stops it with ``latest.pt`` written first, so ``--resume RUN --actors N`` continues it.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

import numba
import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("rllib", "AlphaZero on Ray (--actors)"):
    import torch

from crossenvs.az.cluster import ActorError, ClusterError, Connection, HeadWatch, first_line
from crossenvs.az.config import Config
from crossenvs.az.network import AlphaZeroNet, auto_precision, evaluator
from crossenvs.az.run import Run
from crossenvs.az.selfplay import Finished, SelfPlay

#: how long the learner waits for an answer before it checks the clock again
WAIT_SECONDS = 2.0
#: how long a failed actor is left to restart before it is asked again
RETRY_SECONDS = 0.5
#: how long the actors may take to start (a fresh node compiles the game's kernels first)
START_SECONDS = 600.0


def fresh_positions(tags: np.ndarray, updates: int, max_lag: int) -> tuple[np.ndarray, np.ndarray]:
    """Which positions to keep (their tag at most ``max_lag`` updates behind ``updates``), and the kept ones' lags."""
    keep = tags >= updates - max_lag
    return keep, updates - tags[keep]


class SelfPlayActor:
    """One actor's batch of self-play games and its copy of the network (wrapped by ``ray.remote``)."""

    def __init__(self, config: dict[str, Any], index: int, seed: int) -> None:
        torch.set_num_threads(1)  # one CPU per actor: the network and the tree walk on one thread
        numba.set_num_threads(1)
        self.config = Config(**config)
        self.selfplay = SelfPlay(self.config, np.random.default_rng([seed, index, time.time_ns()]))
        game = self.selfplay.game
        self.net = AlphaZeroNet(game.observation_shape, game.num_actions, self.config.channels, self.config.blocks)
        self.net.eval()
        precision = self.config.precision
        if precision == "auto":
            precision, _ = auto_precision("cpu")  # as the learner decides it: from the hardware
        self.evaluate = evaluator(self.net, "cpu", precision)
        self.version = -1

    def play(self, version: int, weights: list, steps: int) -> dict[str, Any]:
        """``steps`` search steps with the newest weights (``[ref]``: fetched only when newer than the actor's);
        the positions of the games that ended, each game's tagged with the oldest version that searched it."""
        if version > self.version:  # a restarted actor (version -1) takes the newest at once
            import ray

            self.net.load_state_dict(ray.get(weights[0]))
            self.version = version
        parts = [self.selfplay.step(self.evaluate, tag=self.version) for _ in range(steps)]
        return {
            "observations": np.concatenate([p.observations for p in parts]).astype(np.float16),
            "policies": np.concatenate([p.policies for p in parts]).astype(np.float16),
            "results": np.concatenate([p.results for p in parts]),
            "tags": np.concatenate([p.tags for p in parts]),
            "ended": sum(p.ended for p in parts),
            "moves": steps,
            "positions": sum(p.searched for p in parts),
        }

    def where(self) -> tuple[str, int]:
        """The node and process the actor runs in (for tests and logs)."""
        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()


class Actors:
    """The actors and their one request each in flight (the backpressure), restarted by Ray when they die."""

    def __init__(self, run: Run, count: int) -> None:
        import ray

        self.ray, self.config = ray, run.config
        remote = ray.remote(num_cpus=1, max_restarts=self.config.actor_restarts)(SelfPlayActor)
        config = dataclasses.asdict(self.config)
        self.handles = [
            remote.options(scheduling_strategy="SPREAD").remote(config, index, self.config.seed)
            for index in range(count)
        ]
        self.pending: dict[Any, int] = {}
        self.deaths = [0] * count
        self.answering = [True] * count  # whether each actor answered since its last death
        self.comebacks = 0  # answers from an actor after a death: restarts that worked
        self.retry_at: dict[int, float] = {}  # failed actors and when to ask them again
        self.version, self.weights = -1, None  # a version is named by the learner's count of updates
        self.stale = self.received = 0
        self.lag_sum = 0.0
        self.newest_played = -1  # the newest version an answer was tagged with

    def publish(self, run: Run) -> None:
        """The learner's weights as the next version (the old one is freed once no request holds it)."""
        self.version = run.counters["updates"]
        state = {name: tensor.detach().to("cpu", copy=True) for name, tensor in run.net.state_dict().items()}
        self.weights = self.ray.put(state)

    def ask(self, index: int) -> None:
        request = self.handles[index].play.remote(self.version, [self.weights], self.config.actor_steps)
        self.pending[request] = index

    def answer(self) -> dict[str, Any] | None:
        """The next answer, or None when none came within :data:`WAIT_SECONDS` or an actor failed (asked again)."""
        self.ask_again()
        if not self.pending:  # every actor is restarting
            time.sleep(RETRY_SECONDS)
            return None
        ready, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=WAIT_SECONDS)
        if not ready:
            return None
        index = self.pending.pop(ready[0])
        try:
            batch = self.ray.get(ready[0])
        except self.ray.exceptions.RayActorError as exc:
            self.failed(index, exc)
            return None
        if not self.answering[index]:
            self.answering[index] = True
            self.comebacks += 1
        self.ask(index)
        return batch

    def failed(self, index: int, exc: Exception) -> None:
        """An actor's request failed: count a death once per life, and ask it again soon (Ray restarts it)."""
        spent = isinstance(exc, self.ray.exceptions.ActorDiedError) and not getattr(exc, "preempted", False)
        if spent:  # Ray gave it up: its restarts are spent (a preempted node's actors do come back)
            raise ActorError(f"actor {index} is dead and Ray restarts it no more: {first_line(exc)}") from None
        if self.answering[index]:  # it had answered since its last death: this is a new one
            self.answering[index] = False
            self.deaths[index] += 1
            print(f"actor {index} died ({first_line(exc)}); Ray restarts it and the run goes on", flush=True)
        self.retry_at[index] = time.monotonic() + RETRY_SECONDS  # while it restarts, calls fail at once

    def ask_again(self) -> None:
        """Ask the failed actors whose pause is over (the others' answers are taken meanwhile)."""
        for index, when in list(self.retry_at.items()):
            if time.monotonic() >= when:
                del self.retry_at[index]
                self.ask(index)

    def fresh(self, batch: dict[str, Any], updates: int) -> Finished:
        """The batch's games begun at most ``max_policy_lag`` updates before the learner's ``updates``."""
        keep, lags = fresh_positions(batch["tags"], updates, self.config.max_policy_lag)
        self.received += len(keep)
        self.stale += int((~keep).sum())
        self.lag_sum += float(lags.sum())
        if len(batch["tags"]):
            self.newest_played = max(self.newest_played, int(batch["tags"].max()))
        return Finished(
            batch["observations"][keep],
            batch["policies"][keep],
            batch["results"][keep],
            batch["ended"],
            batch["tags"][keep],
            batch["positions"],
        )

    def stop(self) -> None:
        """End the actors (and with them the requests in flight)."""
        for handle in self.handles:
            self.ray.kill(handle)


def started_actors(actors: Actors) -> list[tuple[str, int]]:
    """Each actor's node and process, once all have started (:data:`START_SECONDS` at most)."""
    import ray

    try:
        return ray.get([handle.where.remote() for handle in actors.handles], timeout=START_SECONDS)
    except ray.exceptions.GetTimeoutError:
        raise ClusterError(
            f"the actors did not start within {START_SECONDS:.0f} s: the cluster's CPUs are busy, or its nodes "
            "lack crossenvs with the rllib extra"
        ) from None


def self_play_on_actors(run: Run, connection: Connection) -> None:
    """The learner's loop: take each actor's answer, learn from it, publish weights, ask again."""
    import ray

    count = connection.actors
    actors = Actors(run, count)
    actors.publish(run)
    for index in range(count):
        actors.ask(index)
    head = HeadWatch(ray.get_runtime_context().gcs_address)
    try:
        placed = started_actors(actors)
        nodes = len({node for node, _ in placed})
        print("actors: " + ", ".join(f"{i} on node {node[:12]} (pid {pid})" for i, (node, pid) in enumerate(placed)))
        where = f"{connection.address} Ray: {nodes} of its {connection.nodes} node(s), {connection.cpus} CPUs"
        run.start(
            f"{run.config.max_minutes:g} min of self-play on {count} actors ({where}), "
            f"learning on {run.device} ({run.precision}; {run.precision_reason})"
        )
        while run.time_left():
            head.check()
            batch = actors.answer()
            if batch is None:
                continue
            run.absorb(actors.fresh(batch, run.counters["updates"]), moves=batch["moves"], positions=batch["positions"])
            if run.counters["updates"] - actors.version >= run.config.publish_every:
                actors.publish(run)
    except (ActorError, ClusterError, ray.exceptions.RayError, ConnectionError) as exc:
        saved = ""
        if run.close():
            run.checkpoint()  # the learner's state is whole: nothing is lost
            saved = "latest.pt is saved: "
        resume = f"{saved}continue with --resume {run.run_dir} --actors {count}"
        time.sleep(WAIT_SECONDS)  # a head node going down takes its actors first, its port a moment later
        problem = head.problem()
        if problem:
            raise ClusterError(f"lost the Ray cluster: its head node {head.address} {problem}; {resume}") from None
        if isinstance(exc, (ActorError, ClusterError)):
            raise type(exc)(f"{exc}; {resume}") from None
        raise ClusterError(f"the Ray cluster failed: {first_line(exc)}; {resume}") from None
    actors.stop()
    run.session = {
        "actors": count,
        "actor_nodes": nodes,
        "actor_deaths": sum(actors.deaths),
        "actor_comebacks": actors.comebacks,
        "newest_version_played": actors.newest_played,
        "positions_received": actors.received,
        "stale_positions": actors.stale,
        "mean_policy_lag_updates": round(actors.lag_sum / max(1, actors.received - actors.stale), 1),
    }
    ray.shutdown()
