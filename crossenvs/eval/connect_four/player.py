"""``perfect``: a Connect Four player that never gives value away, the top rung a ladder can have.

It scores every legal column exactly (:class:`~.solver_api.ConnectFourSolver`) and plays one of the
best: the fastest win when it can win, a draw when it can hold one, else the slowest loss. Ties
between equally fast moves are broken by its seeded random stream, so games against it vary.

Our solver proves most positions in milliseconds; in the first plies, with the whole game ahead,
it would take minutes without an opening book. There, past ``nodes`` positions, the player asks
bitbully (``pip install bitbully``, AGPL-3.0, never a dependency of the package) with its opening
book, and says plainly what to install when it is missing.
"""

from __future__ import annotations

from ...core.errors import InvalidOptionError
from ...core.game import Game
from ...core.state import State
from ...players import Player
from .solver_api import ConnectFourSolver, SolverBudgetError

#: our solver's budget for one move before the opening book is asked (a few seconds on one core)
MOVE_NODES = 5_000_000


class PerfectPlayer(Player):
    """Plays an optimal Connect Four move: the fastest win, else a draw, else the slowest loss."""

    name = "perfect"

    def __init__(self, seed: int | None = None, *, nodes: int = MOVE_NODES) -> None:
        super().__init__(seed)
        self.nodes = nodes
        self._solver: ConnectFourSolver | None = None

    def act(self, game: Game, state: State) -> int:
        best = self.optimal_moves(game, state)
        return int(best[self.rng.integers(len(best))])

    def optimal_moves(self, game: Game, state: State) -> list[int]:
        """The columns of the best score in ``state``."""
        scores = self.move_scores(game, state)
        top = max(scores.values())
        return sorted(col for col, score in scores.items() if score == top)

    def move_scores(self, game: Game, state: State) -> dict[int, int]:
        """Every legal column's exact score (ours within the budget, else bitbully's)."""
        check_standard_grid(game)
        if self._solver is None:
            self._solver = ConnectFourSolver()
        try:
            return self._solver.move_scores(state, nodes=self.nodes).scores
        except SolverBudgetError:
            from .bitbully_check import bitbully_scores_of_state

            return bitbully_scores_of_state(state)


def check_standard_grid(game: Game) -> None:
    if game.name != "connect_four" or (game.width, game.height) != (7, 6):
        where = game.name if game.name != "connect_four" else f"connect_four {game.width}x{game.height}"
        raise InvalidOptionError(
            f"player 'perfect' plays Connect Four on its standard 7x6 grid, not {where}; for other games and sizes "
            "crossenvs solve proves a position's value (crossenvs.eval.solver)"
        )


def from_spec(argument: str, game: Game | None, seed: int | None) -> PerfectPlayer:
    """``perfect``: no argument."""
    if argument:
        raise InvalidOptionError(f"player 'perfect' takes no argument, got 'perfect:{argument}'; write perfect")
    if game is not None:
        check_standard_grid(game)
    return PerfectPlayer(seed)
