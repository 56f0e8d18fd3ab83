"""Output the docs quote, compared with what the code prints.

Position text is the docs' most quoted output (every game page draws its examples with it, "as
``to_text`` writes it"): each ``text`` block that starts with a ``to_move:`` header must read back with
its game's ``from_text`` and be written again by ``to_text`` character for character, and each game
page's first position must be its game's ``initial_state``. Blocks that are sketches rather than output say so
with ``<!-- not output: <reason> -->`` on the line before their fence.

Every other ``text`` block is output, and is replayed: each has a check below that runs what printed it
(``REPLAYS``, keyed by its page and first line) and compares, or says on the line before its fence
``<!-- not replayed: <reason> -->`` (a training run's closing line, minutes of work whose figures vary).
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from test_docs import ALL, ROOT, Block, where

from crossenvs import game_spec, list_games, make_game
from crossenvs.support.errors import PositionTextError

NOT_OUTPUT = re.compile(r"^<!-- not output: (.*\S.*) -->$")
NOT_REPLAYED = re.compile(r"^<!-- not replayed: (.*\S.*) -->$")


def _marked(block: Block, marker: re.Pattern) -> bool:
    lines = block.page.read_text().splitlines()
    return block.line >= 2 and bool(marker.match(lines[block.line - 2]))


def _not_output(block: Block) -> bool:
    return _marked(block, NOT_OUTPUT)


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


# Output other than positions ------------------------------------------------------------------------


def _key(block: Block) -> tuple[str, str]:
    """The page and the start of the block's first line."""
    return block.page.name, block.source.splitlines()[0][:30]


OUTPUT = [
    block
    for block in ALL
    if block.language == "text" and block not in POSITIONS and not _not_output(block)
    and not _marked(block, NOT_REPLAYED)
]  # fmt: skip


def _last_move_legend(block: Block) -> str:
    """docs/README.md's terminal board: 4x4 Crisscross after Red's a1, that move bracketed, the legend beside."""
    game = make_game("crisscross", size=4)
    before = game.initial_state()
    action = game.str_to_action(before, "a1")
    return game.render_ansi(game.apply(before, action), game.action_cells(before, action), legend=True)


ARENA = ["eval", "crisscross", "--option", "size=6", "--players", "random", "greedy", "mcts:50", "mcts:200", "--games", "20"]  # fmt: skip


def _arena_on_the_ladder_scale(block: Block) -> str:
    """docs/evaluation.md's arena: the command its paragraph names (seed 0, the default), as a user types it."""
    from crossenvs.cli import main

    paragraph = " ".join(block.page.read_text().split())
    assert f"`crossenvs {' '.join(ARENA)}`" in paragraph, "the page names it"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(ARENA) == 0
    return out.getvalue()


def _mutation_table(block: Block) -> None:
    """docs/contributing.md's mutation table: one row per mutant of tests/mutants.py, in its order, each killed
    by a test that exists (running the table is ``make mutants``, ten minutes: not a test)."""
    from mutants import MUTANTS

    rows = [line.split() for line in block.source.splitlines()[1:]]
    assert [row[0] for row in rows] == [mutant.name for mutant in MUTANTS], "make mutants, and paste its table"
    for name, killer in rows:
        path, test = killer.split("::")
        function = test.split("[")[0]
        assert re.search(rf"^def {function}\(", (ROOT / path).read_text(), re.M), f"{name}: no test {killer}"


REPLAYS = {
    ("README.md", "Blue to move (ply 1)"): _last_move_legend,
    ("evaluation.md", "(ratings on the crisscross lad"): _arena_on_the_ladder_scale,
    ("contributing.md", "mutant" + " " * 24): _mutation_table,
    # replayed by tests/test_doctor.py::test_the_doctor_checks_every_setup_it_is_given_under_the_simulator
    ("gpu.md", "$ NUMBA_ENABLE_CUDASIM=1 NUMBA"): None,
}


def test_every_quoted_output_is_replayed_or_says_why_not():
    unknown = [where(block) for block in OUTPUT if _key(block) not in REPLAYS]
    assert unknown == [], "add a check to REPLAYS, or mark the block <!-- not replayed: why -->"
    assert len(REPLAYS) == len(OUTPUT), "a check in REPLAYS whose block is gone"


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


REPLAYED_HERE = [block for block in OUTPUT if REPLAYS.get(_key(block))]


@pytest.mark.parametrize("block", REPLAYED_HERE, ids=[where(block) for block in REPLAYED_HERE])
def test_quoted_output_is_what_the_code_prints(block: Block):
    printed = REPLAYS[_key(block)](block)
    if printed is not None:  # the check compared itself otherwise
        assert _lines(printed) == _lines(block.source), f"{where(block)}: the code prints\n{printed}"


def doctor_block() -> Block:
    """docs/gpu.md's doctor run under the simulator, for tests/test_doctor.py, which runs that command."""
    return next(block for block in OUTPUT if block.page.name == "gpu.md" and "crossenvs doctor" in block.source)


def doctor_shape(text: str) -> list[list[str]]:
    """The doctor's lines as words, with what varies from run to run and machine to machine masked: versions,
    wall seconds, compile seconds and microseconds a step, and the order of the setups' rows (each is printed as
    its process ends, so two setups run at once may end either way). The setups, mismatches and results stay."""
    shaped, rows = [], []
    for line in _lines(text):
        words = line.split()
        if words[:1] == ["CUDA"]:  # the toolkit and package versions
            words = [re.sub(r"\d[\w.+]*", "#", word) for word in words]
        elif words[-1:] in (["ok"], ["FAIL"]) and len(words) >= 9:  # a setup's row: s, compile s, step us
            words[-8:-5] = ["#"] * 3
            rows.append(words)
            continue
        elif line.endswith(" s") and "setups passed in" in line:
            words[-2] = "#"
        shaped.append(words)
    return shaped + sorted(rows)
