"""Batched Gumbel search on a GPU: the trees, the rules and the network all on the device.

:class:`DeviceGumbelSearch` is the device twin of :class:`crossenvs.az.search.GumbelSearch`. The
tree arrays live in GPU memory, and each step of the search is one CUDA kernel, one thread a tree,
built from the very functions the CPU search runs (``crossenvs.az.tree``: selection, expansion
and backup are written once; the game's rule kernels step and observe the leaves on the device).
Between a simulation's selection and its backup the network reads the leaves' observation tensor
in place and its logits and values are read in place in turn: nothing is copied to the host until
the caller asks for the chosen actions.

The kernels run the CPU search's own one-tree steps (:func:`crossenvs.az.search.search_kernels`: the
``*_cuda`` functions beside the CPU loops), launched in the same order on the same
:class:`~crossenvs.az.tree_math.Tree`.
A search is ``3 + simulations`` kernel launches and ``1 + simulations`` forward passes, all on
torch's current stream, so the caller's torch work and the kernels stay in order without a sync.
Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) the same code runs on the CPU with NumPy
arrays in place of tensors: the tests check there that it chooses what the CPU search chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..core import state as st
from ..core.checks import check_batch_size
from ..core.errors import IllegalActionError, InvalidOptionError
from ..core.game import Game
from ..envs.device import chosen_kernels
from ..kernels.cuda import DEFAULT_PTX_CC, DeviceArrays, check_device_memory, cuda_module
from ..kernels.launch import cuda_function, gather, kernel_ptx, signature
from . import tree_math
from .search import considered_table, search_kernels, tree_buffers

#: (observations (n, H, W, C) float32 on the device) -> (logits (n, A), values (n,)), on the device
DeviceEvaluator = Callable[[Any], tuple[Any, Any]]


class DeviceSearchResult(NamedTuple):
    """What a search returns, as device tensors (NumPy arrays under the simulator); rewritten by the next search."""

    actions: Any  # (n,) int64: the chosen action of each position
    policies: Any  # (n, A) float32: the improved policy, Gumbel AlphaZero's policy target
    values: Any  # (n,) float32: the root value for each position's player to move
    root_observations: Any  # (n, H, W, C) float32: what the network saw at the roots


class DeviceGumbelSearch:
    """Trees for up to ``batch`` games of ``game`` on the GPU, searched with ``simulations`` per move.

    ``run(boards, metas, evaluate, gumbel)`` searches the positions (device arrays or tensors, or
    host arrays, copied up once) and returns a :class:`DeviceSearchResult`. ``evaluate`` takes the
    leaves' observation tensor and returns logits and values on the device
    (:func:`crossenvs.az.network.device_evaluator`). ``gumbel`` is the root noise, (n, A) float32
    (:meth:`gumbel_noise` draws it on the device), or None for deterministic play.
    """

    def __init__(self, game: Game, batch: int, simulations: int, max_considered: int = 16) -> None:
        self.game = game
        self.batch = check_batch_size(batch, "batch")
        self.simulations = max(0, int(simulations))
        self.max_considered = int(max_considered)
        self._cuda = cuda_module()  # the GPU stack first: what is missing is the first thing to say
        self._check_memory()
        self._kernels = search_kernels(game)
        self._arrays = DeviceArrays(self._cuda)
        self._allocate()

    def _buffers(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        """Every device buffer of the search: name -> (shape, dtype). Each search rewrites what it reads first."""
        return device_buffers(self.game, self.batch, self.simulations)

    def tree_bytes(self) -> int:
        """Device memory the search takes: the trees (a child and a prior per action at every node) and the rest."""
        return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in self._buffers().values())

    def _check_memory(self) -> None:
        what = f"a device search of {self.batch:,} {self.game.name} trees of {self.simulations + 1} nodes"
        check_device_memory(self.tree_bytes(), what, "ask for fewer games or simulations")

    def _allocate(self) -> None:
        self._trees = {name: self._arrays.zeros(shape, dtype) for name, (shape, dtype) in self._buffers().items()}
        self._table = self._arrays.upload(considered_table(self.max_considered, self.simulations))[0]

    # ----------------------------------------------------------------- inputs
    def _device(self, array: Any, dtype: Any) -> Any:
        """A numba device view of ``array``: a CUDA tensor or device array in place, a host array copied up."""
        torch = self._arrays.torch
        if torch is not None and isinstance(array, torch.Tensor):
            if not array.is_cuda:
                array = array.cuda()
            torch_dtype = getattr(torch, np.dtype(dtype).name)
            return self._arrays.view(array.detach().to(torch_dtype).contiguous())
        if hasattr(array, "copy_to_host"):  # numba's own device array (the simulator's too)
            return array
        if hasattr(array, "__cuda_array_interface__"):  # another library's GPU array (CuPy): its stream is waited for
            return self._cuda.as_cuda_array(array)
        return self._arrays.upload(np.ascontiguousarray(array, dtype=dtype))[0]  # on torch's stream, as every copy

    def gumbel_noise(self, n: int | None = None, generator: Any = None) -> Any:
        """Gumbel(0, 1) root noise for ``n`` positions (default: the batch), drawn by torch where the search runs
        (a CPU tensor under the simulator) from ``generator`` (a ``torch.Generator`` on that device)."""
        import torch

        shape = (self.batch if n is None else n, self.game.num_actions)
        device = "cpu" if self._arrays.torch is None else "cuda"
        exponential = torch.empty(shape, device=device, dtype=torch.float32).exponential_(generator=generator)
        return -torch.log(exponential)

    # ----------------------------------------------------------------- the search
    def run(self, boards: Any, metas: Any, evaluate: DeviceEvaluator, gumbel: Any = None) -> DeviceSearchResult:
        """Search the ``n <= batch`` positions (see the class docstring): games in play (positions on the device
        are not read back to check it; a device env's games always are, since finished ones restart)."""
        n = len(boards)
        if not 1 <= n <= self.batch:
            raise InvalidOptionError(
                f"{n} positions for a device search made for {self.batch}; make DeviceGumbelSearch(game, {n}, ...)"
            )
        if isinstance(metas, np.ndarray):  # host positions are checked as the CPU search checks them
            finished = np.flatnonzero(metas[:, st.STATUS] != st.STATUS_PLAYING)
            if finished.size:
                raise IllegalActionError(f"{self.game.name}: position {finished[0]} of the batch is a finished game")
        tree = self._tree(n, boards, metas, gumbel)
        stream = self._arrays.stream()
        self._kernels["init_root"].launch(tree, stream)
        self._trees["root_observations"][0][:n].copy_to_device(tree.observations, stream=stream)
        tree = self._evaluate(tree, evaluate)
        for _ in range(self.simulations):  # the last leaves backed up and the next chosen, in one launch
            self._kernels["backup_then_select"].launch(tree, stream)
            tree = self._evaluate(tree, evaluate)
        self._kernels["expand_and_backup"].launch(tree, stream)
        self._kernels["root_result"].launch(tree, stream)
        results = ("actions", "policies", "root_values", "root_observations")
        return DeviceSearchResult(*(self._arrays.for_caller(self._trees[name][1][:n]) for name in results))

    def _tree(self, n: int, boards: Any, metas: Any, gumbel: Any) -> tree_math.Tree:
        """The first ``n`` trees, the positions and the root noise, as the kernels take them (no copy of the trees)."""
        arrays = {name: numba_view[:n] for name, (numba_view, _) in self._trees.items()}
        gumbel = arrays["no_noise"] if gumbel is None else self._device(gumbel, np.float32)
        if gumbel.shape != (n, self.game.num_actions):
            raise InvalidOptionError(f"gumbel must have shape ({n}, {self.game.num_actions}), got {gumbel.shape}")
        arrays.update(
            boards=self._device(boards, np.int8),
            metas=self._device(metas, np.int32),
            gumbel=gumbel,
            considered_table=self._table,
            max_considered=np.int64(self.max_considered),
        )
        return gather(tree_math.Tree, arrays)

    def _evaluate(self, tree: tree_math.Tree, evaluate: DeviceEvaluator) -> tree_math.Tree:
        """One forward pass over the leaves' observations (read in place): the tree with its logits and values."""
        n = len(tree.leaves)
        logits, values = evaluate(self._arrays.for_caller(self._trees["observations"][1][:n]))
        logits, values = self._device(logits, np.float32), self._device(values, np.float32)
        if logits.shape != (n, self.game.num_actions) or values.shape != (n,):
            raise InvalidOptionError(
                f"evaluate must return logits ({n}, {self.game.num_actions}) and values ({n},), "
                f"got {logits.shape} and {values.shape}"
            )
        return tree._replace(logits=logits, values=values)


def device_buffers(game: Game, batch: int, simulations: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """The device search's buffers: the trees (:func:`~crossenvs.az.search.tree_buffers`) and what a search
    returns, and the logits and values where a search starts, all named as :class:`~crossenvs.az.tree_math.Tree`
    names them."""
    n, actions = batch, game.num_actions
    return {
        **tree_buffers(game, batch, simulations),
        "no_noise": ((n, actions), np.float32),  # the Gumbel noise of deterministic play: never written
        "logits": ((n, actions), np.float32),
        "values": ((n,), np.float32),
        "actions": ((n,), np.int64),
        "policies": ((n, actions), np.float32),
        "root_values": ((n,), np.float32),
        "root_observations": ((n, *game.observation_shape), np.float32),
    }


# ----------------------------------------------------------------------------- PTX without a GPU
def search_kernel_sources(game: Game, which: str = "all") -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """The search's device kernels for ``game`` as plain Python functions with their argument types, by role.

    The types are ``numba.typeof`` of the very :class:`~crossenvs.az.tree_math.Tree` a launch passes, of one tree.
    ``which``: "all", "per game" or "shared", as for :func:`crossenvs.envs.device.device_kernel_sources`.
    """
    tree = _host_tree(game)
    kernels = chosen_kernels(search_kernels(game), which)
    return {role: (cuda_function(kernel.function), signature(tree)) for role, kernel in kernels.items()}


def _host_tree(game: Game) -> tree_math.Tree:
    """One tree of host arrays, typed as a launch's: what the PTX is built for."""
    host = {name: np.zeros(shape, dtype) for name, (shape, dtype) in device_buffers(game, 1, 2).items()}
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

    A kernel that cannot compile raises ``KernelError`` (:mod:`crossenvs.core.specialize`) naming it.
    """
    tree = _host_tree(game)
    return {role: kernel_ptx(kernel, tree, cc) for role, kernel in search_kernels(game).items()}
