"""Connect Four against ground truth: an exact solver with distances, perfect play and mistake rates.

* :class:`ConnectFourSolver`: every move's exact score in a position (``solver.py`` has the search);
* :mod:`.book`: the opening moves of the ``perfect`` player, solved once and shipped;
* :mod:`.positions`: the benchmark positions in six classes, with their solved values;
* :mod:`.mistakes`: a player's mistake rate in each class.
"""

from .solver_api import ConnectFourSolver, MoveScores, SolverBudgetError, scores_to_values

__all__ = ["ConnectFourSolver", "MoveScores", "SolverBudgetError", "scores_to_values"]
