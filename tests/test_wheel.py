"""The package as a user gets it: build the sdist and wheel, install the wheel into a fresh virtual
environment without this checkout on the path, and run from it.

The fresh environment gets no packages from an index (the test runs offline): a ``.pth`` file
lists the running environment's site-packages, so numpy, numba, gymnasium, torch, Starlette and
the rest are importable there. Python adds such a line to ``sys.path`` without processing the
``.pth`` files inside it, so this checkout's editable install stays invisible; the test checks
that ``crossenvs`` is imported from the fresh environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
README_PYTHON = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)

pytestmark = pytest.mark.wheel


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus anything that puts this checkout on the path or silences build steps."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV"}}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` (sdist, then the wheel from the sdist), with no warnings, passing ``twine check``."""
    pytest.importorskip("build", reason='the dev extra: pip install "crossenvs[dev]"')
    out = tmp_path_factory.mktemp("dist")
    # A clean copy of the checkout: setuptools would merge a stale crossenvs.egg-info/SOURCES.txt
    # (docs/_build included) into the sdist, and the build writes nothing into the checkout.
    source = tmp_path_factory.mktemp("source") / "crossenvs"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "*.egg-info",
            "build",
            "dist",
            "_build",
            "runs",
            "__pycache__",
            ".pytest_cache",
            ".ruff_cache",
        ),
    )
    result = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        cwd=out,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    warnings = [line for line in log.splitlines() if re.search(r"warn|deprecat", line, re.I)]
    assert not warnings, "\n".join(warnings)
    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, out.iterdir())],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert twine.returncode == 0, twine.stdout + twine.stderr
    return out


def test_wheel_holds_agents_web_files_license_and_metadata(dist: Path):
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(f"crossenvs-{VERSION}.dist-info/METADATA").decode()
    agents = [n for n in names if re.fullmatch(r"crossenvs/agents/\w+\.pt", n)]
    assert len(agents) >= 6
    for static in ("index.html", "app.js", "style.css"):
        assert f"crossenvs/web/static/{static}" in names
    assert f"crossenvs-{VERSION}.dist-info/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata
    assert "Provides-Extra: agents" in metadata and "Provides-Extra: docs" in metadata
    assert "](docs/" not in metadata  # the long description is README.pypi.md, absolute links only
    assert not [n for n in names if n.startswith(("tests/", "training/", "docs/"))]


def test_sdist_holds_license_changelog_docs_sources_and_tutorial(dist: Path):
    import tarfile

    (sdist,) = dist.glob(f"crossenvs-{VERSION}.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "LICENSE",
        "CHANGELOG.md",
        "README.pypi.md",
        "docs/conf.py",
        "docs/index.md",
        "docs/api/crossenvs.md",
    ):
        assert needed in names, needed
    assert "examples/tutorial.ipynb" in names and "crossenvs/agents/crosse.pt" in names
    assert not [n for n in names if n.startswith("docs/_build") or "__pycache__" in n]


#: What runs inside the fresh environment: the README's quick starts, a pretrained agent's move,
#: the web app's catalog (and its page, from the packaged static files).
SCRIPT = """
import sys
from pathlib import Path

import crossenvs

venv = Path(sys.argv[1]).resolve()
where = Path(crossenvs.__file__).resolve()
assert venv in where.parents, f"crossenvs came from {where}, not the fresh environment {venv}"
assert crossenvs.__version__ == sys.argv[2], crossenvs.__version__
for index, block in enumerate(sys.argv[3:]):
    exec(compile(block, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})

from crossenvs import make_game
from crossenvs.players import make_player

game = make_game("crisscross", size=6)
state = game.initial_state()
action = make_player("pretrained:8", game=game).act(game, state)
assert game.legal_mask(state)[action] == 1
print("pretrained move", game.action_to_str(state, action))

from starlette.testclient import TestClient
from crossenvs.web.app import create_app

client = TestClient(create_app())
catalog = client.get("/api/catalog").json()
names = [entry["name"] if isinstance(entry, dict) else entry for entry in catalog["games"]]
print("catalog", len(catalog["games"]), "games")
assert len(catalog["games"]) >= 5, catalog
page = client.get("/")
assert page.status_code == 200 and "<html" in page.text.lower()
print("wheel OK from", where)
"""


def test_installed_wheel_runs_quick_starts_cli_agent_and_catalog(dist: Path, tmp_path: Path):
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "deps_from_the_test_environment.pth").write_text("\n".join(sorted(ours)) + "\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    work = tmp_path / "work"  # no checkout here: a plain folder
    work.mkdir()
    env = clean_env(CROSSENVS_CACHE_DIR=str(tmp_path / "numba-cache"), MPLBACKEND="Agg")
    listing = subprocess.run(
        [venv / "bin" / "crossenvs", "list"], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert listing.returncode == 0, listing.stderr
    for gym_id in ("crossenvs/Crisscross-v0", "crossenvs/Crossings-v0", "crossenvs/Crosse-v0"):
        assert gym_id in listing.stdout
    run = subprocess.run(
        [python, "-c", SCRIPT, str(venv), VERSION, *README_PYTHON[:3]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    assert "wheel OK from" in run.stdout and str(venv.resolve()) in run.stdout
