"""The package as a user gets it: build the sdist and wheel, install the wheel into a fresh virtual
environment without this checkout on the path, and run from it.

The fresh environment gets no packages from an index (the test runs offline): a ``.pth`` file
lists the running environment's site-packages, so numpy, numba, gymnasium, torch, Starlette and
the rest are importable there. Python adds such a line to ``sys.path`` without processing the
``.pth`` files inside it, so this checkout's editable install stays invisible; the test checks
that ``crossenvs`` is imported from the fresh environment.

There, from a folder outside the checkout, every command and snippet that README.md and
docs/getting-started.md show runs and exits 0 (``crossenvs serve`` until its page answers,
``crossenvs play`` until it reads ``quit``), with ``rate`` and ``eval --ladder`` on the shipped
ladders and ``check`` on a game file the test writes; then each runs again and must print no
compile notice: numba compiled everything a command needs the first time.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from crossenvs.cli import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
PAGES = (ROOT / "README.md", ROOT / "docs" / "getting-started.md")
#: the pages' python blocks, each once (getting-started repeats some of the README's)
SNIPPETS = list(
    dict.fromkeys(block for page in PAGES for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
)
#: the ``crossenvs ...`` lines of the pages' shell blocks, comments cut off
SHOWN = list(
    dict.fromkeys(
        tuple(line.split("#")[0].split())
        for page in PAGES
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S)
        for line in block.splitlines()
        if line.startswith("crossenvs ")
    )
)
#: the lines run as shown; a ``crossenvs train`` line trains for minutes, so the test trains for seconds instead
#: with the same command (test_installed_wheel_trains_from_outside_the_checkout)
COMMANDS = [command for command in SHOWN if command[1] != "train"]

pytestmark = pytest.mark.wheel


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus anything that puts this checkout on the path or silences build steps."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV"}}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` (sdist, then the wheel from the sdist), with no warnings, passing ``twine check``."""
    pytest.importorskip("build", reason='the dev extra: pip install -e ".[dev]"')
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


def test_wheel_holds_every_data_file_of_the_package(dist: Path):
    """Was: the ladders were left out, so `crossenvs rate` and `eval --ladder` failed for every pip user."""
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    data = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "crossenvs").rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert "crossenvs/ladders/crisscross_size6.json" in data
    assert data <= names, sorted(data - names)


class Installed(NamedTuple):
    venv: Path
    work: Path  # a plain folder outside the checkout, where everything runs
    env: dict[str, str]  # a numba cache of its own, and every first-use compile announced

    def run(self, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=self.work, env=self.env, capture_output=True, text=True, timeout=900, **kwargs)


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory) -> Installed:
    """The wheel installed into one fresh virtual environment, which the tests below share."""
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
    root = tmp_path_factory.mktemp("installed")
    venv = root / "venv"
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
    (purelib / "compile_watch.py").write_text(COMPILE_WATCH)
    (purelib / "compile_watch.pth").write_text("import compile_watch\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    work = root / "work"
    work.mkdir()
    env = clean_env(CROSSENVS_CACHE_DIR=str(root / "numba-cache"), CROSSENVS_COMPILE_NOTICE="1", MPLBACKEND="Agg")
    return Installed(venv, work, env)


#: imported at the start of every process of the fresh environment: names on stderr each function that
#: numba compiles rather than loads from its cache, silent recompiles included (a function numba
#: cannot cache, like the recursive solver once, compiles in every process without a notice)
COMPILE_WATCH = """
import sys

from numba.core import event


class CompileWatch(event.Listener):
    def on_start(self, started):
        function = getattr(started.data["dispatcher"], "py_func", None)
        sys.stderr.write(f"numba compiles {getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', '?')}\\n")

    def on_end(self, ended):
        pass


event.register("numba:compile", CompileWatch())
"""


def compile_notices(stderr: str) -> list[str]:
    """Our first-use notices (``crossenvs: compiling ...``), and what numba compiled."""
    return [line for line in stderr.splitlines() if line.startswith(("crossenvs: compiling", "numba compiles"))]


#: What runs inside the fresh environment: the pages' snippets, a pretrained agent's move, the web
#: app's catalog (and its page, from the packaged static files).
SCRIPT = """
import sys
from pathlib import Path

import crossenvs

venv = Path(sys.argv[1]).resolve()
where = Path(crossenvs.__file__).resolve()
assert venv in where.parents, f"crossenvs came from {where}, not the fresh environment {venv}"
assert crossenvs.__version__ == sys.argv[2], crossenvs.__version__
for index, block in enumerate(sys.argv[3:]):
    exec(compile(block, f"python block {index} of README.md and docs/getting-started.md", "exec"), {"__name__": "__doc__"})

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
print("catalog", len(catalog["games"]), "games")
assert len(catalog["games"]) >= 5, catalog
page = client.get("/")
assert page.status_code == 200 and "<html" in page.text.lower()
print("wheel OK from", where)
"""


def test_installed_wheel_runs_every_snippet_a_pretrained_agent_and_the_catalog(installed: Installed):
    assert len(SNIPPETS) >= 5  # the quick starts, the arena, the pretrained agent's move
    argv = [str(installed.venv / "bin" / "python"), "-c", SCRIPT, str(installed.venv), VERSION, *SNIPPETS]
    first = installed.run(argv)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-5000:]
    assert "wheel OK from" in first.stdout and str(installed.venv.resolve()) in first.stdout
    again = installed.run(argv)
    assert again.returncode == 0, again.stderr[-5000:]
    assert not compile_notices(again.stderr), "compiled again in a second process:\n" + again.stderr[-5000:]


#: beyond the pages' commands: the arena on the shipped ladder's scale, and `check` as its help shows it
#: (on the example game, which the test writes where the help's path points)
MORE_COMMANDS = [
    (
        "crossenvs",
        "eval",
        "crisscross",
        "--option",
        "size=6",
        "--players",
        "mcts:32",
        "random",
        "--games",
        "4",
        "--ladder",
    ),
    tuple(EXAMPLES["check"].split()),
]


def served(installed: Installed, command: tuple[str, ...]) -> str:
    """``crossenvs serve`` (on a free port) until its page answers: the page's first bytes."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [installed.venv / "bin" / command[0], *command[1:], "--port", str(port)],
        cwd=installed.work,
        env=installed.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    return page.read(200).decode()
            except OSError:
                time.sleep(0.5)
        raise AssertionError(
            f"crossenvs serve never answered: {server.stderr.read() if server.poll() is not None else ''}"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def extra_modules() -> tuple[dict[str, set[str]], set[str]]:
    """Each extra of pyproject.toml as the top-level modules its distributions install here, and the core's."""
    from importlib import metadata

    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    modules: dict[str, set[str]] = {}
    for module, distributions in metadata.packages_distributions().items():
        for distribution in distributions:
            modules.setdefault(normal(distribution), set()).add(module)

    def of(requirements: list[str]) -> set[str]:
        names = [normal(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)) for requirement in requirements]
        return set().union(*(modules.get(name, set()) for name in names))

    core = of(project["dependencies"])
    return {extra: of(needs) - core for extra, needs in project["optional-dependencies"].items()}, core


WITH_ONLY = """
import sys

blocked = set(sys.argv[1].split(","))


class NotInstalled:
    \"\"\"The packages of the extras the page does not name, as if they were not installed.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (its extra is not installed)", name=name)


sys.meta_path.insert(0, NotInstalled())
try:
    import ray  # noqa: F401
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("the blocker let ray through")
namespace = {"__name__": "__docs__"}
for index, block in enumerate(sys.argv[2:]):
    exec(compile(block, f"python block {index} of docs/evaluation.md", "exec"), namespace)
print("evaluation page OK")
"""


def test_installed_wheel_runs_the_evaluation_page_with_only_the_extras_it_names(installed: Installed):
    """Was: the page's TestClient snippet needed httpx2, which no extra it names brings. Every python block of
    the page runs with the packages of every other extra made impossible to import."""
    page = (ROOT / "docs" / "evaluation.md").read_text()
    named = set(re.search(r'pip install "crossenvs\[([a-z,]+)\]"', page).group(1).split(","))
    extras, _ = extra_modules()
    allowed = set().union(*(extras[extra] for extra in named))
    blocked = set().union(*extras.values()) - allowed
    assert "ray" in blocked  # the script checks its blocker on it
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) >= 4
    python = str(installed.venv / "bin" / "python")
    done = installed.run([python, "-c", WITH_ONLY, ",".join(sorted(blocked)), *blocks])
    assert done.returncode == 0, f"with only {sorted(named)}:\n" + done.stdout[-3000:] + done.stderr[-5000:]
    assert "evaluation page OK" in done.stdout


def test_installed_wheel_trains_from_outside_the_checkout(installed: Installed):
    """Was: the trainers were scripts in the checkout and their configs were not in the wheel. The pages' own
    training command (the game's shipped config), cut to seconds: a short cap, two evaluation games."""
    shown = [command for command in SHOWN if command[:3] == ("crossenvs", "train", "alphazero")]
    assert shown[0][3:5] == ("--game", "crisscross"), shown
    command = list(shown[0])
    if "--max-minutes" in command:  # the page's cap, minutes: replaced by seconds
        del command[command.index("--max-minutes") : command.index("--max-minutes") + 2]
    command += ["--max-minutes", "0.1", "--device", "cpu", "--no-progress"]
    command += ["--set", "eval_games=2", "--set", "eval_opponent=random", "--set", "eval_ladder_games=0"]
    run = installed.run([installed.venv / "bin" / command[0], *command[1:]])
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    (summary,) = installed.work.glob("runs/az-crisscross-*/summary.json")
    assert '"games": 2' in summary.read_text() and "precision" in summary.read_text()
    assert "auto: " in run.stdout  # the precision chosen, and why


def test_installed_wheel_runs_every_command_the_pages_show_and_compiles_once(installed: Installed):
    commands = [*COMMANDS, *MORE_COMMANDS]
    names = {command[1] for command in commands}
    assert {"list", "eval", "play", "serve", "solve", "rate", "check"} <= names, names
    example = installed.work / EXAMPLES["check"].split()[2]
    example.parent.mkdir(parents=True, exist_ok=True)
    example.write_text((ROOT / "examples" / "tictactoe.py").read_text())
    notices = []
    for round_ in ("first", "second"):
        for command in commands:
            if command[1] == "serve":
                if round_ == "first":
                    assert "<html" in served(installed, command).lower()
                continue
            run = installed.run([installed.venv / "bin" / command[0], *command[1:]], input="help\nquit\n")
            shown = " ".join(command)
            assert run.returncode == 0, f"{shown}:\n{run.stdout[-3000:]}{run.stderr[-5000:]}"
            if command[1] == "list":
                for gym_id in ("crossenvs/Crisscross-v0", "crossenvs/Crossings-v0", "crossenvs/Crosse-v0"):
                    assert gym_id in run.stdout
            if round_ == "first":
                notices += compile_notices(run.stderr)
                if command[1] == "solve":
                    assert "compiling the exact solver for crisscross" in run.stderr, run.stderr
            else:
                assert not compile_notices(run.stderr), f"{shown} compiled again:\n{run.stderr[-5000:]}"
    assert [line for line in notices if line.startswith("numba compiles")], "the compile watch saw nothing"
    said = [line for line in notices if line.startswith("crossenvs: compiling")]
    assert said and not [line for line in said if "crossenvs." in line], said  # words, not module names
