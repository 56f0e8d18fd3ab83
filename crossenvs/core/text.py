"""Position text: the parser and writer shared by every game (docs/README.md, position text).

Format::

    to_move: red          <- optional header lines ``key: value``
    ply: 3
    8 . . . . . . . .     <- one line per rank, from the top; unlisted ranks are empty
    ...
    1 . R . . . . . .
      a b c d e f g h     <- optional footer of file letters

The parser is lenient about spacing (the diagrams of the game pages in docs/ align ranks with extra spaces)
and strict about everything else; each error names the line and says what was expected. Any input
either reads or raises :class:`~crossenvs.support.errors.PositionTextError`: numbers are ASCII digits
checked against a bound before they reach the int32 state, and what an error quotes is shortened.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from crossenvs.support.errors import PositionTextError

from .geometry import FILE_LETTERS

_HEADER_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_RANK_RE = re.compile(r"^(\d+)\s+(.*)$")  # \d: a rank in other digits gets its own error below
_INT_RE = re.compile(r"-?([0-9]+)")  # ASCII only: int() would also take '٣', '1_000' and '+5'
_QUOTE_LIMIT = 40  # characters of a bad value an error quotes


def shorten(text: str) -> str:
    """``repr(text)``, cut to a readable length: an error must not echo a megabyte of input."""
    if len(text) <= _QUOTE_LIMIT:
        return repr(text)
    return f"{text[:_QUOTE_LIMIT]!r}... ({len(text)} characters)"


@dataclass
class ParsedPosition:
    """What the text said: header values (with their line numbers) and the cell letters.

    ``cells[row][col]`` holds the letter of each cell, row 0 being rank 1; cells of ranks the text
    did not list hold ``None``.
    """

    headers: dict[str, str] = field(default_factory=dict)
    header_lines: dict[str, int] = field(default_factory=dict)
    cells: list[list[str | None]] = field(default_factory=list)

    def error(self, key: str, why: str) -> PositionTextError:
        """An error about header ``key`` that names its line."""
        line = self.header_lines.get(key)
        where = f"line {line}" if line is not None else "header"
        return PositionTextError(f"{where}: {key}: {why}")


def parse_position_text(
    text: str, *, height: int, width: int, cell_letters: str, header_keys: tuple[str, ...]
) -> ParsedPosition:
    """Split position text into headers and a grid of cell letters, checking its shape.

    ``cell_letters`` are the letters a cell may hold; ``header_keys`` the keys the game knows.
    """
    if not isinstance(text, str):
        hint = " (decode it first, e.g. text.decode('utf-8'))" if isinstance(text, (bytes, bytearray)) else ""
        raise PositionTextError(f"position text must be a str, not {type(text).__name__}{hint}")
    parsed = ParsedPosition(cells=[[None] * width for _ in range(height)])
    footer = " ".join(FILE_LETTERS[:width])
    seen_board = False
    last_rank = height + 1
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if " ".join(line.split()) == footer:
            seen_board = True
            continue
        rank_match = _RANK_RE.match(line)
        if rank_match:
            last_rank = _parse_rank_line(parsed, number, rank_match, height, width, cell_letters, last_rank)
            seen_board = True
            continue
        header_match = _HEADER_RE.match(line)
        if header_match:
            if seen_board:
                raise PositionTextError(f"line {number}: header {shorten(line)} after the board; headers come first")
            _parse_header_line(parsed, number, header_match, header_keys)
            continue
        raise PositionTextError(
            f"line {number}: cannot read {shorten(line)}: expected a header 'key: value', a rank line "
            f"'<rank> <cell> ...', or the footer '{footer}'"
        )
    return parsed


def _parse_header_line(parsed: ParsedPosition, number: int, match: re.Match, header_keys: tuple[str, ...]) -> None:
    key, value = match.group(1).lower(), match.group(2)
    if key not in header_keys:
        raise PositionTextError(f"line {number}: unknown header {shorten(key)} (known: {', '.join(header_keys)})")
    if key in parsed.headers:
        raise PositionTextError(f"line {number}: header {key!r} given twice (first on line {parsed.header_lines[key]})")
    parsed.headers[key] = value
    parsed.header_lines[key] = number


def _parse_rank_line(
    parsed: ParsedPosition, number: int, match: re.Match, height: int, width: int, cell_letters: str, last_rank: int
) -> int:
    rank = _rank_number(number, match.group(1), height)
    if rank >= last_rank:
        raise PositionTextError(
            f"line {number}: rank {rank} after rank {last_rank}; list each rank once, from the top down"
        )
    cells = match.group(2).split()
    if len(cells) != width:
        raise PositionTextError(f"line {number}: rank {rank} has {len(cells)} cells, expected {width}")
    for col, cell in enumerate(cells):
        if len(cell) != 1 or cell not in cell_letters:
            raise PositionTextError(
                f"line {number}: cell {FILE_LETTERS[col]}{rank} is {shorten(cell)}; "
                f"expected one of {' '.join(cell_letters)}"
            )
    parsed.cells[rank - 1] = cells
    return rank


def _rank_number(number: int, digits: str, height: int) -> int:
    """The rank a line starts with; its length is checked before ``int()``, which refuses over 4300 digits."""
    if not digits.isascii():
        raise PositionTextError(f"line {number}: rank {shorten(digits)} must be written with the digits 0-9")
    significant = digits.lstrip("0") or "0"  # int() is asked only about a few digits
    if len(significant) > len(str(height)) or not 1 <= int(significant) <= height:
        shown = digits if len(digits) <= _QUOTE_LIMIT else shorten(digits)
        raise PositionTextError(f"line {number}: rank {shown} is off the board (ranks 1..{height})")
    return int(significant)


def format_position_text(headers: list[tuple[str, str]], rows: list[list[str]]) -> str:
    """Write headers, every rank from the top (``rows[0]`` is rank 1) and the file footer."""
    height, width = len(rows), len(rows[0])
    label = len(str(height))
    lines = [f"{key}: {value}" for key, value in headers]
    for row in range(height - 1, -1, -1):
        lines.append(f"{row + 1:>{label}} " + " ".join(rows[row]))
    lines.append(" " * (label + 1) + " ".join(FILE_LETTERS[:width]))
    return "\n".join(lines) + "\n"


def parse_int_header(parsed: ParsedPosition, key: str, default: int, minimum: int, maximum: int, why: str = "") -> int:
    """An integer header such as ``ply`` in ``minimum..maximum``; ``default`` when absent.

    Only ASCII digits with an optional ``-`` make a number. The state holds int32 counters, so
    every counter has a bound; ``why`` (e.g. ``": two passes in a row end the game"``) follows
    the error about the maximum.
    """
    if key not in parsed.headers:
        return default
    value = parsed.headers[key]
    match = _INT_RE.fullmatch(value)
    if match is None:
        raise parsed.error(key, f"{shorten(value)} is not an integer (digits 0-9, e.g. '{minimum}')")
    # More digits than the bound has is out of range whatever they say: int() is not asked, as it
    # refuses over 4300 digits with a message about sys.set_int_max_str_digits.
    significant = match.group(1).lstrip("0") or "0"
    huge = len(significant) > len(str(max(abs(minimum), abs(maximum))))
    sign = -1 if value.startswith("-") else 1
    number = sign * math.inf if huge else sign * int(significant)
    shown = shorten(value) if huge else str(number)
    if number < minimum:
        raise parsed.error(key, f"{shown} is below {minimum}")
    if number > maximum:
        raise parsed.error(key, f"{shown} is above {maximum}{why}")
    return int(number)
