"""The search's CUDA kernels compiled without a GPU: their PTX, and their sources for the offline checks.

The kernels are :class:`crossenvs.az.search.gumbel.GumbelSearch`'s on its device backend (the ``*_cuda`` one-tree steps
of :mod:`crossenvs.az.search.tree` and :mod:`crossenvs.az.search.tree_math`), built here for a compute capability with the
argument types a launch passes (``numba.typeof`` of the very :class:`~crossenvs.az.search.tree_math.Tree`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.az.search import tree_math
from crossenvs.az.search.gumbel import considered_table, search_kernels, tree_buffers
from crossenvs.core.game import Game
from crossenvs.envs.batch import chosen_kernels
from crossenvs.kernels.cuda import DEFAULT_PTX_CC
from crossenvs.kernels.launch import cuda_function, gather, kernel_ptx, signature


# ----------------------------------------------------------------------------- PTX without a GPU
def search_kernel_sources(game: Game, which: str = "all") -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """The search's device kernels for ``game`` as plain Python functions with their argument types, by role.

    The types are ``numba.typeof`` of the very :class:`~crossenvs.az.search.tree_math.Tree` a launch passes, of one tree.
    ``which``: "all", "per game" or "shared", as for :func:`crossenvs.envs.device.device_kernel_sources`.
    """
    tree = _host_tree(game)
    kernels = chosen_kernels(search_kernels(game), which)
    return {role: (cuda_function(kernel.function), signature(tree)) for role, kernel in kernels.items()}


def _host_tree(game: Game) -> tree_math.Tree:
    """One tree of host arrays, typed as a launch's: what the PTX is built for."""
    host = {name: np.zeros(shape, dtype) for name, (shape, dtype) in tree_buffers(game, 1, 2).items()}
    host.update(
        boards=host["node_boards"][:, 0].copy(),
        metas=host["node_metas"][:, 0].copy(),
        gumbel=host["no_noise"],
        considered_table=considered_table(16, 2),
        max_considered=np.int64(16),
    )
    return gather(tree_math.Tree, host)


def search_ptx(game: Game, cc: tuple[int, int] = DEFAULT_PTX_CC) -> dict[str, str]:
    """PTX of the device search's kernels for ``game`` and compute capability ``cc``, compiled without a GPU.

    A kernel that cannot compile raises ``KernelError`` (:mod:`crossenvs.kernels.specialize`) naming it.
    """
    tree = _host_tree(game)
    return {role: kernel_ptx(kernel, tree, cc) for role, kernel in search_kernels(game).items()}
