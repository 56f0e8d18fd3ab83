"""Paired whole-process runs: this checkout against another, row by row, in fresh processes, rounds alternating.

    python benchmarks/paired.py --base /tmp/base                 # every row, three rounds
    python benchmarks/paired.py --base /tmp/base --only step-rate --rounds 5 --json paired.json

Make the other checkout with ``git worktree add /tmp/base <commit>``. Each figure is one process of
``benchmarks/whole_process.py`` (this checkout's script, loading either package with ``--checkout``), so both sides
are timed by the same code; the order of the two checkouts alternates from round to round, and a row's figure is
the median of its rounds. The cold rows get a fresh, empty numba cache each. Below 1 in the last column is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "whole_process.py"
HERE = SCRIPT.parent.parent
#: (mode, game, numbers...): what whole_process.py takes after --checkout
ROWS = [
    ("step-rate", "connect_four", "1"), ("step-rate", "connect_four", "64"), ("step-rate", "connect_four", "1024"),
    ("step-rate", "connect_four", "4096"), ("step-rate", "crisscross", "1"), ("step-rate", "crisscross", "64"),
    ("step-rate", "crisscross", "4096"), ("step-rate", "crosse", "64"), ("step-rate", "crosse", "1024"),
    ("step-rate", "hex", "64"),
    ("search-rate", "connect_four", "1", "64"), ("search-rate", "connect_four", "64", "32"),
    ("search-rate", "crisscross", "64", "32"),
    ("aec", "crisscross", "300"), ("aec", "connect_four", "300"),
    ("cold-vector", "crisscross"), ("cold-search", "crisscross"),
]  # fmt: skip


def figure(checkout: Path, row: tuple[str, ...]) -> float:
    """One process's figure: µs or ms from the ``*-rate`` modes, seconds of its own work from the others."""
    env = dict(os.environ)
    if row[0].startswith("cold-"):
        env["CROSSENVS_CACHE_DIR"] = tempfile.mkdtemp(prefix="paired-cold-")
    done = subprocess.run([sys.executable, str(SCRIPT), "--checkout", str(checkout), *row],
                          capture_output=True, text=True, env=env, timeout=900, check=True)  # fmt: skip
    line = done.stdout.strip().splitlines()[-1]
    return float(line.split()[-2] if line.endswith(" s") else line)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="+", help="only rows of these modes (step-rate, search-rate, aec, cold-...)")
    parser.add_argument("--json", help="also write every round's figures here")
    args = parser.parse_args(argv)
    if not (args.base / "crossenvs" / "__init__.py").is_file():
        parser.error(f"--base {args.base}: no crossenvs package there (make one with git worktree add)")
    rows = [row for row in ROWS if not args.only or row[0] in args.only]
    sides = {"base": args.base.resolve(), "new": HERE}
    found: dict[str, dict[str, list[float]]] = {}
    for number in range(args.rounds):
        for row in rows:
            for side in ("base", "new") if number % 2 == 0 else ("new", "base"):
                found.setdefault(" ".join(row), {}).setdefault(side, []).append(figure(sides[side], row))
            print(f"round {number + 1}: {' '.join(row)} {found[' '.join(row)]}", flush=True)
    print(f"\n| figure | {args.base} | new | new / base |\n|---|---|---|---|")
    for name, sides_found in found.items():
        base, new = statistics.median(sides_found["base"]), statistics.median(sides_found["new"])
        print(f"| {name} | {base:.4g} | {new:.4g} | {new / base:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))
    return found


if __name__ == "__main__":
    main()
