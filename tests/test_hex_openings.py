"""Hex 7x7's solved openings (benchmarks/hex_openings.py): the table is the winning set's shape, agrees with the
rows of Hayward et al.'s table that were read, and the 7x7 config's kept agent opens with a winning move."""

from __future__ import annotations

import pytest
from conftest import benchmark_script


@pytest.fixture(scope="module")
def openings():
    with benchmark_script("hex_openings") as module:
        yield module


def test_the_table_is_closed_under_the_half_turn_and_holds_the_centre_not_the_acute_corners(openings):
    table = openings.WINNING_7X7
    assert len(table) == 27 and all(len(cell) == 2 and cell[0] in "abcdefg" and cell[1] in "1234567" for cell in table)
    assert {openings.half_turn(cell) for cell in table} == table  # the half turn keeps each player's edges
    assert "d4" in table and not {"a1", "g7"} & table and {"a7", "g1"} <= table  # centre wins, acute corners lose


def test_the_table_agrees_with_every_row_of_haywards_that_was_read(openings):
    """Hayward et al.'s proof-tree page, its axes the other way round: a4, a6, a7 and b3 win, a1-a3, a5, b1, b2 lose."""
    winning, losing = {"a4", "a6", "a7", "b3"}, {"a1", "a2", "a3", "a5", "b1", "b2"}
    assert {openings.mirrored(cell) for cell in winning} <= openings.WINNING_7X7
    assert not {openings.mirrored(cell) for cell in losing} & openings.WINNING_7X7


def test_the_7x7_agent_opens_with_a_winning_move_searching_or_not(openings, capsys):
    for spec in (openings.DEFAULT_SPEC, openings.DEFAULT_SPEC + ":0"):
        moves = openings.first_moves(spec, range(3))
        assert all(move in openings.WINNING_7X7 and openings.mirrored(move) in openings.WINNING_7X7 for move in moves)
    assert openings.main(["--seeds", "2"]) == [
        {"seed": k, "move": "b6", "wins": True, "mirror_wins": True} for k in (0, 1)
    ]
    assert "2 of 2 first moves win (27 of the 49 openings do)" in capsys.readouterr().out
