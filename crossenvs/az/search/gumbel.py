"""Batched Gumbel search: many games' trees walked in numba, one network call per simulation step.

:class:`GumbelSearch` owns the tree arrays of a batch of games of one kind, on the CPU or on a GPU (one
class, a backend from :mod:`crossenvs.kernels.backends`). ``run`` evaluates the roots, then for each
simulation walks every tree down to one new leaf (a numba loop on the CPU, a CUDA kernel on a GPU: the
same one-tree steps of :mod:`crossenvs.az.search.tree` and :mod:`crossenvs.az.search.tree_math`), evaluates all the
leaves in one forward pass (torch), and backs their values up. It returns the chosen actions, the
improved policies (``softmax(logits + sigma(completed Q))``, the policy targets of Gumbel AlphaZero)
and the root values.

On a GPU the trees, the rules and the network all stay on the device: between a simulation's selection
and its backup the network reads the leaves' observation tensor in place and its logits and values are
read in place in turn. A search is ``3 + simulations`` launches and ``1 + simulations`` forward passes on
torch's current stream, so the caller's torch work and the kernels stay in order without a sync. Under
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) the device backend runs the same code on the CPU with
NumPy arrays in place of tensors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, partial
from typing import Any, NamedTuple

import numpy as np

from crossenvs.az.search import tree_math
from crossenvs.core.game import Game
from crossenvs.kernels import state as st
from crossenvs.kernels.backends import DeviceBackend, HostBackend
from crossenvs.kernels.launch import DeviceKernel, gather
from crossenvs.kernels.specialize import specialize
from crossenvs.kernels.threads import serial_loop
from crossenvs.support.checks import check_batch_size
from crossenvs.support.errors import IllegalActionError, InvalidOptionError

#: (observations (n, H, W, C) float32) -> (logits (n, A) float32, values (n,) float32 in [-1, 1]); on a GPU
#: tensors on the device in and out (:func:`crossenvs.az.network.device_evaluator`), NumPy arrays on the CPU
Evaluator = Callable[[Any], tuple[Any, Any]]
DEVICES = ("cpu", "cuda")


def considered_visits(max_considered: int, simulations: int) -> list[int]:
    """Sequential halving's target visit count of the action chosen at each simulation (mctx's schedule)."""
    if max_considered <= 1:
        return list(range(simulations))
    log2max = math.ceil(math.log2(max_considered))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return sequence[:simulations]


@cache
def considered_table(max_considered: int, simulations: int) -> np.ndarray:
    """Row k: the schedule when k actions are considered (k = 0 .. max_considered)."""
    rows = [considered_visits(k, max(1, simulations)) for k in range(max_considered + 1)]
    return np.array(rows, dtype=np.int64)


def tree_buffers(game: Game, batch: int, simulations: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Every buffer of a search, named as :class:`~crossenvs.az.search.tree_math.Tree` names them: name -> (shape, dtype).

    The trees (one node per simulation and the root; at every node a child and a prior per action), the
    network's answer for the leaves, what a search returns, and the noise of deterministic play.
    """
    n, nodes, actions = batch, max(0, simulations) + 1, game.num_actions
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
        "num_considered": ((n,), np.int64),
        "leaves": ((n,), np.int64),
        "observations": (observations, np.float32),
        "masks": ((n, actions), np.int8),
        "q_rows": ((n, actions), np.float64),
        "no_noise": ((n, actions), np.float32),  # the Gumbel noise of deterministic play: never written
        "logits": ((n, actions), np.float32),
        "values": ((n,), np.float32),
        "actions": ((n,), np.int64),
        "policies": ((n, actions), np.float32),
        "root_values": ((n,), np.float32),
        "root_observations": (observations, np.float32),
    }


#: what a search hands back; fresh arrays on the CPU (the caller keeps them), the search's own on a GPU
RESULTS = ("actions", "policies", "root_values", "root_observations")


class SearchResult(NamedTuple):
    """What a search returns (device tensors on a GPU, rewritten by the next search; NumPy arrays on the CPU)."""

    actions: Any  # (n,) int64: the chosen action of each position
    policies: Any  # (n, A) float32: the improved policy, Gumbel AlphaZero's policy target
    values: Any  # (n,) float32: the root value for each position's player to move
    root_observations: Any  # (n, H, W, C) float32: what the network saw at the roots


#: the search's three steps, in the order a search runs them: two per game (az/search/tree.py), the last one for
#: every game (az/search/tree_math.py)
STEPS = ("init_root", "backup_then_select", "backup_then_answer")


@cache
def search_loops(game_class: type) -> dict[str, tuple[Callable[..., None], Callable[..., None]]]:
    """Each step's CPU loops, (serial, parallel), by step: the step's body over every tree, and the game's copy of
    :mod:`crossenvs.az.search.tree`'s parallel loop with the step's code first. Made once per game, so that the
    measured choice of threads (:func:`crossenvs.kernels.threads.run`, kept per loop) is kept per step across
    searches."""
    per_game = specialize("crossenvs.az.search.tree", game_class)
    bodies = (per_game.init_root_trees, per_game.backup_then_select_trees, tree_math.backup_then_answer_trees)
    codes = (per_game.INIT_ROOT, per_game.BACKUP_THEN_SELECT, per_game.BACKUP_THEN_ANSWER)
    return {step: (serial_loop(body), partial(per_game.search_parallel, code))
            for step, body, code in zip(STEPS, bodies, codes)}  # fmt: skip


def search_kernels(game: Game) -> dict[str, DeviceKernel]:
    """Each step's CUDA kernel (one GPU thread a tree, 64 a block), by step, for the device search."""
    per_game = specialize("crossenvs.az.search.tree", type(game))
    modules = dict.fromkeys(STEPS[:2], per_game) | dict.fromkeys(STEPS[2:], tree_math)
    return {step: DeviceKernel(getattr(modules[step], f"{step}_cuda"), "leaves", 64, game.name) for step in STEPS}


def search_backend(game: Game, device: str) -> HostBackend | DeviceBackend:
    """Where a search of ``game`` runs: its CPU loops (a large batch across numba's threads; on a GPU machine the
    tree walk is most of the time), or its CUDA kernels (the GPU stack checked first)."""
    if device not in DEVICES:
        raise InvalidOptionError(f"device must be one of {DEVICES}, got {device!r}")
    return HostBackend(search_loops(type(game))) if device == "cpu" else DeviceBackend(search_kernels(game))


class GumbelSearch:
    """Trees for up to ``batch`` games of ``game`` on ``device`` ("cpu" or "cuda"), searched with ``simulations``
    per move.

    ``run(boards, metas, evaluate, rng)`` searches the positions (on a GPU: device arrays or tensors, or host
    arrays, copied up once) and returns a :class:`SearchResult`. ``evaluate`` takes the leaves' observations and
    returns logits and values (NumPy on the CPU; tensors on the device on a GPU). The root noise is Gumbel(0, 1)
    from ``rng`` (a NumPy generator), or ``gumbel`` itself ((n, A) float32; on a GPU :meth:`gumbel_noise` draws
    it there), or none: deterministic play.
    """

    def __init__(self, game: Game, batch: int, simulations: int, max_considered: int = 16, device: str = "cpu") -> None:
        self.game = game
        self.batch = check_batch_size(batch, "batch")
        self.simulations = max(0, int(simulations))
        self.max_considered = int(max_considered)
        self.device = device
        self.backend = search_backend(game, device)  # the GPU stack first: what is missing is the first thing said
        self._on_device = isinstance(self.backend, DeviceBackend)
        buffers = tree_buffers(game, self.batch, self.simulations)
        what = f"a {'device ' if device == 'cuda' else ''}search of {self.batch:,} {game.name} trees"
        self.backend.check_memory(
            buffers, f"{what} of {self.simulations + 1} nodes", "ask for fewer games or simulations"
        )
        self._trees = {name: self.backend.zeros(shape, dtype) for name, (shape, dtype) in buffers.items()}
        self._table = self.backend.input(considered_table(self.max_considered, self.simulations), np.int64)

    def __getattr__(self, name: str) -> Any:
        """The trees' arrays by name (``search.visits``, ``search.children``...): what tests and tools read."""
        trees = self.__dict__.get("_trees", {})
        if name in trees:
            return trees[name][1]
        raise AttributeError(name)

    def gumbel_noise(self, n: int | None = None, generator: Any = None) -> Any:
        """Gumbel(0, 1) root noise for ``n`` positions (default: the batch), drawn by torch where the search runs
        (a CPU tensor on the CPU and under the simulator) from ``generator`` (a ``torch.Generator`` there)."""
        import torch

        shape = (self.batch if n is None else n, self.game.num_actions)
        device = "cuda" if getattr(self.backend, "torch", None) is not None else "cpu"
        exponential = torch.empty(shape, device=device, dtype=torch.float32).exponential_(generator=generator)
        return -torch.log(exponential)

    def run(
        self,
        boards: Any,
        metas: Any,
        evaluate: Evaluator,
        rng: np.random.Generator | None = None,
        stop: np.ndarray | None = None,
        gumbel: Any = None,
    ) -> SearchResult:
        """Search the ``n <= batch`` positions, games in play (positions on the device are not read back to check
        it; a device env's games always are, since finished ones restart).

        ``stop``: a flag byte another thread may set (:meth:`crossenvs.players.Player.interrupt`); the search then
        ends after the simulation step under way and answers from what it has.
        """
        n = len(boards)
        if not 1 <= n <= self.batch:
            raise InvalidOptionError(
                f"{n} positions for a search made for {self.batch}; make GumbelSearch(game, {max(n, 1)}, ...)"
            )
        if isinstance(metas, np.ndarray):
            finished = np.flatnonzero(metas[:, st.STATUS] != st.STATUS_PLAYING)
            if finished.size:
                raise IllegalActionError(f"{self.game.name}: position {finished[0]} of the batch is a finished game")
        if gumbel is None and rng is not None:
            gumbel = rng.gumbel(size=(n, self.game.num_actions)).astype(np.float32)
        results = self._results(n)
        tree = self._tree(n, boards, metas, gumbel, {name: kernel_view for name, (kernel_view, _) in results.items()})
        launch = self.backend.launch
        launch("init_root", tree, n)
        self._copy(tree.observations, results["root_observations"][0])
        tree = self._evaluate(tree, evaluate)
        for _ in range(self.simulations):  # the last leaves backed up and the next chosen, in one step
            if stop is not None and stop[0]:
                break
            launch("backup_then_select", tree, n)
            tree = self._evaluate(tree, evaluate)
        launch("backup_then_answer", tree, n)
        return SearchResult(*(self.backend.for_caller(results[name][1]) for name in RESULTS))

    def _copy(self, source: Any, target: Any) -> None:
        """``source`` into ``target``, where they lie (on the device: on torch's stream, in order with the kernels)."""
        if self._on_device:
            target.copy_to_device(source, stream=self.backend.arrays.stream())
        else:
            target[...] = source

    def _results(self, n: int) -> dict[str, tuple[Any, Any]]:
        """Where a search of ``n`` positions writes its answer, (kernel view, caller view) by name: on the CPU fresh
        arrays (the caller keeps them), on a GPU the search's own buffers."""
        if self._on_device:
            return {name: (self._trees[name][0][:n], self._trees[name][1][:n]) for name in RESULTS}
        fresh = {name: np.empty_like(self._trees[name][0][:n]) for name in RESULTS}
        return {name: (array, array) for name, array in fresh.items()}

    def _first_trees(self, n: int) -> dict[str, Any]:
        """The kernels' views of the first ``n`` trees, by name: made again only when ``n`` changes (slicing twenty
        arrays was a fifth of a one-game search without simulations)."""
        if self.__dict__.get("_sliced_for") != n:
            self._sliced = {name: kernel_view[:n] for name, (kernel_view, _) in self._trees.items()}
            self._sliced_for = n
        return self._sliced

    def _tree(self, n: int, boards: Any, metas: Any, gumbel: Any, results: dict[str, Any]) -> tree_math.Tree:
        """The first ``n`` trees, the positions, the root noise and where the answer goes, as the kernels take them
        (no copy of the trees)."""
        arrays = self._first_trees(n) | results
        noise = arrays["no_noise"] if gumbel is None else self.backend.input(gumbel, np.float32)
        if tuple(noise.shape) != (n, self.game.num_actions):
            raise InvalidOptionError(f"gumbel must have shape ({n}, {self.game.num_actions}), got {tuple(noise.shape)}")
        arrays.update(
            boards=self.backend.input(boards, np.int8),
            metas=self.backend.input(metas, np.int32),
            gumbel=noise,
            considered_table=self._table,
            max_considered=np.int64(self.max_considered),
        )
        return gather(tree_math.Tree, arrays)

    def _evaluate(self, tree: tree_math.Tree, evaluate: Evaluator) -> tree_math.Tree:
        """One forward pass over the leaves' observations (read in place): the tree with its logits and values.

        Once a simulation: on a one-game search its few microseconds of Python are a tenth of the search."""
        n = len(tree.leaves)
        observations = (
            self.backend.for_caller(self._trees["observations"][1][:n]) if self._on_device else tree.observations
        )
        logits, values = evaluate(observations)
        if not self._on_device:  # into the tree's own buffers: a 24-field tuple's _replace cost more than the copy
            self._check_answer(n, np.shape(logits), np.shape(values))
            np.copyto(tree.logits, logits, casting="same_kind")
            np.copyto(tree.values, values, casting="same_kind")
            return tree
        to_kernel = self.backend.input  # on the device the network's own tensors, read in place
        logits, values = to_kernel(logits, np.float32), to_kernel(values, np.float32)
        self._check_answer(n, tuple(logits.shape), tuple(values.shape))
        return tree._replace(logits=logits, values=values)

    def _check_answer(self, n: int, logits_shape: tuple[int, ...], values_shape: tuple[int, ...]) -> None:
        """The network's answer has one row per leaf: the kernels would read past a smaller one."""
        if logits_shape != (n, self.game.num_actions) or values_shape != (n,):
            raise InvalidOptionError(
                f"evaluate must return logits ({n}, {self.game.num_actions}) and values ({n},), "
                f"got {logits_shape} and {values_shape}"
            )
