"""How often each pretrained agent plays an optimal move, on positions the exact solver decides.

    python benchmarks/optimal_moves.py                       # every agent, 20 games each
    python benchmarks/optimal_moves.py --agents crisscross --games 40 --json optimal.json
    python benchmarks/optimal_moves.py --spec az:runs/hex7/checkpoints/final.pt --game hex --option size=7

Positions come from real games: the agent (``--simulations`` per move) against MCTS-200, seats
alternating, the first ``--random-plies`` plies random for variety. From each game's last
``--tail`` positions where the agent is to move, those the solver (``crossenvs.eval.solver``)
decides within ``--nodes`` positions are kept: there the agent's move is optimal when it keeps
the position's proven value, and a *blunder* when it turns a won position into a drawn or lost one
(or a drawn into a lost one). Undecided positions are counted, not guessed.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import crossenvs
from crossenvs import agents
from crossenvs.core.options import parse_options
from crossenvs.eval.solver import SolverBudgetError, solve
from crossenvs.players import make_player


def game_positions(game, agent, opponent, seat: int, random_plies: int, rng) -> list:
    """One game's positions where the agent was to move (the agent in ``seat``)."""
    state, seen = game.initial_state(), []
    while not game.is_terminal(state):
        mover = game.current_player(state)
        if state.ply < random_plies:
            legal = game.legal_actions(state)
            action = int(legal[rng.integers(legal.size)])
        else:
            if mover == seat:
                seen.append(state)
            action = (agent if mover == seat else opponent).act(game, state)
        state = game.apply(state, action)
    return seen


def decided_values(game, state, action: int, nodes: int) -> tuple[int, int]:
    """The position's proven value and that of ``action``, for the player to move (two searches)."""
    value = solve(game, state, nodes=nodes, table_bits=18, moves=False).value
    mover, child = game.current_player(state), game.apply(state, action)
    outcome = game.outcome(child)
    if outcome is not None:
        return value, int(outcome[mover])
    chosen = solve(game, child, nodes=nodes, table_bits=18, moves=False).value
    return value, chosen if game.current_player(child) == mover else -chosen


def measure(name: str, options: dict, args: argparse.Namespace, spec: str | None = None) -> dict:
    """The agent of ``name`` (a pretrained one; ``spec``, any player spec, instead) on the solver's positions."""
    game = crossenvs.make_game(name, **options)
    if spec is None:
        agent = agents.load(name, args.simulations, seed=args.seed, **options)
    else:
        agent = make_player(spec, game=game, seed=args.seed)
    opponent = make_player("mcts:200", game=game, seed=args.seed + 1)
    rng = np.random.default_rng(args.seed)
    counts = {"decided": 0, "undecided": 0, "optimal": 0, "blunders": 0}
    for index in range(args.games):
        for state in game_positions(game, agent, opponent, index % 2, args.random_plies, rng)[-args.tail :]:
            try:
                value, chosen = decided_values(game, state, agent.act(game, state), args.nodes)
            except SolverBudgetError:
                counts["undecided"] += 1
                continue
            counts["decided"] += 1
            counts["optimal"] += chosen == value
            counts["blunders"] += chosen < value
    decided = max(1, counts["decided"])
    return {**counts, "optimal_rate": counts["optimal"] / decided, "blunder_rate": counts["blunders"] / decided}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per agent (seats alternate)")
    parser.add_argument("--simulations", type=int, default=64, help="the agents' search per move")
    parser.add_argument("--tail", type=int, default=12, help="of each game, the agent's last positions tried")
    parser.add_argument("--random-plies", type=int, default=4, help="random opening plies, for variety")
    parser.add_argument("--nodes", type=int, default=500_000, help="the solver's budget per position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", help="only these games' agents (default: all)")
    parser.add_argument("--spec", help="measure this player spec instead of the pretrained agents (with --game)")
    parser.add_argument("--game", help="the game --spec plays")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option for --spec")
    parser.add_argument("--json", help="also write the table here")
    args = parser.parse_args(argv)
    table = {}
    print("| agent | decided | undecided | optimal | blunders |")
    print("|---|---|---|---|---|")
    if args.spec:
        if not args.game:
            parser.error("--spec needs --game")
        chosen = [(args.game, parse_options(args.option))]
    else:
        chosen = [(name, options) for name, options in agents.available() if not args.agents or name in args.agents]
    for name, options in chosen:
        label = (args.spec or name) + "".join(f" {key}={value}" for key, value in options.items())
        row = table[label] = measure(name, options, args, args.spec)
        print(
            f"| {label} | {row['decided']} | {row['undecided']} | {row['optimal_rate']:.1%} | {row['blunder_rate']:.1%} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(table, handle, indent=2)
    return table


if __name__ == "__main__":
    main()
