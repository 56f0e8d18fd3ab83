"""Exact game-theoretic values: ``solve(game, state)`` for any registered game, within a node budget.

The search (``crossenvs.eval.solve_kernel``) is negamax with alpha-beta pruning and a
transposition table, in numba, written once over the three kernels every game has, so a game of
one's own is solved by the same code. It first deepens step by step: at each depth, one search
with every position past the horizon counted as lost and one with it counted as won bound the
value from both sides, and when they agree the value is proven, so a win or loss a few moves away
is found without searching the whole game; past ``deepening`` plies one search goes to the end. It proves a value (+1 a forced win for the player to move,
0 a draw, -1 a forced loss) and, on request, the value of every legal action, whose best ones are
the optimal moves. Past its node budget it stops and raises :class:`SolverBudgetError`: a value
that is not proven is never reported.

>>> import crossenvs
>>> from crossenvs.eval.solver import solve
>>> solution = solve(crossenvs.make_game("crisscross", size=3))
>>> solution.value, solution.optimal
(1, [0, 1, 2, 3, 4, 5, 6, 7, 8])
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from crossenvs.kernels.specialize import specialize
from crossenvs.kernels.state import State
from crossenvs.support.checks import check_memory
from crossenvs.support.errors import CrossenvsError, InvalidArgumentError

from ..core.game import Game

#: the default budget: nodes visited before the search gives up
DEFAULT_NODES = 50_000_000
#: the default depth of the last bounded search before the unbounded one
DEFAULT_DEEPENING = 8
#: the default transposition table: 2**22 slots (40 MB)
DEFAULT_TABLE_BITS = 22
_SLOT_BYTES = 8 + 1 + 1  # key, value, flag


class SolverBudgetError(CrossenvsError, RuntimeError):
    """A solver (this one, or Connect Four's in ``crossenvs.eval.connect_four``) visited its whole node budget
    without proving a value."""


@dataclass(frozen=True)
class Solution:
    """A proven value for the player to move, and (with ``moves=True``) each legal action's value."""

    value: int  # +1 forced win, 0 draw, -1 forced loss, for the player to move
    nodes: int  # positions visited
    seconds: float
    action_values: dict[int, int] = field(default_factory=dict)  # legal action -> its value (moves=True)

    @property
    def optimal(self) -> list[int]:
        """The legal actions that keep the position's value (empty without ``moves=True``)."""
        return sorted(action for action, value in self.action_values.items() if value == self.value)


def solve(
    game: Game,
    state: State | None = None,
    *,
    nodes: int = DEFAULT_NODES,
    table_bits: int = DEFAULT_TABLE_BITS,
    moves: bool = True,
    deepening: int = DEFAULT_DEEPENING,
) -> Solution:
    """The proven value of ``state`` (the start by default) for the player to move.

    ``nodes`` bounds the positions visited (:class:`SolverBudgetError` past it); ``table_bits``
    sizes the transposition table (``2**table_bits`` slots of 10 bytes, checked against free
    memory first). ``moves`` also proves each legal action's value, which names the optimal moves.
    ``deepening`` is how many plies deep the bounded searches go before one unbounded search (0:
    none); they prove short wins and losses in games too big to search through, and spend at most
    half of the budget left, so the full search always has the other half.
    """
    state = game.initial_state() if state is None else state
    game.check_state(state)
    if game.is_terminal(state):
        raise InvalidArgumentError(f"{game.name}: the game is over; there is nothing to solve")
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise InvalidArgumentError(f"nodes must be a whole number of positions above 0, got {nodes!r}")
    if isinstance(table_bits, bool) or not isinstance(table_bits, int) or not 10 <= table_bits <= 34:
        raise InvalidArgumentError(f"table_bits must be from 10 to 34, got {table_bits!r}")
    if isinstance(deepening, bool) or not isinstance(deepening, int) or not 0 <= deepening <= 64:
        raise InvalidArgumentError(f"deepening must be a number of plies from 0 to 64, got {deepening!r}")
    check_memory(_SLOT_BYTES << table_bits, f"a transposition table of 2**{table_bits} slots", "give fewer table_bits")
    kernels = specialize("crossenvs.eval.solve_kernel", type(game))
    keys = np.zeros(1 << table_bits, dtype=np.uint64)
    values = np.zeros(1 << table_bits, dtype=np.int8)
    flags = np.zeros(1 << table_bits, dtype=np.int8)
    counters = np.zeros(2, dtype=np.int64)  # positions visited, horizon leaves met
    table = (keys, values, flags, counters)

    def bounded(position: State, depth: int, horizon: int, limit: int = nodes) -> int | None:
        value = kernels.negamax(
            position.board.copy(), position.meta.copy(), -2, 2, *table, limit, game.num_actions,
            depth, int(game.current_player(position)), horizon, kernels.FIRST_CAPACITY,
        )  # fmt: skip
        if value != kernels.ABORT:
            return int(value)
        if limit < nodes:
            return None  # the bounded searches' share is spent: the full search has the rest
        raise SolverBudgetError(
            f"{game.name}: no value proven within {nodes:,} positions ({time.perf_counter() - started:.1f} s); "
            "give a larger budget (--nodes on the command line, nodes= in Python) or a position nearer the end"
        )

    def search(position: State) -> int:
        share = int(counters[0]) + (nodes - int(counters[0])) // 2  # at most half of what is left
        for depth in range(1, deepening + 1):
            horizons = counters[1]
            low = bounded(position, depth, -1, share)  # the horizon counted lost: a lower bound
            if low is None:
                break
            if low == 1 or counters[1] == horizons:  # a proven win, or no horizon met: exact
                return low
            horizons = counters[1]
            high = bounded(position, depth, 1, share)  # the horizon counted won: an upper bound
            if high is None:
                break
            if high == low or counters[1] == horizons:
                return high
        return bounded(position, -1, 0)

    # Compile first (a budget of no node stops at once), so the time reported is the search's own.
    kernels.negamax(
        state.board.copy(), state.meta.copy(), -2, 2, keys, values, flags, counters.copy(), 0, game.num_actions,
        -1, 0, 0, kernels.FIRST_CAPACITY,
    )  # fmt: skip
    started = time.perf_counter()
    per_action = _action_values(game, state, search) if moves else {}
    value = max(per_action.values()) if moves else search(state)
    return Solution(value, int(counters[0]), time.perf_counter() - started, per_action)


def _action_values(game: Game, state: State, search) -> dict[int, int]:
    """Each legal action's exact value for the player to move (a finished child scored from its outcome)."""
    mover, found = game.current_player(state), {}
    for action in map(int, game.legal_actions(state)):
        child = game.apply(state, action)
        outcome = game.outcome(child)
        if outcome is not None:
            found[action] = int(outcome[mover])
        else:
            value = search(child)
            found[action] = value if game.current_player(child) == mover else -value
    return found
