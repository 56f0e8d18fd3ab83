"""The kernel wing (crossenvs/kernels/): a batched kernel declared once serves both CPU loops and CUDA, and compiles once.

A kernel is declared here, in this module, as a user of the wing would declare one; its loops are
generated from the declaration. Then the package's own kernels are counted: after a vector env and a
search have run for two games, no function has a second compile for an integer literal, and the
search's game-independent steps have one compile for both games.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np
import pytest
from numba import njit
from numba.core.registry import CPUDispatcher

import crossenvs
from crossenvs.kernels import numba_internals
from crossenvs.kernels.batched import KernelDeclarationError, batched, gather, kernels_of


class Marks(NamedTuple):
    flags: Any  # (n,) bool
    rows: Any  # (n, 3) int8, out
    totals: Any  # (n,) float64, out


@batched(over="flags")
@njit(cache=True)
def mark(a: Marks, i) -> None:
    """Writes through the NamedTuple in both branches: what numba dropped when this was inlined into a prange."""
    if a.flags[i]:
        a.rows[i, 0] = 5
        a.totals[i] = 1.5 * i
    else:
        a.rows[i, :] = 0


@batched(over="flags", parallel=False)
@njit(cache=True)
def tally(a: Marks, i) -> None:
    """A kernel too cheap for threads: its serial loop only."""
    a.totals[i] += 1.0


@njit(inline="always")
def inlined(a: Marks, i) -> None:
    a.totals[i] = 1.0


def _marks(n: int) -> Marks:
    return gather(Marks, {"flags": np.arange(n) % 3 == 0, "rows": np.full((n, 3), 7, np.int8), "totals": np.zeros(n)})


def test_a_declared_kernels_loops_write_what_it_writes_serially_and_in_parallel():
    kernel = kernels_of(sys.modules[__name__]).mark
    results = []
    for loop in (kernel.serial, kernel.parallel, kernel):  # the kernel itself: the runner's choice
        marks = _marks(300)
        loop(marks)
        results.append(marks)
    expected_rows = np.where((np.arange(300) % 3 == 0)[:, None], [5, 7, 7], 0)
    for marks in results:
        np.testing.assert_array_equal(marks.rows, expected_rows)
        np.testing.assert_array_equal(marks.totals, np.where(marks.flags, 1.5 * np.arange(300), 0.0))


def test_a_kernel_declared_serial_has_one_loop_and_no_runner():
    kernel = kernels_of(sys.modules[__name__]).tally
    assert kernel.runner is None and kernel.parallel is kernel.serial
    assert not hasattr(sys.modules[kernel.serial.py_func.__module__], "tally_parallel")  # never generated
    marks = _marks(200)
    kernel(marks)
    np.testing.assert_array_equal(marks.totals, np.ones(200))


def test_the_ptx_signature_is_the_type_of_the_namedtuple_a_launch_passes():
    kernel = kernels_of(sys.modules[__name__]).mark
    (signature,) = kernel.signature(_marks(1))
    assert [str(field) for field in signature.types] == [
        "array(bool, 1d, C)",
        "array(int8, 2d, C)",
        "array(float64, 1d, C)",
    ]
    assert kernel.size(_marks(17)) == 17


def test_a_declaration_the_loops_cannot_serve_is_one_error():
    with pytest.raises(KernelDeclarationError, match="must not be inline"):
        batched(over="flags")(inlined)
    with pytest.raises(KernelDeclarationError, match="module-level"):

        def outer():
            @njit
            def nested(a, i):
                pass

            return nested

        batched(over="flags")(outer())
    with pytest.raises(KernelDeclarationError, match="must name a field"):
        batched(over="not a field")
    with pytest.raises(KernelDeclarationError, match="declares no batched kernel"):
        kernels_of("crossenvs.core.state")


def test_a_missing_numba_internal_is_one_error_naming_the_versions_checked():
    with pytest.raises(numba_internals.NumbaInternalsError, match=r"numba 0\.\d+.*\(checked: 0\.68\.1\)"):
        numba_internals.internal(numba_internals, "no_such_hook", "a test")
    for distribution in numba_internals.CHECKED:
        assert numba_internals.installed(distribution) != "not installed"


#: the modules whose every function the search and the vector env compile once: the game-independent steps, and
#: each game's copies of the two templates and the generated loops (``crossenvs._specialized``; the solver's and
#: MCTS's copies are not counted: other tests call their helpers with other types)
ONCE = (
    "crossenvs.az.tree_math",
    "crossenvs.envs.batch_kernels",
    "crossenvs._specialized.tree",
    "crossenvs._specialized.game_batch",
    "crossenvs._specialized.batch_kernels",
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
    from crossenvs.az.search import GumbelSearch
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
    for step in ("expand_and_backup", "sigma_q", "root_action", "interior_action", "q_sign"):
        assert len(compiled[f"crossenvs.az.tree_math.{step}"]) == 1, step  # one compile serves both games
    (loops,) = {name.rpartition(".")[0] for name in compiled if ".tree_math__loops__" in name}  # one for every game
    for loop in ("root_result_serial", "expand_and_backup_serial", "expand_and_backup_parallel"):
        assert len(compiled[f"{loops}.{loop}"]) == 1, loop


# ----------------------------------------------------------------------------- the cache, keyed per game
PACKAGE = {
    "core/engine.py": "X = 1\n",
    "games/__init__.py": "BUILT_IN = ['a', 'b', 'pkg']\n",
    "games/a.py": "from . import shared\n",
    "games/b.py": "from ..core import engine\n",
    "games/shared.py": "MOVES = 1\n",
    "games/pkg/__init__.py": "from .rules import step\n",
    "games/pkg/tables.py": "TABLE = [1, 2]\n",
    "games/pkg/rules.py": "from .tables import TABLE\n\ndef step():\n    return TABLE\n",
}


def _keys(tmp_path, name: str, edit: str | None = None) -> dict[str, str]:
    """The engine's key and each game's, for a copy of :data:`PACKAGE` with one file edited."""
    from crossenvs.kernels.cache import game_hash, package_hash

    root = tmp_path / name / "crossenvs"
    for path, text in PACKAGE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text + ("# edited\n" if path == edit else ""))
    return {"engine": package_hash(root), **{g: game_hash(root / "games" / g, root) for g in ("a.py", "b.py", "pkg")}}


def test_an_edit_to_one_game_changes_that_games_cache_key_only(tmp_path):
    """What numba caches of a game goes to a folder named by these keys (kernels.cache.game_cache_folder)."""
    before = _keys(tmp_path, "before")
    assert _keys(tmp_path, "same") == before  # the keys depend on the sources, not on where they are

    def changed(edit: str) -> set[str]:
        after = _keys(tmp_path, edit.replace("/", "_"), edit)
        return {key for key in before if after[key] != before[key]}

    assert changed("games/b.py") == {"b.py"}
    assert changed("games/shared.py") == {"a.py"}  # a imports it: a's compiled code holds shared's
    assert changed("games/pkg/tables.py") == {"pkg"}  # a game's tables are part of its key
    assert changed("games/__init__.py") == {"engine"}  # the list of games is the engine's
    assert changed("core/engine.py") == {"engine"}  # an engine edit moves the whole cache (games included)


def test_a_games_functions_are_cached_in_a_folder_of_that_game():
    from crossenvs.games import crossings
    from crossenvs.kernels.cache import cache_root, game_cache_folder

    folder = game_cache_folder(crossings.__file__)
    assert folder is not None and folder.parent == cache_root() / "games" and folder.name.startswith("crossings-")
    assert crossings.frozen_squares._cache._cache_path == str(folder)
    assert game_cache_folder(crossenvs.kernels.cache.__file__) is None


# ----------------------------------------------------------------------------- a failed launch says what failed
def _failing_kernel(exc: BaseException):
    class Failing:
        def __getitem__(self, config):
            def launch(*args):
                raise exc

            return launch

    return Failing()


def _launch_raising(monkeypatch, exc: BaseException) -> None:
    from crossenvs.envs import batch_kernels as bk
    from crossenvs.kernels.batched import kernels_of

    kernel = kernels_of(bk).random_actions
    monkeypatch.setattr(kernel, "_cuda_kernel", _failing_kernel(exc))
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
