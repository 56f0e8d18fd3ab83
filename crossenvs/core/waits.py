"""Long waits said out loud, wherever the person is looking: a terminal, a notebook, a pipe or a log.

A first-use compile (numba compiling a game's kernels into the cache) takes from seconds to over a
minute; without a word, that looks like a hang. Each such wait is one line through :mod:`logging`, on
the ``crossenvs`` logger at INFO:

* where the program has set up logging (``logging.basicConfig``, a framework's handlers), the line is
  a log record like any other, shown or filtered as the program's logging decides;
* where nothing is set up (a script, a notebook, a pipe), it goes to stderr, which terminals,
  notebooks, ``2>file`` and CI logs all show: Python's own fallback would drop an INFO line there.

Silence it with ``logging.getLogger("crossenvs").setLevel(logging.WARNING)``, or with the
environment variable ``CROSSENVS_COMPILE_NOTICE=0`` (for a whole shell or CI job).

On a terminal a compile's wait gets a progress bar too (:class:`CompileProgress`): redrawn in place
under the notice while numba compiles, the seconds so far against the estimate, and wiped when done.
A pipe, a notebook or a log gets the notice line only: a bar redrawn with carriage returns would
fill a log with its frames.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from typing import TextIO

#: the package's logger; its INFO lines announce waits
LOGGER = logging.getLogger("crossenvs")

#: how long each template's first-use compile took, in seconds, with the game kernels it needs: each a
#: fresh process on a cold cache (a new ``CROSSENVS_CACHE_DIR``) less the same process on the warm one,
#: on the project's 2-core AMD EPYC shared with other work (load about 4.5), 2026-11-27. Low end: the
#: smallest game measured (Crisscross), high end: Crosse, the largest. An idle or faster machine is quicker.
#: vector env 11 s (Crisscross 4x4) - 17 s (Crosse); MCTS 34 s (Crisscross 6x6) - 62 s (Crosse);
#: AlphaZero's search 59 s (Crisscross 6x6) - 67 s (Crosse: the pretrained agent's first move took 81 s in
#: all, 14 s warm); the solver 37 s (Crisscross 4x4); the stepper 6 s (Crisscross 6x6) - 37 s (Crosse).
COMPILE_SECONDS = {
    "crossenvs.envs.game_batch": (10, 20),
    "crossenvs.players.mcts": (30, 65),
    "crossenvs.az.tree": (55, 70),
    "crossenvs.core.fused": (5, 40),
    "crossenvs.eval.solve_kernel": (30, 40),
}
#: the range announced for a template not measured above
DEFAULT_SECONDS = (5, 60)


def _level() -> int:
    """The level set on the ``crossenvs`` logger or one below it in use, else INFO: the root logger's default
    (WARNING) is not a choice made for this package, so it does not silence the notice."""
    logger: logging.Logger | None = LOGGER
    while logger is not None and logger.name.startswith("crossenvs"):
        if logger.level != logging.NOTSET:
            return logger.level
        logger = logger.parent
    return logging.INFO


def say(text: str, seconds: tuple[int, int] | None = None) -> None:
    """One line about a wait: a log record where logging is set up, else a line on stderr (see the module);
    with ``seconds`` (the wait's estimate) a terminal also gets a progress bar while numba compiles."""
    if os.environ.get("CROSSENVS_COMPILE_NOTICE") == "0" or _level() > logging.INFO:
        return
    if LOGGER.hasHandlers():
        LOGGER.info(text)
        return
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    if seconds is not None and _is_terminal(sys.stderr):
        CompileProgress(sys.stderr, *seconds).start()


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class CompileProgress:
    """A progress bar on a terminal while numba compiles: ``  23 s [#########          ] of about 55-70 s``.

    It follows numba's compile events (``numba:compile``): it draws while a compile runs and for a moment
    after (one template is several functions, compiled one after another), and wipes itself once
    compiling has stopped for ``quiet`` seconds, or when the process exits. It draws nothing when no compile starts within
    ``patience`` seconds of the notice (the first call may come later, or the cache had it after all),
    and gives up, silently, after ``3 * high`` seconds. A daemon thread: it never holds the process up.
    """

    WIDTH = 20

    def __init__(
        self, stream: TextIO, low: int, high: int, tick: float = 0.5, quiet: float = 0.5, patience: float = 10.0
    ) -> None:
        self.stream, self.low, self.high = stream, low, high
        self.tick, self.quiet, self.patience = tick, quiet, patience
        self.depth = 0  # compiles running (numba compiles callees inside their callers)
        self.last_end: float | None = None
        self.seen = False
        self.drawn = False  # a bar is on the line now
        self.lock = threading.Lock()

    def on_start(self, event) -> None:
        with self.lock:
            self.depth += 1
            self.seen = True

    def on_end(self, event) -> None:
        with self.lock:
            self.depth -= 1
            self.last_end = time.monotonic()
        if self.depth == 0:
            self.clear()  # now, in the compiling thread: what the program prints next starts on a clean line

    def start(self) -> None:
        """Listen to numba's compiles and draw from a daemon thread."""
        from numba.core import event  # numba only once something compiles: not on import crossenvs

        progress = self

        class Listener(event.Listener):
            def on_start(self, started) -> None:
                progress.on_start(started)

            def on_end(self, ended) -> None:
                progress.on_end(ended)

        listener = Listener()
        event.register("numba:compile", listener)
        threading.Thread(
            target=self._run, args=(event, listener), name="crossenvs-compile-progress", daemon=True
        ).start()

    def line(self, elapsed: float) -> str:
        """The bar at ``elapsed`` seconds: full at the estimate's high end."""
        filled = min(self.WIDTH, int(self.WIDTH * elapsed / self.high))
        return f"\r  {elapsed:3.0f} s [{'#' * filled}{' ' * (self.WIDTH - filled)}] of about {self.low}-{self.high} s"

    def _busy(self, now: float) -> bool:
        with self.lock:
            return self.depth > 0 or (self.last_end is not None and now - self.last_end < self.quiet)

    def _run(self, event, listener) -> None:
        started = time.monotonic()
        atexit.register(self.clear)  # a process that ends while the bar is up leaves a clean line
        try:
            while True:
                time.sleep(self.tick)
                now = time.monotonic()
                if not self.seen:
                    if now - started > self.patience:
                        return
                    continue
                if not self._busy(now) or now - started > 3 * self.high:
                    return
                with self.lock:
                    if self.depth > 0:  # between two compiles the line stays clear
                        self.stream.write(self.line(now - started))
                        self.stream.flush()
                        self.drawn = True
        finally:
            self.clear()
            event.unregister("numba:compile", listener)
            atexit.unregister(self.clear)

    def clear(self) -> None:
        """Wipe the bar, leaving the cursor where the line began: the notice above stays the wait's one line."""
        with self.lock:
            if self.drawn:
                self.stream.write("\r" + " " * len(self.line(0)) + "\r")
                self.stream.flush()
                self.drawn = False


def compile_seconds(template: str) -> tuple[int, int]:
    """How long a first-use compile of ``template`` takes: the measured range (:data:`COMPILE_SECONDS`)."""
    return COMPILE_SECONDS.get(template, DEFAULT_SECONDS)


def compile_notice(template: str, what: str, game: str) -> str:
    """The line that announces the first-use compile of ``template`` (``what``: it in words) for ``game``."""
    low, high = compile_seconds(template)
    return f"crossenvs: compiling {what} for {game}, first use only (numba caches it; about {low}-{high} s)"
