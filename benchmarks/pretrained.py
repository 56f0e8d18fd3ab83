"""The strength of every pretrained agent: its score against fixed baselines, both seats, seeded.

    python benchmarks/pretrained.py                      # 100 games per baseline (the README table)
    python benchmarks/pretrained.py --games 20 --baselines random mcts:200

Each agent (``crossenvs.agents``) searches ``--simulations`` per move and meets each baseline in
``--games`` games, seats alternating, through the project's arena (``crossenvs.eval.arena.match``).
Prints a Markdown table of scores (a win 1, a draw 1/2) and writes it as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import time

import crossenvs
from crossenvs import agents
from crossenvs.eval.arena import match
from crossenvs.players import make_player


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per baseline (seats alternate)")
    parser.add_argument("--simulations", type=int, default=64, help="the agents' search per move")
    parser.add_argument("--baselines", nargs="+", default=["random", "greedy", "mcts:200", "mcts:1000"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", help="only these games' agents (default: all)")
    parser.add_argument("--json", help="also write the scores here")
    args = parser.parse_args(argv)
    table: dict[str, dict[str, float]] = {}
    print("| agent | " + " | ".join(args.baselines) + " |")
    print("|---|" + "---|" * len(args.baselines))
    for name, options in agents.available():
        if args.agents and name not in args.agents:
            continue
        game = crossenvs.make_game(name, **options)
        label = name + "".join(f" {key}={value}" for key, value in options.items())
        agent = agents.load(name, args.simulations, **options)
        scores = {}
        for baseline in args.baselines:
            started = time.monotonic()
            result = match(game, agent, make_player(baseline, game=game), args.games, seed=args.seed)
            scores[baseline] = result["score"]
            scores[f"{baseline} seconds"] = round(time.monotonic() - started, 1)
        table[label] = scores
        print(f"| {label} | " + " | ".join(f"{scores[b]:.0%}" for b in args.baselines) + " |", flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"games": args.games, "simulations": args.simulations, "scores": table}, handle, indent=2)
    return table


if __name__ == "__main__":
    main()
