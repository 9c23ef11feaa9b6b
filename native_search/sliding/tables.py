"""Board tables and bit counting shared by the sliding-tile searches (numba kernels).

Vocabulary: a board of `n = rows*cols` cells, row-major; `nbr[c, :nnbr[c]]` are the cells next to
c; a *partial* rank (k items on distinct cells of n, mixed radix n, n-1, ...) indexes a pattern
database; cell sets are bit masks (n <= 36), their bits counted through a 16-bit table.
"""
from __future__ import annotations

import numpy as np
from numba import njit


def tables(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(nbr, nnbr): nbr[c, :nnbr[c]] are the cells next to c (fixed order: up, down, left, right)."""
    n = rows * cols
    nbr = np.full((n, 4), -1, np.int64)
    nnbr = np.zeros(n, np.int64)
    for c in range(n):
        r, q = divmod(c, cols)
        k = 0
        for ok, d in ((r > 0, -cols), (r < rows - 1, cols), (q > 0, -1), (q < cols - 1, 1)):
            if ok:
                nbr[c, k] = c + d
                k += 1
        nnbr[c] = k
    return nbr, nnbr


def sorted_tables(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(nbr, nnbr) with each cell's neighbours in increasing cell order (up, left, right, down:
    the blank's move order of Clausecker's 24-puzzle search, which the zero-aware catalogues and
    their move-pruning automata use)."""
    nbr, nnbr = tables(rows, cols)
    out = nbr.copy()
    for c in range(rows * cols):
        k = int(nnbr[c])
        out[c, :k] = np.sort(nbr[c, :k])
    return out, nnbr


@njit(cache=True)
def popcount_table(bits):
    """t[x] = number of set bits of x, for x < 2**bits."""
    t = np.zeros(1 << bits, np.int64)
    for x in range(1, 1 << bits):
        t[x] = t[x >> 1] + (x & 1)
    return t


PC16 = None  # the 16-bit popcount table, made on first use by pc16()


def pc16() -> np.ndarray:
    """The popcount table of 16-bit values (kernels count bits of up to 48-bit masks with it)."""
    global PC16
    if PC16 is None:
        PC16 = popcount_table(16)
    return PC16


@njit(cache=True)
def bits_below(mask, c, pc):
    """Set bits of `mask` below bit c (pc: the 16-bit popcount table; masks of up to 48 bits)."""
    m = mask & ((1 << c) - 1)
    return pc[m & 65535] + pc[(m >> 16) & 65535] + pc[(m >> 32) & 65535]


def partial_count(n: int, k: int) -> int:
    """How many ways k distinct items sit on n cells: n (n-1) ... (n-k+1)."""
    size = 1
    for i in range(k):
        size *= n - i
    return size
