"""The package as a user gets it: build the sdist and wheel, install the wheel with its real dependencies into
fresh virtual environments, one for each install line the README and the docs give, and run from them.

Was: the wheel was installed with ``--no-deps`` beside a ``.pth`` file lending it the test environment's
packages, so ``crossenvs --help`` crashed on a missing PyYAML for every user while this file passed. Now pip
resolves every dependency itself (from the index, or the machine's wheel folders and pip's cache), exactly
as a user's ``pip install`` does; torch comes first at the pinned version, as the pages say.

There, from a folder outside the checkout, every command and snippet that README.md and
docs/getting-started.md show runs and exits 0 (``crossenvs serve`` until its page answers,
``crossenvs play`` until it reads ``quit``), with ``rate`` and ``eval --ladder`` on the shipped
ladders and ``check`` on a game file the test writes; then each runs again and must print no
compile notice: numba compiled everything a command needs the first time. The base install and every
other documented install line get a fresh environment each, where ``crossenvs --help`` and
``crossenvs list`` work and what needs a missing extra says so in one line.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from without_extras import PRELUDE

from crossenvs.cli import EXAMPLES
from crossenvs.kernels.cuda import gpu_absent

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


#: the install lines of the pages: ``pip install -e .`` and ``pip install -e ".[a,b]"`` (torch first where one needs it)
INSTALL_PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*.py")))
INSTALL_LINES = sorted(
    {
        match.group(1) or ""
        for page in INSTALL_PAGES
        for match in re.finditer(r'pip install -e (?:"\.\[([a-z,]+)\]"|\.(?=\s|$|`))', page.read_text(), re.M)
    }
)
#: the extras that bring torch, which goes in first from the pinned version (a loose pin pulls CUDA wheels)
TORCH_EXTRAS = {"agents", "train", "torchrl", "cuda"}
#: the README's install line: the environment that runs every command and snippet it shows
README_EXTRAS = "agents,eval,web"


def test_every_install_block_that_brings_torch_pins_it_first():
    """People copy one block: an extra that brings torch, installed with no torch pinned before it in that block,
    resolves PyPI's newest torch and several GB of CUDA libraries, not the build the project tests."""
    for page in INSTALL_PAGES:
        if page.suffix != ".md":
            continue
        for block in re.findall(r"```(?:bash|sh|console)\n(.*?)```", page.read_text(), re.S):
            lines = block.splitlines()
            for index, line in enumerate(lines):
                extras = re.search(r'pip install -e "\.\[([a-z,]+)\]"', line)
                if extras and TORCH_EXTRAS & set(extras.group(1).split(",")):
                    pinned = any(re.match(r"pip install torch==2\.13\.0(\s|$)", earlier) for earlier in lines[:index])
                    assert pinned, f"{page.name}: {line!r} has no pip install torch==2.13.0 before it in its block"


def pip_install(python: Path, *requirements: str) -> None:
    """pip resolving every dependency itself into the environment of ``python``; no .pyc compiled (seconds saved)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-compile", *requirements],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]


def fresh_install(dist: Path, root: Path, extras: str) -> Installed:
    """A new virtual environment holding the wheel with ``extras`` and everything it requires, nothing more."""
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
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
    torch = ["torch==2.13.0"] if TORCH_EXTRAS & set(extras.split(",")) else []
    pip_install(python, *torch, f"{wheel}[{extras}]" if extras else str(wheel))
    (purelib / "compile_watch.py").write_text(COMPILE_WATCH)
    (purelib / "compile_watch.pth").write_text("import compile_watch\n")
    work = root / "work"
    work.mkdir()
    env = clean_env(CROSSENVS_CACHE_DIR=str(root / "numba-cache"), CROSSENVS_COMPILE_NOTICE="1", MPLBACKEND="Agg")
    return Installed(venv, work, env)


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory) -> Installed:
    """The wheel installed as the README's install line says, into one fresh environment the tests below share."""
    return fresh_install(dist, tmp_path_factory.mktemp("installed"), README_EXTRAS)


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


EVALUATION_PAGE = """
namespace = {"__name__": "__docs__"}
for index, block in enumerate(sys.argv[3:]):
    exec(compile(block, f"python block {index} of docs/evaluation.md", "exec"), namespace)
print("evaluation page OK")
"""


def test_installed_wheel_runs_the_evaluation_page_with_only_the_extras_it_names(installed: Installed):
    """Was: the page's TestClient snippet needed httpx2, which no extra it names brings. Every python block of
    the page runs where only the base install and the extras its install line names can be imported
    (tests/without_extras.py hides the rest, read from the installed wheel's metadata)."""
    page = (ROOT / "docs" / "evaluation.md").read_text()
    named = re.search(r'pip install -e "\.\[([a-z,]+)\]"', page).group(1)
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) >= 4
    python = str(installed.venv / "bin" / "python")
    done = installed.run([python, "-c", PRELUDE + EVALUATION_PAGE, named, str(ROOT / "tests"), *blocks])
    assert done.returncode == 0, f"with only {named}:\n" + done.stdout[-3000:] + done.stderr[-5000:]
    assert "evaluation page OK" in done.stdout


def test_installed_wheel_trains_from_outside_the_checkout(installed: Installed, dist: Path):
    """Was: the trainers were scripts in the checkout and their configs were not in the wheel. The README's
    second install line (the train extra), then the pages' own training command (the game's shipped config),
    cut to seconds: a short cap, two evaluation games."""
    (wheel,) = dist.glob(f"crossenvs-{VERSION}-py3-none-any.whl")
    assert 'pip install -e ".[train]"' in (ROOT / "README.md").read_text()
    pip_install(installed.venv / "bin" / "python", f"{wheel}[train]")
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
    assert "checkpoint runs/az-crisscross-" in run.stdout  # as the README shows it: relative to where one stands
    assert "  crossenvs rate az:runs/az-crisscross-" in run.stdout and "  crossenvs play crisscross" in run.stdout


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


#: what each extra's install line lets a user import or run, beyond ``crossenvs --help`` and ``crossenvs list``
#: (python, or a command with the exit status and the words it must print)
LINE_CHECKS: dict[str, list[tuple[list[str], int, str]]] = {
    "": [
        (["python", "-c", "from crossenvs import crisscross_v0; import crossenvs.envs.vector, gymnasium"], 0, ""),
        (["crossenvs", "play", "crisscross", "--opponent", "pretrained"], 2, 'pip install -e ".[agents]"'),
        (["crossenvs", "train", "alphazero", "--game", "crisscross"], 2, 'pip install -e ".[train]"'),
        (["crossenvs", "serve"], 2, 'pip install -e ".[web]"'),
        (["crossenvs", "doctor"], 1, "no NVIDIA driver"),  # the card first: no extra installs one
    ],
    "agents": [  # the line every missing-torch error gives
        (
            ["python", "-c", "import crossenvs.agents; crossenvs.agents.load('crisscross', size=6); print('loaded')"],
            0,
            "loaded",
        ),
        (["crossenvs", "serve"], 2, 'pip install -e ".[web]"'),
    ],
    "openspiel": [
        (
            ["python", "-c", "import crossenvs.integrations.openspiel, pyspiel; pyspiel.load_game('crossenvs_crosse')"],
            0,
            "",
        ),
    ],
    "torchrl": [
        (
            [
                "python",
                "-c",
                "from crossenvs.integrations.torchrl import CrossTorchRLEnv; CrossTorchRLEnv('crisscross', 2)",
            ],
            0,
            "",
        ),
    ],
    "cuda": [
        (["crossenvs", "doctor"], 1, "no NVIDIA driver"),
        (
            [
                "python",
                "-c",
                "from crossenvs.az.pending import torch_device; import crossenvs.az.search.device",
            ],
            0,
            "",
        ),
    ],
}


def run_in(installed: Installed, argv: list[str]) -> subprocess.CompletedProcess:
    program = installed.venv / "bin" / argv[0]
    return installed.run([str(program), *argv[1:]], stdin=subprocess.DEVNULL)


def test_the_pages_install_lines_are_the_ones_tested():
    """Every ``pip install -e`` line of the README, the docs and the examples has an environment below."""
    assert "" in INSTALL_LINES and README_EXTRAS in INSTALL_LINES and "train" in INSTALL_LINES
    untested = set(INSTALL_LINES) - {"", README_EXTRAS, "train", *LINE_CHECKS}
    assert not untested, f"install lines without a test: {sorted(untested)}"
    stale = [page.name for page in INSTALL_PAGES if 'pip install "crossenvs[' in page.read_text()]
    assert not stale, f'pip install "crossenvs[x]" finds nothing (not on PyPI): {stale}'


@pytest.mark.parametrize("extras", sorted(LINE_CHECKS), ids=lambda extras: extras or "base")
def test_each_install_line_starts_and_names_what_it_lacks(dist: Path, tmp_path: Path, extras: str):
    """A fresh environment per documented line: ``crossenvs --help`` and ``list`` work, the line's own feature
    works, and what needs another extra says which, in one line."""
    if extras not in INSTALL_LINES:
        pytest.fail(f'no page gives pip install -e ".[{extras}]" any more: drop its checks')
    here = fresh_install(dist, tmp_path, extras)
    for argv, code, said in [(["crossenvs", "--help"], 0, "usage: crossenvs"), (["crossenvs", "list"], 0, "Crosse-v0")]:
        run = run_in(here, argv)
        assert run.returncode == code and said in run.stdout, f"{argv}: {run.stdout[-2000:]}{run.stderr[-3000:]}"
    for argv, code, said in LINE_CHECKS[extras]:
        if argv[1:] == ["doctor"] and gpu_absent() is None:
            continue  # a machine with a card: doctor runs for real (tests/test_doctor.py)
        run = run_in(here, argv)
        shown = " ".join(argv)
        assert run.returncode == code, f"{shown} -> {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-3000:]}"
        assert said in run.stdout + run.stderr, f"{shown}: {said!r} not said:\n{run.stdout[-2000:]}{run.stderr[-3000:]}"
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
