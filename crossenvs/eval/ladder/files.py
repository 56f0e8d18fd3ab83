"""The ladder file: a ladder's rungs and how they were rated, as JSON, and finding the shipped one.

A ladder is the rungs of one game at one option set (reference players with fixed ratings,
random pinned at 0), written once by :func:`crossenvs.eval.ladder.build_ladder` and shipped in
``crossenvs/ladders/``. This module reads and writes that file and refuses one that does not fit
the game, or whose pretrained rungs were rated with another agent file than the installed one.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from crossenvs.support.errors import CrossenvsError, InvalidOptionError

from ...core.game import Game
from ...core.registry import make_game

#: where the shipped ladders live: ``<game>[_<option><value>...].json``
LADDER_DIR = Path(__file__).resolve().parent.parent.parent / "ladders"
#: the rung pinned at 0
ANCHOR = "random"
#: a ladder file larger than this is refused before it is read
MAX_LADDER_BYTES = 1_000_000
#: random decisions that open every ladder game, the same for both seat orders (AlphaZero rungs are deterministic)
OPENING_PLIES = 2


class LadderError(CrossenvsError, ValueError):
    """No ladder for this game, or a ladder file that cannot be read."""


@dataclass(frozen=True)
class Rung:
    """One reference player: its spec, its fixed rating, and how well the ladder's games pinned it."""

    spec: str
    rating: float
    low: float  # its 95% interval against the anchor (the anchor's own is 0 .. 0)
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


def agent_digest(game: Game) -> str | None:
    """The SHA-256 of the pretrained agent's file, or None: a ladder's pretrained rungs hold for that file only."""
    from ... import agents  # the same layer; agents need torch only when a player is made

    try:
        return hashlib.sha256(agents.path(game.name, **game.options).read_bytes()).hexdigest()
    except InvalidOptionError:
        return None


def check_agent(ladder: Ladder, game: Game) -> None:
    """Refuse a ladder whose pretrained rungs were rated with another agent file than the installed one."""
    rated_with = ladder.extra.get("agent_sha256")
    if rated_with and rated_with != agent_digest(game):
        raise LadderError(
            f"the {ladder.game} ladder's pretrained rungs were rated with another agent file than the one "
            f"installed ({str(rated_with)[:12]}...): rebuild the ladder (crossenvs ladder {ladder.game}) "
            "or give the one made for this agent with --ladder"
        )
