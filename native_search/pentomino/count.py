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

Counting up to symmetry (orbits under the problem's group, puzzles.pentomino.symmetries, as the
listing engines count them) is Burnside's lemma: orbits = (1/|G|) sum over g in G of the number of
tilings g maps onto themselves. Those are counted, never assumed, by the same layers on the
quotient by <g> (`fixed_board`: items are the orbits of cells, options the orbits of placements
whose members are pairwise disjoint, each using the copies its members use).

>>> from puzzlesat.puzzles.pentomino import catalogue
>>> count(catalogue()["3x20"]()).count, orbits(catalogue()["3x20"]()).count
(8, 2)
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
    ustart: np.ndarray                       # int64: the pieces placement i uses: ustart[i]..ustart[i+1]
    upiece: np.ndarray                       # int64: a piece it uses
    ucopies: np.ndarray                      # int64: how many copies of that piece
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


def placements(inst: Tiling) -> list[tuple[int, tuple]]:
    """Every (piece index, cells) placement of `inst` on its board, from the pieces' shapes (own
    orientations of the lattice: rotations and reflections in 2D unless one-sided, the 24
    rotations in 3D)."""
    out = []
    for k, pc in enumerate(inst.pieces):
        for form in _forms(pc.shape, inst.dim, pc.one_sided or inst.dim == 3):
            ext = [1 + max(q[i] for q in form) for i in range(inst.dim)]
            for off in itertools.product(*(range(e - s + 1) for e, s in zip(inst.extent, ext))):
                cs = tuple(tuple(a + b for a, b in zip(q, off)) for q in form)
                if all(c in inst.cells for c in cs):
                    out.append((k, cs))
    return out


def board(inst: Tiling) -> Board:
    """The counter's Board; InputError for what it cannot count (a placement wider than its
    window, more tracked piece copies than an int64 key holds)."""
    pos, _ = scan(inst)
    return _board(inst, len(pos), {pos[c] for c in inst.cells}, pos,
                  [(cs, ((k, 1),)) for k, cs in placements(inst)])


def _board(inst: Tiling, n: int, cells: set[int], pos: dict,
           options: list[tuple[tuple, tuple[tuple[int, int], ...]]]) -> Board:
    """The Board of positions 0..n-1 (`cells` of them to cover; `pos`: cell -> position) and
    options (cells, ((piece, copies), ...)): an option covers its cells' positions at once and
    uses those copies."""
    hole = np.array([p not in cells for p in range(n)], dtype=np.uint8)
    per: list[list[tuple[int, tuple]]] = [[] for _ in range(n)]
    width = 0
    for cs, uses in options:
        ps = sorted({pos[c] for c in cs})
        span = ps[-1] - ps[0] + 1
        width = max(width, span)
        if span > WINDOW:
            names = "+".join(inst.pieces[k].name for k, _ in uses)
            raise InputError(f"native:count: a placement of piece {names} spans {span} "
                             f"positions of the scan order, more than its window of {WINDOW} "
                             "(use cpsat:cover or sat:cover)")
        m = 0
        for q in ps:
            m |= 1 << (q - ps[0])
        per[ps[0]].append((m, uses))
    start = np.zeros(n + 1, dtype=np.int64)
    for p in range(n):
        start[p + 1] = start[p] + len(per[p])
    mask = np.array([m for lst in per for m, _ in lst], dtype=np.uint64)
    flat = [uses for lst in per for _, uses in lst]
    ustart = np.zeros(len(flat) + 1, dtype=np.int64)
    for i, uses in enumerate(flat):
        ustart[i + 1] = ustart[i] + len(uses)
    upiece = np.array([k for uses in flat for k, _ in uses], dtype=np.int64)
    ucopies = np.array([c for uses in flat for _, c in uses], dtype=np.int64)
    ncells = len(inst.cells)
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
    rev = {v: x for x, v in pos.items()}
    return Board(n, hole, start, mask, ustart, upiece, ucopies, weight, mode, cap, least, limbs,
                 width, rev)


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
def _step(p, sm, su, sc, hole, start, mask, ustart, upiece, ucopies, weight, mode, cap,
          max_capacity):
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
                nu = u
                left = True
                for q in range(ustart[i], ustart[i + 1]):
                    k = upiece[q]
                    if mode[k] != 0:
                        d = (u // weight[k]) % (cap[k] + 1)
                        if d + ucopies[q] <= cap[k]:
                            nu += ucopies[q] * weight[k]
                        elif mode[k] == 2:
                            left = False  # not so many copies left
                            break
                        else:
                            nu += (cap[k] - d) * weight[k]  # saturates at the fewest copies
                if not left:
                    continue
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
    return count_board(board(inst), ctx, memory_mb)


def count_board(b: Board, ctx: Context | None = None, memory_mb: float = MEMORY_MB) -> Counted:
    """`count` on a Board (the instance's, or a quotient's: `fixed_board`)."""
    t0 = time.perf_counter()
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
        sm, su, sc, over, full = _step(p, sm, su, sc, b.hole, b.start, b.mask, b.ustart, b.upiece,
                                       b.ucopies, b.weight, b.mode, b.cap,
                                       max_capacity(memory_mb, b.limbs, keys_in))
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


# ---- orbits by Burnside's lemma ---------------------------------------------------------------------
def fixed_board(inst: Tiling, g: Any) -> Board:
    """The quotient Board whose exact covers are the tilings the symmetry `g` (a cell -> cell map
    with `pmap`, the piece renaming; puzzles.pentomino.Sym) maps onto themselves.

    A tiling T with g(T) = T is a union of orbits, under the cyclic group <g>, of placements
    (piece, cells): each orbit's distinct members must be pairwise disjoint (else g(T) = T would
    cover a cell twice), and the orbit covers whole orbits of cells. So such tilings are the
    exact covers of the cell orbits (the items: one position each, its first cell in scan order)
    by the valid placement orbits (an option: the cell orbits it covers, and the copies of each
    piece its members use). No assumption about which symmetries fix a tiling: each is counted."""
    pos0, _ = scan(inst)
    rep: dict = {}
    for c in sorted(inst.cells, key=pos0.__getitem__):
        if c in rep:
            continue
        x = c
        while x not in rep:
            rep[x] = c
            x = g[x]
    reps = sorted(set(rep.values()), key=pos0.__getitem__)
    index = {c: i for i, c in enumerate(reps)}
    pos = {c: index[rep[c]] for c in inst.cells}
    seen: set = set()
    options: list[tuple[tuple, tuple[tuple[int, int], ...]]] = []
    for k, cs in placements(inst):
        start = (k, frozenset(cs))
        if start in seen:
            continue
        members = [start]
        while True:
            pk, pcs = members[-1]
            nxt = (g.pmap[pk], frozenset(g[x] for x in pcs))
            if nxt == start:
                break
            members.append(nxt)
        seen.update(members)
        distinct = set(members)
        covered: set = set()
        ok = True
        for _, pcs in distinct:
            if covered & pcs:
                ok = False
                break
            covered |= pcs
        if not ok:
            continue
        uses: dict[int, int] = {}
        for pk, _ in distinct:
            uses[pk] = uses.get(pk, 0) + 1
        options.append((tuple(covered), tuple(sorted(uses.items()))))
    return _board(inst, len(reps), set(range(len(reps))), pos, options)


def orbits(inst: Tiling, symmetry: str = "all", ctx: Context | None = None,
           memory_mb: float = MEMORY_MB) -> Counted:
    """The number of orbits of tilings under the problem's group (puzzles.pentomino.symmetries:
    the same group the listing engines' "up to symmetry" uses), by Burnside's lemma: the mean over
    the group of the number of tilings each symmetry fixes (`fixed_board`, counted exactly like the
    tilings themselves). None with the reason when a count stops; never a partial number."""
    from ...puzzles.pentomino import symmetries
    group = symmetries(inst, symmetry)
    fixed: list[int] = []
    stats: dict[str, Any] = {"group": len(group), "fixed": fixed}
    for j, g in enumerate(group):
        c = count(inst, ctx, memory_mb) if j == 0 else count_board(fixed_board(inst, g), ctx, memory_mb)
        if c.count is None:
            return Counted(None, f"symmetry {j + 1} of {len(group)}: {c.reason}", stats)
        fixed.append(c.count)
        if j == 0:
            stats.update(c.stats)
            stats["fixed"] = fixed
    total = sum(fixed)
    if total % len(group):  # Burnside's sum is a multiple of the group's order: a bug, not an answer
        return Counted(None, f"Burnside's sum {total} is not a multiple of the group's order "
                       f"{len(group)}: the count is not known", stats)
    return Counted(total // len(group), None, stats)


def validate(inst: Tiling, options: dict) -> None:
    """InputError for an instance native:count cannot represent (`board`; with up_to_symmetry,
    also each symmetry's quotient, `fixed_board`)."""
    board(inst)
    if options.get("up_to_symmetry"):
        from ...puzzles.pentomino import symmetries
        for g in symmetries(inst, options.get("symmetry", "all"))[1:]:
            fixed_board(inst, g)


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine native:count — task count: the exact number of tilings, or with up_to_symmetry of
    their orbits (Burnside's lemma, `orbits`), without listing them (no solution is returned:
    nothing to check but the number, which compare cross-validates)."""
    if task is not Task.COUNT:
        raise ValueError(f"native:count counts; task {task} is not one it does")
    budget = ctx.options.get("memory_mb", MEMORY_MB)
    params = {"window": WINDOW, "limb_bits": LIMB, "scan": "short", "memory_mb": budget}
    if ctx.options.get("up_to_symmetry"):
        group = ctx.options.get("symmetry", "all")
        c = orbits(inst, group, ctx, budget)
        params.update(up_to_symmetry=True, symmetry=group, method="Burnside's lemma")
    else:
        c = count(inst, ctx, budget)
    if c.count is None:
        return Outcome(Status.UNKNOWN, stats=c.stats, reason=c.reason, params=params)
    if c.count == 0:
        return Outcome(Status.INFEASIBLE, count=0, stats=c.stats, params=params)
    return Outcome(Status.OPTIMAL, count=c.count, stats=c.stats, params=params)
