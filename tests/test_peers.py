"""Our Hex and Connect Four against the peers' (crossenvs.selfcheck.peers): the same random games, compared
at every position (legal ids, terminal flag, winner). 0 mismatches over a few hundred games per peer here;
``benchmarks/peer_check.py`` runs 100,000 positions per peer. A peer that is not installed is skipped."""

from __future__ import annotations

import importlib.util

import pytest

from crossenvs import make_game
from crossenvs.selfcheck import peers
from crossenvs.selfcheck.peers import PEERS, cross_check, peer_action
from crossenvs.support.errors import InvalidArgumentError

#: games per peer: a few hundred, seconds each (pgx's jit compile is most of its share, so it is slow-tier)
GAMES = 300
FAST = [name for name in PEERS if not name.startswith("pgx:")]
SLOW = [name for name in PEERS if name.startswith("pgx:")]


def _needs(peer: str) -> None:
    module = PEERS[peer].module
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{peer}: {module} is not installed (the bench extra)")


def _agrees(peer: str) -> None:
    _needs(peer)
    report = cross_check(peer, GAMES, seed=7)
    assert report.games == GAMES and report.positions > 10 * GAMES
    assert report.mismatches == [], "\n".join(report.mismatches[:5])


@pytest.mark.parametrize("peer", FAST)
def test_ours_and_the_peer_agree_at_every_position(peer):
    _agrees(peer)


@pytest.mark.slow
@pytest.mark.parametrize("peer", SLOW)
def test_ours_and_pgx_agree_at_every_position(peer):
    _agrees(peer)


def test_a_wrong_mapping_is_caught(monkeypatch):
    """The check can fail: White's ids left untransposed disagree with OpenSpiel within a few games."""
    _needs("openspiel:hex5")
    monkeypatch.setattr(peers, "peer_action", lambda game, state, action: int(action))
    report = cross_check("openspiel:hex5", 20)
    assert len(report.mismatches) > 10 and "position" in report.mismatches[0]


def test_hex_ids_are_the_peers_for_black_and_transposed_for_white():
    game = make_game("hex", size=5, swap=True)
    start = game.initial_state()
    assert peer_action(game, start, 7) == 7  # Black: (row 1, col 2) is the peers' 1 * 5 + 2
    after = game.apply(start, 7)
    assert peer_action(game, after, 7) == 11  # White's frame (1, 2) is the board's (2, 1): 2 * 5 + 1
    assert peer_action(game, after, 25) == 25  # the swap keeps its id
    assert game.action_to_str(after, 25) == "swap"


def test_a_peer_we_do_not_have_and_a_game_no_peer_plays_are_refused():
    with pytest.raises(InvalidArgumentError, match="unknown peer 'openspiel:go'; the peers: openspiel:hex"):
        cross_check("openspiel:go", 1)
    game = make_game("crisscross", size=3)
    with pytest.raises(InvalidArgumentError, match="no peer plays 'crisscross'"):
        peer_action(game, game.initial_state(), 0)
