"""A pytest plugin that logs every numba compile with the test that caused it, to find where cold time goes.

Enabled by ``CROSSENVS_COMPILE_LOG=<folder>`` (tests/conftest.py loads it then, and only then): each process
(each xdist worker) appends one JSON line per compile to ``<folder>/<worker>.jsonl`` with the function, its
argument types, the test file running at the time, the nesting depth (a compile that triggers the compile
of a callee nests inside it) and the compiling thread's CPU seconds and wall seconds. A compile served from
the on-disk cache raises no event, so a warm run logs nothing. ``python tests/compile_log.py <folder>``
sums the log per file (its tests' seconds too: each test's start and end go to ``<folder>/<worker>.tests``;
``LONG_FILES`` in tests/conftest.py is read from them) and lists the functions that more than one worker
compiled.

It uses numba's public event API (``numba.core.event``, kind ``numba:compile``), so it reads the compiler
without touching it. CPU compiles only: CUDA kernels compile on a GPU (numba-cuda has an event module of
its own) and not at all under the simulator.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from numba.core import event

_current = {"file": "<collection>"}


class _CompileLog(event.Listener):
    def __init__(self, path: Path):
        self.path = path
        self.stack: list[tuple[float, float]] = []

    def on_start(self, ev):
        self.stack.append((time.thread_time(), time.perf_counter()))

    def on_end(self, ev):
        cpu0, wall0 = self.stack.pop()
        data = ev.data or {}
        dispatcher = data.get("dispatcher")
        py_func = getattr(dispatcher, "py_func", None)
        name = f"{getattr(py_func, '__module__', '?')}.{getattr(py_func, '__qualname__', repr(dispatcher))}"
        record = {
            "file": _current["file"],
            "function": name,
            "args": str(data.get("args")),
            "depth": len(self.stack),
            "cpu": round(time.thread_time() - cpu0, 4),
            "wall": round(time.perf_counter() - wall0, 4),
        }
        with self.path.open("a") as out:
            out.write(json.dumps(record) + "\n")


_listener: _CompileLog | None = None


def pytest_configure(config):
    global _listener, _test_log
    folder = Path(os.environ["CROSSENVS_COMPILE_LOG"])
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _listener = _CompileLog(folder / f"{worker}.jsonl")
    _test_log = folder / f"{worker}.tests"
    event.register("numba:compile", _listener)


_test_log: Path | None = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _current["file"] = item.nodeid.split("::")[0]
    start = time.time()
    yield
    if _test_log is not None:
        with _test_log.open("a") as out:
            out.write(json.dumps({"test": item.nodeid, "start": start, "end": time.time()}) + "\n")


def summarize(folder: Path) -> None:
    """Per file: its tests' seconds, its worker, and the CPU seconds of the compiles it caused (top-level ones, so
    a callee's compile is not counted twice); then the functions that more than one worker compiled."""
    seconds: dict[str, float] = defaultdict(float)
    ran_on: dict[str, str] = {}
    for log in sorted(folder.glob("*.tests")):
        for line in log.read_text().splitlines():
            r = json.loads(line)
            file = r["test"].split("::")[0]
            seconds[file] += r["end"] - r["start"]
            ran_on[file] = log.stem
    compile_cpu: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    compiled_by: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for log in sorted(folder.glob("*.jsonl")):
        worker = log.stem
        for line in log.read_text().splitlines():
            r = json.loads(line)
            if r["depth"] == 0:
                compile_cpu[r["file"]] += r["cpu"]
                count[r["file"]] += 1
            key = (r["function"], r["args"])
            compiled_by[key][worker] = compiled_by[key].get(worker, 0.0) + r["cpu"]
    print(f"{'file':46s} {'worker':>6s} {'test s':>7s} {'compile cpu s':>13s} {'compiles':>8s}")
    for file in sorted(set(seconds) | set(compile_cpu), key=lambda f: -seconds.get(f, 0.0)):
        print(
            f"{file:46s} {ran_on.get(file, '-'):>6s} {seconds.get(file, 0.0):7.1f} {compile_cpu[file]:13.1f} {count[file]:8d}"
        )
    print(f"{'total':46s} {'':>6s} {sum(seconds.values()):7.1f} {sum(compile_cpu.values()):13.1f}")
    dupes = {k: v for k, v in compiled_by.items() if len(v) > 1}
    both = sum(min(v.values()) for v in dupes.values())
    print(f"\n{len(dupes)} (function, signature) pairs compiled by more than one worker ({both:.1f} CPU s twice):")
    for (function, args), workers in sorted(dupes.items(), key=lambda kv: -sum(kv[1].values()))[:30]:
        print(f"  {function} {args[:80]}  {dict((w, round(s, 1)) for w, s in workers.items())}")


if __name__ == "__main__":
    summarize(Path(sys.argv[1]))
