"""The compiled CUDA code, checked without a GPU: every setup's env and search kernels, built as numba-cuda
builds them for a Hopper card (compute capability 9.0), call no external function, survive the disk cache's
pickling, assemble with ptxas without spills, read int8 arrays byte by byte and hold no fused multiply-add.

Each check is first shown able to fail, on a small kernel with the fault planted in it. The figures
(registers, stack, constant tables per kernel) are printed into the test log.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import types

import crossenvs
from crossenvs.kernels.bits import byte_sum_8, cell_bits, lowest_square, nonzero_bytes, popcount, reverse_bits
from crossenvs.kernels.cuda import DEFAULT_PTX_CC
from crossenvs.kernels.floats import exact_exp
from crossenvs.kernels.portable import flat_view
from crossenvs.kernels.random_pick import legal_at_quantile, random_legal_actions
from crossenvs.selfcheck.compiled_checks import MAX_REGISTERS, MAX_STACK_BYTES, check_kernel, host_callable

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SETUPS = [("crisscross", {}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
          ("crossings", {}), ("neo_crossings", {}), ("tictactoe", {}), ("hex", {"swap": True}), ("connect_four", {})]  # fmt: skip
#: each game's own kernels (checked per setup) and those compiled once for every game (checked once)
PER_GAME = {"step", "init_root", "backup_then_select"}
SHARED = {"random_actions", "backup_then_answer"}


def _game(name: str, options: dict) -> crossenvs.Game:
    if name == "tictactoe":
        sys.path.insert(0, str(EXAMPLES))
        import tictactoe

        return tictactoe.TicTacToe()
    return crossenvs.make_game(name, **options)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), SETUPS, ids=[f"{n}{o.get('size', '')}" for n, o in SETUPS])
def test_every_setups_compiled_kernels_pass_every_check(name, options, capsys):
    from crossenvs.selfcheck import check_compiled_code

    checks = check_compiled_code(_game(name, options), which="per game")
    _passes_every_check(checks, PER_GAME, capsys)


@pytest.mark.slow
def test_the_kernels_every_game_shares_pass_every_check(capsys):
    """Their code is the same whatever the game (their arguments' types are): one setup checks them."""
    from crossenvs.az.search.device import search_kernel_sources
    from crossenvs.envs.device import device_kernel_sources
    from crossenvs.selfcheck import check_compiled_code

    game = _game("crisscross", {})
    _passes_every_check(check_compiled_code(game, which="shared"), SHARED, capsys)
    assert set(device_kernel_sources(game)) | set(search_kernel_sources(game)) == PER_GAME | SHARED  # none unchecked


def _passes_every_check(checks: list, kernels: set[str], capsys) -> None:
    with capsys.disabled():  # the figures belong in the log, passed or not
        print("\n" + "\n".join(check.line() for check in checks))
    assert {check.kernel for check in checks} == kernels
    for check in checks:
        assert check.ok, check.line()
        assert check.spill_bytes == 0 and check.fma == 0
        assert 0 < check.registers <= MAX_REGISTERS and 0 <= check.stack_bytes <= MAX_STACK_BYTES


# ----------------------------------------------------------------------------- each check can fail
def _reshaping(rows, out):
    flat = rows.reshape(rows.size)  # numba-cuda links reshape_funcs.cu for this
    out[0] = flat[3]


def _flat_viewing(rows, out):
    out[0] = flat_view(rows)[3]


TABLE = (types.float32[:, ::1], types.float32[::1])


def test_a_planted_reshape_is_caught_and_flat_view_is_not():
    planted = check_kernel("planted", _reshaping, TABLE, DEFAULT_PTX_CC)
    assert any("external functions numba_attempt_nocopy_reshape" in problem for problem in planted.problems)
    assert any("cannot be cached" in problem for problem in planted.problems)
    assert any("ptxas refuses it" in problem for problem in planted.problems)
    fixed = check_kernel("fixed", _flat_viewing, TABLE, DEFAULT_PTX_CC)
    assert fixed.ok, fixed.line()


def _word_view_of_a_row(masks, out):
    out[0] = masks[1][:8].view(np.uint64)[0]  # row 1 of 121 actions starts at byte 121: misaligned on a card


def _byte_sums_of_a_row(masks, out):
    out[0] = byte_sum_8(masks[1], 0)


MASKS = (types.int8[:, ::1], types.uint64[::1])


def test_a_planted_unaligned_view_is_caught_and_byte_sums_are_not():
    planted = check_kernel("planted", _word_view_of_a_row, MASKS, DEFAULT_PTX_CC)
    assert any("wider than a byte to an int8 array" in problem for problem in planted.problems), planted.line()
    fixed = check_kernel("fixed", _byte_sums_of_a_row, MASKS, DEFAULT_PTX_CC)
    assert fixed.ok, fixed.line()


def _multiply_add(a, out):
    out[0] = a[0] * a[1] + a[2]


def _multiply_add_of_ours(a, out):
    out[0] = exact_exp(a[0] * a[1] + a[2])


_multiply_add_of_ours.__module__ = "crossenvs.planted"  # as a kernel of the package is named in its IR

FLOATS = (types.float64[::1], types.float64[::1])


def test_a_fused_multiply_add_is_caught_and_our_code_has_none():
    """Outside crossenvs NVVM contracts as it likes (the planted fault); our code is compiled with -fma=0."""
    planted = check_kernel("planted", _multiply_add, FLOATS, DEFAULT_PTX_CC)
    assert planted.fma > 0 and any("fused multiply-adds" in problem for problem in planted.problems)
    ours = check_kernel("ours", _multiply_add_of_ours, FLOATS, DEFAULT_PTX_CC)
    assert ours.fma == 0 and ours.ok, ours.line()


# ----------------------------------------------------------------------------- the one exp of both targets
def test_exact_exp_is_within_an_ulp_of_the_cpus_exp():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-40, 40, 20_000), rng.uniform(-745, 709, 5_000), [0.0, -0.0, 1.0, -1e-300]])
    gaps = [abs(int(np.float64(exact_exp(x)).view(np.int64)) - int(np.float64(math.exp(x)).view(np.int64))) for x in xs]
    assert max(gaps) <= 1
    assert exact_exp(-np.inf) == 0.0 and exact_exp(1e4) == np.inf and np.isnan(exact_exp(np.nan))


# ----------------------------------------------------------------------------- the CUDA helpers agree with the CPU's
def _lowest(bits):
    return lowest_square(bits)


def _count(bits):
    return popcount(bits)


def _reverse(bits):
    return reverse_bits(bits)


def _byte_sum(cells, offset):
    return byte_sum_8(cells, offset)


def _nonzero(cells, offset):
    return nonzero_bytes(cells, offset)


def _cells(board, code):
    return cell_bits(board, code)


def _flat_read(table, index):
    return flat_view(table)[index]


def _flat_write(table, index):
    flat = flat_view(table)
    if index >= 0:  # a store in a branch, into an array numba once took for a fresh one, and dropped
        flat[index] = 7
    return flat[0]


def _pick(masks, uniforms, out, j):
    out[j] = legal_at_quantile(masks[j], uniforms[j])
    return out[j]


EDGE_BITS = [1, 2, 3, 1 << 31, 1 << 32, 1 << 62, 1 << 63, (1 << 64) - 1, 0x8000000000000001, 0x00F0F0F0F0F0F0F0,
             0x0123456789ABCDEF]  # fmt: skip
WORD = types.uint64


@pytest.mark.parametrize(
    ("helper", "argument_types", "cases"),
    [
        (_lowest, (WORD,), [(bits,) for bits in EDGE_BITS]),
        (_count, (WORD,), [(bits,) for bits in [0, *EDGE_BITS]]),
        (_reverse, (WORD,), [(bits,) for bits in [0, *EDGE_BITS]]),
    ],
    ids=["ffs", "popc", "brev"],
)
def test_the_cuda_bit_helpers_compute_what_the_cpu_helpers_do(helper, argument_types, cases):
    from numba import njit

    on_cuda, on_cpu = host_callable(helper, argument_types), njit(helper)
    for case in cases:
        words = tuple(np.uint64(value) for value in case)
        assert int(on_cuda(*case)) == int(on_cpu(*words)), (helper.__name__, hex(case[0]))


def test_the_cuda_byte_loops_compute_what_the_cpu_loops_do():
    """Byte sums, nonzero bytes, board bitboards, flat views and the random pick, at odd offsets and odd row lengths."""
    from numba import njit

    rng = np.random.default_rng(7)
    cells = (rng.random(200) < 0.4).astype(np.int8)
    cells[[0, 7, 8, 63, 64, 127, 199]] = 1
    for helper, scalar in ((_byte_sum, types.intp), (_nonzero, types.intp)):
        on_cuda, on_cpu = host_callable(helper, (types.int8[::1], scalar)), njit(helper)
        top = 192 if helper is _byte_sum else 136
        for offset in (0, 1, 3, 7, 8, 61, 121, top):
            assert int(on_cuda(cells, offset)) == int(on_cpu(cells, offset)), (helper.__name__, offset)
    board_cells = host_callable(_cells, (types.int8[:, ::1], types.int64))
    for shape in ((3, 3), (8, 8), (11, 11), (10, 10)):
        board = rng.integers(-1, 3, size=shape).astype(np.int8)
        for code in (-1, 0, 1, 2):
            assert board_cells(board, code) == tuple(int(v) for v in njit(_cells)(board, code)), (shape, code)
    table = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    read = host_callable(_flat_read, (types.int64[:, :, ::1], types.intp))
    assert [read(table, i) for i in (0, 5, 23)] == [0, 5, 23]
    for write in (host_callable(_flat_write, (types.int64[:, :, ::1], types.intp)), njit(_flat_write)):
        written = table.copy()
        write(written, 13)
        assert written.reshape(-1)[13] == 7 and written.reshape(-1)[12] == 12, "a store through flat_view was lost"
    masks = (rng.random((5, 121)) < 0.3).astype(np.int8)  # rows start at odd bytes, as on the device
    masks[3] = 0
    uniforms, out = rng.random(5), np.zeros(5, dtype=np.int64)
    pick = host_callable(_pick, (types.int8[:, ::1], types.float64[::1], types.int64[::1], types.int64))
    expected = np.zeros(5, dtype=np.int64)
    random_legal_actions(masks, uniforms, expected)
    assert [pick(masks, uniforms, out, j) for j in range(5)] == expected.tolist() and expected[3] == -1


def test_ptxas_is_the_extras_else_a_toolkits_on_the_path(tmp_path, monkeypatch):
    """A GPU machine's image may have the CUDA toolkit's ptxas and no nvidia-cuda-nvcc wheel (the device image
    here: CUDA 13 in /usr/local/cuda): the checks then use that one rather than refuse."""
    import importlib.util

    from crossenvs.selfcheck import compiled_checks

    wheel = compiled_checks.ptxas_path()
    assert wheel.parent.parent.name == "cuda_nvcc"  # the cuda extra's, first
    (tmp_path / "ptxas").write_text("#!/bin/sh\n")
    (tmp_path / "ptxas").chmod(0o755)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "nvidia.cuda_nvcc" else real_find_spec(name)
    )
    monkeypatch.setenv("PATH", str(tmp_path))
    assert compiled_checks.ptxas_path() == tmp_path / "ptxas"
