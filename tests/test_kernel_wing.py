"""The kernel wing (crossenvs/kernels/): a batched kernel's loops are ordinary code beside it, and compile once.

A kernel is written here as a user of the wing would write one: one index's work over a NamedTuple,
its serial loop (an inlined twin) and its parallel loop (calling it) beside it. Then the package's own
kernels are counted: after a vector env and a search have run for two games, no function has a second
compile for an integer literal, the search's game-independent steps have one compile for both games,
and the only code made at run time is the per-game copies of templates.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
from numba import njit, prange
from numba.core.registry import CPUDispatcher

import crossenvs
from crossenvs.kernels import numba_internals, threads
from crossenvs.kernels.launch import DeviceKernel, gather, signature


class Marks(NamedTuple):
    flags: Any  # (n,) bool
    rows: Any  # (n, 3) int8, out
    totals: Any  # (n,) float64, out


@njit(cache=True)
def mark(a: Marks, i) -> None:
    """Writes through the NamedTuple in both branches: what numba dropped when this was inlined into a prange."""
    if a.flags[i]:
        a.rows[i, 0] = 5
        a.totals[i] = 1.5 * i
    else:
        a.rows[i, :] = 0


_mark_inline = threads.inline_twin(mark)


@njit(cache=True)
def mark_rows(a: Marks, start, stop) -> None:
    for i in range(start, stop):
        _mark_inline(a, i)


mark_serial = threads.serial_loop(mark_rows)


@njit(cache=True, parallel=True)
def mark_parallel(*fields) -> None:
    a = Marks(*fields)
    for i in prange(a.flags.shape[0]):
        mark(a, np.int64(i))


def _marks(n: int) -> Marks:
    return gather(Marks, {"flags": np.arange(n) % 3 == 0, "rows": np.full((n, 3), 7, np.int8), "totals": np.zeros(n)})


def test_a_kernels_loops_write_what_it_writes_serially_and_in_parallel():
    results = []

    def parallel_alone(args, size):
        mark_parallel(*args)

    for loops in ((mark_serial, None), (parallel_alone, None), (mark_serial, mark_parallel)):
        marks = _marks(300)
        threads.run(*loops, marks, 300)  # the last: the rule's choice (parallel at 300 games, threads allowing)
        results.append(marks)
    assert mark_serial._entry is not None  # the serial loop went through the body's machine code after its first call
    expected_rows = np.where((np.arange(300) % 3 == 0)[:, None], [5, 7, 7], 0)
    for marks in results:
        np.testing.assert_array_equal(marks.rows, expected_rows)
        np.testing.assert_array_equal(marks.totals, np.where(marks.flags, 1.5 * np.arange(300), 0.0))


@pytest.fixture
def fresh_thread_choices(monkeypatch):
    """threads.run as a fresh process on an idle two-thread machine would run it (no loop loaded, no choice made)."""
    monkeypatch.setattr(threads, "_LOADED", set())
    monkeypatch.setattr(threads, "_CHOICES", {})
    monkeypatch.setattr(threads.numba, "get_num_threads", lambda: 2)
    monkeypatch.setattr(threads, "_CPUS", 2)
    monkeypatch.setattr(threads, "NEIGHBOURS", lambda: 0.0)  # an idle machine, whatever else runs here now
    monkeypatch.setattr(threads.numba, "parallel_chunksize", lambda chunk: __import__("contextlib").nullcontext())


def test_the_rule_runs_small_batches_and_crowded_machines_serially_and_loads_both_loops_first(
    monkeypatch, fresh_thread_choices
):
    calls = []
    serial, parallel = (lambda *a: calls.append("serial")), (lambda *a: calls.append("parallel"))
    threads.run(serial, parallel, (), threads.SERIAL_BELOW - 1)
    threads.run(serial, None, (), 10 * threads.SERIAL_BELOW)  # a kernel with a serial loop only
    monkeypatch.setattr(threads, "NEIGHBOURS", lambda: 0.6)  # a busy neighbour leaves 1.4 cores of 2 ...
    threads.run(serial, parallel, (), threads.SERIAL_BELOW)  # ... but each loop's first call loads it
    threads.run(serial, parallel, (), threads.SERIAL_BELOW)
    threads.run(serial, parallel, (), threads.SERIAL_BELOW)  # then the crowded machine runs serially
    monkeypatch.setattr(threads.numba, "get_num_threads", lambda: 1)
    monkeypatch.setattr(threads, "NEIGHBOURS", lambda: 0.0)
    threads.run(serial, parallel, (), threads.SERIAL_BELOW)
    assert calls == ["serial", "serial", "parallel", "serial", "serial", "serial"]
    assert threads._CHOICES == {}  # no loop was timed: none had a choice to make


class FakeLoops:
    """A serial and a parallel loop whose seconds per game are set by the test, on a fake clock."""

    def __init__(self, serial_per_game: float, parallel_per_game: float) -> None:
        self.now = 0.0
        self.cost = {"serial": serial_per_game, "parallel": parallel_per_game}
        self.calls: list[tuple[str, int]] = []
        self.serial, self.parallel = self._loop("serial"), self._loop("parallel")

    def clock(self) -> float:
        return self.now

    def _loop(self, way: str):
        def loop(size: int) -> None:
            self.calls.append((way, size))
            self.now += self.cost[way] * size

        if way == "serial":  # as a SerialLoop is called: the kernel's NamedTuple (here (size,)) and the size
            return lambda args, size: loop(size)
        return loop  # as a parallel loop is: the NamedTuple's fields

    def share(self, way: str, size: int, last: int) -> float:
        ways = [w for w, s in self.calls if s == size][-last:]
        return ways.count(way) / len(ways)


def test_each_loop_and_batch_shape_runs_the_way_measured_faster(monkeypatch, fresh_thread_choices):
    from functools import partial

    light = FakeLoops(serial_per_game=1e-7, parallel_per_game=1.3e-7)  # threads lose: Connect Four on two vCPUs
    heavy = FakeLoops(serial_per_game=2e-6, parallel_per_game=1.2e-6)  # threads win: Crosse
    for fake in (light, heavy):
        monkeypatch.setattr(threads, "WayChoice", partial(threads.WayChoice, clock=fake.clock))
        for _ in range(3000):
            for size in (64, 1024):
                threads.run(fake.serial, fake.parallel, (size,), size)
    for size in (64, 1024):
        assert light.share("serial", size, last=1000) > 0.9
        assert heavy.share("parallel", size, last=1000) > 0.9
    assert len(threads._CHOICES) == 4  # a choice per loop and batch shape
    assert {way for way, _ in light.calls[-2000:]} == {
        "serial",
        "parallel",
    }  # the losing way is still tried now and then


def test_the_override_is_read_from_the_environment():
    import subprocess

    code = "from crossenvs.kernels import threads; print(threads.SERIAL_BELOW)"
    env = {**__import__("os").environ, "CROSSENVS_SERIAL_BELOW": "1000000"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.stdout.strip() == "1000000", done.stderr


def test_the_ptx_signature_is_the_type_of_the_namedtuple_a_launch_passes():
    (kind,) = signature(_marks(1))
    assert [str(field) for field in kind.types] == ["array(bool, 1d, C)", "array(int8, 2d, C)", "array(float64, 1d, C)"]


def test_a_missing_numba_internal_is_one_error_naming_the_versions_checked():
    with pytest.raises(numba_internals.NumbaInternalsError, match=r"numba 0\.\d+.*\(checked: 0\.68\.1\)"):
        numba_internals.internal(numba_internals, "no_such_hook", "a test")
    for distribution in numba_internals.CHECKED:
        assert numba_internals.installed(distribution) != "not installed"


def test_a_template_copy_keeps_every_line_where_the_template_has_it():
    """A traceback through a per-game copy names the template's line: the kernels' line stays one line."""
    from crossenvs.kernels import game_batch
    from crossenvs.kernels.specialize import specialize

    copy = specialize("crossenvs.kernels.game_batch", crossenvs.game_class("crisscross"))
    template = Path(game_batch.__file__).read_text().splitlines()
    copied = Path(copy.__file__).read_text().splitlines()
    differing = [n for n, (t, c) in enumerate(zip(template, copied), 1) if t != c]
    assert len(differing) == 1 and copied[differing[0] - 1].startswith("from crossenvs.games.crisscross import")
    for name in ("step_games", "step_parallel", "view_games", "step_cuda"):
        function = getattr(getattr(copy, name), "py_func", getattr(copy, name))
        original = getattr(getattr(game_batch, name), "py_func", getattr(game_batch, name))
        assert function.__code__.co_firstlineno == original.__code__.co_firstlineno, name


#: the modules whose every function the search and the vector env compile once: the game-independent steps, and
#: each game's copies of the two templates with their loops (``crossenvs._specialized``; the solver's and
#: MCTS's copies are not counted: other tests call their helpers with other types)
ONCE = (
    "crossenvs.az.search.tree_math",
    "crossenvs.kernels.batch_kernels",
    "crossenvs._specialized.tree",
    "crossenvs._specialized.game_batch",
)


def _dispatchers() -> dict[str, CPUDispatcher]:
    """Every numba function defined in the modules of :data:`ONCE`, by its dotted name."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(ONCE):
            continue
        for attribute, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and getattr(value.py_func, "__module__", None) == name:
                found[f"{name}.{attribute}"] = value
    return found


@pytest.mark.slow
def test_the_search_and_the_vector_env_compile_each_function_once_for_two_games():
    """Counted in the disk cache's index (what a process loads from the cache never compiles what it calls):
    no integer literal gives a function a second compile, and the search's game-independent steps have one
    compile for both games."""
    from crossenvs.az.search.gumbel import GumbelSearch
    from crossenvs.envs.vector import CrossVectorEnv

    for name in ("crisscross", "charing_cross"):
        game = crossenvs.make_game(name, **({"size": 5} if name == "crisscross" else {}))
        env = CrossVectorEnv(game, num_envs=3)
        env.reset(seed=0)
        env.step(env.random_actions())
        search = GumbelSearch(game, 3, 4)

        def evaluate(observations, game=game):
            return np.zeros((len(observations), game.num_actions), np.float32), np.zeros(len(observations), np.float32)

        search.run(env.boards.copy(), env.metas.copy(), evaluate, np.random.default_rng(0))
    compiled = {name: numba_internals.cached_signatures(d) for name, d in _dispatchers().items()}
    assert any(name.startswith("crossenvs._specialized.tree__") for name in compiled)  # the counting sees the copies
    twice = {name: [str(s) for s in signatures] for name, signatures in compiled.items() if len(signatures) > 1}
    assert not twice, twice
    for step in ("backup_then_answer_trees", "sigma_q", "root_action", "interior_action", "q_sign"):
        assert len(compiled[f"crossenvs.az.search.tree_math.{step}"]) == 1, step  # one compile serves both games


# ----------------------------------------------------------------------------- what a cold cache holds
@pytest.mark.slow
def test_a_fresh_cache_after_a_vector_env_and_a_search_holds_template_copies_only(tmp_path):
    """The only code made at run time is the per-game copies of the templates: no loops, no CUDA, no chains."""
    import os
    import subprocess

    code = (
        "import numpy as np, crossenvs\n"
        "from crossenvs.envs.vector import CrossVectorEnv\n"
        "from crossenvs.az.search.gumbel import GumbelSearch\n"
        "from crossenvs.kernels.cache import copies_folder\n"
        "env = CrossVectorEnv('crisscross', num_envs=2, size=4)\n"
        "env.reset(seed=0); env.step(env.random_actions())\n"
        "game = env.game\n"
        "ev = lambda o: (np.zeros((len(o), game.num_actions), np.float32), np.zeros(len(o), np.float32))\n"
        "GumbelSearch(game, 2, 2).run(env.boards.copy(), env.metas.copy(), ev)\n"
        "print(sorted(p.name for p in copies_folder().glob('*.py')))\n"
    )
    env = {**os.environ, "CROSSENVS_CACHE_DIR": str(tmp_path), "CROSSENVS_COMPILE_NOTICE": "0"}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    names = eval(done.stdout.strip().splitlines()[-1])
    assert [name.split("__")[:2] for name in names] == [["game_batch", "crisscross"], ["tree", "crisscross"]], names


# ----------------------------------------------------------------------------- a failed launch says what failed
def _failing_kernel(exc: BaseException):
    class Failing:
        def __getitem__(self, config):
            def launch(*args):
                raise exc

            return launch

    return Failing()


def _launch_raising(monkeypatch, exc: BaseException) -> None:
    from crossenvs.kernels import batch_kernels as bk
    from crossenvs.kernels import launch

    kernel = DeviceKernel(bk.random_actions_cuda, over="actions", label="crisscross")
    monkeypatch.setitem(launch._COMPILED, bk.random_actions_cuda, _failing_kernel(exc))
    args = bk.RandomPick(*(np.zeros(2, dtype) for dtype in (np.int8, np.uint64, np.uint64, np.float64, np.int64)))
    kernel.launch(args)


def test_a_driver_error_at_launch_is_named_as_cuda_names_it_and_never_called_a_compile_error(monkeypatch):
    from numba.cuda.cudadrv.driver import CudaAPIError

    from crossenvs.kernels.cuda import CudaLaunchError

    faults = [
        CudaAPIError(700, "Call to cuCtxSynchronize results in CUDA_ERROR_ILLEGAL_ADDRESS"),
        CudaAPIError(2, "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY"),
        RuntimeError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch"),  # cuda.core's
        CudaAPIError(999, "no name given"),
    ]
    names = [
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "CUDA_ERROR_OUT_OF_MEMORY",
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        "CUDA error 999",
    ]
    for fault, name in zip(faults, names):
        with pytest.raises(CudaLaunchError, match=rf"random_actions failed on the card: {name}") as caught:
            _launch_raising(monkeypatch, fault)
        assert "does not compile" not in str(caught.value)


def test_a_compile_error_at_the_first_launch_says_compile_and_a_callers_error_passes_through(monkeypatch):
    from numba.core.errors import TypingError

    from crossenvs.kernels.specialize import KernelError

    with pytest.raises(KernelError, match=r"random_actions does not compile for CUDA.*cannot type"):
        _launch_raising(monkeypatch, TypingError("cannot type np.zeros"))
    with pytest.raises(ValueError, match="a bad argument"):
        _launch_raising(monkeypatch, ValueError("a bad argument"))


def test_the_installed_cuda_stack_is_within_the_cuda_extras_tested_ranges():
    """The launch path was tested with these (tests/test_host_run.py): an install outside them is not the tested one."""
    from importlib import metadata
    from pathlib import Path

    import tomllib
    from packaging.requirements import Requirement

    extra = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    pinned = [Requirement(line) for line in extra["project"]["optional-dependencies"]["cuda"]]
    assert {r.name for r in pinned} >= {"cuda-core", "cuda-bindings", "nvidia-nvjitlink-cu12"}
    for requirement in pinned:
        assert requirement.specifier.contains(metadata.version(requirement.name)), requirement
