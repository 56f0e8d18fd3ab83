"""``perfect``: a Connect Four player that never gives value away, the top rung a ladder can have.

It scores every legal column exactly (:class:`~.solver_api.ConnectFourSolver`) and plays one of the
best: the fastest win when it can win, a draw when it can hold one, else the slowest loss. Ties
between equally fast moves are broken by its seeded random stream, so games against it vary.

``perfect:<percent>`` plays a uniformly random legal move on that share of its moves and a perfect
one on the rest (the mixing ``noisy:<percent>:<spec>`` gives any player): a family of fixed players
between the MCTS rungs and perfect play, so a ladder can rate an agent that is close to perfect
(against ``perfect`` alone it would lose every game, and a rating needs games that go both ways).

Our solver proves most positions from ply 12 on in milliseconds to seconds; before, with the whole
game ahead, it would take minutes without an opening book. There the player asks bitbully (the
``solver`` extra, AGPL-3.0, never a dependency of the package), whose 12-ply book answers at once:
before :data:`BOOK_PLIES` plies straight away, later only past ``nodes`` positions of ours. Without
bitbully our solver tries within its budget and the error names the extra.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from crossenvs.kernels.state import State
from crossenvs.support.checks import whole_number
from crossenvs.support.errors import InvalidOptionError

from ...core.game import Game
from ...players import Player
from ...players.builtin import plays_at_random, random_legal_action
from .solver_api import ConnectFourSolver, SolverBudgetError

#: our solver's budget for one move before the opening book is asked (a few seconds on one core)
MOVE_NODES = 5_000_000
#: below this many plies played the book answers first: on the shipped positions bitbully's 12-ply book answers
#: at once there, where ours, with the whole game ahead, solves few within its budget (measured:
#: docs/connect_four.md, section 'The solver and the perfect player')
BOOK_PLIES = 12


class PerfectPlayer(Player):
    """Plays an optimal Connect Four move: the fastest win, else a draw, else the slowest loss."""

    name = "perfect"

    def __init__(self, seed: int | None = None, *, nodes: int = MOVE_NODES, random_percent: int = 0) -> None:
        super().__init__(seed)
        if not 0 <= random_percent <= 100:
            raise InvalidOptionError(f"perfect:<percent>: a percentage from 0 to 100, got {random_percent}")
        self.nodes = nodes
        self.random_percent = random_percent
        self.name = f"perfect{random_percent}" if random_percent else "perfect"
        self._solver: ConnectFourSolver | None = None

    def act(self, game: Game, state: State) -> int:
        if plays_at_random(self.rng, self.random_percent):
            return random_legal_action(game, state, self.rng)
        best = self.optimal_moves(game, state)
        return int(best[self.rng.integers(len(best))])

    def optimal_moves(self, game: Game, state: State) -> list[int]:
        """The columns of the best score in ``state``."""
        scores = self.move_scores(game, state)
        top = max(scores.values())
        return sorted(col for col, score in scores.items() if score == top)

    def move_scores(self, game: Game, state: State) -> dict[int, int]:
        """Every legal column's exact score (ours within the budget, else bitbully's)."""
        from .bitbully_check import bitbully_scores_of_state

        check_standard_grid(game)
        if np.count_nonzero(state.board) < BOOK_PLIES and book_installed():
            return bitbully_scores_of_state(state)
        if self._solver is None:
            self._solver = ConnectFourSolver()
        try:
            return self._solver.move_scores(state, nodes=self.nodes).scores
        except SolverBudgetError:
            return bitbully_scores_of_state(state)


def book_installed() -> bool:
    """Whether bitbully (the ``solver`` extra) is importable, without importing it."""
    return importlib.util.find_spec("bitbully") is not None


def check_standard_grid(game: Game) -> None:
    if game.name != "connect_four" or (game.width, game.height) != (7, 6):
        where = game.name if game.name != "connect_four" else f"connect_four {game.width}x{game.height}"
        raise InvalidOptionError(
            f"player 'perfect' plays Connect Four on its standard 7x6 grid, not {where}; for other games and sizes "
            "crossenvs solve proves a position's value (crossenvs.eval.solver)"
        )


def from_spec(argument: str, game: Game | None, seed: int | None) -> PerfectPlayer:
    """``perfect``, or ``perfect:<percent>``: that share of its moves played at random."""
    percent = whole_number(argument, "perfect:<percent of moves played at random>", 0, 100) if argument else 0
    if game is not None:
        check_standard_grid(game)
    return PerfectPlayer(seed, random_percent=percent)
