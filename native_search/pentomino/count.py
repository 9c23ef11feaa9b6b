"""Native tiling counter: exact cover counted without listing the tilings, by memoising the
remaining region (engine `native:count`).

A tiling is built cell by cell in a scan order of the board's bounding box (fastest along its
shortest side): the first uncovered cell must be covered by a placement whose first cell, in scan
order, is that cell. Everything before the first uncovered cell is covered and nothing past a
window of W positions after it can be, so the region still to tile is the pair (position p,
occupancy of the window p..p+W-1) — the "frontier" of Knuth's ZDD chapter (TAOCP 7.1.4, tilings
by frontier) and the memo key of DXZ-style exact cover with memoised subproblems (TAOCP
7.2.2.1). Pieces whose number of copies matters (a piece used once, a range of copies) add their
use so far to the key, as mixed-radix digits; a piece that may be used any number of times adds
nothing. The count is then a sum over paths in a layered graph: layer p holds every distinct key
with the number of partial tilings reaching it, and layer p+1 is made from it by one numba kernel
per layer (`_step`: a hash table of keys, open addressing). Counts are exact integers of any size:
multi-word (32-bit limbs in uint64 words, as many as a bound on the count needs; a carry out of the
top word would be reported, never dropped) and joined into a Python int at the end.

Shares no code with the models (models/pentomino/): it derives placements from the pieces' shapes
itself (its own orientations of the lattice, its own scan order) and never enumerates tilings.
Counting up to symmetry needs the tilings themselves (or Burnside's lemma over the tilings fixed
by each symmetry, which a frontier count cannot express locally): refused with the engines that
can (`validate`).

>>> from puzzlesat.puzzles.pentomino import catalogue
>>> count(catalogue()["3x20"]()).count
8
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ...core.result import Context, InputError, Outcome, Status, Task
from ...puzzles.pentomino import Tiling

WINDOW = 64          # positions a placement may span in scan order (one uint64 word)
LIMB = 32            # bits per limb of a count (uint64 words: a sum of two never overflows one)
_LMASK = np.uint64((1 << LIMB) - 1)
USE_BITS = 62        # the mixed-radix use of the tracked pieces must fit an int64
UNTRACKED, SATURATE, BOUNDED = 0, 1, 2  # how a piece's copies enter the key


# ---- geometry (own code: orientations, scan order, placements) ------------------------------------
def _rotations(dim: int, proper_only: bool) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Signed permutations (perm, signs) of the lattice: all 2^d d!, or those of determinant +1."""
    out = []
    for perm in itertools.permutations(range(dim)):
        inv = sum(1 for i in range(dim) for j in range(i) if perm[j] > perm[i])
        for signs in itertools.product((1, -1), repeat=dim):
            det = (-1) ** inv * math.prod(signs)
            if det == 1 or not proper_only:
                out.append((perm, signs))
    return out


def _forms(shape, dim: int, proper_only: bool) -> list[tuple[tuple[int, ...], ...]]:
    """The distinct images of a shape under the lattice maps, each translated to the origin."""
    seen = set()
    for perm, signs in _rotations(dim, proper_only):
        pts = [tuple(s * x[p] for p, s in zip(perm, signs)) for x in shape]
        lo = [min(q[i] for q in pts) for i in range(dim)]
        seen.add(tuple(sorted(tuple(a - b for a, b in zip(q, lo)) for q in pts)))
    return sorted(seen)


@dataclass
class Board:
    """The instance in the counter's terms: positions of the bounding box in scan order, the
    placements filed under their first position (relative bit masks, piece index), and how each
    piece's copies are tracked."""

    n: int                                   # positions in the bounding box
    hole: np.ndarray                         # position is not a board cell (uint8)
    start: np.ndarray                        # placements of position p: start[p]..start[p+1]
    mask: np.ndarray                         # uint64: the placement's cells, bit 0 = position p
    piece: np.ndarray                        # int64
    weight: np.ndarray                       # int64: the piece's digit weight in the use key
    mode: np.ndarray                         # int64: UNTRACKED, SATURATE, BOUNDED
    cap: np.ndarray                          # int64: saturating cap (fewest) or most copies
    least: np.ndarray                        # int64: fewest copies
    limbs: int                               # 32-bit limbs a count needs (from a bound)
    width: int                               # the widest placement, in scan positions
    cells: dict = field(default_factory=dict)  # position -> cell


def scan(inst: Tiling) -> tuple[dict, list[int]]:
    """(cell -> position, strides): the bounding box numbered fastest along its shortest axis."""
    ext = inst.extent
    axes = sorted(range(inst.dim), key=lambda a: (-ext[a], a))  # slowest first
    stride = [0] * inst.dim
    k = 1
    for a in reversed(axes):
        stride[a] = k
        k *= ext[a]
    pos = {x: sum(v * s for v, s in zip(x, stride)) for x in itertools.product(*(range(e) for e in ext))}
    return pos, stride


def board(inst: Tiling) -> Board:
    """The counter's Board; InputError for what it cannot count (a placement wider than its
    window, more tracked piece copies than an int64 key holds)."""
    pos, _ = scan(inst)
    n = len(pos)
    cells = {v: x for x, v in pos.items()}
    hole = np.array([cells[p] not in inst.cells for p in range(n)], dtype=np.uint8)
    ncells = len(inst.cells)
    per: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    width = 0
    for k, pc in enumerate(inst.pieces):
        for form in _forms(pc.shape, inst.dim, pc.one_sided or inst.dim == 3):
            ext = [1 + max(q[i] for q in form) for i in range(inst.dim)]
            for off in itertools.product(*(range(e - s + 1) for e, s in zip(inst.extent, ext))):
                cs = [tuple(a + b for a, b in zip(q, off)) for q in form]
                if not all(c in inst.cells for c in cs):
                    continue
                ps = sorted(pos[c] for c in cs)
                span = ps[-1] - ps[0] + 1
                width = max(width, span)
                if span > WINDOW:
                    raise InputError(f"native:count: a placement of piece {pc.name} spans {span} "
                                     f"positions of the scan order, more than its window of {WINDOW} "
                                     "(use cpsat:cover or sat:cover)")
                m = 0
                for q in ps:
                    m |= 1 << (q - ps[0])
                per[ps[0]].append((m, k))
    start = np.zeros(n + 1, dtype=np.int64)
    for p in range(n):
        start[p + 1] = start[p] + len(per[p])
    mask = np.array([m for lst in per for m, _ in lst], dtype=np.uint64)
    piece = np.array([k for lst in per for _, k in lst], dtype=np.int64)
    npieces = len(inst.pieces)
    weight, mode, cap, least = (np.zeros(npieces, dtype=np.int64) for _ in range(4))
    w = 1
    for k, pc in enumerate(inst.pieces):
        lo, hi = pc.bounds(ncells)
        least[k] = lo
        if not pc.exact and pc.most is None:
            mode[k], cap[k] = (UNTRACKED, 0) if lo == 0 else (SATURATE, lo)
        else:
            mode[k], cap[k] = BOUNDED, hi
        if mode[k] != UNTRACKED:
            weight[k] = w
            w *= int(cap[k]) + 1
            if w.bit_length() > USE_BITS:
                raise InputError(f"native:count: the copies of the pieces to track need more than "
                                 f"{USE_BITS} bits of key (use cpsat:cover or sat:cover)")
    # a bound on the count: at each cell, one of its placements (or none, when covered already)
    bits = sum(math.log2(1 + int(start[p + 1] - start[p])) for p in range(n) if not hole[p])
    limbs = int(bits) // LIMB + 2
    return Board(n, hole, start, mask, piece, weight, mode, cap, least, limbs, width, cells)


# ---- the kernels -----------------------------------------------------------------------------------
if getattr(numba.config, "DISABLE_JIT", False):
    def _slot(m, u, capacity):  # noqa: D103 - plain-Python stand-in (no uint64 overflow warnings)
        h = (int(m) * 0x9E3779B97F4A7C15 + int(u) * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
        return (h ^ (h >> 29)) & (capacity - 1)
else:
    _K1 = np.uint64(0x9E3779B97F4A7C15)
    _K2 = np.uint64(0xC2B2AE3D27D4EB4F)

    @numba.njit(cache=True)
    def _slot(m, u, capacity):  # pragma: no cover - compiled
        """The home slot of key (m, u) in a table of `capacity` (a power of two)."""
        h = m * _K1 + np.uint64(u) * _K2
        h ^= h >> np.uint64(29)
        return np.int64(h & np.uint64(capacity - 1))


@numba.njit(cache=True)
def _find(tm, tu, tf, m, u):
    """The slot holding key (m, u), or the empty slot where it goes."""
    capacity = tm.shape[0]
    i = np.int64(_slot(m, u, capacity))
    while tf[i] and (tm[i] != m or tu[i] != u):
        i = (i + np.int64(1)) & np.int64(capacity - 1)
    return i


@numba.njit(cache=True)
def _add(tc, i, src, j, limbs):
    """tc[i] += src[j] (limb by limb); True on a carry out of the top limb (never dropped)."""
    carry = np.uint64(0)
    for t in range(limbs):
        s = tc[i, t] + src[j, t] + carry
        tc[i, t] = s & _LMASK
        carry = s >> np.uint64(LIMB)
    return carry != 0


@numba.njit(cache=True)
def _grow(tm, tu, tc, tf):
    """The table rehashed into twice the capacity."""
    cap2 = tm.shape[0] * 2
    nm = np.zeros(cap2, dtype=np.uint64)
    nu = np.zeros(cap2, dtype=np.int64)
    nc = np.zeros((cap2, tc.shape[1]), dtype=np.uint64)
    nf = np.zeros(cap2, dtype=np.uint8)
    for i in range(tm.shape[0]):
        if tf[i]:
            j = _find(nm, nu, nf, tm[i], tu[i])
            nm[j], nu[j], nf[j] = tm[i], tu[i], 1
            for t in range(tc.shape[1]):
                nc[j, t] = tc[i, t]
    return nm, nu, nc, nf


@numba.njit(cache=True)
def _step(p, sm, su, sc, hole, start, mask, piece, weight, mode, cap, max_capacity):
    """Layer p -> layer p+1: for each key (window occupancy sm, use su) with its count sc, the
    keys after covering position p (already covered or off the board: the window moves on;
    else each placement filed under p that fits and whose piece has a copy left). Returns the
    new layer's keys and counts (compacted), whether a count overflowed its limbs, and whether
    the layer's table would outgrow `max_capacity` slots (the memory budget: then the layer
    returned is empty and incomplete, and the count is not known)."""
    n, limbs = sm.shape[0], sc.shape[1]
    capacity = 16
    while capacity < 2 * n + 16:
        capacity *= 2
    if capacity > max_capacity:
        return (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64),
                np.empty((0, limbs), dtype=np.uint64), False, True)
    tm = np.zeros(capacity, dtype=np.uint64)
    tu = np.zeros(capacity, dtype=np.int64)
    tc = np.zeros((capacity, limbs), dtype=np.uint64)
    tf = np.zeros(capacity, dtype=np.uint8)
    used, over = 0, False
    one = np.uint64(1)
    for s in range(n):
        m, u = sm[s], su[s]
        if hole[p] or (m & one):
            lo_i, hi_i = 0, 1
            follow = True
        else:
            lo_i, hi_i = start[p], start[p + 1]
            follow = False
        for i in range(lo_i, hi_i):
            if follow:
                nm, nu = m >> one, u
            else:
                pm = mask[i]
                if m & pm:
                    continue
                k = piece[i]
                nu = u
                if mode[k] != 0:
                    d = (u // weight[k]) % (cap[k] + 1)
                    if d < cap[k]:
                        nu = u + weight[k]
                    elif mode[k] == 2:
                        continue  # no copy left
                nm = (m | pm) >> one
            j = _find(tm, tu, tf, nm, nu)
            if not tf[j]:
                tm[j], tu[j], tf[j] = nm, nu, 1
                used += 1
            if _add(tc, j, sc, s, limbs):
                over = True
            if 2 * used > tm.shape[0]:
                if 2 * tm.shape[0] > max_capacity:
                    return (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64),
                            np.empty((0, limbs), dtype=np.uint64), over, True)
                tm, tu, tc, tf = _grow(tm, tu, tc, tf)
    om = np.empty(used, dtype=np.uint64)
    ou = np.empty(used, dtype=np.int64)
    oc = np.empty((used, limbs), dtype=np.uint64)
    k = 0
    for i in range(tm.shape[0]):
        if tf[i]:
            om[k], ou[k] = tm[i], tu[i]
            for t in range(limbs):
                oc[k, t] = tc[i, t]
            k += 1
    return om, ou, oc, over, False


# ---- the count ------------------------------------------------------------------------------------
@dataclass
class Counted:
    """What a count gives: the exact count (None: not finished), where it stopped, its effort."""

    count: int | None
    reason: str | None = None
    stats: dict = field(default_factory=dict)


def _total(b: Board, su: np.ndarray, sc: np.ndarray) -> int:
    """The sum of the final layer's counts over the keys whose every piece has its fewest copies."""
    total = 0
    for s in range(su.shape[0]):
        u = int(su[s])
        ok = True
        for k in range(len(b.weight)):
            if b.mode[k] != UNTRACKED and (u // int(b.weight[k])) % (int(b.cap[k]) + 1) < b.least[k]:
                ok = False
                break
        if ok:
            total += sum(int(sc[s, t]) << (LIMB * t) for t in range(sc.shape[1]))
    return total


MEMORY_MB = 2048  # the counter's memory budget, by default (its layers and hash tables)


def slot_bytes(limbs: int) -> int:
    """Bytes of one hash-table slot: window word, use word, count limbs, flag."""
    return 8 + 8 + 8 * limbs + 1


def max_capacity(memory_mb: float, limbs: int, layer: int) -> int:
    """The most slots a layer's table may have within `memory_mb`: while it doubles, the old
    and the new table live together (3 x capacity slots), beside the layer it is made from
    (`layer` keys) and the compacted copy it returns (at most capacity / 2 keys)."""
    budget = memory_mb * 2**20 - layer * (16 + 8 * limbs)
    return max(0, int(budget / (3.5 * slot_bytes(limbs))))


def count(inst: Tiling, ctx: Context | None = None, memory_mb: float = MEMORY_MB) -> Counted:
    """The number of tilings of `inst`, exact; a limit (ctx's time, the memory budget
    `memory_mb` for the layers and their tables) gives count None with the position reached
    (`Counted.reason`): never a partial number, never an allocation past the budget."""
    t0 = time.perf_counter()
    b = board(inst)
    sm = np.zeros(1, dtype=np.uint64)
    su = np.zeros(1, dtype=np.int64)
    sc = np.zeros((1, b.limbs), dtype=np.uint64)
    sc[0, 0] = 1
    peak, total_keys, last = 1, 0, time.monotonic()
    stats: dict[str, Any] = {"positions": b.n, "placements": int(b.start[-1]), "window": b.width, "limbs": b.limbs}
    for p in range(b.n):
        if ctx is not None and ctx.expired():
            stats.update(peak_keys=peak, keys=total_keys)
            return Counted(None, f"time limit at position {p} of {b.n} ({sm.shape[0]} keys in the "
                           "layer): the count is not known", stats)
        keys_in = sm.shape[0]
        sm, su, sc, over, full = _step(p, sm, su, sc, b.hole, b.start, b.mask, b.piece, b.weight,
                                       b.mode, b.cap, max_capacity(memory_mb, b.limbs, keys_in))
        if full:
            stats.update(peak_keys=peak, keys=total_keys)
            return Counted(None, f"memory: layer {p + 1} of {b.n} outgrew the budget of "
                           f"{memory_mb:g} MB (from {keys_in} keys in layer {p}; memory_mb): "
                           "the count is not known", stats)
        if over:  # the bound says this cannot happen: never a wrong count all the same
            stats.update(peak_keys=peak, keys=total_keys)
            return Counted(None, f"a count outgrew its {b.limbs} limbs at position {p}", stats)
        peak, total_keys = max(peak, sm.shape[0]), total_keys + sm.shape[0]
        if ctx is not None and time.monotonic() - last > 0.5:
            ctx.progress(position=f"{p + 1}/{b.n}", keys=sm.shape[0])
            last = time.monotonic()
        if sm.shape[0] == 0:
            break
    stats.update(peak_keys=peak, keys=total_keys, count_seconds=round(time.perf_counter() - t0, 4))
    return Counted(_total(b, su, sc) if sm.shape[0] else 0, None, stats)


def validate(inst: Tiling, options: dict) -> None:
    """InputError for what native:count cannot answer: orbits (up_to_symmetry) and instances it
    cannot represent (`board`)."""
    if options.get("up_to_symmetry"):
        raise InputError("native:count counts tilings without listing them, and orbits need the "
                         "tilings (or Burnside's lemma over the tilings each symmetry fixes, which a "
                         "frontier count cannot express): count orbits with native:dfs, cpsat:cover "
                         "or sat:cover, or drop up_to_symmetry")
    board(inst)


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine native:count — task count: the exact number of tilings, without listing them (no
    solution is returned: nothing to check but the number, which compare cross-validates)."""
    if task is not Task.COUNT:
        raise ValueError(f"native:count counts; task {task} is not one it does")
    budget = ctx.options.get("memory_mb", MEMORY_MB)
    c = count(inst, ctx, budget)
    params = {"window": WINDOW, "limb_bits": LIMB, "scan": "short", "memory_mb": budget}
    if c.count is None:
        return Outcome(Status.UNKNOWN, stats=c.stats, reason=c.reason, params=params)
    if c.count == 0:
        return Outcome(Status.INFEASIBLE, count=0, stats=c.stats, params=params)
    return Outcome(Status.OPTIMAL, count=c.count, stats=c.stats, params=params)
