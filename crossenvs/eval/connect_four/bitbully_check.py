"""Scores from bitbully, an independent Connect Four solver (PyPI ``bitbully``, AGPL-3.0), for checking ours.

Only the tests and the benchmarks import this: crossenvs' own solver does the work, and the package
neither depends on bitbully nor ships any of it. bitbully numbers the columns 0..6 from the left and
scores moves on the same scale as ours (see :mod:`.solver`); its opening book answers the first plies.
"""

from __future__ import annotations

from functools import cache


@cache
def _engine():
    from bitbully import BitBully

    return BitBully()


def bitbully_scores(moves: str) -> dict[int, int]:
    """bitbully's exact score of every legal column after the columns ``moves`` (digits) from the start."""
    from bitbully import Board

    board = Board.from_moves([int(d) for d in moves])
    return {int(col): int(score) for col, score in _engine().score_all_moves(board).items()}


def bitbully_scores_of_state(state) -> dict[int, int]:
    """bitbully's scores of a 7x6 position given as a :class:`~crossenvs.kernels.state.State`."""
    from crossenvs.support.extras import import_extra

    bitbully = import_extra(
        "bitbully", "the perfect player's first plies (our solver has no opening book yet)", "solver"
    )
    rows = [[int(state.board[row, col]) for col in range(7)] for row in range(5, -1, -1)]  # top row first
    board = bitbully.Board.from_array(rows)
    return {int(col): int(score) for col, score in _engine().score_all_moves(board).items()}
