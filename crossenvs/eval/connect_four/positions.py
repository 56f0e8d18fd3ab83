"""The Connect Four benchmark positions: six classes of positions from random games, each with its solved moves.

A position's class is its stage and its difficulty (the classes AlphaZero.jl measures its agent on,
after Pascal Pons' test sets):

* stage, by plies played: ``begin`` at most 14, ``middle`` 15 to 28, ``end`` over 28;
* difficulty, by the plies the game has left when both sides play perfectly from there: ``easy``
  under 14, ``medium`` 14 to 27, ``hard`` 28 or more.

A game 29 plies in has at most 13 left, and one 15 in at most 27, so six classes exist: begin-easy,
begin-medium, begin-hard, middle-easy, middle-medium, end-easy.

Positions are drawn one at a time, each from its own random stream (the set's seed and the draw's
number), so a build stopped half way goes on where it stopped and ends with the same set: a draw
picks a stage still short of positions, a ply in that stage, and plays uniformly random moves up to
it (a game that ends first is drawn again). Every draw is solved (all moves' exact scores) and kept
in a journal, one JSON line each, whichever class it lands in; a class holds the first ``per_class``
distinct positions of it in journal order. No position here is learnt from: the trainers play their
own games from the start.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crossenvs.kernels.state import State
from crossenvs.support.errors import CrossenvsError, InvalidArgumentError

from ...core.registry import make_game
from .solver_api import ConnectFourSolver, SolverBudgetError, plies_left

STAGES = {"begin": (0, 14), "middle": (15, 28), "end": (29, 41)}
DIFFICULTIES = {"easy": (0, 13), "medium": (14, 27), "hard": (28, 42)}
#: the six classes that exist, in the order the tables print them
CLASSES = ("begin-easy", "middle-easy", "end-easy", "begin-medium", "middle-medium", "begin-hard")
#: the shipped journal (``benchmarks/connect_four_positions.py`` writes it)
SHIPPED = Path(__file__).with_name("positions.jsonl")
#: the seed of the shipped set
SHIPPED_SEED = 2026
PER_CLASS = 1000
#: our solver's budget for one draw (a few seconds on one core), before bitbully is asked instead
DRAW_NODES = 5_000_000


@dataclass(frozen=True)
class BenchmarkPosition:
    """A position by the columns played from the start (``"3342"``: d, d, e, c), with every legal move's score."""

    moves: str
    scores: dict[int, int]
    by: str = "crossenvs"  # who solved it: "crossenvs" (our solver) or "bitbully" (past our solver's budget)

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def best(self) -> int:
        return max(self.scores.values())

    @property
    def plies_left(self) -> int:
        return plies_left(self.best, self.plies, 42)

    @property
    def klass(self) -> str:
        return classify(self.plies, self.plies_left)

    def state(self, game=None) -> State:
        game = game or make_game("connect_four")
        return replay(game, self.moves)

    def to_json(self) -> str:
        scores = {str(c): s for c, s in sorted(self.scores.items())}
        return json.dumps({"moves": self.moves, "scores": scores, "by": self.by})

    @classmethod
    def from_json(cls, line: str) -> BenchmarkPosition:
        row = json.loads(line)
        return cls(row["moves"], {int(c): int(s) for c, s in row["scores"].items()}, row.get("by", "crossenvs"))


def classify(plies: int, left: int) -> str:
    """The class of a position ``plies`` in with ``left`` plies to go under perfect play."""
    stage = next(name for name, (low, high) in STAGES.items() if low <= plies <= high)
    difficulty = next(name for name, (low, high) in DIFFICULTIES.items() if low <= left <= high)
    return f"{stage}-{difficulty}"


def replay(game, moves: str) -> State:
    """The position after the columns ``moves`` (digits) from the start."""
    state = game.initial_state()
    for digit in moves:
        state = game.apply(state, int(digit))
    return state


def draw_position(game, seed: int, index: int, stage: str) -> str:
    """Draw number ``index`` of a set: a random game's first plies, the ply drawn within ``stage``; the game is
    drawn again (from the same stream) while it ends before that ply."""
    rng = np.random.default_rng([seed, index])
    low, high = STAGES[stage]
    while True:
        target = int(rng.integers(low, high + 1))
        state, moves = game.initial_state(), []
        while len(moves) < target and not game.is_terminal(state):
            legal = game.legal_actions(state)
            column = int(legal[rng.integers(legal.size)])
            state = game.apply(state, column)
            moves.append(column)
        if not game.is_terminal(state):
            return "".join(map(str, moves))


def read_journal(path: Path | str) -> list[BenchmarkPosition]:
    """Every solved draw of a journal, in order (a last line cut short by a stop is left out)."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(BenchmarkPosition.from_json(line))
        except (json.JSONDecodeError, KeyError):
            break  # written half when the build stopped: the build draws it again
    return rows


def class_sets(rows: list[BenchmarkPosition], per_class: int = PER_CLASS) -> dict[str, list[BenchmarkPosition]]:
    """The first ``per_class`` distinct positions of each class, in journal order."""
    sets: dict[str, list[BenchmarkPosition]] = {name: [] for name in CLASSES}
    seen: set[str] = set()
    for row in rows:
        klass = row.klass
        if row.moves in seen or len(sets[klass]) >= per_class:
            continue
        seen.add(row.moves)
        sets[klass].append(row)
    return sets


def load(path: Path | str = SHIPPED, per_class: int = PER_CLASS) -> dict[str, list[BenchmarkPosition]]:
    """The benchmark sets of a journal (the shipped one by default)."""
    return class_sets(read_journal(path), per_class)


def _next_stage(sets: dict[str, list[BenchmarkPosition]], per_class: int, index: int) -> str | None:
    """The stage the next draw comes from: the stages with a class still short take turns."""
    short = [s for s in STAGES if any(len(v) < per_class for k, v in sets.items() if k.startswith(s + "-"))]
    return short[index % len(short)] if short else None


def build(
    path: Path | str,
    *,
    seed: int = SHIPPED_SEED,
    per_class: int = PER_CLASS,
    solver: ConnectFourSolver | None = None,
    max_draws: int | None = None,
    nodes: int = DRAW_NODES,
) -> Iterator[BenchmarkPosition]:
    """Draw, solve and journal positions until every class holds ``per_class`` (or ``max_draws`` more are done),
    going on from what the journal at ``path`` holds; yields each new one.

    Our solver proves each draw within ``nodes`` positions; a draw it cannot (the first few plies, where the
    whole game lies ahead and it has no opening book) is scored by bitbully instead, with its opening book,
    and marked so (``by``): :func:`reprove` proves those with ours later, given the time."""
    if per_class < 1:
        raise InvalidArgumentError(f"per_class must be at least 1, got {per_class}")
    game = make_game("connect_four")
    solver = solver or ConnectFourSolver()
    path = Path(path)
    rows = read_journal(path)
    if path.exists():  # drop a half-written last line
        _rewrite(path, rows)
    known = {row.moves: row for row in rows}  # low plies repeat: a draw seen before is not solved again
    done = 0
    with path.open("a") as journal:
        while max_draws is None or done < max_draws:
            sets = class_sets(rows, per_class)
            stage = _next_stage(sets, per_class, len(rows))
            if stage is None:
                return
            moves = draw_position(game, seed, len(rows), stage)
            row = _known_row(known, moves) or _solve_draw(solver, game, moves, nodes)
            known[moves] = row
            journal.write(row.to_json() + "\n")
            journal.flush()
            rows.append(row)
            done += 1
            yield row


def _known_row(known: dict[str, BenchmarkPosition], moves: str) -> BenchmarkPosition | None:
    """The row of ``moves`` or of its left-right mirror, if solved before (the mirror's scores mirrored)."""
    if moves in known:
        return known[moves]
    mirrored = known.get(mirror(moves))
    if mirrored is None:
        return None
    return BenchmarkPosition(moves, {6 - col: score for col, score in mirrored.scores.items()}, mirrored.by)


def mirror(moves: str) -> str:
    """The same game played in the mirrored columns."""
    return "".join(str(6 - int(d)) for d in moves)


def _solve_draw(solver: ConnectFourSolver, game, moves: str, nodes: int) -> BenchmarkPosition:
    try:
        return BenchmarkPosition(moves, solver.move_scores(replay(game, moves), nodes=nodes).scores)
    except SolverBudgetError:
        from .bitbully_check import bitbully_scores

        return BenchmarkPosition(moves, bitbully_scores(moves), "bitbully")


def reprove(path: Path | str, *, solver: ConnectFourSolver | None = None, nodes: int | None = None) -> Iterator[str]:
    """Prove with our solver each draw of the journal that bitbully scored, rewriting the journal after each;
    a disagreement stops it (:class:`SolverDisagreementError`). Yields each position proved."""
    game, solver, path = make_game("connect_four"), solver or ConnectFourSolver(), Path(path)
    rows = read_journal(path)
    for index, row in enumerate(rows):
        if row.by != "bitbully":
            continue
        ours = solver.move_scores(replay(game, row.moves), **({"nodes": nodes} if nodes else {})).scores
        if ours != row.scores:
            raise SolverDisagreementError(f"after {row.moves!r}: crossenvs {ours}, bitbully {row.scores}")
        rows[index] = BenchmarkPosition(row.moves, ours, "both")
        _rewrite(path, rows)
        yield row.moves


def _rewrite(path: Path, rows: list[BenchmarkPosition]) -> None:
    """The journal replaced whole, atomically (a stop leaves the old or the new one)."""
    partial = path.with_suffix(".partial")
    partial.write_text("".join(row.to_json() + "\n" for row in rows))
    partial.replace(path)


class SolverDisagreementError(CrossenvsError, RuntimeError):
    """Our solver and bitbully scored a position differently: one of them is wrong."""
