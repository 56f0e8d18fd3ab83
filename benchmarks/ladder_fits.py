"""How much a shipped ladder's numbers depend on the fit that made them: games simulated from each
ladder's own ratings, over its own pairs and games a pair, rated by the fit of the files (Bradley-Terry
with a prior of one draw against an average player, random then moved to 0) and by the fit of today
(maximum likelihood with random held at 0, :func:`crossenvs.eval.ratings.ratings`).

    python benchmarks/ladder_fits.py            # 20 simulated builds of each shipped ladder, a few seconds

It prints, per ladder, the mean error of its top rung under each fit (simulated minus the file's
rating) and the mean over all rungs: the docs' evaluation page quotes it. A simulated build in
which a rung won or lost every game against the rest has no finite rating under today's fit (a
real build refuses it) and is counted, not averaged.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from crossenvs.eval.ladder import LADDER_DIR, read_ladder
from crossenvs.eval.ratings import GameRecord, bradley_terry, ratings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builds", type=int, default=20, help="simulated builds of each ladder")
    args = parser.parse_args()
    print("ladder, games a pair: top rung: mean error with the prior | anchored; all rungs: with the prior | anchored")
    for path in sorted(LADDER_DIR.glob("*.json")):
        ladder = read_ladder(path)
        true = {rung.spec: rung.rating for rung in ladder.rungs}
        specs, top = list(true), max(true, key=true.get)
        prior_errors, anchored_errors, unbounded = [], [], 0
        for seed in range(args.builds):
            rng = np.random.default_rng(seed)
            records = []
            for a, b in ladder.extra["pairs"]:
                wins = rng.random(ladder.games_per_pair) < 1.0 / (1.0 + 10.0 ** ((true[b] - true[a]) / 400.0))
                records += [GameRecord(a, b, float(win), 0, seed) for win in wins]
            prior = bradley_terry(records, specs)
            prior -= prior[specs.index("random")]
            anchored = {r.name: r for r in ratings(records, specs, fixed={"random": 0.0})}
            if any(not (math.isfinite(r.low) and math.isfinite(r.high)) for r in anchored.values()):
                unbounded += 1
                continue
            prior_errors.append([prior[k] - true[spec] for k, spec in enumerate(specs)])
            anchored_errors.append([anchored[spec].rating - true[spec] for spec in specs])
        at = specs.index(top)
        old, new = np.array(prior_errors), np.array(anchored_errors)
        print(
            f"{path.stem}, {ladder.games_per_pair}: {top} {true[top]:.0f}: {old[:, at].mean():+.0f} | "
            f"{new[:, at].mean():+.0f}; all rungs {old.mean():+.0f} | {new.mean():+.0f}"
            + (f" ({unbounded} of {args.builds} builds had a rung without a finite rating)" if unbounded else "")
        )


if __name__ == "__main__":
    main()
