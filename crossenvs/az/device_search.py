"""Batched Gumbel search on a GPU: the trees, the rules and the network all on the device.

:class:`DeviceGumbelSearch` is the device twin of :class:`crossenvs.az.search.GumbelSearch`. The
tree arrays live in GPU memory, and each step of the search is one CUDA kernel, one thread a tree,
built from the very functions the CPU search runs (``crossenvs.az.tree``: selection, expansion
and backup are written once; the game's rule kernels step and observe the leaves on the device).
Between a simulation's selection and its backup the network reads the leaves' observation tensor
in place and its logits and values are read in place in turn: nothing is copied to the host until
the caller asks for the chosen actions.

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
from ..core.cuda import DEFAULT_PTX_CC, DeviceArrays, check_device_memory, compile_ptx, cuda_module
from ..core.errors import IllegalActionError, InvalidOptionError
from ..core.game import Game
from ..core.specialize import KernelError, specialize
from .search import considered_table

#: threads per block of every launch (one tree a thread)
THREADS_PER_BLOCK = 64

#: (observations (n, H, W, C) float32 on the device) -> (logits (n, A), values (n,)), on the device
DeviceEvaluator = Callable[[Any], tuple[Any, Any]]


def _tree_module(game: Game):
    return specialize("crossenvs.az.tree", type(game))


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
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise InvalidOptionError(f"batch must be a positive integer, got {batch!r}")
        self.game = game
        self.batch = int(batch)
        self.simulations = max(0, int(simulations))
        self.max_considered = int(max_considered)
        self._nodes = self.simulations + 1
        self._cuda = cuda_module()  # the GPU stack first: what is missing is the first thing to say
        self._check_memory()
        self._kernels = _tree_module(game).device_kernels()
        self._arrays = DeviceArrays(self._cuda)
        self._allocate()

    def _buffers(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        """Every device buffer of the search: name -> (shape, dtype). Each search rewrites what it reads first."""
        game, n, nodes, actions = self.game, self.batch, self._nodes, self.game.num_actions
        start = game.initial_state()
        observations = (n, *game.observation_shape)
        return {
            "node_boards": ((n, nodes, *start.board.shape), np.int8),
            "node_metas": ((n, nodes, start.meta.shape[0]), np.int32),
            "children": ((n, nodes, actions), np.int32),
            "prior": ((n, nodes, actions), np.float32),
            "parent": ((n, nodes), np.int32),
            "visits": ((n, nodes), np.int32),
            "value_sum": ((n, nodes), np.float32),
            "raw_value": ((n, nodes), np.float32),
            "count": ((n,), np.int32),
            "leaves": ((n,), np.int64),
            "observations": (observations, np.float32),
            "masks": ((n, actions), np.int8),
            "q_rows": ((n, actions), np.float64),  # each tree's sigma(Q) scratch
            "num_considered": ((n,), np.int64),
            "no_noise": ((n, actions), np.float32),  # the Gumbel noise of deterministic play: never written
            "actions": ((n,), np.int64),
            "policies": ((n, actions), np.float32),
            "root_values": ((n,), np.float32),
            "root_observations": (observations, np.float32),
        }

    def tree_bytes(self) -> int:
        """Device memory the search takes: the trees (a child and a prior per action at every node) and the rest."""
        return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in self._buffers().values())

    def _check_memory(self) -> None:
        what = f"a device search of {self.batch:,} {self.game.name} trees of {self._nodes} nodes"
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
        return self._cuda.to_device(np.ascontiguousarray(array, dtype=dtype))

    def gumbel_noise(self, n: int | None = None, generator: Any = None) -> Any:
        """Gumbel(0, 1) root noise for ``n`` positions (default: the batch), drawn by torch where the search runs
        (a CPU tensor under the simulator) from ``generator`` (a ``torch.Generator`` on that device)."""
        import torch

        shape = (self.batch if n is None else n, self.game.num_actions)
        device = "cpu" if self._arrays.torch is None else "cuda"
        exponential = torch.empty(shape, device=device, dtype=torch.float32).exponential_(generator=generator)
        return -torch.log(exponential)

    # ----------------------------------------------------------------- the search
    def _launch(self, role: str, n: int, *args: Any) -> None:
        blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        self._kernels[role][blocks, THREADS_PER_BLOCK, self._arrays.stream()](*args)

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
        tree = {name: view[:n] for name, (view, _) in self._trees.items()}
        boards, metas = self._device(boards, np.int8), self._device(metas, np.int32)
        gumbel = tree["no_noise"] if gumbel is None else self._device(gumbel, np.float32)
        if gumbel.shape != (n, self.game.num_actions):
            raise InvalidOptionError(f"gumbel must have shape ({n}, {self.game.num_actions}), got {gumbel.shape}")
        self._launch("init_roots", n, boards, metas, tree["node_boards"], tree["node_metas"], tree["children"],
                     tree["visits"], tree["value_sum"], tree["count"], tree["observations"], tree["masks"],
                     self.max_considered, tree["num_considered"], tree["leaves"])  # fmt: skip
        tree["root_observations"].copy_to_device(tree["observations"], stream=self._arrays.stream())
        logits, values = self._evaluate(n, evaluate)
        for _ in range(self.simulations):  # the last leaves backed up and the next chosen, in one launch
            self._launch("backup_then_select", n, tree["node_boards"], tree["node_metas"], tree["children"],
                         tree["parent"], tree["prior"], tree["visits"], tree["value_sum"], tree["raw_value"],
                         tree["count"], gumbel, self._table, tree["num_considered"], tree["leaves"], logits, values,
                         tree["observations"], tree["masks"], tree["q_rows"])  # fmt: skip
            logits, values = self._evaluate(n, evaluate)
        self._launch("expand_and_backup", n, tree["node_metas"], tree["parent"], tree["prior"], tree["visits"],
                     tree["value_sum"], tree["raw_value"], tree["leaves"], logits, values, tree["masks"])  # fmt: skip
        self._launch("root_results", n, tree["node_metas"], tree["children"], tree["prior"], tree["visits"],
                     tree["value_sum"], tree["raw_value"], gumbel, tree["actions"], tree["policies"],
                     tree["root_values"], tree["q_rows"])  # fmt: skip
        results = ("actions", "policies", "root_values", "root_observations")
        return DeviceSearchResult(*(self._arrays.for_caller(self._trees[name][1][:n]) for name in results))

    def _evaluate(self, n: int, evaluate: DeviceEvaluator) -> tuple[Any, Any]:
        """One forward pass over the leaves' observations (read in place): numba views of its logits and values."""
        logits, values = evaluate(self._arrays.for_caller(self._trees["observations"][1][:n]))
        logits, values = self._device(logits, np.float32), self._device(values, np.float32)
        if logits.shape != (n, self.game.num_actions) or values.shape != (n,):
            raise InvalidOptionError(
                f"evaluate must return logits ({n}, {self.game.num_actions}) and values ({n},), "
                f"got {logits.shape} and {values.shape}"
            )
        return logits, values


# ----------------------------------------------------------------------------- PTX without a GPU
def _signatures(game: Game) -> dict[str, tuple[Any, ...]]:
    """Argument types of the search's device kernels for ``game`` (what :class:`DeviceGumbelSearch` launches)."""
    from numba import types as t

    observations = t.Array(t.float32, len(game.observation_shape) + 1, "C")
    boards, metas = t.int8[:, :, ::1], t.int32[:, ::1]
    node_boards, node_metas = t.Array(t.int8, 4, "C"), t.int32[:, :, ::1]
    children, prior = t.int32[:, :, ::1], t.float32[:, :, ::1]
    per_node_ints, per_node_floats = t.int32[:, ::1], t.float32[:, ::1]
    ints, floats, rows = t.int64[::1], t.float32[::1], t.float32[:, ::1]
    masks, q_rows, table = t.int8[:, ::1], t.float64[:, ::1], t.int64[:, ::1]
    return {
        "init_roots": (boards, metas, node_boards, node_metas, children, per_node_ints, per_node_floats,
                       t.int32[::1], observations, masks, t.int64, ints, ints),
        "backup_then_select": (node_boards, node_metas, children, per_node_ints, prior, per_node_ints,
                               per_node_floats, per_node_floats, t.int32[::1], rows, table, ints, ints, rows, floats,
                               observations, masks, q_rows),
        "expand_and_backup": (node_metas, per_node_ints, prior, per_node_ints, per_node_floats, per_node_floats,
                              ints, rows, floats, masks),
        "root_results": (node_metas, children, prior, per_node_ints, per_node_floats, per_node_floats, rows, ints,
                         rows, floats, q_rows),
    }  # fmt: skip


def search_kernel_sources(game: Game) -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """The search's device kernels for ``game`` as plain Python functions with their argument types, by role."""
    from numba import cuda

    module = _tree_module(game)
    module.cuda = cuda
    return {role: (module.DEVICE_KERNELS[role], signature) for role, signature in _signatures(game).items()}


def search_ptx(game: Game, cc: tuple[int, int] = DEFAULT_PTX_CC) -> dict[str, str]:
    """PTX of the device search's kernels for ``game`` and compute capability ``cc``, compiled without a GPU.

    A kernel that cannot compile raises ``KernelError`` (:mod:`crossenvs.core.specialize`) naming it.
    """
    from ..envs.device import _first_lines  # numba's message shortened as the env's PTX errors are

    ptx = {}
    for role, (function, signature) in search_kernel_sources(game).items():
        try:
            ptx[role] = compile_ptx(function, signature, cc)
        except Exception as exc:
            raise KernelError(
                f"{game.name}: the device search's {role} kernel does not compile for CUDA: {_first_lines(exc)}"
            ) from exc
    return ptx
