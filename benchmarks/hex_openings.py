"""Whether a Hex 7x7 player's first move is a winning one: all 49 openings of 7x7 are solved.

    python benchmarks/hex_openings.py                                   # the 7x7 config's kept agent, 5 seeds
    python benchmarks/hex_openings.py --spec az:runs/hex7/checkpoints/final.pt:0 --seeds 10

Hayward, Bjornsson, Johanson, Kan, Po and van Rijswijck solved every 7x7 opening (*Solving 7x7 Hex:
Virtual Connections and Game-State Reduction*, 2003; the journal version 2005), each with a proof tree.
The set of winning first moves used here is MoHex's list of 7x7 openings to swap under the swap rule
(the Benzene project's ``share/swap-moves.txt``): on a solved board one swaps exactly the winning
openings. That list and the rows of Hayward et al.'s table that were readable (a1-b3, on the proof
trees' web page) agree cell for cell once the table's axes are exchanged (its a4 is the list's d1), and
the list is closed under the half turn, as the winning set must be (the half turn keeps each player's
edges). One entry is a typo (``e3`` twice, ``e2`` missing); ``e2`` is the half turn of ``c6``.

Our names (docs/hex.md): files ``a..g`` from the left, ranks ``1..7`` from the bottom, Black first,
joining ranks 1 and 7, ``a1`` an acute corner (two neighbours), as in the list, whose first player
joins the numbered edges and whose ``a1`` is acute too (its acute corners a1 and g7 lose, the obtuse
a7 and g1 win). The one difference the two namings could still hide is the mirror across the long
diagonal (``b6`` <-> ``f2``: files and ranks exchanged, as the list read with its axes the other way
round), so each move's mirror is checked too: a move whose mirror also wins wins under either reading.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import crossenvs
from crossenvs.players import make_player

SIZE = 7
#: the winning first moves of 7x7 Hex in our cell names (the module docstring gives the source)
WINNING_7X7 = frozenset("d1 f1 g1 c2 d2 e2 f2 b3 c3 d3 e3 f3 c4 d4 e4 b5 c5 d5 e5 f5 b6 c6 d6 e6 a7 b7 d7".split())
#: the kept 7x7 agent of the config's own 30-minute run (docs/hex.md), wherever the script is run from
DEFAULT_SPEC = f"az:{Path(__file__).resolve().parent / 'agents_in_training' / 'hex_size7_30min.pt'}"


def half_turn(cell: str) -> str:
    """The cell a half turn of the board puts ``cell`` on (a1 <-> g7)."""
    return f"{chr(ord('a') + SIZE - 1 - (ord(cell[0]) - ord('a')))}{SIZE + 1 - int(cell[1:])}"


def mirrored(cell: str) -> str:
    """The cell's mirror across the long diagonal a1-g7 (file and rank exchanged)."""
    return f"{chr(ord('a') + int(cell[1:]) - 1)}{ord(cell[0]) - ord('a') + 1}"


def first_moves(spec: str, seeds: range) -> list[str]:
    """The opening ``spec`` plays on the empty 7x7 board with each seed, as cell names."""
    game = crossenvs.make_game("hex", size=SIZE)
    start = game.initial_state()
    return [game.action_to_str(start, make_player(spec, game, seed).act(game, start)) for seed in seeds]


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default=DEFAULT_SPEC, help="the player whose first move is checked")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 of the player's random choices")
    args = parser.parse_args(argv)
    rows = []
    for seed, move in zip(range(args.seeds), first_moves(args.spec, range(args.seeds))):
        rows.append(
            {"seed": seed, "move": move, "wins": move in WINNING_7X7, "mirror_wins": mirrored(move) in WINNING_7X7}
        )
        print(f"seed {seed}: {move}: {'a winning' if rows[-1]['wins'] else 'a LOSING'} opening "
              f"(its mirror {mirrored(move)} {'wins' if rows[-1]['mirror_wins'] else 'loses'})")  # fmt: skip
    winning = sum(row["wins"] for row in rows)
    print(f"{args.spec}: {winning} of {len(rows)} first moves win ({len(WINNING_7X7)} of the 49 openings do)")
    return rows


if __name__ == "__main__":
    main()
