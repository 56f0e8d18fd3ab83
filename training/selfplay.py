"""MaskablePPO self-play in a checkout (``make train-ppo``): the same command as ``crossenvs train ppo``.

    python training/selfplay.py --config crisscross                        # a shipped config by name
    python training/selfplay.py --game crossings --total-steps 200000
    python training/selfplay.py --resume runs/crisscross-20261121-101500

Every flag is the installed command's (``crossenvs train ppo --help``); how a run works is in
:mod:`crossenvs.ppo.train`, the shipped configs in ``crossenvs/configs/``.
"""

from __future__ import annotations

import sys

from crossenvs.cli import main as crossenvs_main


def main(argv: list[str] | None = None) -> int:
    """``crossenvs train ppo ARGV``: 0, 2 and one line ``error: ...`` for a refused input."""
    return crossenvs_main(["train", "ppo", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
