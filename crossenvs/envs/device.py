"""A batch of games that lives on a GPU: states, steps, random picks, observations and masks, all on the device.

:class:`DeviceBatch` holds the games of a :class:`crossenvs.envs.vector.DeviceVectorEnv`, the CPU env's
subclass that ``CrossVectorEnv(game, num_envs, device="cuda")`` makes: the same games, stepped by the same
rule kernels compiled for CUDA by numba-cuda (``crossenvs.kernels.portable`` says how one source
serves both targets), one GPU thread a game and one kernel launch a call (the kernels are
``game_batch.step_cuda``, ``game_batch.restart_cuda`` and
``batch_kernels.random_actions_cuda``, launched by :mod:`crossenvs.kernels.launch`). What a step returns is
written into torch CUDA tensors that the caller gets without a copy to the host (numba reads and
writes torch's memory through the CUDA array interface, on torch's current stream).

For the same actions it returns exactly what the CPU env returns (tests/test_device.py checks it
step by step under numba's CUDA simulator, and at 65,536 games on a GPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.checks import check_batch_size, check_seed, reset_mask
from ..core.errors import InvalidActionError, InvalidOptionError
from ..core.game import Game
from ..core.specialize import specialize
from ..kernels.cuda import DEFAULT_PTX_CC, DeviceArrays, check_device_memory, cuda_module
from ..kernels.launch import DeviceKernel, cuda_function, gather, kernel_ptx, signature
from . import batch_kernels as bk
from .aec import resolve_game


def env_kernels(game: Game) -> dict[str, DeviceKernel]:
    """The device env's kernels: the game's step and restart (one copy per game), and the random pick (one for all)."""
    per_game = specialize("crossenvs.envs.game_batch", type(game))
    return {
        "step": DeviceKernel(per_game.step_cuda, over="players"),
        "restart": DeviceKernel(per_game.restart_cuda, over="restart"),
        "random_actions": DeviceKernel(bk.random_actions_cuda, over="actions", label=game.name),
    }


def chosen_kernels(kernels: dict[str, DeviceKernel], which: str) -> dict[str, DeviceKernel]:
    """``kernels`` of one kind: "all", "per game" (a game's own) or "shared" (compiled once for every game)."""
    if which not in ("all", "per game", "shared"):
        raise InvalidOptionError(f"which must be 'all', 'per game' or 'shared', got {which!r}")
    return {name: k for name, k in kernels.items() if which == "all" or k.per_game == (which == "per game")}


def env_buffers(game: Game, n: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Every buffer of ``n`` games on the device, named as the kernels' NamedTuples name it: name -> (shape, dtype)."""
    start = game.initial_state()
    return {
        "boards": ((n, *start.board.shape), np.int8),
        "metas": ((n, start.meta.shape[0]), np.int32),
        "initial_board": (start.board.shape, np.int8),
        "initial_meta": (start.meta.shape, np.int32),
        "actions": ((n,), np.int64),
        "ok": ((n,), np.bool_),
        "movers": ((n,), np.int64),
        "seat_rewards": ((n, 2), np.float32),
        "rewards": ((n,), np.float32),
        "ended": ((n,), np.bool_),
        "final_ply": ((n,), np.int64),
        "players": ((n,), np.int64),
        "observations": ((n, *game.observation_shape), np.float32),
        "masks": ((n, game.num_actions), np.int8),
        "restart": ((n,), np.bool_),
        "keys": ((n,), np.uint64),
        "counters": ((n,), np.uint64),
        "uniforms": ((n,), np.float64),
    }


def kernel_args(arrays: dict[str, Any]) -> dict[str, Any]:
    """Each kernel's NamedTuple, its fields taken from ``arrays`` by name (device views; host arrays for PTX)."""
    return {
        "step": gather(bk.DeviceStep, {**arrays, "play": gather(bk.Play, arrays)}),
        "restart": gather(bk.DeviceReset, arrays),
        "random_actions": gather(bk.RandomPick, arrays),
    }


class DeviceBatch:
    """The games of a :class:`~crossenvs.envs.vector.DeviceVectorEnv` on the GPU: buffers, kernels and launches.

    Every buffer is allocated once (:func:`env_buffers`), and each kernel's NamedTuple of them is
    made once (:func:`kernel_args`): a launch passes it whole, on torch's current stream.
    """

    def __init__(self, game: str | Game, num_envs: int, options: dict[str, Any]) -> None:
        self.num_envs = check_batch_size(num_envs)
        self.game = resolve_game(game, options)
        cuda = cuda_module()  # the GPU stack first: what is missing is the first thing to say
        self._check_memory()
        self._kernels = env_kernels(self.game)
        self._arrays = DeviceArrays(cuda)
        self._allocate()
        self.reset()

    def _check_memory(self) -> None:
        """Everything the games keep on the device, counted before allocating (GPU memory where torch can see it)."""
        needed = sum(
            int(np.prod(shape)) * np.dtype(dtype).itemsize
            for shape, dtype in env_buffers(self.game, self.num_envs).values()
        )
        what, fix = f"a device vector env of {self.num_envs:,} {self.game.name} games", "ask for fewer num_envs"
        check_device_memory(needed, what, fix)

    def _allocate(self) -> None:
        """Every buffer on the device (numba's views; the caller gets torch's), then each kernel's NamedTuple of them.

        The random streams' keys and counters are numba's own arrays (torch has little uint64 support,
        and the caller never reads them). numba's views keep torch's tensors alive (``as_cuda_array``
        holds its owner).
        """
        arrays, buffers = self._arrays, env_buffers(self.game, self.num_envs)
        self._views: dict[str, tuple[Any, Any]] = {}
        for name, (shape, dtype) in buffers.items():
            if np.dtype(dtype) == np.uint64:
                array = arrays.cuda.device_array(shape, dtype=dtype)
                self._views[name] = (array, array)
            else:
                self._views[name] = arrays.zeros(shape, dtype)
        start = self.game.initial_state()
        for name, value in (("initial_board", start.board), ("initial_meta", start.meta)):
            arrays.copy_from_host(self._views[name][0], value)
        for name, value in (("boards", start.board), ("metas", start.meta)):
            arrays.copy_from_host(self._views[name][0], np.repeat(value[None], self.num_envs, axis=0))
        self._args = kernel_args({name: numba_view for name, (numba_view, _) in self._views.items()})
        self._seed_streams(None)

    def _seed_streams(self, seed: int | None) -> None:
        """Per-game random streams, refilled on torch's stream, so a kernel still queued reads the old keys."""
        self._arrays.copy_from_host(self._views["keys"][0], bk.game_keys(seed, self.num_envs))
        self._arrays.copy_from_host(self._views["counters"][0], np.zeros(self.num_envs, dtype=np.uint64))

    def _launch(self, kernel: str, args: Any) -> None:
        self._kernels[kernel].launch(args, self._arrays.stream())

    def _caller(self, name: str) -> Any:
        """What the caller gets of buffer ``name``: the live torch tensor on a GPU, a host copy under the simulator."""
        return self._arrays.for_caller(self._views[name][1])

    def _view(self) -> tuple[Any, dict[str, Any]]:
        info = {"action_mask": self._caller("masks"), "current_player": self._caller("players")}
        return self._caller("observations"), info

    # ----------------------------------------------------------------- the env
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Restart every game (or those of ``options["reset_mask"]``, a (B,) bool array or tensor)."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed_streams(seed)
        mask = reset_mask(options, self.num_envs)
        flags = np.ones(self.num_envs, dtype=np.bool_) if mask is None else mask
        self._arrays.copy_from_host(self._views["restart"][0], flags)
        self._launch("restart", self._args["restart"])
        return self._view()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """One action per game (a (B,) integer tensor on the GPU, or an array), for the player to act there."""
        args = self._args["step"]
        self._launch("step", args._replace(play=args.play._replace(actions=self._device_actions(actions))))
        observations, info = self._view()
        ok, ended = self._caller("ok"), self._caller("ended")
        info.update(seat_rewards=self._caller("seat_rewards"), final_ply=self._caller("final_ply"), illegal_action=~ok)
        return observations, self._caller("rewards"), ended, ended & False, info

    def _device_actions(self, actions: Any) -> Any:
        """Actions as the device's int64 (B,) array: a CUDA tensor is used in place, anything else copied once."""
        torch, (numba_actions, caller_actions) = self._arrays.torch, self._views["actions"]
        if actions is caller_actions:  # what random_actions() returned: already the kernel's own array
            return numba_actions
        if torch is not None and isinstance(actions, torch.Tensor) and actions.is_cuda:
            if actions.shape != (self.num_envs,):
                raise InvalidActionError(f"actions must have shape ({self.num_envs},), got {tuple(actions.shape)}")
            return self._arrays.view(actions.to(torch.int64).contiguous())
        if torch is not None and isinstance(actions, torch.Tensor):
            actions = actions.numpy()
        host = np.asarray(actions)
        if host.shape != (self.num_envs,) or not np.issubdtype(host.dtype, np.integer):
            raise InvalidActionError(
                f"actions must be {self.num_envs} integer action ids, got {host.dtype} {host.shape}"
            )
        self._arrays.copy_from_host(numba_actions, host)
        return numba_actions

    def random_actions(self) -> Any:
        """A uniform random legal action per game (-1 where none), drawn on the device from each game's own stream."""
        self._launch("random_actions", self._args["random_actions"])
        return self._caller("actions")

    def compiled_kernels(self) -> list[Any]:
        """numba-cuda's kernel objects of the step, the restart and the random pick (compiled by now)."""
        return [kernel.compiled() for kernel in self._kernels.values()]

    def device_positions(self) -> tuple[Any, Any]:
        """Every game's board and meta where they live (numba device arrays, no copy): what a device search reads."""
        return self._views["boards"][0], self._views["metas"][0]

    def states(self) -> tuple[np.ndarray, np.ndarray]:
        """(boards, metas) copied to the host: for checks and rendering, not for the hot loop."""
        boards, metas = self.device_positions()
        return self._arrays.to_host(boards), self._arrays.to_host(metas)


# ----------------------------------------------------------------------------- PTX without a GPU
def device_kernel_sources(game: Game, which: str = "all") -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """``game``'s device kernels as plain Python functions with their argument types: what to compile without a GPU
    (``cuda`` bound in their modules: :func:`crossenvs.kernels.launch.cuda_function`).

    The types are ``numba.typeof`` of the very NamedTuples a launch passes, made of one game's host arrays.
    ``which``: "all", "per game" (the game's own kernels) or "shared" (those compiled once for every game).
    """
    host = {name: np.zeros(shape, dtype) for name, (shape, dtype) in env_buffers(game, 1).items()}
    args = kernel_args(host)
    kernels = chosen_kernels(env_kernels(game), which)
    return {name: (cuda_function(kernel.function), signature(args[name])) for name, kernel in kernels.items()}


def device_ptx(game: str | Game, cc: tuple[int, int] = DEFAULT_PTX_CC, **options: Any) -> dict[str, str]:
    """PTX of ``game``'s device kernels for compute capability ``cc``, compiled without a GPU.

    A kernel that cannot compile for CUDA raises ``KernelError`` (:mod:`crossenvs.core.specialize`) naming
    the kernel and what numba-cuda refused (an allocation, a Python object, a call it cannot type).
    """
    game = resolve_game(game, options)
    host = {name: np.zeros(shape, dtype) for name, (shape, dtype) in env_buffers(game, 1).items()}
    args = kernel_args(host)
    return {name: kernel_ptx(kernel, args[name], cc) for name, kernel in env_kernels(game).items()}
