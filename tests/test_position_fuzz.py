"""Position text under fuzzing: any input either reads to a state the engine can use, or raises a CrossenvsError.

The bulk is a seeded mutation fuzzer (fast and deterministic): for every registered game it takes
texts of positions from random playthroughs (finished ones too) and breaks them in many small
ways: characters, lines, numbers, headers, cells, random bytes. Every text must either raise a
:class:`~crossenvs.CrossenvsError` or give a state that survives the whole engine surface. A few
targeted properties walk the bounds of the counters and every header's values.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass

import numpy as np
import pytest
from conftest import CROSSE_C4

import crossenvs
from crossenvs import CrossenvsError, PositionTextError
from crossenvs.core.registry import game_spec
from crossenvs.kernels import state as st

#: mutated texts per game at its default options, and per extra option set of its test_options
TEXTS_PER_DEFAULT = 10_000
TEXTS_PER_OPTION_SET = 5_000

CASES = [(name, {}) for name in crossenvs.list_games()] + [
    (name, dict(options)) for name in crossenvs.list_games() for options in game_spec(name).test_options
]

#: values a number is replaced by: past int32, past the ply bound, thousands of digits, signs,
#: non-ASCII digits (Python's int() reads '٣' and '３'), separators, nothing at all
BAD_NUMBERS = [
    "2147483648", "2147483647", "-2147483649", "4294967296", "1000000000", "1000000001", "999999999",
    "9" * 20, "9" * 5000, "0" * 5000 + "1", "-1", "-0", "+1", "", " ", "٣", "３", "1_0", "0x1", "1e3",
    "1.5", "1 2", "00", "3", "2", "1", "0", "-",
]  # fmt: skip
UNICODE_BITS = ["٣", "３", "\u00a0", "\u2028", "\x85", "\x0c", "\t", "\r", "é", "ß", "İ", "\ufeff", "\x00", "🂡"]
#: positions random play hardly reaches: Crosse's removal question (cover_removal="optional"), its
#: example C4 where White must jump twice (docs/crosse.md), and C4 after the first hop
SEEDS = {
    "crosse": [
        "to_move: black\nply: 7\ntokens_black: 2F 3F 1B 2B 3B\nremoval: pending\n10 . W . . . . . . . .\n"
        "7 . . . B . . B . . .\n4 . . . B . . B . . .\n1 B . . . . . . . . .\n",
        f"to_move: white\nply: 12\n{CROSSE_C4}",
        "to_move: white\nply: 12\njumping: f8\ncover_before: no\n10 . . . . . W . . . .\n9 . . . . . . B . . .\n"
        "8 . . . . . W . . . .\n7 . . . B . . . . . .\n6 . . . W . . . . . .\n4 . . . . . . W B . .\n",
    ]
}
JUNK_KEYS = ["mood", "PLY", "To_Move", "ply ", "_", "passes2", "tokens", "x" * 300]


@dataclass(frozen=True)
class Vocab:
    """What a game's texts are made of: its header keys, values that mean something, its cell letters."""

    keys: tuple[str, ...]
    values: tuple[str, ...]
    letters: str

    @classmethod
    def of(cls, game: crossenvs.Game) -> Vocab:
        letters = "".join(game._text_letter_codes())
        squares = ["a1", "c3", "e4", "f4", "h8", "j10", "d7", "z9", "a0", "a99"]
        words = ["yes", "no", "pending", "1F 3B", "1F,1F", "2F 2B 3B", "4F", ""]
        colours = [*game.colours, *(c.upper() for c in game.colours)]
        values = (*colours, *letters, *squares, *words, *BAD_NUMBERS[:12])
        return cls(game.BASE_HEADER_KEYS + game.EXTRA_HEADER_KEYS, values, letters)


def _corpus(game: crossenvs.Game, rng: random.Random, games: int = 6) -> list[str]:
    """Texts of positions from random playthroughs: starts, middles, ends (finished games included).

    Random play seldom stops in a decision in progress (a jump sequence, a re-placement), so a
    few positions with each header of the game, and its hand-made seeds, make up a third of them.
    """
    texts, by_key = [], {}
    for _ in range(games):
        history = [game.initial_state()]
        for _ in range(rng.choice((4, 30, 400))):
            actions = game.legal_actions(history[-1])
            if len(actions) == 0:
                break
            history.append(game.apply(history[-1], int(actions[rng.randrange(len(actions))])))
        played = [game.to_text(s) for s in history]
        texts += rng.sample(played, min(len(played), 8)) + played[-1:]
        for text in played:
            for key in _header_keys(text):
                by_key.setdefault(key, []).append(text)
    for key in _header_keys(game.to_text(game.initial_state())):
        by_key.pop(key, None)  # (every text has these)
    rare = [text for with_key in by_key.values() for text in rng.sample(with_key, min(len(with_key), 3))]
    rare += [seed for seed in SEEDS.get(game.name, ()) if _reads(game, seed)]
    return texts + rare * max(1, len(texts) // (2 * len(rare) or 1))  # about a third of the picks


def _header_keys(text: str) -> list[str]:
    """The header keys of a text, in order (a set's order would change with the hash seed)."""
    return list(dict.fromkeys(line.split(":")[0] for line in text.splitlines() if ":" in line))


def _reads(game: crossenvs.Game, text: str) -> bool:
    try:
        game.from_text(text)
    except CrossenvsError:
        return False
    return True


def _mutate(text: str, rng: random.Random, vocab: Vocab) -> str:
    """One to three random breakages of ``text``."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        text = rng.choice(_MUTATIONS)(text, rng, vocab)
    return text


def _char(rng: random.Random, text: str) -> str:
    pool = rng.choice((text or "x", ".:-0123456789 \n", "".join(UNICODE_BITS), "WBRNnro+#-abcxyz"))
    return rng.choice(pool) if rng.random() < 0.9 else chr(rng.randrange(256))


def _replace_char(text: str, rng: random.Random, vocab: Vocab) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + _char(rng, text) + text[at + 1 :]


def _insert_char(text: str, rng: random.Random, vocab: Vocab) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + _char(rng, text) + text[at:]


def _delete_chars(text: str, rng: random.Random, vocab: Vocab) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + text[at + rng.choice((1, 1, 2, 5)) :]


def _swap_lines(text: str, rng: random.Random, vocab: Vocab) -> str:
    lines = text.splitlines()
    if len(lines) >= 2:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _duplicate_line(text: str, rng: random.Random, vocab: Vocab) -> str:
    lines = text.splitlines() or [""]
    at = rng.randrange(len(lines))
    return "\n".join(lines[: at + 1] + [lines[at]] + lines[at + 1 :])


def _delete_line(text: str, rng: random.Random, vocab: Vocab) -> str:
    lines = text.splitlines()
    if lines:
        del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def _replace_number(text: str, rng: random.Random, vocab: Vocab) -> str:
    numbers = list(re.finditer(r"[0-9]+", text))
    if not numbers:
        return text
    match = rng.choice(numbers)
    return text[: match.start()] + rng.choice(BAD_NUMBERS) + text[match.end() :]


def _set_header(text: str, rng: random.Random, vocab: Vocab) -> str:
    """A header line, known or not, with a meaningful or broken value, anywhere (mostly on top)."""
    key = rng.choice(vocab.keys) if rng.random() < 0.85 else rng.choice(JUNK_KEYS)
    value = rng.choice(vocab.values) if rng.random() < 0.7 else rng.choice(BAD_NUMBERS)
    lines = [line for line in text.splitlines() if not line.startswith(key + ":") or rng.random() < 0.2]
    at = rng.randrange(len(lines) + 1) if rng.random() < 0.2 else 0
    return "\n".join(lines[:at] + [f"{key}: {value}"] + lines[at:])


def _drop_header(text: str, rng: random.Random, vocab: Vocab) -> str:
    lines = text.splitlines()
    headers = [i for i, line in enumerate(lines) if ":" in line]
    if headers:
        del lines[rng.choice(headers)]
    return "\n".join(lines)


def _change_cell(text: str, rng: random.Random, vocab: Vocab) -> str:
    """A cell changed to another cell letter: the most fertile source of odd but readable boards."""
    lines = text.splitlines()
    ranks = [i for i, line in enumerate(lines) if line.strip()[:1].isdigit()]
    if not ranks:
        return text
    at = rng.choice(ranks)
    label, *cells = lines[at].split()
    if cells:
        cells[rng.randrange(len(cells))] = rng.choice(vocab.values if rng.random() < 0.05 else vocab.letters)
    lines[at] = " ".join([label, *cells])
    return "\n".join(lines)


def _random_bytes(text: str, rng: random.Random, vocab: Vocab) -> str:
    junk = bytes(rng.randrange(256) for _ in range(rng.choice((1, 8, 40)))).decode("latin-1")
    if rng.random() < 0.2:
        return junk
    lines = text.splitlines()
    lines.insert(rng.randrange(len(lines) + 1), junk)
    return "\n".join(lines)


def _truncate(text: str, rng: random.Random, vocab: Vocab) -> str:
    return text[: rng.randrange(len(text) + 1)]


_MUTATIONS = [
    _replace_char, _insert_char, _delete_chars, _swap_lines, _duplicate_line, _delete_line, _replace_number,
    _replace_number, _set_header, _set_header, _set_header, _drop_header, _change_cell, _change_cell, _change_cell,
    _random_bytes, _truncate,
]  # fmt: skip


def check_state(game: crossenvs.Game, state: crossenvs.State, rng: random.Random) -> None:
    """Everything the engine offers must work on a state that was read, and one legal action must play."""
    mask = game.legal_mask(state)
    actions = game.legal_actions(state)
    assert mask.shape == (game.num_actions,) and set(np.unique(mask)) <= {0, 1}
    assert np.array_equal(np.flatnonzero(mask), actions)
    for player in (0, 1):
        obs = game.observe(state, player)
        assert obs.shape == game.observation_shape and np.all((obs >= 0) & (obs <= 1))
    assert game.current_player(state) in (0, 1)
    outcome = game.outcome(state)
    assert (outcome is None) == (len(actions) > 0), "a game in play has a legal action, a finished one none"
    assert 0 <= state.meta[st.PLY] <= st.MAX_PLY and 0 <= state.meta[st.PASSES] <= game.MAX_PASSES
    again = game.from_text(game.to_text(state))
    assert np.array_equal(again.board, state.board) and np.array_equal(again.meta, state.meta)
    if len(actions):
        after = game.apply(state, int(actions[rng.randrange(len(actions))]))
        assert after.meta[st.PLY] >= state.meta[st.PLY]
        assert game.from_text(game.to_text(after)) == after  # what a move leads to reads back (counters in bounds)


def fuzz(game: crossenvs.Game, seed: str, count: int) -> tuple[int, int]:
    """Check ``count`` mutated texts; returns how many read and how many were refused."""
    rng = random.Random(seed)
    corpus = _corpus(game, rng)
    vocab = Vocab.of(game)
    read = refused = 0
    for _ in range(count):
        text = _mutate(rng.choice(corpus), rng, vocab)
        try:
            state = game.from_text(text)
        except CrossenvsError:
            refused += 1
            continue
        except Exception as exc:  # anything else is a bug: show the text that caused it
            pytest.fail(f"{game!r}.from_text raised {type(exc).__name__}: {str(exc)[:500]}\ntext: {text!r}")
        try:
            check_state(game, state, rng)
        except Exception as exc:
            pytest.fail(f"{game!r}: a state read from text fails {type(exc).__name__}: {exc}\ntext: {text!r}")
        read += 1
    return read, refused


@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}-{o}" if o else n for n, o in CASES])
def test_mutated_position_texts(name, options):
    game = crossenvs.make_game(name, **options)
    count = TEXTS_PER_OPTION_SET if options else TEXTS_PER_DEFAULT
    started = time.perf_counter()
    read, refused = fuzz(game, f"{name}-{sorted(options.items())}", count)
    assert read + refused == count
    assert read >= count // 50, f"only {read} of {count} mutated texts read: the fuzzer barely reaches the engine"
    print(f"{name} {options}: {read} read, {refused} refused in {time.perf_counter() - started:.1f}s")


@pytest.mark.parametrize("value", [b"to_move: red\n", bytearray(b"x"), None, 12, ["to_move: red"], object()])
@pytest.mark.parametrize("name", crossenvs.list_games())
def test_text_that_is_no_str_is_refused(name, value):
    with pytest.raises(PositionTextError, match=r"position text must be a str, not"):
        crossenvs.make_game(name).from_text(value)


def _with_header(game: crossenvs.Game, key: str, value: str) -> str:
    """The start position's text with header ``key`` set to ``value``."""
    lines = [line for line in game.to_text(game.initial_state()).splitlines() if not line.startswith(key + ":")]
    return "\n".join([f"{key}: {value}", *lines])


def _some_integers(rng: random.Random) -> list[int]:
    """Edges of every bound in play, then integers of every size."""
    edges = [0, 1, 2, 3, -1, st.MAX_PLY - 64, st.MAX_PLY, st.MAX_PLY + 1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63]
    return edges + [rng.choice((-1, 1)) * rng.randrange(10 ** rng.randrange(1, 60)) for _ in range(200)]


@pytest.mark.parametrize("key", ["ply", "passes"])
@pytest.mark.parametrize("name", crossenvs.list_games())
def test_counters_read_in_range_or_refused(name, key):
    """Any integer for ply or passes reads within its bound, or is refused naming the bound."""
    game = crossenvs.make_game(name)
    for number in _some_integers(random.Random(key)):
        try:
            state = game.from_text(_with_header(game, key, str(number)))
        except PositionTextError as exc:
            assert re.search(rf"{key}: .*(is below|is above|too large|has no pass)", str(exc)), str(exc)
            continue
        value = int(state.meta[st.PLY if key == "ply" else st.PASSES])
        assert value == number or (key == "ply" and 0 <= value <= st.MAX_PLY)  # a game may derive its ply


@pytest.mark.parametrize("name", crossenvs.list_games())
def test_any_header_value_reads_or_is_refused(name):
    """Random short values, any characters, in each header of the game."""
    game = crossenvs.make_game(name)
    rng = random.Random(name)
    alphabet = "".join(chr(c) for c in range(32, 127)) + "".join(UNICODE_BITS)
    for key in game.BASE_HEADER_KEYS + game.EXTRA_HEADER_KEYS:
        for _ in range(100):
            value = "".join(rng.choice(alphabet) for _ in range(rng.randrange(13)))
            try:
                state = game.from_text(_with_header(game, key, value))
            except CrossenvsError:
                continue
            check_state(game, state, rng)
