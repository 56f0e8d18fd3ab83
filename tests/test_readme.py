"""Every Python snippet in the README runs as written; its shell snippets name real targets/files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL_BLOCKS = re.findall(r"```bash\n(.*?)```", README, re.S)


def test_readme_has_snippets():
    assert len(PYTHON_BLOCKS) >= 5 and len(SHELL_BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_snippet_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # snippets may write files (board.png)
    exec(compile(PYTHON_BLOCKS[index], f"README.md python block {index}", "exec"), {"__name__": "__readme__"})


def test_shell_snippets_name_real_make_targets_and_files():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    for block in SHELL_BLOCKS:
        for target in re.findall(r"\bmake ([\w-]+)", block):
            assert target in targets, f"README runs 'make {target}', which the Makefile lacks"
        for path in re.findall(r"python3? ((?:\w+/)+\w+\.py)", block):
            assert (ROOT / path).exists(), f"README runs {path}, which does not exist"
    for extra in re.findall(r'"\.\[(\w+)\]"', README):
        assert f"\n{extra} = [" in (ROOT / "pyproject.toml").read_text()


def test_shell_snippets_name_real_crossenvs_commands():
    from crossenvs.cli import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)
    used = {
        word for block in SHELL_BLOCKS for word in re.findall(r"^crossenvs (?:--import \S+ )?([\w-]+)", block, re.M)
    }
    assert used and used <= commands
    assert 'crossenvs = "crossenvs.cli:main"' in (ROOT / "pyproject.toml").read_text()


def test_images_the_readme_shows_are_committed():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert images
    for image in images:
        assert (ROOT / image).stat().st_size > 0, image


def test_readme_is_a_front_door_whose_links_resolve():
    assert len(README.splitlines()) <= 250
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not re.match(r"https?://", link)]
    assert local, "the README links into the docs"
    for link in local:
        assert (ROOT / link).exists(), f"README links to {link}, which does not exist"


def test_pypi_description_has_only_absolute_links():
    """PyPI shows README.pypi.md (pyproject's readme) outside the repository: no relative link may break there."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'readme = { file = "README.pypi.md"' in pyproject
    text = (ROOT / "README.pypi.md").read_text()
    targets = re.findall(r"\]\(([^)]+)\)", text) + re.findall(r'(?:src|href)="([^"]+)"', text)
    assert targets
    for target in targets:
        assert re.match(r"https://", target), f"README.pypi.md links to {target!r}, which breaks on PyPI"
