"""benchmarks/mcts_vs_openspiel.py at a tiny size: seats alternate, tallies add up, moves translate, the table prints.

The benchmark ties our MCTS to OpenSpiel's C++ ``MCTSBot``; these tests check the plumbing that
comparison rests on (which engine sat where, that both engines played the same game, that the
score and Elo are summed right), not the strength of either search.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import benchmark_script  # noqa: E402

from crossenvs import make_game  # noqa: E402


@pytest.fixture(scope="module")
def bench():
    with benchmark_script("mcts_vs_openspiel") as module:
        yield module


def random_replay(bench, pairing, seed: int) -> tuple:
    """One uniformly random game on our engine, each move translated and played on the peer too."""
    game = make_game(pairing.game, **pairing.options)
    peer = pyspiel.load_game(pairing.peer)
    state, peer_state = game.initial_state(), peer.new_initial_state()
    rng = np.random.default_rng(seed)
    while True:
        bench.check_in_step(pairing, game, state, peer_state)  # same legal moves, or the same end
        if game.is_terminal(state):
            return game.outcome(state), peer_state.returns(), state.ply
        legal = game.legal_actions(state)
        action = int(legal[rng.integers(legal.size)])
        peer_id = bench.to_peer(pairing, game, state, action)
        assert bench.from_peer(pairing, game, state, peer_id) == action
        state = game.apply(state, action)
        peer_state.apply_action(peer_id)


@pytest.mark.parametrize("name", ["connect_four", "hex"])
def test_moves_translate_to_openspiels_own_game(bench, name):
    """Random games replayed on OpenSpiel's C++ game by translated id agree at every ply and end alike."""
    pairing = bench.PAIRINGS[name]
    ours, theirs = make_game(pairing.game, **pairing.options), pyspiel.load_game(pairing.peer)
    assert pairing.native and ours.num_actions == theirs.num_distinct_actions()
    winners = set()
    for seed in range(6):
        ours, theirs, plies = random_replay(bench, pairing, seed)
        assert list(ours) == list(theirs) and plies > 0
        winners.add(tuple(ours))
    assert len(winners) > 1  # both colours won some: the comparison is not stuck on one outcome


def test_a_wrong_translation_is_caught(bench):
    """Hex without the transposition of White's moves: the engines part ways, and the check says so."""
    wrong = bench.Pairing("hex", {"size": 11}, "hex(board_size=11)", False)
    with pytest.raises(RuntimeError, match="the engines disagree"):
        for seed in range(3):
            random_replay(bench, wrong, seed)


def test_step_is_search_then_best_child(bench):
    """On a C++ game, MCTSBot.step and mcts_search + best_child pick alike with the same seed (the benchmark
    uses the second on the crossenvs_* games, where step cannot run)."""
    for spec in ("connect_four", "hex(board_size=5)"):
        peer = pyspiel.load_game(spec)
        state = peer.new_initial_state()
        for seed in range(4):
            step = bench.their_bot(peer, 30, 1.4, seed).step(state)
            searched = bench.their_bot(peer, 30, 1.4, seed).mcts_search(state).best_child().action
            assert step == searched
            state.apply_action(state.legal_actions()[seed])


@pytest.mark.parametrize(
    ("name", "simulations", "games"), [("connect_four", 20, 4), ("crossings", 4, 2), ("charing_cross", 4, 2)]
)
def test_seats_alternate_and_tallies_add_up(bench, name, simulations, games):
    results = bench.play_match(bench.PAIRINGS[name], simulations, games, seed=3)
    assert [r.ours_first for r in results] == [k % 2 == 0 for k in range(games)]
    for r in results:
        assert r.our_score in (0.0, 0.5, 1.0) and r.our_seconds > 0 and r.their_seconds > 0
        if name == "charing_cross":  # a re-placement choice is a decision but not a ply, and may follow one's own move
            assert r.our_moves + r.their_moves >= r.plies and min(r.our_moves, r.their_moves) >= r.plies // 2 - 1
        else:  # the players alternate, one ply a decision
            assert r.our_moves + r.their_moves == r.plies and abs(r.our_moves - r.their_moves) <= 1
    t = bench.tally(results)
    assert (t.game, t.simulations, t.games) == (name, simulations, games)
    assert t.wins + t.draws + t.losses == games and t.ours_first == t.theirs_first == games // 2
    assert t.score == sum(r.our_score for r in results) == t.wins + t.draws / 2
    assert t.score_low <= t.score <= t.score_high
    assert math.isnan(t.elo) or t.elo_low <= t.elo <= t.elo_high


def test_a_match_is_seeded(bench):
    """The same seed plays the same games again: both searches are seeded from it, game by game."""
    pairing = bench.PAIRINGS["connect_four"]
    first, again = (bench.play_match(pairing, 20, 4, seed=7) for _ in range(2))
    assert [(r.our_score, r.plies) for r in again] == [(r.our_score, r.plies) for r in first]


def test_elo_is_the_packages_scale(bench):
    """Even results give 0; 6 of 8 points give 400 log10(3) = +191, the Elo of 3-to-1 odds."""
    result = bench.GameResult

    def games(scores):
        return [result("g", 2, k, k % 2 == 0, s, 10, 5, 0.1, 5, 0.1) for k, s in enumerate(scores)]

    elo, low, high = bench.elo_difference(games([1, 0, 1, 0, 0.5, 0.5]))
    assert abs(elo) < 1e-6 and low < 0 < high
    elo, low, high = bench.elo_difference(games([1, 1, 1, 1, 1, 1, 0, 0]))
    assert elo == pytest.approx(400 * math.log10(3), abs=0.5) and low < elo < high
    assert bench.elo_difference(games([1, 1, 1, 1]))[2] == math.inf  # a sweep: a bound below only


def test_the_command_prints_the_table_and_writes_json(bench, tmp_path, capsys):
    out = tmp_path / "match.json"
    assert bench.main(["--games", "2", "--simulations", "20", "--game", "connect_four", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| game | simulations | games | our score (wins + draws/2) | 95% interval |" in printed
    assert "| connect_four | 20 | 2 | " in printed and "game 1: ours second" in printed
    written = json.loads(out.read_text())
    (match,) = written["matches"]
    assert match["tally"]["games"] == 2 and len(match["games"]) == 2


def test_the_control_picks_a_most_visited_child(bench):
    """--ties-at-random keeps OpenSpiel's search and takes one of its most visited root children."""
    peer = pyspiel.load_game("connect_four")
    state = peer.new_initial_state()
    for seed in range(3):
        root = bench.their_bot(peer, 40, 1.4, seed).mcts_search(state)  # the same search the control runs
        visits = {child.action: child.explore_count for child in root.children}
        picked = bench.their_move(bench.their_bot(peer, 40, 1.4, seed), state, True, np.random.default_rng(seed))
        assert visits[picked] == max(visits.values())
    result = bench.play_game(bench.PAIRINGS["connect_four"], 8, 1, seed=5, controls=bench.Controls(ties_at_random=True))
    assert not result.ours_first and result.their_moves > 0


def test_tactical_positions_hold_what_they_say(bench):
    """A 'win' position's right moves win at once; in a 'defend' one every other move lets the opponent win at once."""
    pairing = bench.PAIRINGS["connect_four"]
    game = make_game("connect_four")
    found = bench.tactical_positions(pairing, 3, seed=0)
    for kind, cases in found.items():
        assert len(cases) == 3
        for moves, right in cases:
            state = game.initial_state()
            for move in moves:
                state = game.apply(state, move)
            mover, legal = game.current_player(state), {int(a) for a in game.legal_actions(state)}
            assert right and right <= legal and (kind == "win" or right < legal)
            for action in legal:
                after = game.apply(state, action)
                if kind == "win":
                    assert (action in right) == (game.is_terminal(after) and game.outcome(after)[mover] > 0)
                else:
                    assert (action in right) != bool(bench.wins_at_once(game, after))  # no move loses by itself here
    counts = bench.immediate_tactics(pairing, 20, 3, seed=0)
    assert all(0 <= ours <= n and 0 <= theirs <= n and n == 3 for ours, theirs, n in counts.values())


def test_ours_can_be_any_player_spec(bench, capsys):
    """``--ours`` plays the named player in place of mcts:N: a random player loses every game to MCTSBot-200."""
    assert bench.main(["--games", "2", "--simulations", "200", "--game", "connect_four", "--ours", "random"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# random against pyspiel.MCTSBot")
    assert "| connect_four | 200 | 2 | 0 (0 W, 0 D, 2 L) |" in printed


def test_a_wrong_ours_spec_stops_in_one_line(bench, capsys):
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--game", "connect_four", "--ours", "bogus:3"])
    assert stopped.value.code == 2 and "--ours bogus:3: unknown player 'bogus:3'" in capsys.readouterr().err
