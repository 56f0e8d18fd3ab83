"""Crosse's tokens as text (``1F 2F 3B``) and the readers of the position-text headers that name tokens and
squares (``tokens_black``, ``jumping``).
"""

from __future__ import annotations

from ...core.geometry import parse_square
from ...core.text import ParsedPosition, shorten
from .tables import SIZE, TOKEN_NAMES


def tokens_text(tokens: int) -> str:
    """A token set as text in canonical order, e.g. ``1F 2F 3B``."""
    return " ".join(name for i, name in enumerate(TOKEN_NAMES) if (tokens >> i) & 1)


def _token_index(text: str) -> int:
    name = text.strip().upper()
    if name not in TOKEN_NAMES:
        raise ValueError(f"{shorten(text.strip())} is not a token ({', '.join(TOKEN_NAMES)})")
    return TOKEN_NAMES.index(name)


def _header_square(parsed: ParsedPosition, key: str) -> tuple[int, int]:
    """``(row, col)`` of the square a header names; the error quotes a long value only in part."""
    value = parsed.headers[key]
    try:
        return parse_square(value, SIZE, SIZE)
    except ValueError as exc:
        why = str(exc) if len(value) <= 8 else f"{shorten(value)} is not a square name (e.g. 'f4')"
        raise parsed.error(key, why) from None


def _parse_tokens(parsed: ParsedPosition, key: str) -> int:
    """A ``tokens_<colour>`` header: unused tokens separated by spaces or commas, at least one."""
    names = parsed.headers[key].replace(",", " ").split()
    if not names:
        raise parsed.error(key, "give at least one token (a used-up set is refreshed at once); omit it for all six")
    tokens = 0
    for name in names:
        try:
            index = _token_index(name)
        except ValueError as exc:
            raise parsed.error(key, str(exc)) from None
        if (tokens >> index) & 1:
            raise parsed.error(key, f"token {TOKEN_NAMES[index]} is listed twice")
        tokens |= 1 << index
    return tokens
