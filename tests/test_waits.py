"""A first-use compile says so wherever people look: into a pipe, a notebook or a log, not only on a terminal.

Was: the notice went to stderr only when stderr was a terminal, so a notebook, ``2>log`` or CI sat silent
through a minute of compiling. The subprocess below has its stderr piped and no ``CROSSENVS_COMPILE_NOTICE``;
announcing happens when a game's copy of a template is made on a cold cache (before numba compiles it on
first call), so it costs no compile: three copies of the cheapest template, one per way of being heard.
"""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from crossenvs.core import waits
from crossenvs.kernels.specialize import _TEMPLATE_WORDS

HEARD = """
import logging, sys
from crossenvs.core.registry import game_class
from crossenvs.kernels.specialize import specialize

specialize("crossenvs.core.fused", game_class("crisscross"))  # nothing set up: a line on stderr
logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(levelname)s %(message)s", stream=sys.stdout)
specialize("crossenvs.core.fused", game_class("crossings"))  # logging set up: a record of the program's logging
logging.getLogger("crossenvs").setLevel(logging.WARNING)
specialize("crossenvs.core.fused", game_class("crosse"))  # silenced
"""


def test_a_first_use_compile_prints_its_line_into_a_pipe_and_a_log(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CROSSENVS_COMPILE_NOTICE"}
    env["CROSSENVS_CACHE_DIR"] = str(tmp_path)  # a cold cache: every copy is a first use
    run = subprocess.run(
        [sys.executable, "-c", HEARD], capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, run.stderr
    notice = r"crossenvs: compiling the single-game stepper for {}, first use only \(numba caches it; about \d+-\d+ s\)"
    assert re.fullmatch(notice.format("crisscross") + "\n", run.stderr), run.stderr  # one line, and only it
    assert re.fullmatch("LOG crossenvs INFO " + notice.format("crossings") + "\n", run.stdout), run.stdout
    assert "crosse," not in run.stdout + run.stderr


def test_a_notice_is_an_info_record_of_the_crossenvs_logger(caplog, monkeypatch):
    monkeypatch.delenv("CROSSENVS_COMPILE_NOTICE", raising=False)
    with caplog.at_level(logging.INFO, logger="crossenvs"):
        waits.say("crossenvs: compiling something, first use only")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("crossenvs", logging.INFO, "crossenvs: compiling something, first use only")
    ]
    caplog.clear()
    monkeypatch.setenv("CROSSENVS_COMPILE_NOTICE", "0")  # the switch for a whole shell or CI job
    with caplog.at_level(logging.INFO, logger="crossenvs"):
        waits.say("crossenvs: compiling something, first use only")
    assert not caplog.records


def test_every_template_has_a_measured_estimate():
    """A template without one would be announced with the catch-all range."""
    assert set(_TEMPLATE_WORDS) <= set(waits.COMPILE_SECONDS), set(_TEMPLATE_WORDS) - set(waits.COMPILE_SECONDS)
    for low, high in waits.COMPILE_SECONDS.values():
        assert 0 < low < high


@pytest.mark.parametrize("template", sorted(waits.COMPILE_SECONDS))
def test_the_notice_quotes_its_templates_range(template):
    low, high = waits.COMPILE_SECONDS[template]
    assert waits.compile_notice(template, "it", "crosse").endswith(f"(numba caches it; about {low}-{high} s)")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Events:
    """numba's event module as :meth:`CompileProgress._run` uses it: unregistering its listener."""

    def __init__(self) -> None:
        self.unregistered = []

    def unregister(self, kind: str, listener) -> None:
        self.unregistered.append(kind)


def screen(written: str) -> str:
    """What a terminal shows at the end: each carriage return goes back to the start of the line."""
    shown = ""
    for part in written.split("\r"):
        shown = part + shown[len(part) :]
    return shown


def test_a_terminal_gets_a_bar_while_numba_compiles_and_a_clean_line_after():
    terminal, events = Terminal(), Events()
    progress = waits.CompileProgress(terminal, 10, 20, tick=0.01, quiet=0.05, patience=5)
    thread = threading.Thread(target=progress._run, args=(events, None))
    thread.start()
    progress.on_start(None)  # numba starts compiling (a callee inside, as it does)
    progress.on_start(None)
    deadline = time.monotonic() + 30
    while "[" not in terminal.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    progress.on_end(None)
    progress.on_end(None)
    thread.join(timeout=30)
    assert not thread.is_alive() and events.unregistered == ["numba:compile"]
    frames = re.findall(r"\r +\d+ s \[#* *\] of about 10-20 s", terminal.getvalue())
    assert frames, terminal.getvalue()
    assert screen(terminal.getvalue()).strip() == ""  # wiped: what the program prints next starts clean


def test_no_bar_when_nothing_compiles_and_none_off_a_terminal(capsys, monkeypatch):
    terminal, events = Terminal(), Events()
    progress = waits.CompileProgress(terminal, 10, 20, tick=0.01, quiet=0.05, patience=0.05)
    progress._run(events, None)  # no compile started within its patience
    assert terminal.getvalue() == "" and events.unregistered == ["numba:compile"]
    monkeypatch.delenv("CROSSENVS_COMPILE_NOTICE", raising=False)
    monkeypatch.setattr(waits.LOGGER, "hasHandlers", lambda: False)  # pytest's own log capture set aside
    monkeypatch.setattr(waits, "CompileProgress", None)  # would fail if a bar were started
    waits.say("crossenvs: compiling something, first use only", (10, 20))  # stderr is pytest's pipe
    assert capsys.readouterr().err == "crossenvs: compiling something, first use only\n"
