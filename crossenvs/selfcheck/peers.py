"""Cross-checks against other engines: the same random games on ours and on a peer's Hex or Connect Four.

OpenSpiel, pgx and PettingZoo were written by no one here, so on the games they share with us
(``crossenvs.games.hex``, ``crossenvs.games.connect_four``) they are independent oracles.
:func:`cross_check` draws random games on our engine, writes down the peer's id of every move
(:func:`peer_action`, the mapping docs/hex.md and docs/connect_four.md spell out), replays the
ids on the peer, and compares at every position the legal set, the terminal flag and the winner.
``tests/test_peers.py`` runs a few hundred games per peer; ``benchmarks/peer_check.py`` runs
100,000 positions per peer for the figure on the games' pages.

The peers are optional (the ``bench`` extra): each is imported when checked, and
:data:`PEERS` says which games and options each plays.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.state import State
from crossenvs.support.errors import InvalidArgumentError

from ..core.game import Game
from ..core.registry import make_game

#: the winner written in a trace: a seat (0 moves first), or DRAW; None while the game goes on
DRAW = 2
#: one position as both engines must see it: (legal peer ids ascending, terminal, winner)
Position = tuple[tuple[int, ...], bool, int | None]


def peer_action(game: Game, state: State, action: int) -> int:
    """The peer's id of our ``action`` decided in ``state`` (OpenSpiel, pgx and PettingZoo number alike).

    Hex: the peers name cells in the board's own frame, ``row * N + col``, and the swap ``N * N``;
    ours are in the mover's frame, so Black's ids are theirs and White's are theirs transposed.
    Connect Four: a column is a column.
    """
    if game.name == "hex":
        n = game.size
        if int(state.meta[st.TO_MOVE]) == 0 or action == n * n:
            return int(action)
        return int((action % n) * n + action // n)
    if game.name == "connect_four":
        return int(action)
    raise InvalidArgumentError(f"no peer plays {game.name!r}; the peers play hex and connect_four")


def our_position(game: Game, state: State) -> Position:
    """What the trace records of one of our positions, in the peer's ids."""
    if game.is_terminal(state):
        first, second = game.outcome(state)
        return (), True, DRAW if first == second else (0 if first > second else 1)
    legal = sorted(peer_action(game, state, int(a)) for a in game.legal_actions(state))
    return tuple(legal), False, None


def random_games(game: Game, games: int, seed: int) -> tuple[list[list[int]], list[list[Position]]]:
    """``games`` uniformly random games on our engine: each one's peer ids and its trace (one entry per position)."""
    rng = np.random.default_rng(seed)
    moves, traces = [], []
    for _ in range(games):
        state = game.initial_state()
        ids, trace = [], []
        while not game.is_terminal(state):
            trace.append(our_position(game, state))
            legal = game.legal_actions(state)
            action = int(legal[rng.integers(legal.size)])
            ids.append(peer_action(game, state, action))
            state = game.apply(state, action)
        trace.append(our_position(game, state))
        moves.append(ids)
        traces.append(trace)
    return moves, traces


# ----------------------------------------------------------------------------- the peers
def _openspiel(spec: str) -> Callable[[list[list[int]]], list[list[Position]]]:
    import pyspiel

    peer = pyspiel.load_game(spec)

    def replay(sequences: list[list[int]]) -> list[list[Position]]:
        traces = []
        for ids in sequences:
            state = peer.new_initial_state()
            traces.append(_trace(ids, partial(_openspiel_position, state), state.apply_action))
        return traces

    return replay


def _trace(ids: list[int], position: Callable[[], Position], play: Callable[[int], Any]) -> list[Position]:
    """A peer's positions along ``ids`` from its start: ``position()`` before each move ``play(id)``, and after the
    last; it stops at the end of the game or at a move the peer refuses (the traces differ there already)."""
    trace = []
    for k in range(len(ids) + 1):
        trace.append(position())
        if k == len(ids) or ids[k] not in trace[-1][0]:
            break
        play(ids[k])
    return trace


def _openspiel_position(state: Any) -> Position:
    if state.is_terminal():
        first, second = state.returns()
        return (), True, DRAW if first == second else (0 if first > second else 1)
    return tuple(sorted(state.legal_actions())), False, None


def _pettingzoo_connect_four() -> Callable[[list[list[int]]], list[list[Position]]]:
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()

    def position() -> Position:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            first, second = env.rewards["player_0"], env.rewards["player_1"]
            return (), True, DRAW if first == second else (0 if first > second else 1)
        mask = env.observe(agent)["action_mask"]
        return tuple(int(a) for a in np.flatnonzero(mask)), False, None

    def replay(sequences: list[list[int]]) -> list[list[Position]]:
        traces = []
        for ids in sequences:
            env.reset()
            traces.append(_trace(ids, position, env.step))
        return traces

    return replay


def _pgx(env_id: str) -> Callable[[list[list[int]]], list[list[Position]]]:
    """pgx replays all games at once, as its users play it: one vmapped, jitted step per ply."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make(env_id)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

    def replay(sequences: list[list[int]]) -> list[list[Position]]:
        count, longest = len(sequences), max(len(ids) for ids in sequences)
        state = init(jax.random.split(jax.random.PRNGKey(0), count))
        first = np.asarray(state.current_player)  # pgx seats players at random: who moves first is the first colour
        order = np.stack([first, 1 - first], axis=1)  # order[g, colour] is the player id
        traces: list[list[Position]] = [[] for _ in sequences]
        winners: list[int | None] = [None] * count
        for k in range(longest + 1):
            mask, over, rewards = (np.asarray(x) for x in (state.legal_action_mask, state.terminated, state.rewards))
            for g, ids in enumerate(sequences):
                if k > len(ids) or (traces[g] and traces[g][-1][1]):
                    continue
                if over[g]:
                    if winners[g] is None:
                        by_colour = rewards[g, order[g]]
                        winners[g] = DRAW if by_colour[0] == by_colour[1] else int(np.argmax(by_colour))
                    traces[g].append(((), True, winners[g]))
                else:
                    traces[g].append((tuple(int(a) for a in np.flatnonzero(mask[g])), False, None))
            if k < longest:
                actions = jnp.asarray([ids[k] if k < len(ids) else 0 for ids in sequences], dtype=jnp.int32)
                state = step(state, actions)
        return traces

    return replay


@dataclass(frozen=True)
class PeerSpec:
    """One peer's game: our game and options, and how the peer is loaded (imported on use)."""

    name: str
    game: str
    options: dict[str, Any]
    load: Callable[[], Callable[[list[list[int]]], list[list[Position]]]]
    module: str  # what must import for the peer to run


#: every peer game we check against, by name
PEERS: dict[str, PeerSpec] = {
    spec.name: spec
    for spec in (
        PeerSpec("openspiel:hex", "hex", {"size": 11}, lambda: _openspiel("hex(board_size=11)"), "pyspiel"),
        PeerSpec(
            "openspiel:hex-swap",
            "hex",
            {"size": 11, "swap": True},
            lambda: _openspiel("hex(board_size=11,swap=True)"),
            "pyspiel",
        ),
        PeerSpec("openspiel:hex5", "hex", {"size": 5}, lambda: _openspiel("hex(board_size=5)"), "pyspiel"),
        PeerSpec("openspiel:connect_four", "connect_four", {}, lambda: _openspiel("connect_four"), "pyspiel"),
        PeerSpec("pgx:hex", "hex", {"size": 11, "swap": True}, lambda: _pgx("hex"), "pgx"),
        PeerSpec("pgx:connect_four", "connect_four", {}, lambda: _pgx("connect_four"), "pgx"),
        PeerSpec("pettingzoo:connect_four_v3", "connect_four", {}, _pettingzoo_connect_four, "pettingzoo.classic"),
    )
}


@dataclass
class PeerReport:
    """What one cross-check compared and where the engines disagreed."""

    peer: str
    games: int = 0
    positions: int = 0
    seconds: float = 0.0
    mismatches: list[str] = field(default_factory=list)


def cross_check(peer: str, games: int, seed: int = 0, chunk: int = 500, min_positions: int = 0) -> PeerReport:
    """Play ``games`` random games on ours and replay them on ``peer`` (a key of :data:`PEERS`).

    More games follow, ``chunk`` at a time, until ``min_positions`` positions are compared too.
    Each game is compared position by position up to its first disagreement, which the report
    lists (the game, the position, both views and the moves that led there).
    """
    if peer not in PEERS:
        raise InvalidArgumentError(f"unknown peer {peer!r}; the peers: {', '.join(PEERS)}")
    spec = PEERS[peer]
    game = make_game(spec.game, **spec.options)
    replay = spec.load()
    report = PeerReport(peer)
    started = time.perf_counter()
    while report.games < games or report.positions < min_positions:
        first = report.games
        count = min(chunk, games - first) if first < games else chunk
        moves, ours = random_games(game, count, seed * 1_000_003 + first)
        theirs = replay(moves)
        for offset, (ids, mine, peers) in enumerate(zip(moves, ours, theirs)):
            report.positions += len(mine)
            report.mismatches += _compare(first + offset, ids, mine, peers)
        report.games += len(moves)
    report.seconds = time.perf_counter() - started
    return report


def _compare(index: int, ids: Sequence[int], ours: list[Position], theirs: list[Position]) -> list[str]:
    for k, mine in enumerate(ours):
        peer = theirs[k] if k < len(theirs) else "no position: the peer's game had ended"
        if mine != peer:
            return [f"game {index}, position {k} after peer ids {list(ids[:k])}: ours {mine}, the peer's {peer}"]
    if len(theirs) > len(ours):
        return [f"game {index}: the peer's game goes on after ours ended: {theirs[len(ours)]}"]
    return []
