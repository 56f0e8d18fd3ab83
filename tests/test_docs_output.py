"""Output the docs quote, compared with what the code prints.

Position text is the docs' most quoted output (every game page draws its examples with it, "as
``to_text`` writes it"): each ``text`` block that starts with a ``to_move:`` header must read back with
its game's ``from_text`` and be written again by ``to_text`` character for character, and each game
page's first position must be its game's ``initial_state``. Blocks that are sketches rather than output say so
with ``<!-- not output: <reason> -->`` on the line before their fence.
"""

from __future__ import annotations

import re

import pytest
from test_docs import ALL, Block, where

from crossenvs import game_spec, list_games, make_game
from crossenvs.core.errors import PositionTextError

NOT_OUTPUT = re.compile(r"^<!-- not output: (.*\S.*) -->$")


def _not_output(block: Block) -> bool:
    lines = block.page.read_text().splitlines()
    return block.line >= 2 and bool(NOT_OUTPUT.match(lines[block.line - 2]))


POSITIONS = [
    block
    for block in ALL
    if block.language == "text" and block.source.startswith("to_move:") and not _not_output(block)
]


def _candidates(block: Block) -> list:
    """The games a position block may belong to: its page's game (at the board size drawn), else any."""
    ranks = sum(1 for line in block.source.splitlines() if re.match(r"^\s*\d+ ", line))
    names = [block.page.stem] if block.page.stem in list_games() else list_games()
    games = []
    for name in names:
        for options in ({}, {"size": ranks}):
            try:
                games.append(make_game(name, **options))
            except Exception:
                continue
    return games


def _rewritten(block: Block):
    """(game, to_text(from_text(block))) for the first candidate game that reads the block."""
    for game in _candidates(block):
        try:
            return game, game.to_text(game.from_text(block.source))
        except PositionTextError:
            continue
    return None, None


def test_there_are_position_blocks_to_check():
    assert len(POSITIONS) >= 45


@pytest.mark.parametrize("block", POSITIONS, ids=[where(block) for block in POSITIONS])
def test_quoted_position_text_is_what_to_text_writes(block: Block):
    game, text = _rewritten(block)
    assert game is not None, f"{where(block)}: no game reads this position"
    assert text.rstrip("\n") == block.source.rstrip("\n"), f"{where(block)}: to_text writes\n{text}"


def test_each_game_page_opens_with_its_start_position():
    """Each game page's first position is its game's start (at the default options, or a size the game is tested
    at: Hex's page opens on 5x5), as to_text writes it."""
    checked = 0
    for name in list_games():
        first = next((block for block in POSITIONS if block.page.stem == name), None)
        if first is None:
            continue  # the example game has no page
        games = [make_game(name)] + [make_game(name, **options) for options in game_spec(name).test_options]
        starts = {game.to_text(game.initial_state()).rstrip("\n") for game in games}  # the defaults, or a size tested
        assert first.source.rstrip("\n") in starts, where(first)
        checked += 1
    assert checked == len({block.page.stem for block in POSITIONS} & set(list_games())) >= 7
