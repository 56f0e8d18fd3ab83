"""Cross-check our Hex and Connect Four against every peer at 100,000 positions or more each.

    python benchmarks/peer_check.py                       # every peer, 100,000 positions each
    python benchmarks/peer_check.py --positions 20000 --peer openspiel:hex

Random games are drawn on our engine and replayed on the peer by id (crossenvs.selfcheck.peers,
the mapping is on docs/hex.md and docs/connect_four.md); legal ids, terminal flags and winners
are compared at every position. Prints one row per peer and exits 1 on any mismatch, listing the
first few. The figure is on the games' pages (docs/hex.md, docs/connect_four.md).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from crossenvs.selfcheck.peers import PEERS, cross_check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100_000, help="positions compared per peer, at least")
    parser.add_argument("--peer", action="append", choices=list(PEERS), help="peers to check (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(
        f"# peer cross-check, {time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
        f"python {platform.python_version()}: {' '.join(sys.argv)}"
    )
    print(f"{'peer':28} {'game':26} {'games':>7} {'positions':>10} {'mismatches':>10} {'seconds':>8}")
    failed = False
    for peer in args.peer or list(PEERS):
        spec = PEERS[peer]
        report = cross_check(peer, 0, seed=args.seed, min_positions=args.positions)
        options = ",".join(f"{k}={v}" for k, v in spec.options.items())
        game = f"{spec.game}({options})"
        print(
            f"{peer:28} {game:26} {report.games:>7,} {report.positions:>10,} {len(report.mismatches):>10} "
            f"{report.seconds:>8.1f}",
            flush=True,
        )
        for line in report.mismatches[:3]:
            print(f"    {line}")
        failed = failed or bool(report.mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
