"""A reference model of Crisscross's capture and win rules against the kernels over random games.

The reference below restates docs/crisscross.md's capture rule from the enemy run's side (a maximal enemy run on a
line of the new checker is taken when one neighbour along the line is in the new segment and
the other is the mover's or off the board); the kernel walks outward from the segment ends.
Two formulations agreeing on thousands of random moves is the point.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import play_random_games

from crossenvs import make_game
from crossenvs.kernels.state import State

SIZES = (3, 5, 8, 11)
PLIES_PER_SIZE = 3000  # 12,000 random plies in all


def reference_connection(board: np.ndarray, mine: int, axis: int) -> bool:
    """Breadth-first search between the two edges of ``axis`` (0: ranks, 1: files)."""
    b = board if axis == 0 else board.T
    n = b.shape[0]
    frontier = [(0, c) for c in range(n) if b[0, c] == mine]
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        if r == n - 1:
            return True
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < n and 0 <= nc < n and (nr, nc) not in seen and b[nr, nc] == mine:
                seen.add((nr, nc))
                frontier.append((nr, nc))
    return False


def reference_place(board: np.ndarray, row: int, col: int, mine: int) -> np.ndarray:
    enemy = 3 - mine
    out = board.copy()
    out[row, col] = mine
    n = board.shape[0]
    for line, pos in ((out[row, :], col), (out[:, col], row)):  # views: flips write into out
        lo = pos
        while lo > 0 and line[lo - 1] == mine:
            lo -= 1
        hi = pos
        while hi < n - 1 and line[hi + 1] == mine:
            hi += 1
        segment = set(range(lo, hi + 1))
        runs, start = [], None
        snapshot = line.copy()
        for i in range(n + 1):
            inside = i < n and snapshot[i] == enemy
            if inside and start is None:
                start = i
            if not inside and start is not None:
                runs.append((start, i - 1))
                start = None
        for a, b in runs:
            before = a - 1 if a > 0 else None
            after = b + 1 if b < n - 1 else None
            for touching, other in ((before, after), (after, before)):
                if touching in segment and (other is None or snapshot[other] == mine):
                    line[a : b + 1] = mine
    return out


@pytest.mark.parametrize("size", SIZES)
def test_random_games_agree_with_the_reference_model(size):
    game = make_game("crisscross", size=size)
    rng = np.random.default_rng(size)
    games_ended = 0
    for before, action, after in play_random_games(game, rng, PLIES_PER_SIZE):
        player = game.current_player(before)
        # the reference model of captures and wins agrees with the kernel (the generic contract,
        # masks, text, twins, finished games, is checked for every game in test_contract.py)
        square = game.action_to_str(before, action)
        row, col = int(square[1:]) - 1, "abcdefghijklmnopqrs".index(square[0])
        assert np.array_equal(after.board, reference_place(before.board, row, col, player + 1))
        won = reference_connection(after.board, player + 1, axis=player)
        full = not (after.board == 0).any()
        expected = (1.0, -1.0) if won and player == 0 else (-1.0, 1.0) if won else (0.0, 0.0) if full else None
        assert game.outcome(after) == expected
        assert after.ply == before.ply + 1 <= size * size
        games_ended += game.is_terminal(after)
    assert games_ended > 0


def test_actions_are_egocentric(crisscross8):
    """The same action id is the transposed square for Blue, and masks follow the frame."""
    game = crisscross8
    state = game.from_text("to_move: blue\n1 R . . . . . . .\n")
    action = game.str_to_action(state, "a2")  # Blue's frame: row = file a (0), col = rank 2 (1)
    assert action == 1
    assert game.legal_mask(state)[0] == 0  # a1 is taken, in either frame
    off_diagonal = game.from_text("to_move: blue\n2 R . . . . . . .\n")  # red a2
    mask = game.legal_mask(off_diagonal)
    assert mask[game.str_to_action(off_diagonal, "a2")] == 0 and mask[game.str_to_action(off_diagonal, "b1")] == 1
    assert game.str_to_action(off_diagonal, "a2") == 1  # Blue's row 0 (file a), col 1 (rank 2)
    red_state = game.from_text("to_move: red\n")
    assert game.action_to_str(red_state, 1) == "b1"
    assert game.action_to_str(state, 1) == "a2"


def test_the_declared_symmetries_hold_on_random_games():
    """Flipping the board (Red's frame) commutes with the rules, masks and observations: safe augmentation."""
    game = make_game("crisscross", size=5)
    rng = np.random.default_rng(0)
    checked = 0
    for before, action, after in play_random_games(game, rng, 600):
        if game.current_player(before) != 0:  # Red's frame is the board's own
            continue
        for cells, actions in game.symmetries():
            flipped = State(before.board.ravel()[cells].reshape(5, 5).copy(), before.meta.copy())
            image = int(np.flatnonzero(actions == action)[0])
            result = game.apply(flipped, image)
            assert np.array_equal(result.board.ravel(), after.board.ravel()[cells])
            assert game.outcome(result) == game.outcome(after)
            assert np.array_equal(game.legal_mask(flipped), game.legal_mask(before)[actions])
            planes = game.observe(before, 0).reshape(25, -1)[cells]
            assert np.array_equal(game.observe(flipped, 0).reshape(25, -1), planes)
            checked += 1
    assert checked > 500 and len(game.symmetries()) == 4
