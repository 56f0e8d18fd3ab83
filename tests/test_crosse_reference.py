"""The Crosse engine against an independent plain-Python model of docs/crosse.md (crosse_reference.py,
written from the rule book alone), move by move: the legal actions of every state, and every
field of the position after each action (board, side to act, plies, passes, tokens, a jump in
progress, a pending removal decision, the result)."""

from __future__ import annotations

import random
from collections import Counter

import crosse_reference as reference
import pytest

from crossenvs import make_game
from crossenvs.games.crosse import JUMPING, REMOVAL_PENDING

OPTION_SETS = [
    {"first_player": first, "stuck_tokens": stuck, "cover_removal": cover, "move_cap": cap}
    for first, stuck, cover, cap in [
        ("black", "refresh", "auto", 600),
        ("black", "keep", "optional", 600),
        ("white", "pass_refresh", "auto", 37),
        ("black", "refresh", "optional", 20),
        ("white", "keep", "optional", 20),
    ]
]
IDS = ["-".join(str(v) for v in options.values()) for options in OPTION_SETS]


def result(game, state) -> str | None:
    outcome = game.outcome(state)
    if outcome is None:
        return None
    return "draw" if outcome[0] == outcome[1] else game.colours[0 if outcome[0] > 0 else 1]


def comparable(position: dict) -> dict:
    """The fields both sides must agree on (who is 'to move' once the game is over is a convention)."""
    fields = {key: position[key] for key in ("board", "tokens", "result", "ply", "passes", "jumping", "removal")}
    if position["jumping"]:
        fields["cover_before"] = position["cover_before"]
    if not position["result"]:
        fields["to_move"] = position["to_move"]
    return fields


def check_game(game, options: dict, state, rng: random.Random, events: Counter, prefer=None, max_steps=10_000):
    """Play one random game from ``state``, checking every step against the reference.

    ``events`` counts what happened (steps, hops, passes, extra turns, removal answers, results),
    so that a test can require that the rules it means to check were exercised.
    """
    steps = 0
    while not game.is_terminal(state) and steps < max_steps:
        text = game.to_text(state)
        position = reference.parse(text)
        ids = {game.action_to_str(state, int(a)): int(a) for a in game.legal_actions(state)}
        assert set(ids) == reference.legal(position, options), text
        moves = sorted(ids)
        preferred = [m for m in moves if prefer and prefer(m, position)]
        move = rng.choice(preferred if preferred and rng.random() < 0.8 else moves)
        state = game.apply(state, ids[move])
        expected = reference.play(position, move, options)
        got = reference.parse(game.to_text(state)) | {"result": result(game, state)}
        assert comparable(got) == comparable(expected), f"{text}\nafter {move}"
        steps += 1
        events["steps"] += 1
        events["hop" if "x" in move else move if move in ("pass", "remove", "keep") else "token move"] += 1
        if got["result"]:
            events[got["result"]] += 1
        elif game.current_player(state) == position_seat(game, position) and state.meta[JUMPING] < 0:
            events["extra turn" if not state.meta[REMOVAL_PENDING] else "removal asked"] += 1


def position_seat(game, position: dict) -> int:
    return game.colours.index(position["to_move"])


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_random_games_from_the_setup_agree(options):
    game = make_game("crosse", **options)
    rng, events = random.Random(1), Counter()
    for _ in range(3):
        check_game(game, options, game.initial_state(), rng, events)
    assert events["steps"] >= 3 * min(options["move_cap"], 100) and events["hop"] > 0


USABLE = [f"{file}{rank}" for file in "abcdefghij" for rank in range(1, 11) if reference.usable(f"{file}{rank}")]


def cover_position(rng: random.Random, move_cap: int) -> str:
    """A random position in which the side to move holds three or four corners, often with stones
    on its first row and a few plies before the cap: the corner-cover rules come into play."""
    mover = rng.choice(["black", "white"])
    other = "white" if mover == "black" else "black"
    first_row = 1 if mover == "black" else 10
    board = {corner: mover for corner in rng.sample(sorted(reference.CORNERS), rng.choice([3, 3, 4]))}
    free = [s for s in USABLE if s not in board]
    for square in rng.sample([s for s in free if int(s[1:]) == first_row], rng.choice([0, 1, 2, 3])):
        board[square] = mover
    for colour, count in ((mover, rng.randint(1, 5)), (other, rng.randint(1, 6))):
        for square in rng.sample([s for s in USABLE if s not in board], count):
            board[square] = colour
    lines = [f"to_move: {mover}", f"ply: {rng.choice([0, move_cap - 2, move_cap - 1])}"]
    for colour in ("black", "white"):
        lines.append(f"tokens_{colour}: " + " ".join(rng.sample(sorted(reference.ALL_TOKENS), rng.randint(1, 6))))
    for rank in range(10, 0, -1):
        row = [{"black": "B", "white": "W"}.get(board.get(f"{file}{rank}"), ".") for file in "abcdefghij"]
        lines.append(f"{rank} " + " ".join(row))
    return "\n".join(lines) + "\n"


def towards_cover(move: str, position: dict) -> bool:
    """Moves onto a corner, or onto the mover's first row: the random player favours them."""
    destination = move.replace("x", "-").split("-")[-1]
    first_row = "1" if position["to_move"] == "black" else "10"
    return destination in reference.CORNERS or destination[1:] == first_row


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_cover_positions_agree(options):
    game = make_game("crosse", **options)
    rng, events = random.Random(2), Counter()
    games = 0
    while games < 150:
        state = game.from_text(cover_position(rng, max(options["move_cap"], 3)))
        if game.is_terminal(state):
            continue
        check_game(game, options, state, rng, events, prefer=towards_cover, max_steps=25)
        games += 1
    assert events["extra turn"] > 0 and events["black"] > 0 and events["white"] > 0, events
    if options["cover_removal"] == "optional":
        assert events["removal asked"] > 0 and events["remove"] > 0 and events["keep"] > 0, events
