"""``crossenvs train``: the package's trainers from the installed package, with the configs it ships.

    crossenvs train alphazero --game crisscross --option size=6   # Gumbel AlphaZero (crossenvs.az.train)
    crossenvs train ppo --game crisscross                         # MaskablePPO self-play (crossenvs.ppo.train)
    crossenvs train rllib --game crosse --iterations 1            # RLlib league self-play (crossenvs.integrations.rllib_run)

Each trainer is a sub-command with flags of its own. The flags are read and the extras the trainer
needs are looked for before anything heavy is imported: a missing extra is one line naming the
``pip install`` that brings it, not a ``No module named 'yaml'`` from deep inside.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from crossenvs.support.extras import check_installed

from ..integrations import rllib_run
from ..trainer.command import add_trainer_arguments, check_trainer_args
from .common import Command, HelpFormatter

#: each trainer: its help, an example, and the modules it needs with the extra that installs each
TRAINERS = {
    "alphazero": (
        "Gumbel AlphaZero self-play (the package's pretrained agents were trained so)",
        "crossenvs train alphazero --game crisscross --option size=6 --max-minutes 7",
        {"torch": "train", "yaml": "train"},
    ),
    "ppo": (
        "MaskablePPO self-play against a pool of the learner's snapshots",
        "crossenvs train ppo --game crisscross --max-minutes 3",
        {"torch": "train", "yaml": "train", "stable_baselines3": "train", "sb3_contrib": "train"},
    ),
    "rllib": (
        "league self-play with Ray RLlib PPO, on one machine or a Ray cluster",
        "crossenvs train rllib --game crosse --iterations 1",
        {"torch": "train", "ray": "rllib"},
    ),
}


def arguments(parser: argparse.ArgumentParser) -> None:
    trainers = parser.add_subparsers(dest="trainer", required=True, metavar="TRAINER")
    for name, (text, example, _) in TRAINERS.items():
        sub = trainers.add_parser(
            name, help=text, description=text, epilog=f"example:\n  {example}", formatter_class=HelpFormatter
        )
        sub.set_defaults(command_line=f"crossenvs train {name}")  # what a resume error tells one to type
        if name == "alphazero":
            add_trainer_arguments(sub, name, "runs/az-<game>-<time>")
            sub.add_argument(
                "--actors",
                type=int,
                default=0,
                metavar="N",
                help="self-play on N Ray actors, one CPU each, this process learning (default 0: all in this process)",
            )
            sub.add_argument(
                "--address",
                metavar="ADDR",
                help="with --actors: the Ray cluster to join (host:port of its head, or 'auto'); default a local one",
            )
        elif name == "ppo":
            add_trainer_arguments(sub, name, "runs/<game>-<time>")
            sub.add_argument("--total-steps", type=int, help="override the config's total_steps")
        else:
            rllib_run.add_arguments(sub)


def check(args: argparse.Namespace) -> None:
    """The trainer's extras first (nothing else can work without them), then the flags that do not go together
    (an RLlib run checks its own, before Ray starts)."""
    check_installed(f"crossenvs train {args.trainer}", TRAINERS[args.trainer][2])
    if args.trainer != "rllib":
        check_trainer_args(args)


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """The trainer's run, to its final evaluation (a one-line summary, and the run folder's summary.json).

    Importing a trainer imports torch (and stable-baselines3), seconds on a busy machine before the trainer's
    own first line: a wait that says so once it passes two seconds."""
    from crossenvs.support.waits import Wait

    with Wait(f"loading the {args.trainer} trainer ({TRAINER_IMPORTS[args.trainer]})"):
        if args.trainer == "alphazero":
            from ..az.train import train
        elif args.trainer == "ppo":
            from ..ppo.train import train
        else:
            train = rllib_run.run
    train(args)


#: what importing each trainer loads, for the line said while it does
TRAINER_IMPORTS = {"alphazero": "torch", "ppo": "torch, stable-baselines3", "rllib": "Ray comes up next"}


COMMAND = Command(
    "train",
    "train an agent: alphazero, ppo (MaskablePPO) or rllib (the train extra; rllib: the rllib extra)",
    "crossenvs train alphazero --game crisscross --option size=6 --max-minutes 7",
    arguments,
    run,
    check,
)
