"""Long waits said out loud, wherever the person is looking: a terminal, a notebook, a pipe or a log.

A first-use compile (numba compiling a game's kernels into the cache) takes from seconds to over a
minute, and an arena of a thousand games as long; without a word, that looks like a hang. Every wait
that lasts over :data:`SPEAK_AFTER` seconds is a :class:`Wait`: one line when it starts, through
:mod:`logging` on the ``crossenvs`` logger at INFO:

* where the program has set up logging (``logging.basicConfig``, a framework's handlers), the line is
  a log record like any other, shown or filtered as the program's logging decides;
* where nothing is set up (a script, a notebook, a pipe), it goes to stderr, which terminals,
  notebooks, ``2>file`` and CI logs all show: Python's own fallback would drop an INFO line there.

Silence it with ``logging.getLogger("crossenvs").setLevel(logging.WARNING)``, or with the
environment variable ``CROSSENVS_COMPILE_NOTICE=0`` (for a whole shell or CI job).

Then, on a terminal, a labelled bar redrawn in place under it (the seconds so far against the estimate,
or the games played of all), wiped when the wait ends; in a pipe, a notebook or a log (where a bar's
carriage returns would fill the page with frames), one more line every :data:`PIPE_EVERY` seconds.
One wait speaks at a time: a wait inside another (the compile inside an arena) stays silent.

Numba's compiles are followed (:class:`CompileWatch`): a template compile announces itself when its
cache is cold (:func:`compile_wait`), and any other compile of ours that runs past
:data:`SPEAK_AFTER` seconds with no wait speaking (a game's own rules, at a PettingZoo env's first
step) opens a wait named after what compiles.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

#: the package's logger; its INFO lines announce waits
LOGGER = logging.getLogger("crossenvs")

#: the range a template's first-use compile notice quotes, in seconds, with the game kernels it needs: the smallest
#: game's compile (Crisscross 6x6) to the largest's (Crosse) and half as much again for a busy machine, as
#: ``benchmarks/compile_times.py`` measures them (measured: docs/benchmarks.md, section 'First-use compile times')
COMPILE_SECONDS = {
    "crossenvs.kernels.game_batch": (2, 20),
    "crossenvs.players.mcts": (10, 30),
    "crossenvs.az.search.tree": (10, 25),
    "crossenvs.kernels.fused": (2, 15),
    "crossenvs.eval.solve_kernel": (12, 30),
}
#: the range announced for a template not measured above
DEFAULT_SECONDS = (5, 60)
#: the range the notice quotes for a game's own rules (its numba kernels: what a PettingZoo or gymnasium env's
#: first step compiles), in seconds: each game's import-to-first-step time from an empty cache, with room for a
#: busier machine (measured: docs/benchmarks.md, section 'First-use compile times')
RULES_SECONDS = {
    "crisscross": (2, 6),
    "crossings": (8, 15),
    "neo_crossings": (10, 18),
    "charing_cross": (3, 8),
    "crosse": (8, 15),
}
#: a wait that lasts longer than this is said; one that ends sooner stays silent
SPEAK_AFTER = 2.0
#: off a terminal, a wait still going is said again this often
PIPE_EVERY = 30.0


def _level() -> int:
    """The level set on the ``crossenvs`` logger or one below it in use, else INFO: the root logger's default
    (WARNING) is not a choice made for this package, so it does not silence the notice."""
    logger: logging.Logger | None = LOGGER
    while logger is not None and logger.name.startswith("crossenvs"):
        if logger.level != logging.NOTSET:
            return logger.level
        logger = logger.parent
    return logging.INFO


_SILENCED = False


def silence() -> None:
    """No wait speaks in this process (a worker of a pool whose parent speaks for it)."""
    global _SILENCED
    _SILENCED = True


def quiet() -> bool:
    """Whether waits are silenced: ``CROSSENVS_COMPILE_NOTICE=0``, the logger's level, or :func:`silence`."""
    return _SILENCED or os.environ.get("CROSSENVS_COMPILE_NOTICE") == "0" or _level() > logging.INFO


def say(text: str) -> None:
    """One line: a log record where logging is set up, else a line on stderr (see the module)."""
    if quiet():
        return
    if LOGGER.hasHandlers():
        LOGGER.info(text)
        return
    _wipe_bars()  # a line said while a bar is drawn (a compile notice inside an arena) starts on a clean line
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _wipe_bars() -> None:
    """Wipe every open wait's bar; the next tick draws it again, under the new line."""
    with _SPEAKING_LOCK:
        open_waits = list(_SPEAKING)
    for wait in open_waits:
        wait.clear()


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_SPEAKING: list[Wait] = []  # the waits open now, outermost first: only the first speaks
_SPEAKING_LOCK = threading.Lock()


class Wait:
    """One long wait: silent for ``after`` seconds, then said once and followed until it ends.

    ``estimate`` (low, high seconds) or ``total`` (of ``unit``, counted with :meth:`advance`) sizes the bar.
    Use it as a context manager, or :meth:`start` and :meth:`stop` when another thread ends it.
    """

    WIDTH = 20

    def __init__(
        self,
        label: str,
        *,
        estimate: tuple[int, int] | None = None,
        total: int | None = None,
        unit: str = "",
        after: float | None = None,
        tick: float = 0.5,
        every: float = PIPE_EVERY,
        stream: TextIO | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self.busy = busy  # the bar is drawn only while this says so (a compile wait: while numba compiles)
        self.label, self.estimate, self.total, self.unit = label, estimate, total, unit
        self.after = SPEAK_AFTER if after is None else after  # read at each wait: a test may lower it
        self.tick, self.every = tick, every
        self.stream = stream
        self.done = 0
        self.began = 0.0
        self.drawn = False  # a bar is on the line now
        self.announced = False  # its headline was said already (a compile notice)
        self.ended = threading.Event()
        self.lock = threading.Lock()

    def __enter__(self) -> Wait:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def advance(self, count: int = 1) -> None:
        """``count`` more of the ``total`` done."""
        self.done += count

    def start(self) -> Wait:
        self.began = time.monotonic()
        with _SPEAKING_LOCK:
            _SPEAKING.append(self)
        if self.after <= 0 and not self.announced and self._speaks():  # said now, not when a thread gets to it
            say(self.headline())
            self.announced = True
        threading.Thread(target=self._follow, name="crossenvs-wait", daemon=True).start()
        return self

    def stop(self) -> None:
        self.ended.set()
        self.clear()
        with _SPEAKING_LOCK:
            if self in _SPEAKING:
                _SPEAKING.remove(self)

    def _speaks(self) -> bool:
        with _SPEAKING_LOCK:
            return bool(_SPEAKING) and _SPEAKING[0] is self and not quiet()

    def _about(self) -> str:
        return f"about {self.estimate[0]}-{self.estimate[1]} s"

    def headline(self) -> str:
        """The line said once the wait has lasted ``after`` seconds."""
        size = self._about() if self.estimate else f"{self.total} {self.unit}" if self.total else ""
        return f"crossenvs: {self.label} ({size})" if size else f"crossenvs: {self.label}"

    def progress(self, elapsed: float) -> str:
        """Where the wait stands: ``340/1000 games, 12 s`` or ``12 s of about 10-20 s``."""
        if self.total:
            return f"{min(self.done, self.total)}/{self.total} {self.unit}, {elapsed:.0f} s"
        return f"{elapsed:.0f} s of {self._about()}" if self.estimate else f"{elapsed:.0f} s"

    def bar(self, elapsed: float) -> str:
        """The terminal's line: full at the total, or at the estimate's high end."""
        if self.total:
            share = self.done / self.total
        elif self.estimate:
            share = elapsed / self.estimate[1]
        else:
            share = 0.0
        filled = min(self.WIDTH, int(self.WIDTH * share))
        return f"\r  [{'#' * filled}{' ' * (self.WIDTH - filled)}] {self.progress(elapsed)}"

    def _follow(self) -> None:
        if self.ended.wait(self.after) or not self._speaks():
            return
        stream = self.stream or sys.stderr
        terminal = _is_terminal(stream) and not LOGGER.hasHandlers()
        if not self.announced:
            say(self.headline())
        atexit.register(self.clear)  # a process that ends while the bar is up leaves a clean line
        try:
            while True:
                if self.ended.wait(self.tick if terminal else self.every):
                    return
                elapsed = time.monotonic() - self.began
                if not self._speaks():
                    continue
                if terminal and (self.busy is None or self.busy()):
                    with self.lock:
                        stream.write(self.bar(elapsed))
                        stream.flush()
                        self.drawn = True
                elif not terminal:
                    say(f"crossenvs: {self.label}: still going, {self.progress(elapsed)}")
        finally:
            atexit.unregister(self.clear)

    def clear(self) -> None:
        """Wipe the bar, leaving the cursor where the line began: the headline above stays the wait's one line."""
        with self.lock:
            if self.drawn:
                stream = self.stream or sys.stderr
                stream.write("\r" + " " * (len(self.bar(time.monotonic() - self.began)) + 8) + "\r")
                stream.flush()
                self.drawn = False


def compile_seconds(template: str) -> tuple[int, int]:
    """How long a first-use compile of ``template`` takes: the measured range (:data:`COMPILE_SECONDS`)."""
    return COMPILE_SECONDS.get(template, DEFAULT_SECONDS)


def compile_notice(template: str, what: str, game: str) -> str:
    """The line that announces the first-use compile of ``template`` (``what``: it in words) for ``game``."""
    low, high = compile_seconds(template)
    return f"crossenvs: compiling {what} for {game}, first use only (numba caches it; about {low}-{high} s)"


def compile_wait(template: str, what: str, game: str) -> None:
    """Announce a cold template's compile now, and follow it until numba's compiles go quiet; nothing where
    numba compiles nothing (``NUMBA_DISABLE_JIT=1``, as under the CUDA simulator: the kernels run as Python)."""
    if quiet() or _jit_disabled():
        return
    say(compile_notice(template, what, game))
    low, high = compile_seconds(template)
    watch = CompileWatch.get()
    watch.expect(Wait(f"compiling {what} for {game}", estimate=(low, high), after=0.0, busy=watch.compiling), said=True)


def _jit_disabled() -> bool:
    from numba.core import config

    return bool(config.DISABLE_JIT)


#: the module defining each registered game (the registry fills it): a compile in one is that game's rules
GAME_MODULES: dict[str, str] = {}


def _compiled_words(module: str) -> tuple[str, tuple[int, int] | None] | None:
    """What a compile of a function of ``module`` is, in words, and its measured range where there is one; None
    for a module that is neither ours nor a registered game's (a user's own numba code is theirs to announce)."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["crossenvs", "games"]:
        return f"the rules of {parts[2]}", RULES_SECONDS.get(parts[2])
    if parts[0] == "crossenvs":
        return "crossenvs' kernels", None
    return (f"the rules of {GAME_MODULES[module]}", None) if module in GAME_MODULES else None


class CompileWatch:
    """numba's compiles followed from a daemon thread: a compile of ours running past :data:`SPEAK_AFTER` seconds
    with no wait speaking opens a :class:`Wait`, and the wait closes once compiling has been quiet for ``quiet``
    seconds (one function is many compiles, callees inside their callers). ``patience``: a wait expected
    (:meth:`expect`) closes unseen if no compile starts within it (the cache had it after all)."""

    _instance: CompileWatch | None = None
    _made = threading.Lock()

    def __init__(self, quiet: float = 0.5, patience: float = 10.0, tick: float = 0.1) -> None:
        self.quiet, self.patience, self.tick = quiet, patience, tick
        self.lock = threading.Lock()
        self.depth = 0
        self.since: float | None = None  # when the current run of compiles began
        self.last_end: float | None = None
        self.first_module = ""
        self.wait: Wait | None = None
        self.waiting_since = 0.0
        self.seen = False
        self.thread: threading.Thread | None = None

    @classmethod
    def get(cls) -> CompileWatch:
        """The process's watch, registered with numba on first use (numba only once something compiles)."""
        with cls._made:
            if cls._instance is None:
                from numba.core import event

                watch = cls()
                watch.register(event)
                cls._instance = watch
            return cls._instance

    def register(self, event) -> None:
        watch = self

        class Listener(event.Listener):
            def on_start(self, started) -> None:
                function = getattr(started.data.get("dispatcher"), "py_func", None)
                watch.on_start(getattr(function, "__module__", "") or "")

            def on_end(self, ended) -> None:
                watch.on_end()

        event.register("numba:compile", Listener())

    def on_start(self, module: str) -> None:
        with self.lock:
            self.depth += 1
            self.seen = True
            if self.since is None:
                self.since, self.first_module = time.monotonic(), module
            self._ensure_thread()

    def on_end(self) -> None:
        with self.lock:
            self.depth = max(0, self.depth - 1)
            self.last_end = time.monotonic()
        wait = self.wait  # read once: the watch's thread may close it meanwhile
        if self.depth == 0 and wait is not None:
            wait.clear()  # now, in the compiling thread: what the program prints next starts on a clean line

    def compiling(self) -> bool:
        return self.depth > 0

    def expect(self, wait: Wait, said: bool = False) -> None:
        """Open ``wait`` for a compile about to start (its headline already said when ``said``)."""
        with self.lock:
            if self.wait is None:
                self.wait, self.waiting_since, self.seen = wait, time.monotonic(), self.depth > 0
                wait.announced = said
                wait.start()
            self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="crossenvs-compile-watch", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.tick)
            now = time.monotonic()
            with self.lock:
                compiling = self.depth > 0 or (self.last_end is not None and now - self.last_end < self.quiet)
                if self.wait is not None:
                    unseen = not self.seen and now - self.waiting_since > self.patience
                    if unseen or (self.seen and not compiling):
                        self.wait.stop()
                        self.wait = None
                elif compiling and self.since is not None and now - self.since > SPEAK_AFTER and not _SPEAKING:
                    words = _compiled_words(self.first_module)
                    if words is not None:
                        what, estimate = words
                        label = f"compiling {what}, first use only (numba caches them)"
                        self.wait = Wait(label, estimate=estimate, after=0.0, busy=self.compiling)
                        self.waiting_since, self.seen = now, True
                        self.wait.start().began = self.since  # its seconds count from the first compile
                if not compiling:
                    self.since = None
                if self.wait is None and not compiling:
                    self.thread = None
                    return


def watch_compiles() -> None:
    """Follow numba's compiles from now on (called once the engine is imported; cheap when nothing compiles)."""
    if not quiet():
        CompileWatch.get()
