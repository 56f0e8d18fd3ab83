"""Joining the Ray cluster an AlphaZero run's self-play actors live on, and noticing when it is lost.

A cluster that cannot be reached, or has too few free CPUs for the actors, stops the run before
its folder is made; a head node lost mid-run is noticed within seconds (:class:`HeadWatch`).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import socket
import time

from crossenvs.support.errors import CrossenvsError
from crossenvs.support.extras import install_hint

#: how long a head node's port has to answer
CONNECT_SECONDS = 5.0
#: what to do about a cluster that cannot be joined
START_ONE = (
    "; start one with `ray start --head` and give its address (host:6379), or leave --address out for a local Ray"
)
#: the modules the actors' code comes from, pickled by value (as when they lived in training/): a node needs
#: only a crossenvs release with the rllib extra, not this checkout's newest modules
BY_VALUE = (
    "crossenvs.trainer.config",
    "crossenvs.az.config",
    "crossenvs.az.selfplay",
    "crossenvs.az.ray_actors",
    "crossenvs.az.cluster",
)


class ClusterError(CrossenvsError, ConnectionError):
    """The Ray cluster cannot be reached, has too few CPUs for the actors, or was lost mid-run."""


class ActorError(CrossenvsError, RuntimeError):
    """A self-play actor died more often than ``actor_restarts`` allows."""


@dataclasses.dataclass(frozen=True)
class Connection:
    """The Ray cluster the run uses."""

    address: str  # "local" for a Ray started by this process
    actors: int
    cpus: int
    nodes: int


def connect(address: str | None, actors: int) -> Connection:
    """Join the cluster at ``address`` (else ``RAY_ADDRESS``, else start a local Ray) and check it has a CPU
    for every actor."""
    address = address or os.environ.get("RAY_ADDRESS") or None
    try:
        import ray
    except ImportError:
        raise ClusterError(
            f"--actors runs self-play on Ray, which is not installed; it comes with the rllib extra: {install_hint('rllib')}"
        ) from None
    for module in BY_VALUE:
        ray.cloudpickle.register_pickle_by_value(importlib.import_module(module))
    if address:
        check_reachable(address)
    try:
        if address:
            ray.init(address=address, logging_level="ERROR", log_to_driver=True)
        else:
            ray.init(  # "local": a new Ray of its own, even where `ray start` left one running
                address="local",
                num_cpus=max(actors, os.cpu_count() or 1),
                include_dashboard=False,
                logging_level="ERROR",
            )
    except Exception as exc:  # Ray's errors at the door (refused, token, version) come in many types
        where = f"join the Ray cluster at {address}" if address else "start a local Ray"
        raise ClusterError(f"cannot {where}: {first_line(exc)}" + (START_ONE if address else "")) from None
    cpus = int(ray.cluster_resources().get("CPU", 0))
    free = int(ray.available_resources().get("CPU", 0))
    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    if free < actors:
        ray.shutdown()
        held = f" ({cpus - free} held by other work)" if free < cpus else ""
        raise ClusterError(f"the Ray cluster at {address} has {free} free CPUs{held}; --actors {actors} needs one each")
    if not address and actors > (os.cpu_count() or 1):
        print(f"note: {actors} actors share this machine's {os.cpu_count()} cores, so each plays slower")
    return Connection(address or "local", actors, cpus, nodes)


def check_reachable(address: str) -> None:
    """A head node's port answers, checked in seconds (Ray itself retries a dead address for minutes)."""
    if address == "auto":
        return  # Ray finds the local cluster's address itself, and says at once when there is none
    if address.startswith("ray://"):
        raise ClusterError(
            f"--address {address}: Ray Client addresses are not supported (the learner needs the object store); "
            "run the command on a machine of the cluster with --address <head-ip>:6379 or auto"
        )
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(
            f"--address must be host:port of a Ray head node (e.g. 10.0.0.5:6379) or auto, got {address!r}"
        )
    problem = unanswered(host, int(port))
    if problem:
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {problem}{START_ONE}")


def unanswered(host: str, port: int) -> str:
    """Why ``host:port`` does not take a connection within :data:`CONNECT_SECONDS` ('' when it does)."""
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return ""


class HeadWatch:
    """Notices a lost head node within seconds (Ray itself would wait a minute, then end the process unexplained)."""

    def __init__(self, address: str, every: float = CONNECT_SECONDS) -> None:
        self.address, self.every, self.last = address, every, time.monotonic()
        host, _, port = address.rpartition(":")
        self.host, self.port = host, int(port)

    def problem(self) -> str:
        """'' while the head node's port takes connections, else what is wrong."""
        why = unanswered(self.host, self.port)
        return f"does not answer ({why})" if why else ""

    def check(self) -> None:
        """Raise :class:`ClusterError` if the head does not answer (asked at most every ``every`` seconds)."""
        if time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            problem = self.problem()
            if problem:
                raise ClusterError(f"the head node {self.address} {problem}")


def first_line(exc: BaseException) -> str:
    """An exception's first line (Ray's run to pages of traceback), or its type's name when it has no text."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
