"""Does one checkpoint get one rating? Every pretrained rung rated by ``crossenvs rate``, twice, and checked
against its own rung.

    python benchmarks/rating_agreement.py                          # every shipped ladder, seeds 1 and 2
    python benchmarks/rating_agreement.py --only crisscross_size6 --ladder-dir /tmp/ladders
    python benchmarks/rating_agreement.py --only crisscross_size6 --train-runs 2   # and two fresh 2-minute runs
    python benchmarks/rating_agreement.py --only neo_crossings --rungs pretrained:256   # one rung

For each ladder file with pretrained rungs (``pretrained:0``, ``:16``, ``:64``, ``:256``), each rung's agent is
rated by the command a user types, ``crossenvs rate pretrained:<n> --game <game> [--option ...] --seed <s>``
(run here in-process through :func:`crossenvs.cli.main`, its printed summary read back), once per seed. A row
says the two ratings and intervals, whether they overlap, and whether each holds the rung's shipped rating;
then the ladder's own checks as its file records them (the fit's dispersion, the pairs that depart from it,
and each rung's leave-one-out rating inside its interval or not). The docs' evaluation page quotes the table.

``--train-runs N`` also trains N fresh agents on Crisscross 6x6 (``crossenvs train alphazero --game crisscross
--option size=6 --max-minutes 2 --set seed=<k>``, run as a user runs it), reads the ladder rating the trainer's
final line prints, and rates each final checkpoint by ``crossenvs rate`` once per seed on the shipped ladder:
the three intervals must overlap.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from crossenvs.cli import main as crossenvs_main
from crossenvs.eval.ladder import LADDER_DIR, read_ladder

#: the summary line ``crossenvs rate`` ends with: "<name>: 1703 on the crisscross ladder (95% interval 1594 .. 1814)"
SUMMARY = re.compile(r": (?P<rating>\S+) on the \w+ ladder \(95% interval (?P<low>\S+) \.\. (?P<high>\S+)\)")


def rate_by_command(ladder_path: Path, spec: str, seed: int) -> tuple[float, float, float, str]:
    """``crossenvs rate`` as a user types it: (rating, low, high, the command)."""
    ladder = read_ladder(ladder_path)
    options = [f"--option={key}={value}" for key, value in sorted(ladder.options.items())]
    argv = ["rate", spec, "--game", ladder.game, *options, "--ladder", str(ladder_path), "--seed", str(seed)]
    out = io.StringIO()
    if crossenvs_main(argv, out=out) != 0:
        raise SystemExit(f"crossenvs {' '.join(argv)} failed:\n{out.getvalue()}")
    found = SUMMARY.search(out.getvalue())
    if found is None:
        raise SystemExit(f"no rating in the output of crossenvs {' '.join(argv)}:\n{out.getvalue()}")
    rating, low, high = (float(found[key]) for key in ("rating", "low", "high"))
    return rating, low, high, "crossenvs " + " ".join(argv)


#: the trainer's final line: "...; ladder rating 789 (95% 668 .. 912, 100 games); ..."
TRAINER_LINE = re.compile(r"ladder rating (?P<rating>\S+) \(95% (?P<low>\S+) \.\. (?P<high>\S+), \d+ games\)")


def train_and_rate(seed: int, minutes: float, rate_seeds: list[int]) -> str:
    """One fresh training run, its own ladder line, and ``crossenvs rate`` of its final checkpoint per seed: a row."""
    run_dir = Path(tempfile.mkdtemp(prefix="rating-agreement-")) / "run"
    argv = ["train", "alphazero", "--game", "crisscross", "--option", "size=6", "--max-minutes", str(minutes),
            "--set", f"seed={seed}", "--run-dir", str(run_dir)]  # fmt: skip
    command = [str(Path(sys.executable).with_name("crossenvs")), *argv]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = TRAINER_LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"crossenvs {' '.join(argv)} gave no ladder rating:\n{done.stdout}\n{done.stderr}")
    trained = tuple(float(found[key]) for key in ("rating", "low", "high"))
    spec = f"az:{run_dir / 'checkpoints' / 'final.pt'}"
    rated = [rate_by_command(LADDER_DIR / "crisscross_size6.json", spec, rate_seed) for rate_seed in rate_seeds]
    intervals = [trained[1:3]] + [found_[1:3] for found_ in rated]
    agree = all(overlap(a, b) for a in intervals for b in intervals)
    cells = [f"{rating:.0f} ({low:.0f} .. {high:.0f})" for rating, low, high, *_ in [trained, *rated]]
    row = f"| training seed {seed}, {minutes:g} min | " + " | ".join(cells) + f" | {'yes' if agree else 'NO'} |"
    print(row, flush=True)
    return row


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def check_ladder(path: Path, seeds: list[int], only: list[str] | None = None) -> list[str]:
    """The rows of one ladder: each pretrained rung (or those of ``only``) rated once per seed."""
    ladder = read_ladder(path)
    rows = []
    for rung in (r for r in ladder.rungs if r.spec.startswith("pretrained") and (not only or r.spec in only)):
        found = [rate_by_command(path, rung.spec, seed) for seed in seeds]
        cells = [f"{rating:.0f} ({low:.0f} .. {high:.0f})" for rating, low, high, _ in found]
        agree = all(overlap(a[1:3], b[1:3]) for a in found for b in found)
        hold = all(low <= rung.rating <= high for _, low, high, _ in found)
        rows.append(f"| {path.stem} | {rung.spec} | {rung.rating:.0f} ({rung.low:.0f} .. {rung.high:.0f}) | "
                    + " | ".join(cells) + f" | {'yes' if agree else 'NO'} | {'yes' if hold else 'NO'} |")  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def fit_line(path: Path) -> str:
    """What the ladder file records of its own fit."""
    ladder = read_ladder(path)
    report = ladder.extra.get("consistency")
    if report is None:
        return f"| {path.stem} | {ladder.games_per_pair} | not recorded (built before the checks) | | |"
    alone = report["leave_one_out"]
    inside = sum(found["inside"] for found in alone.values())
    departing = len(report["departing_pairs"])
    return (f"| {path.stem} | {ladder.games_per_pair} | {report['dispersion']:.2f} ({report['chi_square']:.1f} on "
            f"{report['degrees_of_freedom']}) | {departing} of {len(report['pairs'])} | {inside} of {len(alone)} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ladder-dir", type=Path, default=LADDER_DIR, help="where the ladder files are")
    parser.add_argument("--only", nargs="+", help="ladder names (file names without .json)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="the seeds of the rate runs")
    parser.add_argument("--fit-only", action="store_true", help="print the ladders' own fit, rate no agent")
    parser.add_argument("--no-rungs", action="store_true", help="rate no pretrained rung (with --train-runs)")
    parser.add_argument("--rungs", nargs="+", help="rate only these rungs (pretrained:256 ...)")
    parser.add_argument("--train-runs", type=int, default=0, help="fresh Crisscross 6x6 training runs to rate too")
    parser.add_argument("--train-minutes", type=float, default=2.0, help="each training run's --max-minutes")
    args = parser.parse_args()
    paths = sorted(p for p in args.ladder_dir.glob("*.json") if not args.only or p.stem in args.only)
    if not paths:
        raise SystemExit(f"no ladder files in {args.ladder_dir}" + (f" named {args.only}" if args.only else ""))
    for path in paths if args.rungs and not args.no_rungs else []:  # a misspelt rung would rate nothing, silently
        pretrained = [rung.spec for rung in read_ladder(path).rungs if rung.spec.startswith("pretrained")]
        if unknown := sorted(set(args.rungs) - set(pretrained)):
            raise SystemExit(
                f"--rungs {' '.join(unknown)}: not a pretrained rung of {path.stem} ({', '.join(pretrained)})"
            )
    print("| ladder | games a pair | dispersion (chi-square on freedom) | pairs departing | leave-one-out inside |")
    print("|---|---|---|---|---|")
    for path in paths:
        print(fit_line(path), flush=True)
    if args.fit_only:
        return
    seeds = " | ".join(f"rate, seed {seed}" for seed in args.seeds)
    rows = []
    if not args.no_rungs:
        print(f"\n| ladder | rung | shipped rating | {seeds} | runs overlap | each holds the rung |")
        print("|---|---|---" + "|---" * len(args.seeds) + "|---|---|")
        rows = [row for path in paths for row in check_ladder(path, args.seeds, args.rungs)]
    if args.train_runs:
        print(f"\n| agent | trainer's line | {seeds} | all overlap |")
        print("|---|---" + "|---" * len(args.seeds) + "|---|")
        rows += [train_and_rate(k + 1, args.train_minutes, args.seeds) for k in range(args.train_runs)]
    failures = [row for row in rows if "| NO" in row]
    print(f"\n{len(rows) - len(failures)} of {len(rows)} rungs agree with themselves", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
