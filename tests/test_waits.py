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
import time

import pytest

from crossenvs.support import waits

HEARD = """
import logging, sys
from crossenvs.core.registry import game_class
from crossenvs.kernels.specialize import specialize

specialize("crossenvs.kernels.fused", game_class("crisscross"))  # nothing set up: a line on stderr
logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(levelname)s %(message)s", stream=sys.stdout)
specialize("crossenvs.kernels.fused", game_class("crossings"))  # logging set up: a record of the program's logging
logging.getLogger("crossenvs").setLevel(logging.WARNING)
specialize("crossenvs.kernels.fused", game_class("crosse"))  # silenced
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
    from test_compile_once import templates

    assert templates() <= set(waits.COMPILE_SECONDS), templates() - set(waits.COMPILE_SECONDS)
    for low, high in waits.COMPILE_SECONDS.values():
        assert 0 < low < high


@pytest.mark.parametrize("template", sorted(waits.COMPILE_SECONDS))
def test_the_notice_quotes_its_templates_range(template):
    low, high = waits.COMPILE_SECONDS[template]
    assert waits.compile_notice(template, "it", "crosse").endswith(f"(numba caches it; about {low}-{high} s)")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def screen(written: str) -> str:
    """What a terminal shows at the end: each carriage return goes back to the start of the line."""
    shown = ""
    for part in written.split("\r"):
        shown = part + shown[len(part) :]
    return shown


@pytest.fixture
def heard(monkeypatch):
    """Waits speak here (the suite may silence them) onto stderr, as where no logging is set up."""
    monkeypatch.delenv("CROSSENVS_COMPILE_NOTICE", raising=False)
    monkeypatch.setattr(waits.LOGGER, "hasHandlers", lambda: False)  # pytest's own log capture set aside


def until(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_short_wait_is_silent_and_a_long_one_speaks_then_again_every_so_often_in_a_pipe(heard, capsys):
    with waits.Wait("playing crosse: a, b", total=10, unit="games", after=0.2, every=0.1):
        pass  # over before it would speak
    assert capsys.readouterr().err == ""
    with waits.Wait("playing crosse: a, b", total=10, unit="games", after=0.05, every=0.1) as wait:
        wait.advance(3)
        time.sleep(0.5)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "crossenvs: playing crosse: a, b (10 games)", lines
    assert len(lines) >= 3 and all(re.fullmatch(r"crossenvs: playing crosse: a, b: still going, 3/10 games, \d+ s", line)
                                   for line in lines[1:]), lines  # fmt: skip


def test_a_terminal_gets_one_labelled_bar_at_a_time_and_a_clean_line_after(heard, monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(waits.sys, "stderr", terminal)
    outer = waits.Wait("compiling the rules of crosse", estimate=(10, 20), after=0.0, tick=0.01).start()
    inner = waits.Wait("playing crosse: a, b", total=4, unit="games", after=0.0, tick=0.01).start()  # says nothing
    until(lambda: terminal.getvalue().count("\r") > 4)
    inner.stop()
    outer.stop()
    written = terminal.getvalue()
    assert written.startswith("crossenvs: compiling the rules of crosse (about 10-20 s)\n"), written
    assert re.search(r"\r  \[#* *\] \d+ s of about 10-20 s", written), written
    assert "playing" not in written  # one wait speaks at a time
    assert screen(written.split("\n", 1)[1]).strip() == ""  # wiped: what the program prints next starts clean


def test_a_line_said_while_a_bar_is_drawn_starts_on_a_clean_line(heard, monkeypatch):
    """A compile notice landing on an arena's bar: the bar is wiped first, so no fragment of it stays on screen."""
    terminal = Terminal()
    monkeypatch.setattr(waits.sys, "stderr", terminal)
    arena = waits.Wait("playing crosse: a, b", total=4, unit="games", after=0.0, tick=0.01).start()
    until(lambda: arena.drawn)
    waits.say("crossenvs: hi")  # shorter than the bar, which it would otherwise leave the tail of
    arena.stop()
    shown = screen(terminal.getvalue().split("\n")[1])  # the line the notice was written on, as it looks now
    assert shown.rstrip() == "crossenvs: hi", shown


def test_a_compile_of_a_games_rules_past_the_threshold_opens_a_wait_named_in_words(heard, monkeypatch, capsys):
    monkeypatch.setattr(waits, "SPEAK_AFTER", 0.05)
    watch = waits.CompileWatch(quiet=0.05, tick=0.01)
    watch.on_start("crossenvs.games.crosse.rules")  # numba starts compiling Crosse's kernels (callees inside)
    watch.on_start("crossenvs.games.crosse.tables")
    until(lambda: watch.wait is not None)
    watch.on_end()
    watch.on_end()
    until(lambda: watch.thread is None)
    low, high = waits.RULES_SECONDS["crosse"]
    said = capsys.readouterr().err
    assert (
        said == f"crossenvs: compiling the rules of crosse, first use only (numba caches them) (about {low}-{high} s)\n"
    )
    assert watch.wait is None and not waits._SPEAKING


def test_a_compile_shorter_than_the_threshold_or_not_ours_says_nothing(heard, monkeypatch, capsys):
    watch = waits.CompileWatch(quiet=0.05, tick=0.01)
    watch.on_start("crossenvs.games.crisscross.rules")
    watch.on_end()
    until(lambda: watch.thread is None)  # quiet again: the next compile is a run of its own
    monkeypatch.setattr(waits, "SPEAK_AFTER", 0.05)
    watch.on_start("users_module")  # a user's own numba function
    time.sleep(0.3)
    watch.on_end()
    until(lambda: watch.thread is None)
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_a_pettingzoo_envs_first_step_on_a_cold_cache_says_it_compiles_into_a_pipe(tmp_path):
    """Was: 10 s of silence (Crossings) before the first step, in a terminal or a pipe. The env steps through the
    single-game stepper (issue 59), whose compile takes the rules' with it: that is what it announces."""
    env = {k: v for k, v in os.environ.items() if k != "CROSSENVS_COMPILE_NOTICE"}
    env["CROSSENVS_CACHE_DIR"] = str(tmp_path)
    code = "from crossenvs import crossings_v0\nenv = crossings_v0.env()\nenv.reset(seed=0)\nenv.step(int(env.last()[0]['action_mask'].argmax()))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("crossenvs: compiling the single-game stepper for crossings, first use only"), (
        run.stderr
    )


def test_a_game_of_ones_own_compiling_its_rules_is_named_by_its_registered_name(heard, monkeypatch, capsys):
    monkeypatch.setattr(waits, "SPEAK_AFTER", 0.05)
    monkeypatch.setitem(waits.GAME_MODULES, "my_games.tictactoe", "tictactoe")  # as register_game records it
    watch = waits.CompileWatch(quiet=0.05, tick=0.01)
    watch.on_start("my_games.tictactoe")
    until(lambda: watch.wait is not None)
    watch.on_end()
    until(lambda: watch.thread is None)
    assert capsys.readouterr().err.startswith("crossenvs: compiling the rules of tictactoe, first use only")


def test_registering_a_game_records_where_its_rules_live():
    import crossenvs  # noqa: F401 - registers the built-in games

    assert set(waits.GAME_MODULES.values()) >= {"crisscross", "crosse", "hex", "connect_four"}
