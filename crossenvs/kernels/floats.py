"""Floating point that gives the same bits on the CPU and on a GPU.

The device search must choose exactly what the CPU search chooses, and a search is a chain of
near-ties: one last bit that differs flips a comparison and the trees part ways. Two things made
the targets differ. NVVM fuses a multiply and an add into one FMA by default; our kernels are
compiled with that off (:func:`crossenvs.kernels.numba_internals.contraction_off`). And ``exp`` came from two
libraries (the CPU's libm and CUDA's libdevice), each within an ulp of the truth but not always
the same ulp: :func:`exact_exp` is one ``exp`` for both, built from additions, multiplications,
a division and ``ldexp``, which IEEE 754 rounds the same way everywhere.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# fdlibm's e_exp.c (Sun Microsystems, 1993): ln 2 split in two so k * _LN2_HIGH is exact, and the
# minimax polynomial for r * (exp(r) + 1) / (exp(r) - 1) on |r| <= ln(2) / 2; error below 1 ulp
_LN2_HIGH = 6.93147180369123816490e-01
_LN2_LOW = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_OVERFLOW = 7.09782712893383973096e02  # exp(x) is inf above
_UNDERFLOW = -7.45133219101941108420e02  # and 0 below


@njit(cache=True, inline="always")
def exact_exp(x: float) -> float:
    """e ** ``x`` in float64, within an ulp, and the same bits on every target (see the module docstring)."""
    if x != x:
        return x
    if x > _OVERFLOW:
        return np.inf
    if x < _UNDERFLOW:
        return 0.0
    half = 0.5 if x >= 0.0 else -0.5
    k = np.int64(_INV_LN2 * x + half)  # x / ln 2, rounded to the nearest integer
    high = x - k * _LN2_HIGH
    low = k * _LN2_LOW
    r = high - low
    t = r * r
    c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    y = 1.0 - ((low - (r * c) / (2.0 - c)) - high)
    return math.ldexp(y, int(k))
