"""A batch of games of one kind, on the CPU or on a GPU: states, steps, random picks, observations and masks.

:class:`GameBatch` is written once for both targets. Its buffers are named once (:func:`env_buffers`),
each kernel's NamedTuple is made of them (:func:`kernel_args` for the PTX signatures), and a backend
(:mod:`crossenvs.kernels.backends`) allocates them and runs each kernel: on the CPU its numba loop
(``crossenvs.kernels.game_batch``'s ``*_games`` over every game, or ``*_parallel``), on a GPU its CUDA kernel (``*_cuda``,
one thread a game). A vector env's step is one kernel on either target: every game plays, a game that
ended has both seats' final views written and restarts, and every game's observation and legal mask of
the player to act are written, in one numba entry (one launch on a GPU).

What a step hands back differs only where the targets differ: on the CPU fresh arrays the caller may
keep (recycled once released, :mod:`crossenvs.envs.buffers`), on a GPU the batch's own torch tensors,
rewritten by the next step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from crossenvs.kernels import batch_kernels as bk
from crossenvs.kernels import state as st
from crossenvs.kernels.specialize import specialize
from crossenvs.support.checks import check_batch_size
from crossenvs.support.errors import InvalidActionError, InvalidOptionError

from ..core.game import Game
from ..kernels.backends import DeviceBackend, HostBackend, Loops
from ..kernels.launch import DeviceKernel, gather
from ..kernels.threads import serial_loop
from .aec import resolve_game
from .buffers import RecyclingBuffers

DEVICES = ("cpu", "cuda")  # where a batch's games live

#: what a step writes and hands back (fresh on the CPU each step), in :class:`StepResult`'s order
STEP_OUTPUTS = (
    "observations",
    "masks",
    "players",
    "rewards",
    "seat_rewards",
    "ended",
    "illegal",
    "movers",
    "final_ply",
)
#: the outputs a CPU step recycles (megabytes for a large batch: fresh pages would fault and be zeroed every step)
RECYCLED = ("observations", "masks")


def env_buffers(game: Game, n: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Every buffer of ``n`` games, named as the kernels' NamedTuples name it: name -> (shape, dtype)."""
    start = game.initial_state()
    observation = game.observation_shape
    return {
        "boards": ((n, *start.board.shape), np.int8),
        "metas": ((n, start.meta.shape[0]), np.int32),
        "initial_board": (start.board.shape, np.int8),
        "initial_meta": (start.meta.shape, np.int32),
        "plays": ((n,), np.int8),  # a step's: zeros, every game plays (PLAY)
        "reset_plays": ((n,), np.int8),  # a reset's: RESTART or KEEP each game
        "actions": ((n,), np.int64),
        "illegal": ((n,), np.bool_),
        "movers": ((n,), np.int64),
        "seat_rewards": ((n, 2), np.float32),
        "rewards": ((n,), np.float32),
        "ended": ((n,), np.bool_),
        "final_ply": ((n,), np.int64),
        "final_observations": ((n, 2, *observation), np.float32),
        "players": ((n,), np.int64),
        "observations": ((n, *observation), np.float32),
        "masks": ((n, game.num_actions), np.int8),
        "keys": ((n,), np.uint64),
        "counters": ((n,), np.uint64),
        "uniforms": ((n,), np.float64),
    }


def kernel_args(arrays: dict[str, Any]) -> dict[str, Any]:
    """Each kernel's NamedTuple, its fields taken from ``arrays`` by name (kernel views; host arrays for PTX)."""
    return {
        "step": gather(bk.Step, arrays),
        "random_actions": gather(bk.RandomPick, arrays),
    }


def env_loops(game: Game) -> dict[str, Loops]:
    """The batch's CPU loops by kernel: the game's step, which resets too (its own copy), the random pick (one for
    all), and the single-agent env's apply and view (serial only: PPO, which drives that env, runs numba on one
    thread, :func:`crossenvs.kernels.threads.numba_on_one_thread`)."""
    per_game = specialize("crossenvs.kernels.game_batch", type(game))
    return {
        "step": (serial_loop(per_game.step_games), per_game.step_parallel),
        "apply": (serial_loop(per_game.apply_games), None),
        "view": (serial_loop(per_game.view_games), None),
        "random_actions": (serial_loop(bk.random_actions_games), None),
    }


def env_kernels(game: Game) -> dict[str, DeviceKernel]:
    """The batch's CUDA kernels: the game's step, which resets too (one copy per game), and the random pick (one for
    all)."""
    per_game = specialize("crossenvs.kernels.game_batch", type(game))
    return {
        "step": DeviceKernel(per_game.step_cuda, over="players"),
        "random_actions": DeviceKernel(bk.random_actions_cuda, over="actions", label=game.name),
    }


def chosen_kernels(kernels: dict[str, DeviceKernel], which: str) -> dict[str, DeviceKernel]:
    """``kernels`` of one kind: "all", "per game" (a game's own) or "shared" (compiled once for every game)."""
    if which not in ("all", "per game", "shared"):
        raise InvalidOptionError(f"which must be 'all', 'per game' or 'shared', got {which!r}")
    return {name: k for name, k in kernels.items() if which == "all" or k.per_game == (which == "per game")}


def batch_backend(game: Game, device: str) -> HostBackend | DeviceBackend:
    """The backend a batch of ``game`` runs on: its CPU loops, or its CUDA kernels (the GPU stack checked first)."""
    if device not in DEVICES:
        raise InvalidOptionError(f"device must be one of {DEVICES}, got {device!r}")
    return HostBackend(env_loops(game)) if device == "cpu" else DeviceBackend(env_kernels(game))


class StepResult(NamedTuple):
    """What one step did, as the caller gets it (arrays on the CPU, the batch's tensors on a GPU)."""

    observations: Any  # (B, H, W, C) float32: each game seen by the player to act next
    masks: Any  # (B, A) int8: that player's legal actions
    players: Any  # (B,) int64: that player's seat
    rewards: Any  # (B,) float32: the reward of the player who acted
    seat_rewards: Any  # (B, 2) float32: both seats' rewards
    ended: Any  # (B,) bool: the game ended (and restarted)
    illegal: Any  # (B,) bool: the action was illegal (the game untouched, and lost by its mover)
    movers: Any  # (B,) int64: the seat that acted
    final_ply: Any  # (B,) int64: plies an ended game lasted, 0 elsewhere
    final_observations: Any  # (B, 2, H, W, C) float32: both seats' last views where ``ended`` (stale rows elsewhere)


class GameBatch:
    """``num_envs`` games of ``game`` on ``device`` ("cpu" or "cuda"): buffers allocated once, kernels by name."""

    def __init__(self, game: str | Game, num_envs: int, options: dict[str, Any], device: str = "cpu") -> None:
        self.num_envs = check_batch_size(num_envs)
        self.game = resolve_game(game, options)
        self.device = device
        self.backend = batch_backend(self.game, device)  # the GPU stack first: what is missing is said first
        buffers = env_buffers(self.game, self.num_envs)
        what = f"a {'device ' if device == 'cuda' else ''}vector env of {self.num_envs:,} {self.game.name} games"
        self.backend.check_memory(buffers, what, "ask for fewer num_envs")
        self._allocate(buffers)

    def _allocate(self, buffers: dict[str, tuple[tuple[int, ...], Any]]) -> None:
        """Every buffer (the kernels' view and the caller's), the games at the start, the random streams seeded
        afresh; on the CPU a recycler for each output the caller may keep."""
        backend = self.backend
        self._views = {name: backend.zeros(shape, dtype) for name, (shape, dtype) in buffers.items()}
        start = self.game.initial_state()
        for name, value in (("initial_board", start.board), ("initial_meta", start.meta)):
            backend.copy_from_host(self._views[name][0], value)
        for name, value in (("boards", start.board), ("metas", start.meta)):
            backend.copy_from_host(self._views[name][0], np.repeat(value[None], self.num_envs, axis=0))
        # on the CPU, what makes each output the caller keeps: a recycled buffer for the large ones, else a fresh
        # array (cheaper than recycling); a GPU batch hands out its own buffers
        self._fresh: dict[str, Callable[[], np.ndarray]] = {}
        if isinstance(backend, HostBackend):
            self._fresh = {name: RecyclingBuffers(*buffers[name]).take for name in RECYCLED}
            self._fresh |= {name: partial(np.empty, *buffers[name]) for name in STEP_OUTPUTS if name not in RECYCLED}
        # the kernels' view of every buffer, by name (made once: every call reads it)
        views = self._kernel = {name: kernel_view for name, (kernel_view, _) in self._views.items()}
        self._step_inputs = tuple(views[name] for name in ("boards", "metas", "initial_board", "initial_meta",
                                                           "final_observations"))  # fmt: skip
        self._latest_masks = views["masks"]  # what random_actions reads: a step's or a reset's masks
        self._seed_streams(None)

    def __getstate__(self) -> dict[str, Any]:
        """A CPU batch travels (to a subprocess, a Ray worker): positions and buffers, not the compiled loops."""
        if self.device != "cpu":
            raise InvalidOptionError("a device batch cannot be pickled; make it where it runs")
        state = self.__dict__.copy()
        del state["backend"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.backend = batch_backend(self.game, self.device)

    # ----------------------------------------------------------------- outputs
    def _outputs(self, names: tuple[str, ...]) -> tuple[Any, ...]:
        """The buffers a call writes, in ``names``' order, as the kernels take them: on the CPU fresh arrays (the
        caller keeps what it was given), on a GPU the batch's own."""
        if self._fresh:
            fresh = self._fresh
            return tuple([fresh[name]() for name in names])
        return tuple(self._views[name][0] for name in names)

    def _handed(self, names: tuple[str, ...], outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the caller gets of a call's ``outputs``, once written: on the CPU the arrays themselves, on a GPU
        the batch's torch tensors (under the simulator, host copies made now)."""
        if self._fresh:
            return outputs
        return tuple(self.backend.for_caller(self._views[name][1]) for name in names)

    # ----------------------------------------------------------------- the games
    def reset(self, seed: int | None = None, mask: np.ndarray | None = None) -> tuple[Any, Any, Any]:
        """Restart every game (or those where ``mask``, a checked (B,) bool array, is True), the random streams
        seeded from ``seed`` if given; returns every game's observation, mask and seat to act."""
        if seed is not None:
            self._seed_streams(seed)
        plays = np.full(self.num_envs, bk.RESTART, dtype=np.int8)
        if mask is not None:
            plays[~mask] = bk.KEEP
        self.backend.copy_from_host(self._views["reset_plays"][0], plays)
        outputs = self._outputs(STEP_OUTPUTS)  # the step kernel's: a reset is a step in which no game moves
        self._launch_step(self._kernel["reset_plays"], self._kernel["actions"], outputs)
        names = ("observations", "masks", "players")
        return self._handed(names, outputs[:3])

    def step(self, actions: Any) -> StepResult:
        """One action per game, for the player to act there (ids checked by the caller on the CPU).

        The kernel's arguments are built afresh each step from the outputs of :meth:`_outputs` (a tuple's
        constructor: ``_replace`` cost a share of a one-game step).
        """
        outputs = self._outputs(STEP_OUTPUTS)
        self._launch_step(self._kernel["plays"], self._actions(actions), outputs)
        return StepResult(
            *self._handed(STEP_OUTPUTS, outputs), self.backend.for_caller(self._views["final_observations"][1])
        )

    def _launch_step(self, plays: Any, actions: Any, outputs: tuple[Any, ...]) -> None:
        """The step kernel over every game (``plays``: the step's PLAY, or a reset's RESTART/KEEP), into ``outputs``
        (in :data:`STEP_OUTPUTS`' order)."""
        observations, masks, players, rewards, seat_rewards, ended, illegal, movers, final_ply = outputs
        boards, metas, initial_board, initial_meta, final_observations = self._step_inputs
        args = bk.Step(boards, metas, plays, actions, illegal, movers, seat_rewards, rewards, ended, final_ply,
                       initial_board, initial_meta, final_observations, players, observations, masks)  # fmt: skip
        self.backend.launch("step", args, self.num_envs)
        self._latest_masks = masks

    def _actions(self, actions: Any) -> Any:
        """Actions as the kernels' int64 (B,) array: on a GPU a CUDA tensor in place, anything else copied once."""
        backend, (kernel_actions, caller_actions) = self.backend, self._views["actions"]
        if isinstance(backend, HostBackend):
            return np.ascontiguousarray(actions, dtype=np.int64)
        if actions is caller_actions:  # what random_actions() returned: already the kernel's own array
            return kernel_actions
        torch = backend.torch
        if torch is not None and isinstance(actions, torch.Tensor) and actions.is_cuda:
            if actions.shape != (self.num_envs,):
                raise InvalidActionError(f"actions must have shape ({self.num_envs},), got {tuple(actions.shape)}")
            return backend.input(actions, np.int64)
        if torch is not None and isinstance(actions, torch.Tensor):
            actions = actions.numpy()
        host = np.asarray(actions)
        if host.shape != (self.num_envs,) or not np.issubdtype(host.dtype, np.integer):
            raise InvalidActionError(
                f"actions must be {self.num_envs} integer action ids, got {host.dtype} {host.shape}"
            )
        backend.copy_from_host(kernel_actions, host)
        return kernel_actions

    def random_actions(self) -> Any:
        """A uniform random legal action per game (-1 where none), each from its game's own random stream (seeded by
        ``reset(seed=...)``, fresh entropy before that): the same picks on both targets."""
        v = self._kernel
        picks = np.empty(self.num_envs, dtype=np.int64) if self._fresh else v["actions"]  # the CPU caller keeps its own
        args = bk.RandomPick(self._latest_masks, v["keys"], v["counters"], v["uniforms"], picks)
        self.backend.launch("random_actions", args, self.num_envs)
        return picks if self._fresh else self.backend.for_caller(self._views["actions"][1])

    def _seed_streams(self, seed: int | None) -> None:
        """Per-game random streams, refilled in order with the kernels (a kernel still queued reads the old keys)."""
        self.backend.copy_from_host(self._views["keys"][0], bk.game_keys(seed, self.num_envs))
        self.backend.copy_from_host(self._views["counters"][0], np.zeros(self.num_envs, dtype=np.uint64))

    # ----------------------------------------------------------------- positions
    def device_positions(self) -> tuple[Any, Any]:
        """Every game's board and meta where they live (no copy): what a search on the same target reads."""
        return self._views["boards"][0], self._views["metas"][0]

    def states(self) -> tuple[np.ndarray, np.ndarray]:
        """(boards, metas) copied to the host: for checks and rendering, not for the hot loop."""
        boards, metas = self.device_positions()
        return self.backend.to_host(boards), self.backend.to_host(metas)

    def state(self, index: int) -> st.State:
        """Game ``index`` as a :class:`~crossenvs.kernels.state.State` (a copy)."""
        boards, metas = self.device_positions()
        if isinstance(self.backend, HostBackend):
            return st.State(boards[index].copy(), metas[index].copy())
        boards, metas = self.states()
        return st.State(boards[index], metas[index])

    def compiled_kernels(self) -> list[Any]:
        """numba-cuda's kernel objects of the step (which resets too) and the random pick (a device batch's, compiled now)."""
        if not isinstance(self.backend, DeviceBackend):
            raise InvalidOptionError("compiled CUDA kernels belong to a device batch (device='cuda')")
        return [kernel.compiled() for kernel in self.backend.kernels.values()]

    # ----------------------------------------------------------------- the single-agent env's moves (CPU)
    @property
    def boards(self) -> np.ndarray:
        """(B, H, W) int8: the boards (live on the CPU: read, do not write)."""
        return self._views["boards"][0] if isinstance(self.backend, HostBackend) else self.states()[0]

    @property
    def metas(self) -> np.ndarray:
        """(B, K) int32: the meta records (live on the CPU: read, do not write)."""
        return self._views["metas"][0] if isinstance(self.backend, HostBackend) else self.states()[1]

    def restart_games(self, ids: np.ndarray) -> None:
        """Games ``ids`` back to the start, nothing observed (the single-agent env observes its learner's seat)."""
        initial_board, initial_meta = self._views["initial_board"][0], self._views["initial_meta"][0]
        bk.reset_batch(self.boards, self.metas, bk.as_ids(ids), initial_board, initial_meta)

    def apply(self, ids: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Play one action in each game of ``ids``; returns which were legal."""
        ok = np.empty(len(ids), dtype=np.bool_)
        args = bk.Apply(self.boards, self.metas, bk.as_ids(ids), np.asarray(actions, dtype=np.int64), ok)
        self.backend.launch("apply", args, len(ok))
        return ok

    def view(self, ids: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Observations of ``seats`` in games ``ids``, and masks (zeros where that seat is not to act)."""
        if len(ids) == self.num_envs and self._fresh:  # every game: the common case, in recycled arrays
            observations, masks = self._fresh["observations"](), self._fresh["masks"]()
        else:
            observations = np.empty((len(ids), *self.game.observation_shape), dtype=np.float32)
            masks = np.empty((len(ids), self.game.num_actions), dtype=np.int8)
        seats = np.asarray(seats, dtype=np.int64)
        self.backend.launch(
            "view", bk.View(self.boards, self.metas, bk.as_ids(ids), seats, observations, masks), len(ids)
        )
        return observations, masks

    def to_move(self, ids: np.ndarray | None = None) -> np.ndarray:
        column = self.metas[:, st.TO_MOVE]
        return column if ids is None else column[ids]

    def status(self) -> np.ndarray:
        return self.metas[:, st.STATUS]
