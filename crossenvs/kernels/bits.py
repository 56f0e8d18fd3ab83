"""Bitboard helpers: single-instruction bit counts in numba, plain Python with numba off.

Each is a Python function (what runs under ``NUMBA_DISABLE_JIT=1``, which the contract suite
uses to check the kernels) with a numba overload that compiles to one CPU instruction; the
byte-wise (SWAR) helpers are plain arithmetic, the same with numba on or off.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic, overload

from crossenvs.kernels.targets import on_cuda_target


def lowest_square(bits: np.uint64) -> int:
    """The index of the lowest set bit of non-zero ``bits``."""
    return (int(bits) & -int(bits)).bit_length() - 1


@overload(lowest_square)
def _lowest_square_jitted(bits):
    """One count-trailing-zeros instruction."""
    return lambda bits: np.int64(trailing_zeros(bits))


def popcount(bits: np.uint64) -> int:
    """How many bits of ``bits`` are set."""
    return int(bits).bit_count()


def _one_instruction(name: str):
    """An intrinsic that lowers an integer argument through LLVM's ``name`` (``ctpop``, ``bitreverse``)."""

    def call(typingctx, bits):
        if not isinstance(bits, types.Integer):
            return None
        return bits(bits), lambda context, builder, signature, args: getattr(builder, name)(args[0])

    call.__name__ = call.__qualname__ = f"llvm_{name}"
    return intrinsic(call)


_count_ones = _one_instruction("ctpop")
_reverse = _one_instruction("bitreverse")


@overload(popcount)
def _popcount_jitted(bits):
    """One population-count instruction."""
    return lambda bits: np.int64(_count_ones(bits))


def reverse_bits(bits: np.uint64) -> np.uint64:
    """``bits`` with its 64 bits in the opposite order (bit 0 becomes bit 63)."""
    return np.uint64(int(f"{int(bits):064b}"[::-1], 2))


@overload(reverse_bits)
def _reverse_bits_jitted(bits):
    """One bit-reverse (a few instructions on x86)."""
    return lambda bits: _reverse(np.uint64(bits))


def cell_bits(board: np.ndarray, code: int) -> tuple[np.uint64, np.uint64]:
    """Where a C-contiguous int8 board of at most 128 cells holds ``code``: bit ``s`` of (low, high) is flat cell ``s``.

    Jitted, eight cells at a time (one uint64 word, compared byte-wise and packed to 8 bits, see
    :func:`_word_matches`): a cell-by-cell loop of shifts costs about ten times as much, and
    games build these bitboards for every mask.
    """
    low, high = 0, 0
    for square, cell in enumerate(board.reshape(-1)):
        if cell == code:
            if square < 64:
                low |= 1 << square
            else:
                high |= 1 << (square - 64)
    return np.uint64(low), np.uint64(high)


_LOW_7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_LOWEST_BITS = np.uint64(0x0101010101010101)
_GATHER = np.uint64(0x0102040810204080)  # moves bit 8i to bit 56 + i, for i in 0..7


def _word_matches(word: np.uint64, pattern: np.uint64) -> np.uint64:
    """8 bits: bit i set iff byte i of ``word`` equals byte i of ``pattern`` (SWAR, no carries between bytes)."""
    x = word ^ pattern  # zero bytes where equal
    nonzero_low = (x & _LOW_7) + _LOW_7  # high bit set iff the byte's low 7 bits are not all zero
    zero = ~(nonzero_low | x | _LOW_7)  # high bit set iff the whole byte is zero
    return ((zero >> np.uint64(7)) * _GATHER) >> np.uint64(56)


def nonzero_bytes(cells: np.ndarray, offset: int) -> np.uint64:
    """Bit ``i`` set iff ``cells[offset + i]`` is nonzero, for the 64 int8 cells from ``offset`` (in bounds: not checked)."""
    return np.uint64(sum(1 << i for i in range(64) if cells[offset + i]))


@intrinsic
def _nonzero_bytes_vector(typingctx, cells, offset):
    """One 64-byte load compared with zero as a vector: a few SIMD instructions on x86 (compare, movemask)."""

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        vector = ir.VectorType(ir.IntType(8), 64)
        pointer = builder.bitcast(builder.gep(array.data, [args[1]]), vector.as_pointer())
        nonzero = builder.icmp_unsigned("!=", builder.load(pointer, align=1), ir.Constant(vector, None))
        return builder.bitcast(nonzero, ir.IntType(64))

    return types.uint64(cells, types.intp), codegen


@overload(nonzero_bytes)
def _nonzero_bytes_jitted(cells, offset):
    if not (isinstance(cells, types.Array) and cells.dtype == types.int8 and cells.layout == "C"):
        raise TypeError(f"nonzero_bytes needs a C-contiguous int8 array (it reads 64 bytes at once), got {cells}")
    return lambda cells, offset: _nonzero_bytes_vector(cells, offset)


@intrinsic
def _load_word(typingctx, cells, offset):
    """The 8 bytes of the int8 array ``cells`` from ``offset`` on, as one little-endian uint64 (no bounds check)."""

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        start = builder.gep(array.data, [args[1]])
        pointer = builder.bitcast(start, ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return types.uint64(cells, types.intp), codegen


def byte_sum_8(cells: np.ndarray, offset: int) -> int:
    """The sum of the 8 bytes ``cells[offset:offset + 8]`` of a 1-d int8 array of 0/1 bytes (in bounds: not checked).

    On the CPU one unaligned word load and one multiplication (a word of 0/1 bytes times
    0x0101010101010101 holds its byte sum in the top byte); on a GPU eight byte loads, since a
    word load there must be 8-byte aligned and a mask row need not be (a row of 121 actions starts
    at byte 121 j).
    """
    return int(np.sum(cells[offset : offset + 8]))


@overload(byte_sum_8)
def _byte_sum_8_jitted(cells, offset):
    if not (isinstance(cells, types.Array) and cells.dtype == types.int8 and cells.ndim == 1 and cells.layout == "C"):
        raise TypeError(f"byte_sum_8 needs a 1-d C-contiguous int8 array (it reads whole words), got {cells}")
    ones, top_byte = np.uint64(0x0101010101010101), np.uint64(56)
    return lambda cells, offset: np.int64((_load_word(cells, offset) * ones) >> top_byte)


@overload(cell_bits)
def _cell_bits_jitted(board, code):
    if not (isinstance(board, types.Array) and board.dtype == types.int8 and board.layout == "C"):
        raise TypeError(f"cell_bits needs a C-contiguous int8 board (it reads whole words), got {board}")
    word_matches = njit(_word_matches, inline="always")

    def impl(board, code):
        cells = board.size
        low, high = np.uint64(0), np.uint64(0)
        if cells < 8:  # no whole word to read
            flat = board.reshape(cells)
            for square in range(cells):
                if flat[square] == code:
                    low |= np.uint64(1) << np.uint64(square)
            return low, high
        pattern = np.uint64(code & 0xFF) * _LOWEST_BITS
        whole = cells // 8
        for w in range(whole):
            matches = word_matches(_load_word(board, 8 * w), pattern)
            if w < 8:
                low |= matches << np.uint64(8 * w)
            else:
                high |= matches << np.uint64(8 * (w - 8))
        rest = cells - 8 * whole
        if rest:  # the last 8 bytes, of which the top ``rest`` are new
            matches = word_matches(_load_word(board, cells - 8), pattern) >> np.uint64(8 - rest)
            if whole < 8:
                low |= matches << np.uint64(8 * whole)
            else:
                high |= matches << np.uint64(8 * (whole - 8))
        return low, high

    return impl


@on_cuda_target
def _register_cuda_bits() -> None:
    """The same helpers on a GPU: ``ffs``, ``popc`` and ``brev`` are single instructions there too,
    and the board (or cells) are read a byte at a time (a GPU has no unaligned word loads)."""
    from numba import cuda
    from numba.cuda.extending import overload as cuda_overload

    @cuda_overload(lowest_square)
    def _lowest_square_cuda(bits):
        return lambda bits: np.int64(cuda.ffs(np.uint64(bits))) - 1

    @cuda_overload(popcount)
    def _popcount_cuda(bits):
        return lambda bits: np.int64(cuda.popc(np.uint64(bits)))

    @cuda_overload(reverse_bits)
    def _reverse_bits_cuda(bits):
        return lambda bits: np.uint64(cuda.brev(np.uint64(bits)))

    @cuda_overload(nonzero_bytes)
    def _nonzero_bytes_cuda(cells, offset):
        def impl(cells, offset):
            bits = np.uint64(0)
            for i in range(64):
                if cells[offset + i]:
                    bits |= np.uint64(1) << np.uint64(i)
            return bits

        return impl

    @cuda_overload(byte_sum_8)
    def _byte_sum_8_cuda(cells, offset):
        def impl(cells, offset):
            total = np.int64(0)
            for i in range(8):
                total += cells[offset + i]
            return total

        return impl

    @cuda_overload(cell_bits)
    def _cell_bits_cuda(board, code):
        def impl(board, code):
            low, high = np.uint64(0), np.uint64(0)
            height, width = board.shape
            for square in range(height * width):
                if board[square // width, square % width] == code:
                    if square < 64:
                        low |= np.uint64(1) << np.uint64(square)
                    else:
                        high |= np.uint64(1) << np.uint64(square - 64)
            return low, high

        return impl
