"""A batch of games that lives on a GPU: states, steps, random picks, observations and masks, all on the device.

:class:`DeviceVectorEnv` is the device twin of :class:`crossenvs.envs.vector.CrossVectorEnv`
(``CrossVectorEnv(game, num_envs, device="cuda")`` makes one): the same games, stepped by the same
rule kernels compiled for CUDA by numba-cuda (``crossenvs.core.portable`` says how one source
serves both targets), one GPU thread a game and one kernel launch a call. What a step returns is
written into torch CUDA tensors that the caller gets without a copy to the host (numba reads and
writes torch's memory through the CUDA array interface, on torch's current stream).

For the same actions it returns exactly what the CPU env returns (tests/test_device.py checks it
step by step under numba's CUDA simulator, and at 65,536 games on a GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core import state as st
from ..core.checks import check_seed
from ..core.cuda import DEFAULT_PTX_CC, DeviceArrays, check_device_memory, compile_ptx, cuda_module
from ..core.errors import InvalidActionError, InvalidOptionError
from ..core.game import Game
from ..core.specialize import specialize
from .aec import resolve_game
from .batch_kernels import game_keys

#: threads per block of every launch (one game a thread)
THREADS_PER_BLOCK = 128


def _batch_module(game: Game):
    return specialize("crossenvs.envs.game_batch", type(game))


@dataclass
class DeviceStep:
    """What one step did, every field a (B, ...) device tensor (see :meth:`DeviceVectorEnv.step`)."""

    ok: Any
    movers: Any
    seat_rewards: Any
    rewards: Any
    ended: Any
    final_ply: Any


class DeviceVectorEnv(VectorEnv):
    """B games of one game on a GPU, both seats played by the caller (self-play), as torch CUDA tensors.

    ``reset()`` and ``step(actions)`` return ``(observations, rewards, terminated, truncated, info)``
    like :class:`~crossenvs.envs.vector.CrossVectorEnv` (``reset`` returns observations and info):
    observations (B, H, W, C) float32 of the player to act next in each game; ``info["action_mask"]``
    (B, A) int8 and ``info["current_player"]`` (B,) int64; ``info["seat_rewards"]`` (B, 2),
    ``info["final_ply"]`` and ``info["illegal_action"]`` after a step. A finished game restarts
    in the same step (gymnasium's SAME_STEP autoreset); its final observation is not kept (a
    terminated game needs none to bootstrap). The returned tensors are the env's own buffers,
    rewritten by the next call: clone what you keep.

    ``random_actions()`` draws a uniform legal action per game on the device, from per-game random
    streams seeded by ``reset(seed=...)`` (the same streams and picks as the CPU's random player).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: str | Game = "crisscross", num_envs: int = 64, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidOptionError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = resolve_game(game, options)
        self.num_envs = int(num_envs)
        cuda = cuda_module()  # the GPU stack first: what is missing is the first thing to say
        self._check_memory()
        self.metadata = {**self.metadata, "name": f"{self.game.name}_device_vector_v0"}
        self.single_observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._kernels = _batch_module(self.game).device_kernels()
        self._arrays = DeviceArrays(cuda)
        self._allocate()
        self.reset()

    def _check_memory(self) -> None:
        """Everything a game keeps on the device, counted before allocating (GPU memory is checked where torch can see it)."""
        start = self.game.initial_state()
        per_game = start.board.nbytes + start.meta.nbytes + 4 * int(np.prod(self.game.observation_shape))
        per_game += self.game.num_actions + 64  # the mask, and the step's per-game outputs
        needed = per_game * self.num_envs
        what, fix = f"a device vector env of {self.num_envs:,} {self.game.name} games", "ask for fewer num_envs"
        check_device_memory(needed, what, fix)

    def _allocate(self) -> None:
        game, n, arrays = self.game, self.num_envs, self._arrays
        start = game.initial_state()
        # numba's views keep torch's tensors alive (as_cuda_array holds its owner); only numba reads these
        self._initial = (arrays.upload(start.board)[0], arrays.upload(start.meta)[0])
        self._boards = arrays.upload(np.repeat(start.board[None], n, axis=0))[0]
        self._metas = arrays.upload(np.repeat(start.meta[None], n, axis=0))[0]
        self._obs = arrays.zeros((n, *game.observation_shape), np.float32)
        self._masks = arrays.zeros((n, game.num_actions), np.int8)
        self._players = arrays.zeros((n,), np.int64)
        self._step_out = [
            arrays.zeros(shape, dtype)
            for shape, dtype in (
                ((n,), np.bool_),
                ((n,), np.int64),
                ((n, 2), np.float32),
                ((n,), np.float32),
                ((n,), np.bool_),
                ((n,), np.int64),
            )
        ]
        self._restart = arrays.zeros((n,), np.bool_)
        self._actions = arrays.zeros((n,), np.int64)
        self._uniforms = arrays.zeros((n,), np.float64)
        self._seed_streams(None)

    def _seed_streams(self, seed: int | None) -> None:
        """Per-game random streams: numba's own arrays (torch has little uint64 support, and the caller never reads
        them), allocated once and refilled on torch's stream, so a kernel still queued reads the old keys."""
        if not hasattr(self, "_keys"):
            cuda = self._arrays.cuda
            self._keys = cuda.device_array(self.num_envs, dtype=np.uint64)
            self._counters = cuda.device_array(self.num_envs, dtype=np.uint64)
        self._arrays.copy_from_host(self._keys, game_keys(seed, self.num_envs))
        self._arrays.copy_from_host(self._counters, np.zeros(self.num_envs, dtype=np.uint64))

    def _launch(self, kernel: Any, *args: Any) -> None:
        blocks = (self.num_envs + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        try:
            kernel[blocks, THREADS_PER_BLOCK, self._arrays.stream()](*args)
        except Exception as exc:
            if not type(exc).__module__.startswith("numba"):
                raise
            raise _kernel_error(self.game, getattr(kernel, "__name__", str(kernel)), exc) from exc

    def _view(self) -> tuple[Any, dict[str, Any]]:
        for_caller = self._arrays.for_caller
        info = {"action_mask": for_caller(self._masks[1]), "current_player": for_caller(self._players[1])}
        return for_caller(self._obs[1]), info

    # ----------------------------------------------------------------- the env
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Restart every game (or those of ``options["reset_mask"]``, a (B,) bool array or tensor)."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed_streams(seed)
        restart = self._restart_flags(options)
        self._arrays.copy_from_host(self._restart[0], restart)
        self._launch(
            self._kernels.reset,
            self._boards,
            self._metas,
            self._restart[0],
            *self._initial,
            self._players[0],
            self._obs[0],
            self._masks[0],
        )
        return self._view()

    def _restart_flags(self, options: dict[str, Any] | None) -> np.ndarray:
        if options is None:
            return np.ones(self.num_envs, dtype=np.bool_)
        if not isinstance(options, dict) or set(options) - {"reset_mask"}:
            raise InvalidOptionError(f"reset options must be None or {{'reset_mask': bool array}}, got {options!r}")
        mask = options["reset_mask"]
        mask = mask.detach().cpu().numpy() if hasattr(mask, "detach") else np.asarray(mask)
        if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise InvalidOptionError(
                f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask.dtype} {mask.shape}"
            )
        return np.ascontiguousarray(mask)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """One action per game (a (B,) integer tensor on the GPU, or an array), for the player to act there."""
        actions = self._device_actions(actions)
        outputs = [numba_view for numba_view, _ in self._step_out]
        self._launch(
            self._kernels.step,
            self._boards,
            self._metas,
            actions,
            *self._initial,
            *outputs,
            self._players[0],
            self._obs[0],
            self._masks[0],
        )
        result = DeviceStep(*(self._arrays.for_caller(view) for _, view in self._step_out))
        observations, info = self._view()
        info.update(seat_rewards=result.seat_rewards, final_ply=result.final_ply, illegal_action=~result.ok)
        truncated = result.ended & False
        return observations, result.rewards, result.ended, truncated, info

    def _device_actions(self, actions: Any) -> Any:
        """Actions as the device's int64 (B,) array: a CUDA tensor is used in place, anything else copied once."""
        torch = self._arrays.torch
        if actions is self._actions[1]:  # what random_actions() returned: already the kernel's own array
            return self._actions[0]
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
        self._arrays.copy_from_host(self._actions[0], host)
        return self._actions[0]

    def random_actions(self) -> Any:
        """A uniform random legal action per game (-1 where none), drawn on the device from each game's own stream."""
        out = self._actions
        self._launch(
            self._kernels.random_actions, self._masks[0], self._keys, self._counters, self._uniforms[0], out[0]
        )
        return self._arrays.for_caller(out[1])

    def device_positions(self) -> tuple[Any, Any]:
        """Every game's board and meta where they live (numba device arrays, no copy): what a device search reads."""
        return self._boards, self._metas

    def states(self) -> tuple[np.ndarray, np.ndarray]:
        """(boards, metas) copied to the host: for checks and rendering, not for the hot loop."""
        return self._boards.copy_to_host(), self._metas.copy_to_host()

    def state(self, index: int) -> st.State:
        """Game ``index`` as a :class:`~crossenvs.core.state.State` (a host copy)."""
        boards, metas = self.states()
        return st.State(boards[index].copy(), metas[index].copy())


# ----------------------------------------------------------------------------- PTX without a GPU
def _signatures(game: Game) -> dict[str, tuple[Any, ...]]:
    """Argument types of the device kernels for ``game`` (what a launch from :class:`DeviceVectorEnv` passes)."""
    from numba import types as t

    obs_dims = len(game.observation_shape) + 1
    boards, metas, board, meta = t.int8[:, :, ::1], t.int32[:, ::1], t.int8[:, ::1], t.int32[::1]
    flags, ints, floats = t.boolean[::1], t.int64[::1], t.float32[::1]
    observations = t.Array(t.float32, obs_dims, "C")
    masks = t.int8[:, ::1]
    return {
        "_device_step": (
            boards,
            metas,
            ints,
            board,
            meta,
            flags,
            ints,
            t.float32[:, ::1],
            floats,
            flags,
            ints,
            ints,
            observations,
            masks,
        ),
        "_device_reset": (boards, metas, flags, board, meta, ints, observations, masks),
        "_device_random_actions": (masks, t.uint64[::1], t.uint64[::1], t.float64[::1], ints),
    }


def device_kernel_sources(game: Game) -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """``game``'s device kernels as plain Python functions with their argument types: what to compile without a GPU."""
    module = _batch_module(game)
    module.cuda = _cuda_for_ptx()
    return {name: (getattr(module, name), signature) for name, signature in _signatures(game).items()}


def device_ptx(game: str | Game, cc: tuple[int, int] = DEFAULT_PTX_CC, **options: Any) -> dict[str, str]:
    """PTX of ``game``'s device kernels for compute capability ``cc``, compiled without a GPU.

    A kernel that cannot compile for CUDA raises ``KernelError`` (:mod:`crossenvs.core.specialize`) naming
    the kernel and what numba-cuda refused (an allocation, a Python object, a call it cannot type).
    """
    game = resolve_game(game, options)
    ptx = {}
    for name, (function, signature) in device_kernel_sources(game).items():
        try:
            ptx[name] = compile_ptx(function, signature, cc)
        except Exception as exc:
            raise _kernel_error(game, name, exc) from exc
    return ptx


def _kernel_error(game: Game, kernel: str, exc: BaseException) -> Exception:
    """One :class:`KernelError` naming the game's device kernel and what numba-cuda refused in it."""
    from ..core.specialize import KernelError

    return KernelError(
        f"{game.name}: {kernel} does not compile for CUDA (a rule kernel that allocates, holds a Python object or "
        f"calls what numba-cuda cannot type; see crossenvs.core.portable): {_first_lines(exc)}"
    )


def _cuda_for_ptx() -> Any:
    from numba import cuda

    return cuda


def _first_lines(exc: BaseException, count: int = 8) -> str:
    """numba's message, shortened: its first lines, then where it stopped (the file and line of the construct)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    where = [line for line in lines[count:] if line.lstrip().startswith(("During: lowering", "During: typing of call"))]
    return "\n".join(lines[:count] + where[:4])
