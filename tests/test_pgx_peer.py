"""The pgx baseline both benchmarks time us against (crossenvs.integrations.pgx_peer): it counts what it
plays, resets games inside the jit and refuses bad arguments by name. Speed is never asserted."""

from __future__ import annotations

import time

import pytest

from crossenvs.integrations.pgx_peer import DEFAULT_CHAIN, _chained_steps, pgx_random_play
from crossenvs.support.errors import InvalidArgumentError


@pytest.mark.parametrize(
    ("batch", "chain", "named"), [(0, 4, "batch"), (2, 0, "chain"), (2, True, "chain"), (1.5, 4, "batch")]
)
def test_batch_and_chain_below_one_or_not_whole_are_refused(batch, chain, named):
    with pytest.raises(InvalidArgumentError, match=f"^{named} must be a whole number of at least 1, not "):
        pgx_random_play("othello", batch, chain)


def test_an_env_pgx_does_not_have_is_refused_with_its_list():
    pytest.importorskip("pgx")
    with pytest.raises(InvalidArgumentError, match=r"pgx has no env 'othello_9x9'; its envs: .*othello"):
        pgx_random_play("othello_9x9", 2)


def test_the_loop_counts_batch_times_chain_a_call_and_nothing_past_its_deadline():
    pytest.importorskip("pgx")
    loop = pgx_random_play("tic_tac_toe", 3, 4)
    assert loop(time.perf_counter() - 1) == 0  # the deadline is checked before each call
    played = loop(time.perf_counter() + 0.2)
    assert played > 0 and played % 12 == 0
    assert DEFAULT_CHAIN == 16  # both benchmarks' --chain default, as their docs say


def test_games_that_end_restart_inside_the_jit():
    """Tic-tac-toe ends within 9 moves: after 30 steps every game has ended at least once, so a game still
    terminated after a call would be one not reset; with the reset, none is, and move counts restart."""
    pytest.importorskip("pgx")
    steps, carry = _chained_steps("tic_tac_toe", 8, 5)
    for _ in range(6):
        carry = steps(*carry)
        state = carry[0]
        assert not bool(state.terminated.any()) and not bool(state.truncated.any())
        assert int(state._step_count.max()) <= 9
