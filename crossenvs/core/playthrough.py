"""Golden playthroughs (OpenSpiel's idea).

A seeded random game written out position by position, with the legal moves in notation and
the acting player's observation planes. Tests regenerate it and diff it against a committed
file, so no change to the rules, the notation or the observations slips through silently.
The first line names the game, its options and the seed, so a file says how to replay itself.
"""

from __future__ import annotations

import json
import re

import numpy as np

from .game import Game


def _planes_text(planes: np.ndarray) -> list[str]:
    """Each plane as rows of numbers, or ``all <value>`` for a constant plane (counts, flags)."""
    lines = []
    for index in range(planes.shape[-1]):
        plane = planes[..., index]
        if (plane == plane.flat[0]).all():
            lines.append(f"plane {index}: all {plane.flat[0]:g}")
            continue
        rows = [" ".join(f"{value:g}" for value in row) for row in plane]
        lines.append(f"plane {index}: " + " | ".join(rows))
    return lines


_HEADER = re.compile(r"^# (?P<name>[a-z][a-z0-9_]*) (?P<options>\{.*\}) seed (?P<seed>-?\d+): ")


def golden_header(game: Game, seed: int) -> str:
    """The first line of a playthrough: game name, options as JSON, seed."""
    return f"# {game.name} {json.dumps(game.options, sort_keys=True)} seed {seed}: uniformly random legal play"


def parse_golden_header(line: str) -> tuple[str, dict, int] | None:
    """``(name, options, seed)`` from a playthrough's first line; None if it is not one."""
    found = _HEADER.match(line)
    if not found:
        return None
    return found["name"], json.loads(found["options"]), int(found["seed"])


def playthrough(game: Game, seed: int, max_plies: int = 10_000) -> str:
    """The text of one random game of ``game`` drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    lines = [golden_header(game, seed)]
    step = 0
    while not game.is_terminal(state) and step < max_plies:
        player = game.current_player(state)
        legal = game.legal_actions(state)
        lines.append(f"== decision {step}, seat {player}")
        lines.append(game.to_text(state).rstrip("\n"))
        lines.append("legal: " + " ".join(game.action_to_str(state, int(a)) for a in legal))
        lines.extend(_planes_text(game.observe(state, player)))
        action = int(legal[rng.integers(legal.size)])
        lines.append(f"action: {game.action_to_str(state, action)} ({action})")
        state = game.apply(state, action)
        step += 1
    lines.append("== final")
    lines.append(game.to_text(state).rstrip("\n"))
    lines.append(f"outcome: {game.outcome(state)}")
    return "\n".join(lines) + "\n"
