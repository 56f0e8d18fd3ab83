"""Invariants over many random Crossings and Neo-Crossings games, against a reference model.

The reference restates docs/crossings.md and docs/neo_crossings.md in plain Python from the other end: it takes each
maximal line of the mover's stones along a direction and moves every part of it that contains
the front stone (the "subgroup must include an end stone" wording), tests captures by walking
the enemy run, and tests the symmetry rule with numpy's own rotation. The kernels walk from a
tail instead. The two agreeing on every move of thousands of random positions is the point.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import play_random_games

from crossenvs import make_game
from crossenvs.core.geometry import square_name
from crossenvs.games.phalanx import PASS_ACTION
from crossenvs.kernels import state as st
from crossenvs.kernels.state import State

STEPS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
CONFIGS = [
    ("crossings", {}),
    ("neo_crossings", {}),
    ("crossings", {"stalemate": "loss", "move_cap": 40}),
    ("neo_crossings", {"symmetry_rule": False, "move_cap": 60}),
]
PLIES_PER_CONFIG = 1500
FULL_REFUSAL_EVERY = 15  # every so many positions, try all 3,585 action ids on the kernel


def inside(r: int, c: int) -> bool:
    return 0 <= r < 8 and 0 <= c < 8


def far_row(colour: int) -> int:
    return 7 if colour == 1 else 0


def reference_moves(board: np.ndarray, mine: int, crossings: bool, symmetry_rule: bool) -> dict[str, np.ndarray]:
    """Notation -> board after the move, for every legal move of ``mine``."""
    enemy = 3 - mine

    def frozen(r, c):
        return crossings and board[r, c] != 0 and r == far_row(board[r, c])

    moves = {}
    for dr, dc in STEPS:
        for r in range(8):
            for c in range(8):
                front = board[r, c] == mine and not (inside(r + dr, c + dc) and board[r + dr, c + dc] == mine)
                if not front:
                    continue
                line = [(r, c)]  # from the front stone backwards
                while inside(line[-1][0] - dr, line[-1][1] - dc) and board[line[-1][0] - dr, line[-1][1] - dc] == mine:
                    line.append((line[-1][0] - dr, line[-1][1] - dc))
                for size in range(1, len(line) + 1):
                    part = line[:size]
                    if any(frozen(*square) for square in part):
                        continue
                    for k in range(1, size + 1):
                        landing = (r + k * dr, c + k * dc)
                        passed = [(r + j * dr, c + j * dc) for j in range(1, k)]
                        if not inside(*landing) or any(board[sq] != 0 for sq in passed) or board[landing] == mine:
                            continue
                        after = board.copy()
                        if board[landing] == enemy:
                            run = []
                            sq = landing
                            while inside(*sq) and board[sq] == enemy:
                                run.append(sq)
                                sq = (sq[0] + dr, sq[1] + dc)
                            if len(run) >= size or frozen(*landing):
                                continue
                            for sq in run[:1] if crossings else run:
                                after[sq] = 0
                        for sq in part:
                            after[sq] = 0
                        for sq in part:
                            after[sq[0] + k * dr, sq[1] + k * dc] = mine
                        crossing = dr != 0 and landing[0] == far_row(mine)
                        swapped = np.where(after == 0, 0, 3 - after)
                        if symmetry_rule and not crossings and crossing and np.array_equal(after, np.rot90(swapped, 2)):
                            continue
                        tail = part[-1]
                        head = "-" + square_name(r, c) if size > 1 else ""
                        name = square_name(*tail) + head + "-" + square_name(*landing)
                        moves[name] = after
    return moves


def far_count(board: np.ndarray, colour: int) -> int:
    return int((board[far_row(colour)] == colour).sum())


CONFIG_IDS = [f"{n}-{'-'.join(map(str, o.values())) or 'default'}" for n, o in CONFIGS]


@pytest.mark.parametrize("name, options", CONFIGS, ids=CONFIG_IDS)
def test_random_games_agree_with_the_reference_model(name, options):
    game = make_game(name, **options)
    crossings = name == "crossings"
    symmetry = bool(getattr(game, "symmetry_rule", False))
    rng = np.random.default_rng(len(name) + len(options))
    games_ended = 0
    for before, _action, after in play_random_games(game, rng, PLIES_PER_CONFIG):
        player = game.current_player(before)
        mine = player + 1
        mask = game.legal_mask(before)
        legal = np.flatnonzero(mask)
        reference = reference_moves(before.board, mine, crossings, symmetry)
        names = {game.action_to_str(before, int(a)): int(a) for a in legal}
        assert set(names) == (set(reference) or {"pass"})
        for move, legal_action in names.items():
            assert game.str_to_action(before, move) == legal_action
            result = game.apply(before, legal_action)
            if move != "pass":
                assert np.array_equal(result.board, reference[move]), move
            assert result.ply == before.ply + 1 <= game.move_cap
        check_result(game, before, after, crossings)
        games_ended += game.is_terminal(after)
    assert games_ended >= 3


def check_result(game, before: State, after: State, crossings: bool) -> None:
    """The status after a ply follows from the start-of-turn tests, the passes and the cap."""
    mover = game.current_player(before)
    nxt = 1 - mover
    lead = far_count(after.board, nxt + 1) > far_count(after.board, 2 - nxt)
    stuck = game.legal_actions(State(after.board, _playing(after.meta))).tolist() == [PASS_ACTION]
    passes = int(after.meta[st.PASSES])
    if passes >= 2:
        expected = (0.0, 0.0)
    elif lead:
        expected = (1.0, -1.0) if nxt == 0 else (-1.0, 1.0)
    elif game.stalemate == "loss" and stuck:
        expected = (-1.0, 1.0) if nxt == 0 else (1.0, -1.0)
    elif after.ply >= game.move_cap:
        expected = (0.0, 0.0)
    else:
        expected = None
    assert game.outcome(after) == expected
    if crossings:  # a crossed stone stays where it is for good
        for colour in (1, 2):
            row = far_row(colour)
            assert ((after.board[row] == colour) >= (before.board[row] == colour)).all()


def _playing(meta: np.ndarray) -> np.ndarray:
    """The same meta with the game marked as going on (to ask for the mask of a finished position)."""
    meta = meta.copy()
    meta[st.STATUS] = st.STATUS_PLAYING
    meta[st.PASSES] = 0
    return meta
