"""Our MCTS against OpenSpiel's C++ ``pyspiel.MCTSBot``: same simulations, same UCT constant, random rollouts.

    python benchmarks/mcts_vs_openspiel.py                      # 5 games x 100 and 1,000 simulations, 100 games each
    python benchmarks/mcts_vs_openspiel.py --game hex --simulations 1000 --games 20 --json hex.json
    python benchmarks/mcts_vs_openspiel.py --game hex --simulations 100 --ours-takes-wins    # a control
    python benchmarks/mcts_vs_openspiel.py --tactics 300 --game connect_four   # one-move tactics, no matches
    python benchmarks/mcts_vs_openspiel.py --game hex --simulations 10000 --ours pretrained   # an agent instead

Every ladder's MCTS rungs are our own search (:mod:`crossenvs.players.mcts`), so a bug there
would move every rung together and no ladder would notice. This script ties it to a search no one
here wrote: ``mcts:N`` plays ``pyspiel.MCTSBot`` with N simulations, seats alternating (game k has
ours first when k is even), and the table gives our score, its Wilson interval and the Elo
difference (ours minus theirs, a likelihood-ratio interval from :func:`crossenvs.eval.ratings.ratings`).
``--ours SPEC`` plays any of our players in place of ``mcts:N`` (an AlphaZero agent: ``az:<file>``, ``pretrained``)
against the same bot at N simulations: how the agents are measured against a search no one here wrote.
Two equal searches should come out within chance of 0 Elo.

The parameters are matched to ours (docs/evaluation.md, "Our MCTS against OpenSpiel's"):

* the same UCB1 rule, ``value / visits + c * sqrt(ln(parent visits) / visits)`` over returns of
  +1/0/-1 from the mover's view, so ``uct_c`` is our ``c`` (1.4) with no rescaling;
* one uniformly random rollout to the end of the game per simulation
  (``pyspiel.RandomRolloutEvaluator(n_rollouts=1, seed)``), as ours does;
* the final move is the most visited child in both; ``solve=False`` because ours proves nothing;
* memory enough (1,000 MB) that OpenSpiel's tree is never garbage-collected mid-search.

What cannot be matched is how each treats an end of the game inside its tree: OpenSpiel scores a
visited terminal child by its result alone (no exploration bonus, ``solve=False`` or not), ranks it
by that result first in its final pick, and breaks ties of visits by total reward; ours treats it
as any other child. ``--tactics`` measures what that does to one-move wins and losses, and the
control flags (:class:`Controls`) switch the differences off one at a time.

Connect Four and Hex 11x11 are played on OpenSpiel's own C++ games (``connect_four``,
``hex(board_size=11)``), each move translated by :func:`crossenvs.selfcheck.peers.peer_action`;
Crossings, Crisscross and Charing Cross are played on our games registered with pyspiel
(``crossenvs_<game>``, :mod:`crossenvs.integrations.openspiel`). Both engines are kept in step
and must agree on every legal move and on the result, or the game raises.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import crossenvs.integrations.openspiel as osp
from crossenvs import CrossenvsError, make_game
from crossenvs.core.game import Game
from crossenvs.eval.connect_four.mistakes import wilson
from crossenvs.eval.ratings import GameRecord, bounds_text, ratings
from crossenvs.kernels.state import State
from crossenvs.players import MCTSPlayer, Player, make_player
from crossenvs.selfcheck.peers import peer_action

#: OpenSpiel's tree may take this much before it garbage-collects nodes (never, at these sizes)
MAX_MEMORY_MB = 1000
UCT_C = MCTSPlayer().c  # our MCTS's exploration constant, the bot's too when ours is another player
#: the names the Elo fit knows the two sides by
OURS, THEIRS = "ours", "openspiel"


@dataclass(frozen=True)
class Pairing:
    """One of our games and the OpenSpiel game MCTSBot plays it on.

    ``native``: the peer is OpenSpiel's own C++ game, whose ids :func:`peer_action` translates;
    otherwise it is our game registered with pyspiel, which numbers moves as we do.
    """

    game: str
    options: dict[str, Any]
    peer: str
    native: bool


#: the games of the comparison, by our name
PAIRINGS: dict[str, Pairing] = {
    "connect_four": Pairing("connect_four", {}, "connect_four", True),
    "hex": Pairing("hex", {"size": 11}, "hex(board_size=11)", True),
    "crossings": Pairing("crossings", {}, osp.short_name("crossings"), False),
    "crisscross": Pairing("crisscross", {}, osp.short_name("crisscross"), False),
    "charing_cross": Pairing("charing_cross", {}, osp.short_name("charing_cross"), False),
}


@dataclass(frozen=True)
class GameResult:
    """One finished game, from our side: who sat first, what we scored (1, 0.5, 0) and the time each side took."""

    game: str
    simulations: int
    index: int
    ours_first: bool
    our_score: float
    plies: int
    our_moves: int
    our_seconds: float
    their_moves: int
    their_seconds: float


# ----------------------------------------------------------------------------- one game
def their_bot(peer: pyspiel.Game, simulations: int, uct_c: float, seed: int) -> pyspiel.MCTSBot:
    """OpenSpiel's C++ MCTS with the parameters matched to ours (the module's docstring says how)."""
    if simulations < 2:
        raise ValueError("MCTSBot samples from its prior below 2 simulations: compare at 2 or more")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(peer, evaluator, uct_c, simulations, MAX_MEMORY_MB, False, seed, False)


def their_move(
    bot: pyspiel.MCTSBot, state: pyspiel.State, native: bool, tie_rng: np.random.Generator | None = None
) -> int:
    """MCTSBot's move: ``step`` on a C++ game; its own search and final pick on a Python-registered one.

    ``MCTSBot.step`` releases the GIL (open_spiel 2.0.2), and cloning a Python game's state needs
    it, so ``step`` on a ``crossenvs_*`` state crashes the interpreter. ``mcts_search`` holds the
    GIL, and ``step`` is just ``mcts_search`` and then ``best_child`` whenever it searches two
    simulations or more (tests/test_mcts_vs_openspiel.py checks the two pick alike).

    ``tie_rng`` is the control experiment of docs/evaluation.md: the same search and OpenSpiel's
    order of root children (a visited end of the game by its result, then visits), but ties broken
    at random, as ours in effect breaks them (it takes the tied child it opened last), instead of
    by the higher total reward.
    """
    if tie_rng is not None:
        children = bot.mcts_search(state).children
        rank = [(child.outcome[child.player] if child.outcome else 0.0, child.explore_count) for child in children]
        best = max(rank)
        return int(tie_rng.choice([child.action for child, key in zip(children, rank) if key == best]))
    if native:
        return int(bot.step(state))
    return int(bot.mcts_search(state).best_child().action)


def to_peer(pairing: Pairing, game: Game, state: State, action: int) -> int:
    """The peer's id of our ``action`` in ``state``: translated for OpenSpiel's games, the same for ours."""
    return peer_action(game, state, action) if pairing.native else int(action)


def from_peer(pairing: Pairing, game: Game, state: State, peer_id: int) -> int:
    """Our action for the peer's ``peer_id``, by inverting :func:`to_peer` over our legal moves (so it is legal)."""
    ours = {to_peer(pairing, game, state, int(a)): int(a) for a in game.legal_actions(state)}
    if peer_id not in ours:
        raise RuntimeError(f"{pairing.peer}: OpenSpiel played {peer_id}, which our {game.name} does not allow")
    return ours[peer_id]


def check_in_step(pairing: Pairing, game: Game, state: State, peer_state: pyspiel.State) -> None:
    """Both engines see the same position: the same legal moves, or the same end and result."""
    if game.is_terminal(state) or peer_state.is_terminal():
        same = game.is_terminal(state) and peer_state.is_terminal()
        if not same or list(game.outcome(state)) != list(peer_state.returns()):
            raise RuntimeError(f"{pairing.peer}: the engines disagree on the end of the game at ply {state.ply}")
        return
    ours = sorted(to_peer(pairing, game, state, int(a)) for a in game.legal_actions(state))
    if ours != sorted(peer_state.legal_actions()):
        raise RuntimeError(f"{pairing.peer}: the engines disagree on the legal moves at ply {state.ply}")


def wins_at_once(game: Game, state: State) -> set[int]:
    """The mover's moves that win on the spot."""
    mover, winning = game.current_player(state), set()
    for action in game.legal_actions(state):
        outcome = game.outcome(game.apply(state, int(action)))
        if outcome is not None and outcome[mover] > 0:
            winning.add(int(action))
    return winning


def loses_at_once(game: Game, state: State, action: int) -> bool:
    """Does ``action`` lose on the spot (Crossings: a crossing left unanswered), or let the opponent win at once?"""
    mover, after = game.current_player(state), game.apply(state, action)
    if game.is_terminal(after):
        return game.outcome(after)[mover] < 0
    return game.current_player(after) != mover and bool(wins_at_once(game, after))


@dataclass(frozen=True)
class Controls:
    """The control experiments of docs/evaluation.md, each off in the plain comparison."""

    ties_at_random: bool = False  # OpenSpiel breaks ties between its most visited moves at random, as ours does
    takes_wins: bool = False  # ours plays a win in one whenever it has one, as OpenSpiel's final pick does
    avoids_losses: bool = False  # ours swaps a move that loses at once for a random one that does not


def our_move(ours: Player, game: Game, state: State, controls: Controls, rng: np.random.Generator) -> int:
    """Our search's move, through the controls that change it."""
    winning = wins_at_once(game, state) if controls.takes_wins else set()
    action = min(winning) if winning else ours.act(game, state)
    if controls.avoids_losses and loses_at_once(game, state, action):
        safe = [int(a) for a in game.legal_actions(state) if not loses_at_once(game, state, int(a))]
        action = safe[rng.integers(len(safe))] if safe else action
    return action


def play_game(
    pairing: Pairing,
    simulations: int,
    index: int,
    seed: int,
    controls: Controls = Controls(),
    ours_spec: str | None = None,
) -> GameResult:
    """Game ``index`` of a match: ours first when ``index`` is even, both sides seeded from ``seed + index``; ours is
    ``mcts:<simulations>``, or the player ``ours_spec`` names (the bot then keeps our MCTS's UCT constant)."""
    game = make_game(pairing.game, **pairing.options)
    peer = pyspiel.load_game(pairing.peer)
    ours = make_player(ours_spec or f"mcts:{simulations}", game, seed + index)
    theirs = their_bot(peer, simulations, getattr(ours, "c", UCT_C), seed + index)
    control_rng = np.random.default_rng([seed, index])
    tie_rng = control_rng if controls.ties_at_random else None
    ours_first = index % 2 == 0
    our_seat = 0 if ours_first else 1
    state, peer_state = game.initial_state(), peer.new_initial_state()
    clock = {True: [0, 0.0], False: [0, 0.0]}  # is it ours -> [moves, seconds]
    while True:
        check_in_step(pairing, game, state, peer_state)
        if game.is_terminal(state):
            break
        mine = game.current_player(state) == our_seat
        started = time.perf_counter()
        if mine:
            action = our_move(ours, game, state, controls, control_rng)
            peer_id = to_peer(pairing, game, state, action)
        else:
            peer_id = their_move(theirs, peer_state, pairing.native, tie_rng)
        clock[mine][0] += 1
        clock[mine][1] += time.perf_counter() - started
        if not mine:
            action = from_peer(pairing, game, state, peer_id)
        state = game.apply(state, action)
        peer_state.apply_action(peer_id)
    (our_moves, our_seconds), (their_moves, their_seconds) = clock[True], clock[False]
    return GameResult(
        game=pairing.game,
        simulations=simulations,
        index=index,
        ours_first=ours_first,
        our_score=(1.0 + game.outcome(state)[our_seat]) / 2,
        plies=int(state.ply),
        our_moves=our_moves,
        our_seconds=our_seconds,
        their_moves=their_moves,
        their_seconds=their_seconds,
    )


def play_match(
    pairing: Pairing,
    simulations: int,
    games: int,
    seed: int,
    progress: Callable[[GameResult], None] | None = None,
    controls: Controls = Controls(),
    ours_spec: str | None = None,
) -> list[GameResult]:
    """``games`` games, seats alternating; ``progress`` hears of each as it ends (a long match says it lives)."""
    results = []
    for index in range(games):
        results.append(play_game(pairing, simulations, index, seed, controls, ours_spec))
        if progress is not None:
            progress(results[-1])
    return results


# ----------------------------------------------------------------------------- tallies
@dataclass(frozen=True)
class Tally:
    """A match summed up: results, seats, our score with its interval, the Elo gap and the time per move."""

    game: str
    simulations: int
    games: int
    wins: int
    draws: int
    losses: int
    ours_first: int
    theirs_first: int
    score: float  # wins + draws / 2
    score_low: float  # 95% Wilson interval of the score, in points
    score_high: float
    elo: float  # ours minus theirs
    elo_low: float
    elo_high: float
    our_seconds_a_move: float
    their_seconds_a_move: float


def elo_difference(results: Sequence[GameResult]) -> tuple[float, float, float]:
    """Ours minus theirs in Elo, with its 95% likelihood-ratio interval (a one-sided bound after a sweep).

    The package's one rating fit, with OpenSpiel held at 0, so these numbers read like every other
    rating in the docs.
    """
    records = [
        GameRecord(OURS, THEIRS, r.our_score, r.plies, r.index)
        if r.ours_first
        else GameRecord(THEIRS, OURS, 1.0 - r.our_score, r.plies, r.index)
        for r in results
    ]
    rating = next(r for r in ratings(records, [OURS, THEIRS], fixed={THEIRS: 0.0}) if r.name == OURS)
    return rating.rating, rating.low, rating.high


def tally(results: Sequence[GameResult]) -> Tally:
    """Sum one match up (the games of one game and one simulation count)."""
    wins = sum(r.our_score == 1.0 for r in results)
    draws = sum(r.our_score == 0.5 for r in results)
    score = wins + draws / 2
    low, high = wilson(score, len(results))
    elo, elo_low, elo_high = elo_difference(results)
    our_moves, their_moves = sum(r.our_moves for r in results), sum(r.their_moves for r in results)
    return Tally(
        game=results[0].game,
        simulations=results[0].simulations,
        games=len(results),
        wins=wins,
        draws=draws,
        losses=len(results) - wins - draws,
        ours_first=sum(r.ours_first for r in results),
        theirs_first=sum(not r.ours_first for r in results),
        score=score,
        score_low=low * len(results),
        score_high=high * len(results),
        elo=elo,
        elo_low=elo_low,
        elo_high=elo_high,
        our_seconds_a_move=sum(r.our_seconds for r in results) / max(1, our_moves),
        their_seconds_a_move=sum(r.their_seconds for r in results) / max(1, their_moves),
    )


def markdown_table(tallies: Sequence[Tally]) -> str:
    """The table for docs/evaluation.md, one row a match."""
    lines = [
        "| game | simulations | games | our score (wins + draws/2) | 95% interval | Elo, ours minus theirs "
        "(95% interval) | seconds a move, ours / theirs |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in tallies:
        elo = "won all" if math.isinf(t.elo_high) else "lost all" if math.isinf(t.elo_low) else f"{t.elo:+.0f}"
        lines.append(
            f"| {t.game} | {t.simulations:,} | {t.games} | {t.score:g} ({t.wins} W, {t.draws} D, {t.losses} L) "
            f"| {t.score_low:.1f} .. {t.score_high:.1f} | {elo} ({bounds_text(t.elo_low, t.elo_high)}) "
            f"| {t.our_seconds_a_move:.4f} / {t.their_seconds_a_move:.4f} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------- one-move tactics
def tactical_positions(
    pairing: Pairing, count: int, seed: int, max_games: int | None = None
) -> dict[str, list[tuple[list[int], set[int]]]]:
    """Up to ``count`` positions of each kind from random games (at most ``max_games``, 20 a position by
    default), as the peer's moves from the start, with the moves that are right there:

    ``win``: the mover can win at once (right: a winning move; Crossings has none, its wins come at
    the start of a turn); ``defend``: the mover cannot, and some moves but not all lose at once
    (:func:`loses_at_once`; right: the others, in our ids).
    """
    game, rng = make_game(pairing.game, **pairing.options), np.random.default_rng(seed)
    found: dict[str, list[tuple[list[int], set[int]]]] = {"win": [], "defend": []}
    for _ in range(20 * count if max_games is None else max_games):
        if min(len(cases) for cases in found.values()) >= count:
            break
        state, moves = game.initial_state(), []
        while not game.is_terminal(state):
            winning = wins_at_once(game, state)
            legal = [int(a) for a in game.legal_actions(state)]
            if winning and len(found["win"]) < count:
                found["win"].append((list(moves), winning))
            elif not winning and len(found["defend"]) < count:  # a move each, then a reply each: the costly case
                safe = {a for a in legal if not loses_at_once(game, state, a)}
                if 0 < len(safe) < len(legal):
                    found["defend"].append((list(moves), safe))
            action = legal[rng.integers(len(legal))]
            moves.append(to_peer(pairing, game, state, action))
            state = game.apply(state, action)
    return found


def immediate_tactics(pairing: Pairing, simulations: int, count: int, seed: int) -> dict[str, tuple[int, int, int]]:
    """How often each search plays a right move in :func:`tactical_positions`: kind -> (ours, theirs, positions).

    Where the two searches part is in how they treat a position that ends the game: OpenSpiel scores
    a terminal child by its outcome alone, with no exploration bonus, and prefers a visited winning
    child over any count of visits; ours treats it as any other child.
    """
    game, peer = make_game(pairing.game, **pairing.options), pyspiel.load_game(pairing.peer)
    right = {}
    for kind, cases in tactical_positions(pairing, count, seed).items():
        ours = theirs = 0
        for k, (moves, good) in enumerate(cases):
            state, peer_state = game.initial_state(), peer.new_initial_state()
            for peer_id in moves:
                state = game.apply(state, from_peer(pairing, game, state, peer_id))
                peer_state.apply_action(peer_id)
            player = make_player(f"mcts:{simulations}", game, seed + k)
            ours += player.act(game, state) in good
            picked = their_move(their_bot(peer, simulations, player.c, seed + k), peer_state, pairing.native)
            theirs += from_peer(pairing, game, state, picked) in good
        right[kind] = (ours, theirs, len(cases))
    return right


# ----------------------------------------------------------------------------- the command
def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games a match, seats alternating (default 100)")
    parser.add_argument("--simulations", default="100,1000", help="comma-separated counts (default 100,1000)")
    parser.add_argument(
        "--game", action="append", choices=list(PAIRINGS), help="games to play (repeatable; default all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write every match's tally and games here (after each match)")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.add_argument(
        "--ours", metavar="SPEC", help="play this player spec of ours (az:<file>, pretrained) instead of mcts:N"
    )
    parser.add_argument(
        "--ties-at-random",
        action="store_true",
        help="control: OpenSpiel breaks ties between its most visited moves at random, as ours does",
    )
    parser.add_argument(
        "--ours-takes-wins", action="store_true", help="control: ours plays a win in one whenever it has one"
    )
    parser.add_argument(
        "--ours-avoids-losses",
        action="store_true",
        help="control: ours swaps a move that loses at once for a random one that does not",
    )
    parser.add_argument(
        "--tactics",
        type=int,
        metavar="POSITIONS",
        help="instead of matches: each search's one-move tactics on this many positions of each kind",
    )
    args = parser.parse_args(argv)
    args.simulations = [int(n) for n in args.simulations.split(",")]
    args.game = args.game or list(PAIRINGS)
    if args.ours:  # a wrong spec stops here in one line, before any game
        try:
            for name in args.game:
                make_player(args.ours, make_game(PAIRINGS[name].game, **PAIRINGS[name].options), 0)
        except CrossenvsError as error:
            parser.error(f"--ours {args.ours}: {error}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    print(
        f"# {args.ours or 'our MCTS'} against pyspiel.MCTSBot, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
        f"open_spiel {getattr(pyspiel, '__version__', '?')}: {' '.join(sys.argv)}",
        flush=True,
    )
    if args.tactics:
        print_tactics(args.game, args.simulations, args.tactics, args.seed)
        return 0
    controls = Controls(args.ties_at_random, args.ours_takes_wins, args.ours_avoids_losses)
    tallies, written = [], []
    for simulations in args.simulations:
        for name in args.game:
            started = time.perf_counter()
            progress = None if args.quiet else _say
            results = play_match(PAIRINGS[name], simulations, args.games, args.seed, progress, controls, args.ours)
            tallies.append(tally(results))
            seconds = time.perf_counter() - started
            print(f"# {name} at {simulations:,}: {args.games} games in {seconds:.0f} s", flush=True)
            written.append({"tally": asdict(tallies[-1]), "seconds": seconds, "games": [asdict(r) for r in results]})
            if args.json is not None:
                args.json.write_text(json.dumps({"command": sys.argv, "matches": written}, indent=1) + "\n")
    print(markdown_table(tallies))
    return 0


def print_tactics(names: Sequence[str], counts: Sequence[int], positions: int, seed: int) -> None:
    """The table of :func:`immediate_tactics`, a row per game and simulation count."""
    print("| game | simulations | wins in one taken, ours / theirs | moves losing at once avoided, ours / theirs |")
    print("|---|---|---|---|")
    for name in names:
        for simulations in counts:
            found = immediate_tactics(PAIRINGS[name], simulations, positions, seed)
            cells = [
                f"{o / n:.0%} / {t / n:.0%} ({o} / {t} of {n})" if n else "none found"
                for o, t, n in (found["win"], found["defend"])
            ]
            print(f"| {name} | {simulations:,} | {cells[0]} | {cells[1]} |", flush=True)


def _say(result: GameResult) -> None:
    seat = "first" if result.ours_first else "second"
    print(
        f"  {result.game} {result.simulations} game {result.index}: ours {seat}, scored {result.our_score}", flush=True
    )


if __name__ == "__main__":
    sys.exit(main())
