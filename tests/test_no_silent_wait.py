"""No command waits without a word: every command, run as a user types it into a pipe, has ended or written a
line by the time it has run past a wait's two seconds (``SPEAK_AFTER``) and what this machine takes to start
Python and import the command line, measured here first.

Was: ``crossenvs solve crisscross --option size=8`` printed nothing for 144 s, ``train ppo`` nothing for about
86 s, ``rating-plot`` 7 s, ``train rllib`` 12 s while Ray started. Each command line below is one that works for
seconds or minutes; a command added without one here fails :func:`test_every_command_has_a_line_here`, so a new
silent wait cannot slip in unseen.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crossenvs.cli import COMMANDS
from crossenvs.support import waits

ROOT = Path(__file__).resolve().parent.parent
#: what a busy two-core machine adds on top of the measured start (a sibling test worker shares the cores)
SLACK = 2.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: a command line that keeps each command busy past its first seconds (RUN: a training run's folder, made below)
COMMAND_LINES: dict[str, list[list[str]]] = {
    "list": [["list"]],
    "eval": [["eval", "crisscross", "--players", "mcts:2000", "mcts:2000", "--games", "100"]],
    "play": [["play", "crosse", "--opponent", "mcts:5000", "--seat", "second"]],
    "train": [
        ["train", "ppo", "--game", "crisscross", "--option", "size=4", "--run-dir", "OUT/ppo"],
        ["train", "alphazero", "--game", "crisscross", "--option", "size=4", "--run-dir", "OUT/az"],
        ["train", "rllib", "--game", "crisscross", "--option", "size=4", "--out", "OUT/rllib"],
    ],
    "gif": [["gif", "crosse", "--players", "mcts:2000", "mcts:2000", "--out", "OUT/game.gif"]],
    "rating-plot": [["rating-plot", "RUN", "--out", "OUT/ratings.png"]],
    "solve": [["solve", "crisscross", "--option", "size=8"]],
    "ladder": [["ladder", "crisscross", "--option", "size=4", "--rungs", "random", "mcts:500", "--out", "OUT/l.json"]],
    "rate": [["rate", "mcts:2000", "--game", "crosse"]],
    "mistakes": [["mistakes", "mcts:2000", "--per-class", "50"]],
    "serve": [["serve", "--port", "PORT"]],
    "check": [["check", str(ROOT / "examples" / "tictactoe.py"), "--plies", "100000"]],
    "cache": [["cache"]],
    "doctor": [["doctor", "--games", "crosse"]],
    "export": [["export", str(ROOT / "crossenvs" / "agents" / "crosse.pt"), "--onnx", "OUT/crosse.onnx"]],
}


def test_every_command_has_a_line_here():
    assert set(COMMAND_LINES) == {command.name for command in COMMANDS}


def _user_env() -> dict[str, str]:
    """The environment a user has: the suite's silencing of compile notices taken off."""
    return {key: value for key, value in os.environ.items() if key != "CROSSENVS_COMPILE_NOTICE"}


@pytest.fixture(scope="module")
def deadline() -> float:
    """Seconds from launch by which a busy command has spoken: the wait's two seconds, the interpreter's start and
    the command line's import as measured here (the slower of two), and the slack of a shared machine."""
    starts = []
    for _ in range(2):
        began = time.monotonic()
        subprocess.run([sys.executable, "-c", "import crossenvs.cli"], check=True, env=_user_env())
        starts.append(time.monotonic() - began)
    return waits.SPEAK_AFTER + max(starts) + SLACK


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    """A training run's folder of two untrained MaskablePPO checkpoints on Crisscross 6x6 (a game with a ladder)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    run = tmp_path_factory.mktemp("run")
    (run / "checkpoints").mkdir()
    model = MaskablePPO("MlpPolicy", gymnasium.make("crossenvs/Crisscross-v0", size=6), n_steps=32, device="cpu")
    for step in (32, 64):
        model.save(run / "checkpoints" / f"step_{step}.zip")
        metadata = {"game": "crisscross", "options": {"size": 6}, "step": step,
                    "architecture": {"policy": "mlp", "net_width": 64}}  # fmt: skip
        (run / "checkpoints" / f"step_{step}.json").write_text(json.dumps(metadata))
    return run


def first_word(argv: list[str], limit: float, cwd: Path) -> tuple[float | None, bytes, int | None]:
    """When the process first wrote to stdout or stderr (seconds from launch; None: not within ``limit``), what it
    wrote, and its exit code if it ended by then; it is stopped either way."""
    began = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "crossenvs.cli", *argv], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=_user_env())  # fmt: skip
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    selector.register(process.stderr, selectors.EVENT_READ)
    spoke, said = None, b""
    try:
        while spoke is None and process.poll() is None and time.monotonic() - began < limit:
            for key, _ in selector.select(timeout=0.05):
                said = os.read(key.fileobj.fileno(), 4096)
                if said:
                    spoke = time.monotonic() - began
        return spoke, said, process.poll()
    finally:
        process.kill()
        process.wait()
        selector.close()


CASES = [(name, argv) for name, lines in COMMAND_LINES.items() for argv in lines]


@pytest.mark.parametrize(("name", "argv"), CASES, ids=[" ".join(argv[:2]) for _, argv in CASES])
def test_a_busy_command_speaks_within_seconds_in_a_pipe(name, argv, deadline, run_folder, tmp_path):
    argv = [
        {"RUN": str(run_folder), "PORT": str(_free_port())}.get(word, word.replace("OUT", str(tmp_path)))
        for word in argv
    ]
    spoke, said, ended = first_word(argv, deadline, tmp_path)
    assert spoke is not None or ended is not None, f"crossenvs {' '.join(argv)}: silent for {deadline:.1f} s"
    # the line is a command that works: a refused one would speak at once and prove nothing
    assert ended in (None, 0) and not said.startswith((b"error:", b"usage:")), said.decode(errors="replace")
