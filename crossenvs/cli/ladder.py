"""``crossenvs ladder``: rate a fixed-anchor ladder's rungs against each other (random at 0) and write its file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from crossenvs.support.command_args import check_int_range, check_output_file

from .common import MAX_GAMES, Command, game_of


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rungs",
        nargs="+",
        metavar="SPEC",
        help="the reference players, weakest first "
        "(default: random greedy mcts:8 ... mcts:2000, and pretrained:0 ... :256 where an agent exists)",
    )
    parser.add_argument("--games-per-pair", type=int, default=200, help="games between each pair of neighbours")
    parser.add_argument("--reach", type=int, default=2, help="each rung meets this many rungs above it")
    parser.add_argument("--workers", type=int, default=None, help="processes playing pairs (default: the cores)")
    parser.add_argument("--out", required=True, help="the ladder file to write (.json)")
    parser.add_argument(
        "--journal",
        default=None,
        help="where each finished job's games are kept, and read back from when the same command runs again "
        "(default: the --out file's name ending in .games.jsonl)",
    )


def check(args: argparse.Namespace) -> None:
    check_int_range(args.games_per_pair, "--games-per-pair", 2, MAX_GAMES)
    check_int_range(args.reach, "--reach", 1, 100)
    if args.workers is not None:
        check_int_range(args.workers, "--workers", 1, 1024)
    check_output_file(args.out, "--out", (".json",))
    check_output_file(journal_of(args), "--journal", (".jsonl",))


def journal_of(args: argparse.Namespace) -> Path:
    """The games journal: given, or beside the ladder file (``crisscross.json`` -> ``crisscross.games.jsonl``)."""
    return Path(args.journal) if args.journal else Path(args.out).with_suffix(".games.jsonl")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """Rate a ladder's rungs against each other (random pinned at 0) and write the ladder file."""
    from ..eval.ladder import build_ladder, default_rungs, default_workers, made_stamp
    from ..eval.ladder.checks import outside

    game = game_of(args)
    specs = args.rungs or default_rungs(game)
    workers = args.workers or default_workers()
    journal = journal_of(args)
    out.write(f"{game!r}: {len(specs)} rungs, each against its {args.reach} nearest above, "
              f"{args.games_per_pair} games a pair, {workers} processes\n"
              f"games are kept in {journal} as they finish: the same command again resumes\n")  # fmt: skip
    command = "crossenvs " + " ".join(sys.argv[1:]) if sys.argv[0].endswith("crossenvs") else ""
    ladder = build_ladder(
        game, specs, args.games_per_pair, reach=args.reach, seed=args.seed, workers=workers,
        command=command or f"crossenvs ladder {args.game} --games-per-pair {args.games_per_pair}",
        made=made_stamp(), progress=lambda line: out.write(f"  {line}\n"), journal=journal,
    )  # fmt: skip
    for rung in ladder.rungs:
        out.write(
            f"{rung.spec:<16} {rung.rating:7.0f}   95%: {rung.low:6.0f} .. {rung.high:<6.0f} {rung.games:6} games\n"
        )
    report = ladder.extra["consistency"]
    out.write(f"fit: chi-square {report['chi_square']} on {report['degrees_of_freedom']} degrees of freedom "
              f"(dispersion {report['dispersion']}; 1: the rungs agree as well as chance allows)\n")  # fmt: skip
    for line in report["departing_pairs"]:
        out.write(f"  departs from the fit: {line}\n")
    for spec in outside(report):
        alone = report["leave_one_out"][spec]
        out.write(f"  {spec}: rated alone against the others {alone['rating']:.0f}, outside its interval: rebuild with "
                  "more games per pair, or drop it\n")  # fmt: skip
    Path(args.out).write_text(ladder.to_json())
    out.write(f"wrote {args.out}\n")


COMMAND = Command(
    "ladder",
    "rate a fixed-anchor ladder's rungs (random at 0) and write its file",
    "crossenvs ladder crisscross --option size=6 --games-per-pair 200 --out crisscross_size6.json",
    arguments,
    run,
    check,
    plays_a_game=True,
)
