"""The batch of games' CUDA kernels compiled without a GPU: their PTX, and their sources for the offline checks.

The kernels are :class:`crossenvs.envs.batch.GameBatch`'s, on its device backend (``game_batch.step_cuda``, which
resets too, and ``batch_kernels.random_actions_cuda``). Here they are built for a compute
capability with the argument types a launch passes (``numba.typeof`` of the very NamedTuples the batch
gathers), so the compiled-code checks and ``crossenvs doctor`` see what a card would run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import Game
from ..kernels.cuda import DEFAULT_PTX_CC
from ..kernels.launch import cuda_function, kernel_ptx, signature
from .aec import resolve_game
from .batch import chosen_kernels, env_buffers, env_kernels, kernel_args


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

    A kernel that cannot compile for CUDA raises ``KernelError`` (:mod:`crossenvs.kernels.specialize`) naming
    the kernel and what numba-cuda refused (an allocation, a Python object, a call it cannot type).
    """
    game = resolve_game(game, options)
    host = {name: np.zeros(shape, dtype) for name, (shape, dtype) in env_buffers(game, 1).items()}
    args = kernel_args(host)
    return {name: kernel_ptx(kernel, args[name], cc) for name, kernel in env_kernels(game).items()}
