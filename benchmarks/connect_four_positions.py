"""Build the Connect Four benchmark positions: 1,000 a class, solved, journalled; it resumes where it stopped.

    python benchmarks/connect_four_positions.py                  # the shipped set (seed 2026), into the package
    python benchmarks/connect_four_positions.py --per-class 50 --journal /tmp/c4.jsonl --seed 7

Every draw is solved by crossenvs' own Connect Four solver (every legal move's exact score) and appended
to the journal at once, so a stopped build loses at most the position it was on; run the same command
again to go on. With ``--check-bitbully`` each draw is also scored by bitbully (``pip install bitbully``,
AGPL-3.0, used only here and in the tests) and the build stops at the first position they disagree on.
How the classes are drawn: :mod:`crossenvs.eval.connect_four.positions`.
"""

from __future__ import annotations

import argparse
import time

from crossenvs.eval.connect_four import positions
from crossenvs.eval.connect_four.bitbully_check import bitbully_scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--journal", default=str(positions.SHIPPED), help="the journal to build on (default: the shipped one)"
    )
    parser.add_argument("--seed", type=int, default=positions.SHIPPED_SEED)
    parser.add_argument("--per-class", type=int, default=positions.PER_CLASS)
    parser.add_argument("--max-draws", type=int, default=None, help="stop after this many new draws")
    parser.add_argument("--check-bitbully", action="store_true", help="score every draw with bitbully too")
    args = parser.parse_args()
    started = time.perf_counter()
    for count, row in enumerate(
        positions.build(args.journal, seed=args.seed, per_class=args.per_class, max_draws=args.max_draws), 1
    ):
        if args.check_bitbully and row.by == "crossenvs" and bitbully_scores(row.moves) != row.scores:
            raise SystemExit(
                f"bitbully disagrees on {row.moves}: ours {row.scores}, bitbully {bitbully_scores(row.moves)}"
            )
        if count % 50 == 0:
            sets = positions.load(args.journal, args.per_class)
            filled = ", ".join(f"{name} {len(rows)}" for name, rows in sets.items())
            print(f"{count} draws in {time.perf_counter() - started:.0f} s: {filled}", flush=True)
    sets = positions.load(args.journal, args.per_class)
    print("done: " + ", ".join(f"{name} {len(rows)}" for name, rows in sets.items()))


if __name__ == "__main__":
    main()
