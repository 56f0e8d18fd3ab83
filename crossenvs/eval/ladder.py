"""Fixed-anchor ladders: ratings that mean the same in every run and on every machine.

An arena's ratings are centred on the mean of whoever took part, so a 1600 from one run says
nothing in another. A ladder fixes the scale once: a list of reference players of one game at
one option set (the *rungs*: random, greedy, MCTS at growing simulation counts, the pretrained
agent at growing search sizes), rated by a long round of games between neighbouring rungs with
random pinned at 0 on the Elo scale, and shipped with the package as a JSON file
(``crossenvs/ladders/``). Rating a player against it (:func:`rate`) plays the rungs nearest its
running estimate, both seats, and fits its one rating with the rungs' ratings held fixed: the
answer is on the ladder's scale, whatever else is in the run.

The interval :func:`rate` reports is the uncertainty of the player's games, given the ladder:
two players rated on the same ladder compare within it. How well the ladder's own numbers are
pinned down (each rung's bootstrap interval against random) is recorded in the file and on the
docs' evaluation page.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from ..core.checks import check_count, check_seed
from ..core.errors import CrossenvsError, InvalidOptionError
from ..core.game import Game
from ..core.registry import make_game
from ..players import Player, make_player
from .arena import GameRecord, bradley_terry, round_robin

#: where the shipped ladders live: ``<game>[_<option><value>...].json``
LADDER_DIR = Path(__file__).resolve().parent.parent / "ladders"
#: the rung pinned at 0
ANCHOR = "random"
#: a ladder file larger than this is refused before it is read
MAX_LADDER_BYTES = 1_000_000
#: the Elo scale: 400 points are odds of 10 to 1
ELO = 400.0 / math.log(10.0)
#: random decisions that open every ladder game, the same for both seat orders (AlphaZero rungs are deterministic)
OPENING_PLIES = 2
#: chi-square(1) at 95%, halved: the drop in log-likelihood that bounds a likelihood-ratio interval
LR_DROP = 1.920729


class LadderError(CrossenvsError, ValueError):
    """No ladder for this game, or a ladder file that cannot be read."""


@dataclass(frozen=True)
class Rung:
    """One reference player: its spec, its fixed rating, and how well the ladder's games pinned it."""

    spec: str
    rating: float
    low: float  # 95% bootstrap interval against the anchor (the anchor's own is 0 .. 0)
    high: float
    games: int


@dataclass(frozen=True)
class Ladder:
    """The rungs of one game at one option set, weakest first, and how they were rated."""

    game: str
    options: dict[str, Any]
    rungs: tuple[Rung, ...]
    command: str = ""  # the command that made the file
    made: str = ""  # when and on what machine
    games_per_pair: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def rating_of(self, spec: str) -> float:
        return next(rung.rating for rung in self.rungs if rung.spec == spec)

    def to_json(self) -> str:
        document = asdict(self)
        document["rungs"] = [asdict(rung) for rung in self.rungs]
        return json.dumps(document, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str = "ladder") -> Ladder:
        try:
            document = json.loads(text)
            rungs = tuple(
                Rung(str(r["spec"]), float(r["rating"]), float(r["low"]), float(r["high"]), int(r["games"]))
                for r in document["rungs"]
            )
            ladder = cls(
                str(document["game"]),
                dict(document["options"]),
                rungs,
                str(document.get("command", "")),
                str(document.get("made", "")),
                int(document.get("games_per_pair", 0)),
                dict(document.get("extra", {})),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise LadderError(f"{source} is not a ladder file ({type(exc).__name__}: {exc})") from None
        if len(rungs) < 2 or not all(math.isfinite(r.rating) for r in rungs):
            raise LadderError(f"{source}: a ladder needs at least two rungs with finite ratings")
        return ladder


def ladder_file_name(game: Game) -> str:
    """``crisscross_size6.json`` for Crisscross 6x6; ``<game>.json`` at the game's default options."""
    defaults = make_game(game.name).OPTIONS
    chosen = {key: value for key, value in game.options.items() if defaults.get(key) != value}
    return game.name + "".join(f"_{key}{value}" for key, value in sorted(chosen.items())) + ".json"


def available() -> list[str]:
    """The shipped ladder files' names."""
    return sorted(path.name for path in LADDER_DIR.glob("*.json"))


def read_ladder(path: str | Path) -> Ladder:
    """A ladder from a JSON file (its size checked first)."""
    path = Path(path)
    if not path.is_file():
        raise LadderError(f"no ladder file {path}")
    size = path.stat().st_size
    if size > MAX_LADDER_BYTES:
        raise LadderError(f"{path} is {size:,} bytes: a ladder file is at most {MAX_LADDER_BYTES:,}")
    return Ladder.from_json(path.read_text(), str(path))


def load_ladder(game: Game, path: str | Path | None = None) -> Ladder:
    """The ladder of ``game`` at its options: the shipped one, or the file at ``path``."""
    if path is None:
        path = LADDER_DIR / ladder_file_name(game)
        if not path.is_file():
            raise LadderError(
                f"no ladder for {game.name} {game.options or ''}: shipped ladders are {', '.join(available())}; "
                f"make one with crossenvs ladder {game.name} --out <file> and pass it as --ladder <file>"
            )
    ladder = read_ladder(path)
    if ladder.game != game.name or ladder.options != dict(game.options):
        raise LadderError(
            f"{path} is the ladder of {ladder.game} {ladder.options}, not of {game.name} {dict(game.options)}"
        )
    return ladder


# ---------------------------------------------------------------------------------------------
# Building a ladder

#: the rungs of the shipped ladders, roughly weakest first (the order only decides who meets whom)
MCTS_RUNGS = ("random", "greedy", "mcts:8", "mcts:32", "mcts:128", "mcts:500", "mcts:2000")
PRETRAINED_RUNGS = ("pretrained:0", "pretrained:16", "pretrained:64", "pretrained:256")


def default_rungs(game: Game) -> list[str]:
    """The MCTS rungs, and the pretrained agent's when the game at these options has one."""
    from .. import agents  # the same layer; agents need torch only when a player is made

    try:
        agents.path(game.name, **game.options)
    except InvalidOptionError:
        return list(MCTS_RUNGS)
    return list(MCTS_RUNGS + PRETRAINED_RUNGS)


def agent_digest(game: Game) -> str | None:
    """The SHA-256 of the pretrained agent's file, or None: a ladder's pretrained rungs hold for that file only."""
    import hashlib

    from .. import agents

    try:
        return hashlib.sha256(agents.path(game.name, **game.options).read_bytes()).hexdigest()
    except InvalidOptionError:
        return None


def neighbour_pairs(count: int, reach: int) -> list[tuple[int, int]]:
    """Rung pairs that meet: each rung with the next ``reach`` rungs above it."""
    return [(i, j) for i in range(count) for j in range(i + 1, min(count, i + reach + 1))]


def _play_pair(
    game_name: str, options: dict, spec_a: str, spec_b: str, games: int, seed: int, opening_plies: int
) -> list[GameRecord]:
    """One pair's games, in a worker process (players are made there: they do not cross processes)."""
    game = make_game(game_name, **options)
    a = make_player(spec_a, game=game, seed=seed)
    b = make_player(spec_b, game=game, seed=seed + 1)
    a.name, b.name = spec_a, spec_b
    return round_robin(game, [a, b], games, seed=seed, opening_plies=opening_plies)


def play_pairs(
    game: Game,
    specs: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    games_per_pair: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    opening_plies: int = OPENING_PLIES,
) -> list[GameRecord]:
    """Every pair's games, in ``workers`` processes; reproducible from ``seed`` whatever ``workers`` is."""
    jobs = [
        (
            game.name,
            dict(game.options),
            specs[i],
            specs[j],
            games_per_pair,
            (seed * 1_000_003 + k * 10_007) % 2**62,
            opening_plies,
        )
        for k, (i, j) in enumerate(pairs)
    ]
    records: list[GameRecord] = []
    if workers <= 1:
        for job in jobs:
            records += _play_pair(*job)
            if progress:
                progress(f"{job[2]} vs {job[3]}: {games_per_pair} games")
        return records
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for job, result in zip(jobs, pool.map(_play_pair, *zip(*jobs))):
            records += result
            if progress:
                progress(f"{job[2]} vs {job[3]}: {games_per_pair} games")
    return records


def anchored_ratings(
    records: Sequence[GameRecord], names: Sequence[str], anchor: str = ANCHOR, bootstrap: int = 200, seed: int = 0
) -> list[Rung]:
    """Bradley-Terry ratings with ``anchor`` at 0, and 95% bootstrap intervals of each rung's gap to it."""
    if anchor not in names:
        raise InvalidOptionError(f"a ladder needs its anchor {anchor!r} among its rungs, got {list(names)}")
    at = list(names).index(anchor)
    point = bradley_terry(records, names)
    point = point - point[at]
    rng = np.random.default_rng(seed)
    samples = np.array(
        [
            bradley_terry([records[k] for k in rng.integers(len(records), size=len(records))], names, 200)
            for _ in range(bootstrap)
        ]
    )
    samples -= samples[:, [at]]
    lows, highs = np.percentile(samples, [2.5, 97.5], axis=0)
    games = {name: sum(name in (r.first, r.second) for r in records) for name in names}
    rungs = [Rung(n, float(point[i]), float(lows[i]), float(highs[i]), games[n]) for i, n in enumerate(names)]
    return sorted(rungs, key=lambda rung: rung.rating)


def build_ladder(
    game: Game,
    specs: Sequence[str],
    games_per_pair: int,
    *,
    reach: int = 2,
    seed: int = 0,
    workers: int = 1,
    opening_plies: int = OPENING_PLIES,
    repair_rounds: int = 2,
    command: str = "",
    made: str = "",
    progress: Callable[[str], None] | None = None,
) -> Ladder:
    """Play each rung against its ``reach`` nearest rungs (``specs`` listed weakest first) and rate them all.

    Every game opens with ``opening_plies`` random decisions, shared by the two games of a seat swap.
    Only neighbours meet: a far mismatch is a sweep that says little, while games between rungs of
    similar strength pin the gaps down. The listed order is a guess (greedy is strong in one game and
    weak in another), so after the first games the rungs are sorted by their ratings and the pairs of
    new neighbours play too, for up to ``repair_rounds`` rounds: a rung that swept everything it met
    would otherwise be rated by the fit's prior alone. ``specs`` must include the anchor, ``random``.
    """
    specs = list(dict.fromkeys(specs))
    if len(specs) < 2 or ANCHOR not in specs:
        raise InvalidOptionError(f"a ladder needs at least two rungs, its anchor {ANCHOR!r} among them, got {specs}")
    for spec in specs:  # every rung made once before any game is played: a bad spec costs nothing
        try:
            make_player(spec, game=game)
        except CrossenvsError as exc:
            raise InvalidOptionError(f"ladder rung {spec!r}: {exc}") from None
    games_per_pair = check_count(games_per_pair, "games per pair", 2, 1_000_000)
    seed = check_seed(seed, "ladder seed") or 0
    pairs = set(neighbour_pairs(len(specs), reach))
    records = play_pairs(game, specs, sorted(pairs), games_per_pair, seed, workers, progress, opening_plies)
    for round_index in range(1, repair_rounds + 1):  # the listed order was a guess: meet the real neighbours
        point = bradley_terry(records, specs)
        order = sorted(range(len(specs)), key=lambda k: point[k])
        wanted = {tuple(sorted((order[i], order[j]))) for i, j in neighbour_pairs(len(specs), reach)} - pairs
        if not wanted:
            break
        pairs |= wanted
        round_seed = (seed + 1_000_033 * round_index) % 2**62
        records += play_pairs(game, specs, sorted(wanted), games_per_pair, round_seed, workers, progress, opening_plies)
    rungs = anchored_ratings(records, specs, seed=seed)
    extra: dict[str, Any] = {
        "reach": reach,
        "opening_plies": opening_plies,
        "pairs": [[specs[i], specs[j]] for i, j in sorted(pairs)],
    }
    if any(spec.startswith("pretrained") for spec in specs):
        extra["agent_sha256"] = agent_digest(game)
    return Ladder(game.name, dict(game.options), tuple(rungs), command, made, games_per_pair, extra)


def check_agent(ladder: Ladder, game: Game) -> None:
    """Refuse a ladder whose pretrained rungs were rated with another agent file than the installed one."""
    rated_with = ladder.extra.get("agent_sha256")
    if rated_with and rated_with != agent_digest(game):
        raise LadderError(
            f"the {ladder.game} ladder's pretrained rungs were rated with another agent file than the one "
            f"installed ({str(rated_with)[:12]}...): rebuild the ladder (crossenvs ladder {ladder.game}) "
            "or give the one made for this agent with --ladder"
        )


# ---------------------------------------------------------------------------------------------
# Rating a player against a ladder


def _win_probability(rating: float | np.ndarray, opponents: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp((opponents - rating) / ELO))


def log_likelihood(rating: float, opponents: np.ndarray, scores: np.ndarray) -> float:
    """Log-likelihood of the scores (1, 0.5, 0 per game) of a player of ``rating`` against fixed opponents."""
    p = np.clip(_win_probability(rating, opponents), 1e-300, 1.0 - 1e-16)
    return float(np.sum(scores * np.log(p) + (1.0 - scores) * np.log1p(-p)))


def _solve(function: Callable[[float], float], low: float, high: float) -> float:
    """The root of an increasing ``function`` in [low, high], by bisection."""
    for _ in range(200):
        middle = 0.5 * (low + high)
        if function(middle) > 0:
            high = middle
        else:
            low = middle
    return 0.5 * (low + high)


@dataclass(frozen=True)
class LadderFit:
    """A rating on a ladder's scale with its 95% interval (``low`` -inf / ``high`` inf: unbounded side)."""

    rating: float
    low: float
    high: float
    games: int
    score: float

    def interval_text(self) -> str:
        if math.isinf(self.high):
            return f">= {self.low:.0f}"
        if math.isinf(self.low):
            return f"<= {self.high:.0f}"
        return f"{self.low:.0f} .. {self.high:.0f}"

    @property
    def width(self) -> float:
        return self.high - self.low


def fit_rating(opponents: Sequence[float], scores: Sequence[float]) -> LadderFit:
    """The maximum-likelihood rating of a player whose games against fixed-rated opponents scored ``scores``.

    The interval is the likelihood-ratio one. A player who won (or lost) every game has no finite
    estimate; it gets the exact one-sided bound instead: the rating at which a clean sweep has
    probability 5% (and its point value is that bound).
    """
    opponents = np.asarray(opponents, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        raise InvalidOptionError("a rating needs at least one game")
    span = (float(opponents.min()) - 4000.0, float(opponents.max()) + 4000.0)
    total = float(scores.sum())
    if total in (0.0, float(len(scores))):
        won = total > 0

        def sweep_probability(r: float) -> float:
            p = _win_probability(r, opponents)
            return float(np.sum(np.log(p if won else 1.0 - p)) - math.log(0.05)) * (1 if won else -1)

        bound = _solve(sweep_probability, *span)
        return (
            LadderFit(bound, bound, math.inf, len(scores), total / len(scores))
            if won
            else LadderFit(bound, -math.inf, bound, len(scores), total / len(scores))
        )
    rating = _solve(lambda r: float(np.sum(_win_probability(r, opponents) - scores)), *span)
    top = log_likelihood(rating, opponents, scores)
    low = _solve(lambda r: log_likelihood(r, opponents, scores) - top + LR_DROP, span[0], rating)
    high = _solve(lambda r: top - LR_DROP - log_likelihood(r, opponents, scores), rating, span[1])
    return LadderFit(rating, low, high, len(scores), total / len(scores))


@dataclass
class LadderRating:
    """What :func:`rate` found: the fit and the games behind it, rung by rung."""

    fit: LadderFit
    ladder: Ladder
    played: dict[str, list[float]]  # rung spec -> the player's scores against it

    def summary(self, name: str) -> str:
        rungs = ", ".join(
            f"{spec} ({self.ladder.rating_of(spec):.0f}) {sum(s):g}/{len(s)}" for spec, s in self.played.items()
        )
        return (
            f"{name}: {self.fit.rating:.0f} on the {self.ladder.game} ladder (95% interval {self.fit.interval_text()}), "
            f"from {self.fit.games} games: {rungs}"
        )


def next_rung(ladder: Ladder, fit: LadderFit | None) -> Rung:
    """The rung to play next: the one nearest the running estimate (the middle rung before any game).

    A clean sweep's estimate is a bound: the next rung is the nearest one beyond it, so a player
    who beats the top rung keeps meeting it, and its bound rises with every win.
    """
    rungs = sorted(ladder.rungs, key=lambda rung: rung.rating)
    if fit is None:
        return rungs[len(rungs) // 2]
    if math.isinf(fit.high):
        beyond = [rung for rung in rungs if rung.rating > fit.rating]
        return beyond[0] if beyond else rungs[-1]
    if math.isinf(fit.low):
        below = [rung for rung in rungs if rung.rating < fit.rating]
        return below[-1] if below else rungs[0]
    return min(rungs, key=lambda rung: abs(rung.rating - fit.rating))


def rate(
    game: Game,
    player: Player,
    ladder: Ladder,
    *,
    width: float = 100.0,
    max_games: int = 200,
    batch: int = 10,
    seed: int = 0,
    progress: Callable[[LadderFit, str], None] | None = None,
) -> LadderRating:
    """Rate ``player`` on ``ladder``: ``batch`` games at a time (seats alternating) against the rung
    nearest its estimate, until the 95% interval is at most ``width`` Elo or ``max_games`` are played.
    """
    if not math.isfinite(width) or width <= 0:
        raise InvalidOptionError(f"the interval width must be a positive number of Elo points, got {width!r}")
    max_games = check_count(max_games, "game budget", 2, 1_000_000)
    batch = check_count(batch, "games per batch", 2, max_games)
    seed = check_seed(seed, "rating seed") or 0
    check_agent(ladder, game)
    opening_plies = int(ladder.extra.get("opening_plies", OPENING_PLIES))  # the ladder's own conditions
    rung_players: dict[str, Player] = {}
    played: dict[str, list[float]] = {}
    fit: LadderFit | None = None
    while fit is None or (fit.width > width and fit.games < max_games):
        rung = next_rung(ladder, fit)
        if rung.spec not in rung_players:
            rung_players[rung.spec] = make_player(rung.spec, game=game, seed=seed + 7919 * len(rung_players))
            rung_players[rung.spec].name = f"rung {rung.spec}"
        games = min(batch, max_games - (fit.games if fit else 0))
        batch_seed = (seed * 1_000_003 + (fit.games if fit else 0)) % 2**62
        records = round_robin(game, [player, rung_players[rung.spec]], games, batch_seed, opening_plies)
        played.setdefault(rung.spec, []).extend(
            r.score_first if r.first == player.name else 1.0 - r.score_first for r in records
        )
        opponents = [ladder.rating_of(spec) for spec, scores in played.items() for _ in scores]
        fit = fit_rating(opponents, [s for scores in played.values() for s in scores])
        if progress:
            progress(fit, rung.spec)
    return LadderRating(fit, ladder, played)


def made_stamp() -> str:
    """When and on what a ladder was made, for its file: the date, the processor, the cores."""
    import datetime
    import platform

    return f"{datetime.date.today().isoformat()}, {platform.machine()} with {default_workers()} cores"


def default_workers() -> int:
    """Processes for building a ladder: the machine's cores."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
