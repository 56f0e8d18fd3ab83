"""Bitboard helpers: single-instruction bit counts in numba, plain Python with numba off.

Each is a Python function (what runs under ``NUMBA_DISABLE_JIT=1``, which the contract suite
uses to check the kernels) with a numba overload that compiles to one CPU instruction.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic, overload


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


@intrinsic
def _count_ones(typingctx, bits):
    if not isinstance(bits, types.Integer):
        return None
    return bits(bits), lambda context, builder, signature, args: builder.ctpop(args[0])


@overload(popcount)
def _popcount_jitted(bits):
    """One population-count instruction."""
    return lambda bits: np.int64(_count_ones(bits))
