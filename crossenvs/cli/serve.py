"""``crossenvs serve``: play in the browser, a local web app (:mod:`crossenvs.web`, the web extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from crossenvs.support.command_args import check_int_range
from crossenvs.support.errors import UsageError
from crossenvs.support.extras import check_installed

from .common import Command


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (the default: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--checkpoints",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the page may load checkpoints from, besides the packaged agents (repeatable)",
    )
    parser.add_argument(
        "--max-simulations",
        type=int,
        default=1000,
        metavar="N",
        help="the most simulations per move a page may ask of an opponent",
    )
    parser.add_argument(
        "--docs-url",
        default=None,
        metavar="URL",
        help="where the page links each game's rules, {name} standing for the game, e.g. a build of the docs site "
        "(default /rules/{name}: the rules page this server makes from the package's own words)",
    )
    parser.add_argument(
        "--trust-pickles",
        action="store_true",
        help="let pages name pickle:<file>.zip from the --checkpoints folders: unpickling runs any code the file "
        "holds, so only for folders whose every file you trust (docs/security.md)",
    )


def check(args: argparse.Namespace) -> None:
    check_int_range(args.port, "--port", 1, 65535)
    check_int_range(args.max_simulations, "--max-simulations", 1)
    check_installed("crossenvs serve", {"starlette": "web", "uvicorn": "web"})
    for folder in args.checkpoints:
        if not Path(folder).is_dir():
            raise UsageError(f"--checkpoints {folder}: no such folder; give a folder that holds checkpoints")


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> None:
    """Play in the browser (:mod:`crossenvs.web`): serve the page until Ctrl-C."""
    from ..web import serve

    serve(
        args.host,
        args.port,
        args.checkpoints,
        args.max_simulations,
        out,
        args.docs_url,
        trust_pickles=args.trust_pickles,
    )


COMMAND = Command(
    "serve",
    "play in the browser: a local web app (the web extra)",
    "crossenvs serve --port 8000 --checkpoints runs",
    arguments,
    run,
    check,
)
