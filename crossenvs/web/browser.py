"""Driving the page in a real browser: a ``crossenvs serve`` process and the system's headless Chromium.

Used by ``tests/test_serve_browser.py`` and ``examples/serve_screenshots.py``. The browser is the
distribution's (Debian's ``chromium``, ``make chromium`` installs it), driven by Playwright's
Python package pointed at it with ``executable_path``: nothing is downloaded. ``CROSSENVS_CHROMIUM``
names another binary.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from crossenvs.support.errors import CrossenvsError
from crossenvs.support.extras import install_hint

#: where Chromium is looked for, in order, after ``$CROSSENVS_CHROMIUM``
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: seconds a server may take to print its URL (imports, not numba: kernels load on the first game)
START_SECONDS = 60


class BrowserMissingError(CrossenvsError, RuntimeError):
    """No Chromium binary, or no Playwright package, to drive the page with."""


class ServerStartError(CrossenvsError, RuntimeError):
    """``crossenvs serve`` exited, or printed no URL, instead of serving."""


def find_chromium() -> str:
    """The Chromium binary to drive; :class:`BrowserMissingError` saying how to install one."""
    named = os.environ.get("CROSSENVS_CHROMIUM")
    if named:
        if Path(named).is_file() and os.access(named, os.X_OK):
            return named
        raise BrowserMissingError(f"CROSSENVS_CHROMIUM={named} is not an executable file")
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserMissingError(
        "no Chromium found (looked for " + ", ".join(CHROMIUM_NAMES) + "): run `make chromium` "
        "(apt-get install chromium), or set CROSSENVS_CHROMIUM to a Chromium binary"
    )


def free_port() -> int:
    """A port nobody listens on now (the server binds it a moment later; a clash is retried)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served(arguments: Sequence[str] = (), tries: int = 3) -> Iterator[str]:
    """``crossenvs serve`` in a child process on a free port; yields its URL and stops it after."""
    for attempt in range(tries):
        port = free_port()
        command = [sys.executable, "-m", "crossenvs.cli", "serve", "--port", str(port), *arguments]
        with tempfile.TemporaryFile("w+") as log:  # a file, not a pipe: a chatty server never blocks on it
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
            try:
                url = _wait_for_url(process, log)
            except ServerStartError as exc:
                _stop(process)
                if attempt + 1 == tries or "in use" not in str(exc):
                    raise
                continue
            try:
                yield url
            finally:
                _stop(process)
            return


def _wait_for_url(process: subprocess.Popen, log) -> str:
    """The URL the server prints once it listens; an error with its stderr if it exits first."""
    deadline = time.monotonic() + START_SECONDS
    assert process.stdout is not None
    while time.monotonic() < deadline:
        if not select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
            break
        line = process.stdout.readline()  # the server writes and flushes whole lines
        if "http://" in line:
            return line[line.index("http://") :].split()[0]
        if not line and process.poll() is not None:
            log.seek(0)
            raise ServerStartError(f"crossenvs serve exited ({process.returncode}): {log.read().strip()}")
    raise ServerStartError(f"crossenvs serve printed no URL within {START_SECONDS} s")


def _stop(process: subprocess.Popen) -> None:
    """Stop the server we started (by its own handle), waiting a little before killing it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()


@contextmanager
def chromium_page(width: int = 1280, height: int = 900) -> Iterator[object]:
    """A Playwright page in headless Chromium (the system's); closed after."""
    executable = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BrowserMissingError(
            f"the browser tests need Playwright, which comes with the dev extra: {install_hint('dev')}"
        ) from None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()
