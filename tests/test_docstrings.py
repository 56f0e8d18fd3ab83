"""The package's docstrings and comments say why, not when: no run history in ``crossenvs/``.

A measurement belongs on the documentation's benchmarks page (docs/benchmarks.md, with its date, machine
and command) or the docs page it explains; the code's text keeps the reason and points there. Every
comment (read with ``tokenize``) and every module, class and function docstring (read with ``ast``) of
``crossenvs/`` is checked for a dated figure (``YYYY-MM-DD``) or the project's own machine by name.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "crossenvs"
#: a date, or the machine the figures of docs/benchmarks.md were measured on
RUN_HISTORY = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b2-core VM\b", re.I)


def texts(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and every docstring in ``source``, a docstring line by line."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    for offset, line in enumerate(first.value.value.splitlines()):
                        yield first.lineno + offset, line


def run_history(source: str) -> list[tuple[int, str]]:
    """The comment and docstring lines of ``source`` that quote a date or the benchmark machine."""
    return sorted((line, text.strip()) for line, text in texts(source) if RUN_HISTORY.search(text))


def test_no_docstring_or_comment_in_the_package_quotes_run_history():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in run_history(path.read_text(encoding="utf-8"))
    ]
    assert not found, "run history belongs on docs/benchmarks.md:\n" + "\n".join(found)


def test_the_check_sees_a_planted_date_and_machine():
    source = (
        '"""Module."""\n'
        "def f():\n"
        '    """Measured on the 2-core VM."""\n'
        "    return 1  # 3.2 s serially, 2026-11-28\n"
        'LABEL = "2026-11-28 in a string is data, not a docstring"\n'
    )
    assert [line for line, _ in run_history(source)] == [3, 4]
