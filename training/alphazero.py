"""Gumbel AlphaZero in a checkout (``make train``): the same command as ``crossenvs train alphazero``.

    python training/alphazero.py --config crisscross6                      # a shipped config by name
    python training/alphazero.py --game crossings --max-minutes 30         # the game's shipped config
    python training/alphazero.py --resume runs/az-crisscross-20261123-140000

Every flag is the installed command's (``crossenvs train alphazero --help``); how a run works is in
:mod:`crossenvs.az.train`, the shipped configs in ``crossenvs/configs/alphazero/``.
"""

from __future__ import annotations

import sys

from crossenvs.cli import main as crossenvs_main


def main(argv: list[str] | None = None) -> int:
    """``crossenvs train alphazero ARGV``: 0, 2 and one line ``error: ...`` for a refused input."""
    return crossenvs_main(["train", "alphazero", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
