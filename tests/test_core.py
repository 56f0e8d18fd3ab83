"""Core helpers: codecs, frames, square names, bitboards."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from crossenvs.core.geometry import parse_square, square_name
from crossenvs.kernels import codec, frames


def test_move_codec_round_trips_and_is_dense():
    ids = [codec.move_index(sq, d, k, 7) for sq, d, k in itertools.product(range(64), range(8), range(1, 8))]
    assert sorted(ids) == list(range(64 * 8 * 7))
    for index in (0, 1, 55, 3583):
        assert codec.move_index(*codec.move_of(index, 7), 7) == index


def test_square_codec_round_trips():
    for index in range(30):
        assert codec.square_index(*codec.square_of(index, 6), 6) == index


def test_directions_are_the_eight_king_steps():
    assert {tuple(d) for d in codec.DIRECTIONS} == {(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1)} - {(0, 0)}


@pytest.mark.parametrize("frame", [frames.IDENTITY, frames.TRANSPOSE, frames.ROTATE_180])
def test_frames_are_involutions_matching_their_views(frame):
    board = np.arange(25).reshape(5, 5)
    view = frames.board_in_frame(board, frame)
    for r, c in itertools.product(range(5), range(5)):
        br, bc = frames.frame_to_board(r, c, frame, 5, 5)
        assert view[r, c] == board[br, bc]
        assert frames.frame_to_board(br, bc, frame, 5, 5) == (r, c)


def test_square_names():
    assert square_name(0, 0) == "a1" and square_name(9, 9) == "j10"
    assert parse_square("J10", 10, 10) == (9, 9)
    with pytest.raises(ValueError, match="off the 8x8 board"):
        parse_square("a9", 8, 8)


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (6, 6), (8, 8), (10, 10), (11, 11)])
def test_cell_bits_jitted_equals_cell_by_cell(shape):
    """The eight-cells-a-word bitboards match a plain loop, whatever the board size and the codes."""
    from numba import njit

    from crossenvs.kernels.bits import cell_bits

    jitted = njit(lambda board, code: cell_bits(board, code))
    rng = np.random.default_rng(sum(shape))
    for _ in range(50):
        board = rng.integers(-3, 4, size=shape).astype(np.int8)
        for code in range(-3, 4):
            expected = sum(1 << s for s, cell in enumerate(board.ravel()) if cell == code)
            low, high = jitted(board, code)
            assert int(low) | (int(high) << 64) == expected
            assert tuple(cell_bits(board, code)) == (low, high)  # the Python twin (numba off)


def test_reverse_bits_jitted_equals_python():
    from numba import njit

    from crossenvs.kernels.bits import reverse_bits

    jitted = njit(lambda bits: reverse_bits(bits))
    for value in (0, 1, 2**63, 0x0123456789ABCDEF, 2**64 - 1):
        expected = int(f"{value:064b}"[::-1], 2)
        assert jitted(np.uint64(value)) == expected == reverse_bits(np.uint64(value))


def test_crosse_half_turn_bits_is_the_white_frame():
    """A 100-square bitboard turned half round moves square s to 99 - s (crosse.in_frame for White)."""
    from crossenvs.games import crosse

    rng = np.random.default_rng(3)
    for _ in range(50):
        squares = set(rng.choice(100, size=rng.integers(0, 30), replace=False).tolist())
        bits = sum(1 << s for s in squares)
        low, high = crosse.half_turn_bits(np.uint64(bits & (2**64 - 1)), np.uint64(bits >> 64))
        assert int(low) | (int(high) << 64) == sum(1 << crosse.in_frame(s, crosse.WHITE) for s in squares)


def test_importing_the_core_deletes_no_cache_and_first_use_prunes(tmp_path):
    """Importing used to delete other versions' old kernel caches: now the package's first use of its cache does."""
    import os
    import subprocess
    import sys
    import time

    three_days_ago = time.time() - 3 * 86400
    for k in range(8):  # other versions' folders, unused for days
        folder = tmp_path / f"numba-old{k}"
        folder.mkdir()
        os.utime(folder, (three_days_ago - k, three_days_ago - k))
    code = (
        "import crossenvs\n"
        "from crossenvs.kernels import cache as s\n"
        "root = s.cache_root()\n"
        "print(len(list(root.parent.glob('numba-*'))))\n"
        "s.prepared_cache_root()\n"
        "print(len(list(root.parent.glob('numba-*'))))\n"
    )
    env = {**os.environ, "CROSSENVS_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    on_import, on_first_use = done.stdout.split("\n")[:2]
    assert on_import == "9"  # nothing pruned (numba makes this version's folder when it decorates a kernel)
    assert on_first_use == "6"  # this version's folder and the 5 most recently used others (KEEP_VERSIONS)
