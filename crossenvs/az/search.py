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

import numpy as np

from ..core import state as st
from ..core.errors import IllegalActionError, InvalidOptionError
from ..core.game import Game
from ..core.specialize import specialize
from ..core.threads import BatchRunner
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


class GumbelSearch:
    """Trees for up to ``batch`` games of ``game``, searched with ``simulations`` per move."""

    def __init__(self, game: Game, batch: int, simulations: int, max_considered: int = 16) -> None:
        self.game = game
        self.batch = int(batch)
        self.simulations = max(0, int(simulations))
        self.max_considered = int(max_considered)
        self.kernels = kernels = specialize("crossenvs.az.tree", type(game))
        # the trees are independent: each batched step runs across numba's threads or serially, whichever
        # is faster now (see crossenvs.core.threads); on a GPU machine the tree walk is most of the time
        self.init_roots = BatchRunner(kernels.init_roots_parallel, kernels.init_roots_serial)
        self.select = BatchRunner(kernels.select_parallel, kernels.select_serial)
        self.expand_and_backup = BatchRunner(tree_math.expand_and_backup_parallel, tree_math.expand_and_backup_serial)
        nodes, actions = self.simulations + 1, game.num_actions
        self.node_boards = np.zeros((batch, nodes, game.height, game.width), dtype=np.int8)
        self.node_metas = np.zeros((batch, nodes, game.initial_state().meta.shape[0]), dtype=np.int32)
        self.children = np.full((batch, nodes, actions), -1, dtype=np.int32)
        self.prior = np.zeros((batch, nodes, actions), dtype=np.float32)
        self.parent = np.full((batch, nodes), -1, dtype=np.int32)
        self.visits = np.zeros((batch, nodes), dtype=np.int32)
        self.value_sum = np.zeros((batch, nodes), dtype=np.float32)
        self.raw_value = np.zeros((batch, nodes), dtype=np.float32)
        self.count = np.zeros(batch, dtype=np.int32)
        self.leaves = np.zeros(batch, dtype=np.int64)
        self.observations = np.zeros((batch, *game.observation_shape), dtype=np.float32)
        self.masks = np.zeros((batch, actions), dtype=np.int8)
        self.q_rows = np.zeros((batch, actions), dtype=np.float64)  # each tree's sigma(Q) scratch

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
        view = self._view(n)
        self.init_roots(n, boards, metas, view["node_boards"], view["node_metas"], view["children"], view["visits"],
                        view["value_sum"], view["count"], view["observations"], view["masks"])  # fmt: skip
        root_observations = view["observations"].copy()
        view["leaves"][:] = 0
        self._evaluate(view, evaluate)
        gumbel = np.zeros((n, self.game.num_actions), dtype=np.float32)
        if rng is not None:
            gumbel[:] = rng.gumbel(size=gumbel.shape)
        num_considered = np.empty(n, dtype=np.int64)
        tree_math.count_considered(view["masks"], self.max_considered, num_considered)
        table = considered_table(self.max_considered, self.simulations)
        for _ in range(self.simulations):
            if stop is not None and stop[0]:
                break
            self.select(n, view["node_boards"], view["node_metas"], view["children"], view["parent"], view["prior"],
                        view["visits"], view["value_sum"], view["raw_value"], view["count"], gumbel, table,
                        num_considered, view["leaves"], view["observations"], view["masks"], view["q_rows"])  # fmt: skip
            self._evaluate(view, evaluate)
        actions = np.empty(n, dtype=np.int64)
        policies = np.empty((n, self.game.num_actions), dtype=np.float32)
        values = np.empty(n, dtype=np.float32)
        tree_math.root_results(view["node_metas"], view["children"], view["prior"], view["visits"],
                                  view["value_sum"], view["raw_value"], gumbel, actions, policies, values,
                                  view["q_rows"])  # fmt: skip
        return actions, policies, values, root_observations

    def _view(self, n: int) -> dict[str, np.ndarray]:
        names = ("node_boards", "node_metas", "children", "prior", "parent", "visits", "value_sum", "raw_value")
        view = {name: getattr(self, name)[:n] for name in names}
        for name in ("count", "leaves", "observations", "masks", "q_rows"):
            view[name] = getattr(self, name)[:n]
        return view

    def _evaluate(self, view: dict[str, np.ndarray], evaluate: Evaluator) -> None:
        """One forward pass for every leaf of this step, then priors and backups in numba."""
        logits, values = evaluate(view["observations"])
        self.expand_and_backup(
            len(logits), view["node_metas"], view["parent"], view["prior"], view["visits"], view["value_sum"],
            view["raw_value"], view["leaves"], np.ascontiguousarray(logits, dtype=np.float32), np.ascontiguousarray(values, dtype=np.float32),
            view["masks"],
        )  # fmt: skip
