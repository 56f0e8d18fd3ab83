"""Batched Gumbel search: many games' trees walked in numba, one network call per simulation step.

:class:`GumbelSearch` owns the tree arrays of a batch of games of one kind. ``run`` evaluates the
roots, then for each simulation walks every tree down to one new leaf (numba), evaluates all the
leaves in one forward pass (torch), and backs their values up (numba). It returns the chosen
actions, the improved policies (``softmax(logits + sigma(completed Q))``, the policy targets of
Gumbel AlphaZero) and the root values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from ..core import state as st
from ..core.errors import IllegalActionError, InvalidOptionError
from ..core.game import Game
from ..core.specialize import specialize
from ..kernels.launch import DeviceKernel, gather
from ..kernels.threads import run
from . import tree_math

#: (observations (n, H, W, C) float32) -> (logits (n, A) float32, values (n,) float32 in [-1, 1])
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


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
    """The arrays a search keeps between moves, named as :class:`~crossenvs.az.tree_math.Tree` names them.

    One node per simulation and the root; at every node a child and a prior per action.
    Shared by the CPU search and the device search: name -> (shape, dtype).
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
    }


#: the search's four steps, in the order a search runs them: two per game (az/tree.py), two for every game
STEPS = ("init_root", "backup_then_select", "expand_and_backup", "root_result")


def search_loops(game: Game) -> dict[str, tuple[Callable[..., None], Callable[..., None] | None]]:
    """Each step's CPU loops, (serial, parallel or None), by step: two from the game's copy of
    :mod:`crossenvs.az.tree`, two from :mod:`crossenvs.az.tree_math` (one for every game)."""
    modules = dict.fromkeys(STEPS[:2], specialize("crossenvs.az.tree", type(game))) | dict.fromkeys(
        STEPS[2:], tree_math
    )
    return {step: (getattr(modules[step], f"{step}_serial"), getattr(modules[step], f"{step}_parallel", None))
            for step in STEPS}  # fmt: skip


def search_kernels(game: Game) -> dict[str, DeviceKernel]:
    """Each step's CUDA kernel (one GPU thread a tree, 64 a block), by step, for the device search."""
    per_game = specialize("crossenvs.az.tree", type(game))
    modules = dict.fromkeys(STEPS[:2], per_game) | dict.fromkeys(STEPS[2:], tree_math)
    return {step: DeviceKernel(getattr(modules[step], f"{step}_cuda"), "leaves", 64, game.name) for step in STEPS}


class GumbelSearch:
    """Trees for up to ``batch`` games of ``game``, searched with ``simulations`` per move."""

    def __init__(self, game: Game, batch: int, simulations: int, max_considered: int = 16) -> None:
        self.game = game
        self.batch = int(batch)
        self.simulations = max(0, int(simulations))
        self.max_considered = int(max_considered)
        # the trees are independent: each step runs across numba's threads for a large batch, else serially
        # (see crossenvs.kernels.threads); on a GPU machine the tree walk is most of the time
        self.loops = search_loops(game)
        self._buffers = {
            name: np.zeros(shape, dtype) for name, (shape, dtype) in tree_buffers(game, batch, simulations).items()
        }

    def __getattr__(self, name: str) -> np.ndarray:
        """The trees' arrays by name (``search.visits``, ``search.children``...): what tests and tools read."""
        buffers = self.__dict__.get("_buffers", {})
        if name in buffers:
            return buffers[name]
        raise AttributeError(name)

    def run(
        self,
        boards: np.ndarray,
        metas: np.ndarray,
        evaluate: Evaluator,
        rng: np.random.Generator | None = None,
        stop: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Search the ``n <= batch`` positions; Gumbel noise from ``rng`` (None: deterministic play).

        ``stop``: a flag byte another thread may set (:meth:`crossenvs.players.Player.interrupt`);
        the search then ends after the simulation step under way and answers from what it has.

        Returns the actions (n,), improved policies (n, A), root values (n,) for each position's
        player to move, and the roots' observations (n, H, W, C) (what the network saw).
        """
        n = len(boards)
        if n > self.batch:
            raise InvalidOptionError(
                f"{n} positions for a search made for {self.batch}; make GumbelSearch(game, {n}, ...)"
            )
        finished = np.flatnonzero(metas[:, st.STATUS] != st.STATUS_PLAYING)
        if finished.size:
            raise IllegalActionError(f"{self.game.name}: position {finished[0]} of the batch is a finished game")
        tree = self._tree(n, boards, metas, rng)
        loops = self.loops
        run(*loops["init_root"], tree, n)
        root_observations = tree.observations.copy()
        tree = self._evaluate(tree, evaluate)
        for _ in range(self.simulations):
            if stop is not None and stop[0]:
                break
            run(*loops["backup_then_select"], tree, n)
            tree = self._evaluate(tree, evaluate)
        run(*loops["expand_and_backup"], tree, n)
        run(*loops["root_result"], tree, n)
        return tree.actions, tree.policies, tree.root_values, root_observations

    def _tree(self, n: int, boards: np.ndarray, metas: np.ndarray, rng: np.random.Generator | None) -> tree_math.Tree:
        """The first ``n`` trees, the positions and this search's inputs and outputs, as the kernels take them."""
        actions = self.game.num_actions
        gumbel = np.zeros((n, actions), dtype=np.float32)
        if rng is not None:
            gumbel[:] = rng.gumbel(size=gumbel.shape)
        arrays = {name: array[:n] for name, array in self._buffers.items()}
        arrays.update(
            boards=np.ascontiguousarray(boards, dtype=np.int8),
            metas=np.ascontiguousarray(metas, dtype=np.int32),
            gumbel=gumbel,
            considered_table=considered_table(self.max_considered, self.simulations),
            max_considered=np.int64(self.max_considered),
            logits=np.zeros((n, actions), dtype=np.float32),
            values=np.zeros(n, dtype=np.float32),
            actions=np.empty(n, dtype=np.int64),  # fresh each search: the caller keeps the answers
            policies=np.empty((n, actions), dtype=np.float32),
            root_values=np.empty(n, dtype=np.float32),
        )
        return gather(tree_math.Tree, arrays)

    @staticmethod
    def _evaluate(tree: tree_math.Tree, evaluate: Evaluator) -> tree_math.Tree:
        """One forward pass for every leaf of this step: the tree with the network's logits and values."""
        logits, values = evaluate(tree.observations)
        return tree._replace(
            logits=np.ascontiguousarray(logits, dtype=np.float32), values=np.ascontiguousarray(values, dtype=np.float32)
        )
