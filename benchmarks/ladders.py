"""Build the fixed-anchor ladders shipped in ``crossenvs/ladders/``: one per pretrained agent (Connect Four's with
perfect play on top, Hex 11x11's with MCTS rungs up to 2,000 simulations below the agent's).

    python benchmarks/ladders.py                                # every ladder not yet built
    python benchmarks/ladders.py --only crisscross_size6 --force --games-per-pair 200

Each ladder is ``crossenvs ladder <game> [--option ...] --games-per-pair N`` over the default
rungs (:func:`crossenvs.eval.ladder.default_rungs`); this script runs them all, in the processes
given by ``--workers``, writes each file as soon as it is done, and prints every rung's rating and
interval, the table on the docs' evaluation page. Every finished job of games is kept in
``benchmarks/ladder_games/<ladder>.games.jsonl`` (committed): the same command run again, in this
session or a later one, reads those back and plays only the rest, so a build of many hours can be
spread over several sittings.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from crossenvs import agents, make_game
from crossenvs.eval.ladder import (
    LADDER_DIR,
    Ladder,
    available,
    build_ladder,
    default_rungs,
    default_workers,
    ladder_file_name,
    made_stamp,
    read_ladder,
)
from crossenvs.eval.ladder.build import rung_order

#: where each ladder's games are kept as they finish, so a build resumes (committed with the ladders)
JOURNAL_DIR = Path(__file__).resolve().parent / "ladder_games"
#: games per pair of each ladder: fewer where MCTS-2000 is slow (a Crosse game of it takes ~10 s on one core)
#: (multiples of the journal's 50-game jobs, so raising a count later reuses the games already played)
GAMES_PER_PAIR = {"crisscross_size6": 600, "crisscross": 100, "charing_cross": 100, "crossings": 100,
                  "neo_crossings": 100, "crosse": 50, "connect_four": 200, "hex": 200}  # fmt: skip


def ladder_games() -> list[tuple[str, dict]]:
    """The game and options of every shipped ladder: one per pretrained agent (Connect Four's and Hex's included)."""
    return list(agents.available())


def markdown_table() -> str:
    """Every shipped ladder's rungs: rating and 95% interval against random, one column per ladder."""
    names = available()
    ladders = [read_ladder(LADDER_DIR / name) for name in names]
    specs = list(
        dict.fromkeys(rung.spec for ladder in ladders for rung in sorted(ladder.rungs, key=lambda r: r.rating))
    )
    specs = sorted(specs, key=rung_order)
    titles = [name.removesuffix(".json") for name in names]
    lines = ["| rung | " + " | ".join(titles) + " |", "|---" * (len(ladders) + 1) + "|"]
    for spec in specs:
        cells = []
        for ladder in ladders:
            rung = next((r for r in ladder.rungs if r.spec == spec), None)
            cells.append("" if rung is None else f"{rung.rating:.0f} ({rung.low:.0f} .. {rung.high:.0f})")
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    lines.append("| games a pair | " + " | ".join(str(ladder.games_per_pair) for ladder in ladders) + " |")
    lines.append("| intervals widened by | " + " | ".join(_widened(ladder) for ladder in ladders) + " |")
    lines.append("| made | " + " | ".join(ladder.made.split(",")[0] for ladder in ladders) + " |")
    return "\n".join(lines)


def _widened(ladder: Ladder) -> str:
    """The factor a ladder's intervals were widened by for its misfit, or why there is none."""
    factor = ladder.extra.get("intervals_widened_by")
    return "not (built before the checks)" if factor is None else f"{factor:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games-per-pair",
        type=int,
        default=None,
        help="games between each pair of neighbours (default: GAMES_PER_PAIR)",
    )
    parser.add_argument("--reach", type=int, default=2, help="each rung meets this many rungs above it")
    parser.add_argument("--workers", type=int, default=default_workers(), help="processes playing pairs")
    parser.add_argument("--only", nargs="+", help="ladder names (file names without .json) to build")
    parser.add_argument("--force", action="store_true", help="rebuild ladders whose file exists")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=LADDER_DIR, help="where the ladder files go")
    parser.add_argument("--journal-dir", type=Path, default=JOURNAL_DIR, help="where each ladder's games are kept")
    parser.add_argument(
        "--table", action="store_true", help="print the shipped ladders as a Markdown table, build none"
    )
    args = parser.parse_args()
    if args.table:
        print(markdown_table())
        return
    args.out_dir.mkdir(parents=True, exist_ok=True)
    args.journal_dir.mkdir(parents=True, exist_ok=True)
    for name, options in ladder_games():
        game = make_game(name, **options)
        file_name = ladder_file_name(game)
        target = args.out_dir / file_name
        if (args.only and file_name.removesuffix(".json") not in args.only) or (target.exists() and not args.force):
            continue
        games_per_pair = args.games_per_pair or GAMES_PER_PAIR.get(file_name.removesuffix(".json"), 100)
        option_flags = "".join(f" --option {key}={value}" for key, value in sorted(options.items()))
        command = (
            f"crossenvs ladder {name}{option_flags} --games-per-pair {games_per_pair} --reach {args.reach} "
            f"--seed {args.seed} --out {file_name}"
        )
        print(f"{game!r}: {command}", flush=True)
        started = time.perf_counter()
        ladder = build_ladder(
            game,
            default_rungs(game),
            games_per_pair,
            reach=args.reach,
            seed=args.seed,
            workers=args.workers,
            command=command,
            made=made_stamp(),
            progress=lambda line: print(f"  {line}", flush=True),
            journal=args.journal_dir / file_name.replace(".json", ".games.jsonl"),
        )
        target.write_text(ladder.to_json())
        print(f"wrote {target} in {time.perf_counter() - started:.0f} s", flush=True)
        for rung in ladder.rungs:
            half = (rung.high - rung.low) / 2
            print(f"  {rung.spec:<16} {rung.rating:7.0f}  +-{half:4.0f}  ({rung.low:.0f} .. {rung.high:.0f})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
