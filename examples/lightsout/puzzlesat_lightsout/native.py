"""Native reference search: Gaussian elimination over GF(2), then the 2^k solutions.

The board is the linear system A x = b over GF(2) (A: the m*n x m*n press matrix, b: the start;
Anderson & Feil, "Turning Lights Out with Linear Algebra", Math. Magazine 71 (1998) 300-303).
Gauss-Jordan elimination on the augmented rows (Python ints as bitsets) either finds an
inconsistent row (the start is not in the column space of A: INFEASIBLE) or gives one solution
x0 (free variables 0) and a basis z_1..z_k of the null space (one per free column). The
solutions are exactly x0 + span(z): a njit kernel walks all 2^k of them in Gray-code order (one
XOR of a basis vector per step, over uint64 words) and writes each one's number of presses; the
minimum and every solution reaching it follow. Shares no code with the models or the checker.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat import Context, Outcome, Status, Task

from .puzzle import LightsOut, Presses

CHUNK = 1 << 16  # Gray-code steps per kernel call (the time limit is checked between calls)
SHORT = 1 << 10  # walks up to this many solutions run the kernel's Python (no compiled code loaded)


def press_rows(inst: LightsOut) -> list[int]:
    """Row i of the augmented matrix [A | b] as a bitset: bit j when pressing j toggles light i,
    bit m*n when light i is on."""
    rows, cols, n = inst.rows, inst.cols, inst.rows * inst.cols
    lit = set(inst.on)
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        bits = 1 << i
        if r > 0:
            bits |= 1 << (i - cols)
        if r < rows - 1:
            bits |= 1 << (i + cols)
        if c > 0:
            bits |= 1 << (i - 1)
        if c < cols - 1:
            bits |= 1 << (i + 1)
        if i in lit:
            bits |= 1 << n
        out.append(bits)
    return out


def eliminate(inst: LightsOut, ctx: Context | None = None) -> tuple[int, list[int]] | None:
    """(x0, null-space basis) as bitsets over the cells, or None when A x = b is inconsistent;
    TimeoutError when ctx's time runs out."""
    n = inst.rows * inst.cols
    m = press_rows(inst)
    pivots: list[int] = []  # pivot column of row 0, 1, ... of the reduced matrix
    rank = 0
    for col in range(n):
        if ctx is not None and col % 64 == 63 and ctx.expired():
            raise TimeoutError
        bit = 1 << col
        piv = next((i for i in range(rank, n) if m[i] & bit), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        p = m[rank]
        for i in range(n):
            if i != rank and m[i] & bit:
                m[i] ^= p
        pivots.append(col)
        rank += 1
    rhs = 1 << n
    if any(m[i] & rhs for i in range(rank, n)):  # 0 = 1 in a zero row
        return None
    x0 = 0
    for i, col in enumerate(pivots):
        if m[i] & rhs:
            x0 |= 1 << col
    pivot_set = set(pivots)
    basis = []
    for f in range(n):
        if f in pivot_set:
            continue
        z = 1 << f
        for i, col in enumerate(pivots):
            if m[i] >> f & 1:
                z |= 1 << col
        basis.append(z)
    return x0, basis


def _words(x: int, nwords: int) -> np.ndarray:
    return np.array([(x >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(nwords)], dtype=np.uint64)


POP16 = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int64)  # popcount table


@njit(cache=True)
def gray_weights(cur, basis, lo, hi, pop16, out):
    """out[i - lo] = presses of solution number i (x0 + the basis vectors named by the Gray code
    of i) for lo <= i < hi. `cur` holds solution lo on entry and solution hi on exit (below 2^k)."""
    k = basis.shape[0]
    nw = cur.shape[0]
    total = np.int64(1) << k
    mask = np.uint64(0xFFFF)
    for i in range(lo, hi):
        w = 0
        for t in range(nw):
            x = cur[t]
            w += (pop16[x & mask] + pop16[(x >> np.uint64(16)) & mask]
                  + pop16[(x >> np.uint64(32)) & mask] + pop16[(x >> np.uint64(48)) & mask])
        out[i - lo] = w
        nxt = i + 1
        if nxt < total:
            j = 0
            while (nxt >> j) & 1 == 0:
                j += 1
            for t in range(nw):
                cur[t] ^= basis[j, t]


def solution_at(x0: int, basis: list[int], i: int) -> int:
    """Solution number i of the Gray-code walk, as a bitset."""
    g = i ^ (i >> 1)
    x = x0
    j = 0
    while g:
        if g & 1:
            x ^= basis[j]
        g >>= 1
        j += 1
    return x


def cells(x: int) -> Presses:
    """The cells of a bitset, ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return tuple(out)


def run(inst: LightsOut, task: Task, ctx: Context) -> Outcome:
    """Engine native:gf2: one solution (feasible), the minimum (optimize), or every minimum
    solution (count), over the 2^k solutions of the eliminated system."""
    n = inst.rows * inst.cols
    try:
        solved = eliminate(inst, ctx)
    except TimeoutError:
        return Outcome(Status.UNKNOWN, stats={"vars": n}, reason="time limit (in the elimination)")
    if solved is None:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None,
                       stats={"vars": n},
                       reason="the start is not in the column space of the press matrix over "
                              "GF(2) (elimination reached 0 = 1)")
    x0, basis = solved
    k = len(basis)
    stats = {"vars": n, "rank": n - k, "null_space_dim": k}
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE, solutions=(cells(x0),), stats=stats)
    nw = max(1, (n + 63) // 64)
    cur = _words(x0, nw)
    bmat = np.zeros((max(k, 1), nw), dtype=np.uint64)
    for j, z in enumerate(basis):
        bmat[j] = _words(z, nw)
    total = 1 << k
    out = np.empty(min(CHUNK, total), dtype=np.int64)
    best, best_at = n + 1, []  # the fewest presses so far, and the Gray indices reaching it
    # a short walk runs the kernel as plain Python: loading the compiled kernel costs more
    kernel = gray_weights if total > SHORT else getattr(gray_weights, "py_func", gray_weights)
    lo = 0
    while lo < total:
        if ctx.expired():
            stats["nodes"] = lo
            sols = tuple(cells(solution_at(x0, basis, i)) for i in best_at)
            return Outcome(Status.UNKNOWN, solutions=sols if task is Task.OPTIMIZE else (),
                           stats=stats, reason="time limit")
        hi = min(total, lo + CHUNK)
        kernel(cur, bmat, lo, hi, POP16, out)
        w = out[:hi - lo]
        low = int(w.min())
        if low < best:
            best, best_at = low, []
        if low == best:
            hits = np.flatnonzero(w == best) + lo
            best_at.extend(int(i) for i in (hits[:1] if task is Task.OPTIMIZE else hits))
            if task is Task.OPTIMIZE:
                best_at = best_at[:1]
        lo = hi
        ctx.progress(nodes=lo, best=best)
    stats["nodes"] = total
    sols = tuple(sorted(cells(solution_at(x0, basis, i)) for i in best_at))
    return Outcome(Status.OPTIMAL, objective=best, count=len(sols) if task is Task.COUNT else None,
                   solutions=sols, stats=stats)
