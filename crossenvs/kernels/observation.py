"""Observation helpers: egocentric one-hot planes computed in numba.

Every game's observation starts with piece planes (own pieces in plane 0, docs/README.md, conventions) taken
in the observing player's frame; a game adds the planes the board alone does not show.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from crossenvs.kernels.frames import IDENTITY, TRANSPOSE, frame_to_board
from crossenvs.kernels.portable import flat_view
from crossenvs.kernels.targets import on_cuda_target


@njit(cache=True, inline="always")
def _seat_cell(cell: int, mine: int, theirs: int, out: np.ndarray, row: int, col: int) -> None:
    """One cell of the two seat planes: 1.0 in plane 0 for the observer's piece, in plane 1 for the opponent's."""
    out[row, col, 0] = np.float32(cell == mine)
    out[row, col, 1] = np.float32(cell == theirs)


@njit(cache=True)
def fill_seat_planes(board: np.ndarray, frame: int, player: int, out: np.ndarray) -> None:
    """Planes 0/1: ``player``'s / the opponent's pieces seen in ``frame``, in the games with one kind of piece a
    side whose seat ``s`` plays code ``s + 1`` (Connect Four, Crisscross, Hex).

    Only planes 0 and 1 are written, with no loop per plane: each cell is a load and two stores. In the
    board's own frame, with no other plane, both arrays are read flat, which the compiler widens; the
    transposed frame has a loop of its own, not :func:`~crossenvs.kernels.frames.frame_to_board` per cell. The observation was most of a Hex
    step's numba time (about 260 of 640 ns; 130 with the loops per frame, 60 flat).
    """
    mine, theirs = player + 1, 2 - player
    height, width = out.shape[0], out.shape[1]
    if frame == IDENTITY and out.shape[2] == 2:  # the board's own order: a cell after the other
        cells, planes = flat_view(board), flat_view(out)
        for k in range(height * width):
            cell = cells[k]
            planes[2 * k] = np.float32(cell == mine)
            planes[2 * k + 1] = np.float32(cell == theirs)
    elif frame == TRANSPOSE:  # Hex's and Crisscross's second seat: its own loop, the frame out of it
        for r in range(height):
            for c in range(width):
                _seat_cell(board[c, r], mine, theirs, out, r, c)
    else:  # any other frame or plane count (Hex's first seat with the swap plane), cell by cell
        for r in range(height):
            for c in range(width):
                br, bc = frame_to_board(r, c, frame, height, width)
                _seat_cell(board[br, bc], mine, theirs, out, r, c)


@njit(cache=True, inline="always")
def pass_and_cap_values(passes: int, ply: int, move_cap: int) -> tuple[float, float]:
    """The two constant planes of every game with passes and a move cap.

    A pass pending (1.0 when the previous turn was a pass, so one more draws) and the progress
    to the cap (plies / cap, at most 1): neither shows on the board, and both decide draws.
    """
    return (1.0 if passes == 1 else 0.0), min(1.0, ply / move_cap)


@functools.cache
def float32_copier(count: int) -> Callable[[np.ndarray, int, np.ndarray, int], None]:
    """A function ``copy(dst, dst_start, src, src_start)``: ``count`` float32s, in numba one fixed-size copy.

    Why: an observation is mostly planes that are constant over the board (tokens, flags), and
    storing them one float at a time costs more than everything else a step does. Built once
    per game as a row of ``count`` floats and copied cell by cell, the copy compiles to a few
    wide moves. Jitted, both arrays must be C-contiguous float32 (checked when compiled) and
    the ranges are the caller's to keep in bounds (not checked: this is the hot path); with
    numba off it is a slice assignment.
    """
    nbytes = 4 * count

    def copy(dst: np.ndarray, dst_start: int, src: np.ndarray, src_start: int) -> None:
        dst[dst_start : dst_start + count] = src[src_start : src_start + count]

    @intrinsic
    def raw_copy(typingctx, dst, dst_start, src, src_start):
        def codegen(context, builder, signature, args):
            target = context.make_array(signature.args[0])(context, builder, args[0])
            source = context.make_array(signature.args[2])(context, builder, args[2])
            to = cgutils.gep(builder, target.data, args[1])
            start = cgutils.gep(builder, source.data, args[3])
            cgutils.raw_memcpy(builder, to, start, context.get_constant(types.intp, nbytes), 1)
            return context.get_dummy_value()

        return types.void(dst, types.intp, src, types.intp), codegen

    @overload(copy)
    def jitted_copy(dst, dst_start, src, src_start):
        for array in (dst, src):
            if not (isinstance(array, types.Array) and array.dtype == types.float32 and array.layout == "C"):
                raise TypeError(f"float32_copier needs C-contiguous float32 arrays, got {array}")
        return lambda dst, dst_start, src, src_start: raw_copy(dst, dst_start, src, src_start)

    @on_cuda_target
    def _register_cuda_copy() -> None:
        from numba.cuda.extending import overload as cuda_overload

        @cuda_overload(copy)
        def cuda_copy(dst, dst_start, src, src_start):
            def impl(dst, dst_start, src, src_start):
                for k in range(count):
                    dst[dst_start + k] = src[src_start + k]

            return impl

    return copy
