"""A player's mistake rate on the Connect Four benchmark positions, class by class.

A move is a mistake when its solved value (win, draw or loss, for the player making it) is below the
best move's: a win thrown to a draw or a loss, or a draw to a loss. A slower win than the fastest one
is no mistake (AlphaZero.jl's measure, which its published table uses).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.registry import make_game
from ...players import Player, Positions
from .positions import CLASSES, BenchmarkPosition

#: the positions a batched player decides together
BATCH = 256


@dataclass(frozen=True)
class ClassRate:
    """The mistakes a player made in one class, with a 95% Wilson interval of the rate."""

    klass: str
    positions: int
    mistakes: int

    @property
    def rate(self) -> float:
        return self.mistakes / self.positions if self.positions else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.mistakes, self.positions)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound near 0, where most of these rates are)."""
    if trials == 0:
        return (float("nan"), float("nan"))
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


def is_mistake(position: BenchmarkPosition, column: int) -> bool:
    """Does dropping into ``column`` lose value against the position's best move?"""
    if column not in position.scores:
        raise ValueError(f"column {column} is not a legal move after {position.moves!r}")
    return int(np.sign(position.scores[column])) < int(np.sign(position.best))


def choose(
    player: Player, positions: list[BenchmarkPosition], done: Callable[[int], None] = lambda count: None
) -> list[int]:
    """The player's move in each position (a batched player decides ``BATCH`` at once); ``done(count)`` hears of
    every move or batch decided (a command's progress line)."""
    game = make_game("connect_four")
    states = [p.state(game) for p in positions]
    if not getattr(player, "vectorized", False):
        moves = []
        for state in states:
            moves.append(int(player.act(game, state)))
            done(1)
        return moves
    chosen: list[int] = []
    for start in range(0, len(states), BATCH):
        part = states[start : start + BATCH]
        batch = Positions(
            game,
            np.stack([s.board for s in part]),
            np.stack([s.meta for s in part]),
            np.stack([game.observe(s, game.current_player(s)) for s in part]).astype(np.float32),
            np.stack([game.legal_mask(s) for s in part]),
            np.arange(len(part), dtype=np.int64),
        )
        chosen.extend(int(a) for a in player.act_batch(batch))
        done(len(part))
    return chosen


def mistake_rates(
    player: Player, sets: dict[str, list[BenchmarkPosition]], done: Callable[[int], None] = lambda count: None
) -> dict[str, ClassRate]:
    """The player's mistakes in each class of ``sets`` (:func:`.positions.load`), in the tables' order;
    ``done(count)`` hears of the positions decided as they are."""
    rates = {}
    for klass in [k for k in CLASSES if k in sets]:
        rows = sets[klass]
        moves = choose(player, rows, done)
        rates[klass] = ClassRate(klass, len(rows), sum(is_mistake(row, move) for row, move in zip(rows, moves)))
    return rates


def format_table(rates: dict[str, ClassRate], name: str) -> str:
    """A Markdown table of one player's rates: class, positions, mistakes, rate and its interval."""
    lines = [f"| {name}: class | positions | mistakes | rate | 95% interval |", "|---|---:|---:|---:|---|"]
    for rate in rates.values():
        low, high = rate.interval
        lines.append(
            f"| {rate.klass} | {rate.positions} | {rate.mistakes} | {100 * rate.rate:.1f}% | "
            f"{100 * low:.1f} .. {100 * high:.1f}% |"
        )
    return "\n".join(lines)
