"""The documentation site builds with warnings as errors, and every code block on it runs.

Code blocks in ``docs/**/*.md``, by fence language:

* ``python``: each page's blocks run in order, in one namespace, in a fresh process whose working
  folder is a temporary one (with ``examples/`` linked in), so a page may build on its earlier
  blocks and snippets may write files;
* ``bash`` / ``console`` / ``sh``: every command must be a ``crossenvs ...`` command, and each runs
  (through :func:`crossenvs.cli.main` of this checkout) and must exit 0;
* ``text``: output, diagrams and position text, shown and not run.

A ``python`` or shell block that must not run (it trains for minutes, installs packages, waits for
input) says so on the line just before its fence, ``<!-- not run: <reason> -->``; the reason may
not be empty, and its ``make`` targets, scripts and ``crossenvs`` subcommands must still exist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
SHELL = {"bash", "console", "sh"}
NOT_RUN = re.compile(r"^<!-- not run: (.*\S.*) -->$")
DIRECTIVE = re.compile(r"^\{[\w-]+\}")  # {toctree}, {eval-rst}, {include}, {literalinclude}


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    source: str
    not_run: str | None  # the reason, when marked


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` at the left margin (the docs put none inside lists)."""
    found, lines, i = [], page.read_text().split("\n"), 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})(.*)$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence.group(1)))
        marker = NOT_RUN.match(lines[i - 1]) if i else None
        language = fence.group(2).strip()
        found.append(Block(page, i + 1, language, "\n".join(lines[i + 1 : end]) + "\n", marker and marker.group(1)))
        i = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]


def where(block: Block) -> str:
    return f"{block.page.relative_to(ROOT)}:{block.line}"


def env_for_run() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MPLBACKEND", "Agg")
    return env


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def test_every_code_block_is_known():
    """Every fence is python, shell, text or a MyST directive; markers sit on runnable blocks only."""
    assert len(ALL) > 100 and len(PAGES) >= 15
    for block in ALL:
        assert block.language in {"python", "text"} | SHELL or DIRECTIVE.match(block.language), (
            f"{where(block)}: fence language {block.language!r}: use python, bash, text or a directive"
        )
        if block.not_run is not None:
            assert block.language in {"python"} | SHELL, f"{where(block)}: only code is marked not run"


def test_not_run_blocks_name_real_targets_files_and_commands():
    from crossenvs.cli import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)
    targets = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.M))
    marked = [block for block in ALL if block.not_run]
    assert len(marked) >= 10
    for block in marked:
        for target in re.findall(r"\bmake ([\w-]+)", block.source):
            assert target in targets, f"{where(block)}: make {target} is no Makefile target"
        for path in re.findall(r"python3? ((?:\w+/)+\w+\.py)", block.source):
            assert (ROOT / path).exists(), f"{where(block)}: {path} does not exist"
        for command in re.findall(r"^crossenvs (?:--import \S+ )?([\w-]+)", block.source, re.M):
            assert command in commands, f"{where(block)}: crossenvs {command} is no command"


PYTHON_PAGES = sorted({block.page for block in ALL if block.language == "python" and not block.not_run})


@pytest.mark.docs
@pytest.mark.parametrize("page", PYTHON_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_python_blocks_run(page: Path, workdir: Path):
    runnable = [b for b in blocks(page) if b.language == "python" and not b.not_run]
    script = ["import sys", "namespace = {'__name__': '__docs__'}"]
    for block in runnable:
        # compile under the page's name and line, so a traceback points into the page
        padded = "\n" * (block.line) + block.source
        script.append(f"exec(compile({padded!r}, {str(block.page.relative_to(ROOT))!r}, 'exec'), namespace)")
    result = subprocess.run(
        [sys.executable, "-c", "\n".join(script)],
        cwd=workdir,
        env=env_for_run(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"{page.relative_to(ROOT)}:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    if page.name == "gpu.md":  # was: 7 overflow warnings, and a notice of a compile that never happens (numba off)
        assert "Warning" not in result.stderr and "compiling" not in result.stderr, result.stderr[-3000:]


SHELL_BLOCKS = [block for block in ALL if block.language in SHELL and not block.not_run]


def commands_of(block: Block) -> list[str]:
    lines = [line for line in block.source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for line in lines:
        assert line.startswith("crossenvs "), (
            f"{where(block)}: {line!r} is no crossenvs command; mark the block not run"
        )
    return [line.split(" #")[0].strip() for line in lines]


@pytest.mark.docs
@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=where)
def test_shell_blocks_run(block: Block, workdir: Path):
    import shlex

    for command in commands_of(block):
        argv = shlex.split(command)[1:]
        result = subprocess.run(
            [sys.executable, "-c", "import sys; from crossenvs.cli import main; sys.exit(main())", *argv],
            cwd=workdir,
            env=env_for_run(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, f"{where(block)}: {command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        assert result.stdout.strip(), f"{where(block)}: {command} printed nothing"


@pytest.mark.docs
def test_site_builds_without_warnings(tmp_path: Path):
    """``sphinx-build -W -n``: a broken link, a missing reference or a docstring that does not render fails."""
    pytest.importorskip("sphinx", reason='the docs extra: pip install -e ".[docs]"')
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        cwd=ROOT,
        env=env_for_run(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    assert (out / "index.html").exists() and (out / "searchindex.js").exists()
    api = (out / "api" / "crossenvs.html").read_text()
    assert "make_game" in api and "register_game" in api  # the reference comes from the docstrings


def is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a name inside a module: crossenvs.web.app.create_app
        return False


def api_modules() -> list[str]:
    """The modules the API pages document, or take a function or class from."""
    import importlib

    names = set()
    for page in (DOCS / "api").glob("*.md"):
        for target in re.findall(r"^\.\. (?:auto\w+|module):: (crossenvs[\w.]*)", page.read_text(), re.M):
            parts = target.split(".")
            while not is_module(".".join(parts)):  # crossenvs.make_game -> crossenvs
                parts.pop()
            names.add(".".join(parts))
            if len(parts) < len(target.split(".")):  # and the module that defines it: crossenvs.core.registry
                obj = importlib.import_module(".".join(parts))
                for attribute in target.split(".")[len(parts) :]:
                    obj = getattr(obj, attribute)
                names.add(obj.__module__)
    return sorted(names)


#: Literal blocks in docstrings that the reference shows but no test runs, each with its reason.
NOT_RUN_IN_DOCSTRINGS = {
    "crossenvs.agents": "the commands that made a pretrained agent: training runs for minutes to hours",
}


@pytest.mark.docs
def test_docstring_examples_in_the_api_reference_run():
    """The ``>>>`` examples of every module on the API pages run as doctests (and so pass)."""
    import doctest
    import importlib

    ran = 0
    for name in api_modules():
        module = importlib.import_module(name)
        finder = doctest.DocTestFinder(exclude_empty=True)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        for test in finder.find(module, name):
            if test.name.split(".")[0] != "crossenvs" or not test.examples:
                continue
            runner.run(test)
            ran += len(test.examples)
        assert runner.failures == 0, f"{name}: {runner.failures} doctest example(s) failed (see the output above)"
    assert ran >= 10


def test_docstring_literal_blocks_are_doctests_or_named():
    """A module docstring's ``::`` block on the API pages is a doctest, or named in NOT_RUN_IN_DOCSTRINGS."""
    import importlib

    for name in api_modules():
        text = importlib.import_module(name).__doc__ or ""
        for block in re.findall(r"::\n\n((?:    .*\n|\n)+)", text):
            if not block.strip().startswith(">>>"):
                assert name in NOT_RUN_IN_DOCSTRINGS, f"{name}'s docstring shows a block no test runs:\n{block}"


def test_pages_tell_no_run_history_and_name_no_local_paths():
    """The README and the site are reference text: no history of runs, no developer's paths."""
    banned = re.compile(
        r"earlier runs?\b|previous (?:README|run)|slower day|this (?:2-core|virtual machine|machine today)"
        r"|/work/|/home/|/Users/|\.\./shared",
        re.I,
    )
    for page in [*PAGES, ROOT / "README.md", ROOT / "README.pypi.md", ROOT / "CHANGELOG.md"]:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            assert not banned.search(line), f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
