"""Native tiling search: depth-first over bitboards (numba), filling the first empty cell or the
exact-cover column with the fewest live placements.

Positions of the board's bounding box (2D or 3D) are numbered in a scan order that runs fastest
along the shortest side; each placement is filed under its first position in that order, so the
first empty cell can only be covered by a placement filed under it. A placement is stored relative
to that first position, and the kernel tests it against the 64 positions from the current first
empty cell on (a window): one word per test whatever the board's size (90 cells for one-sided
6x15); a placement spanning more than a window falls back to the multi-word search `_dfs`. Each
tiling is produced once: the search picks placements per piece *kind* with a count of copies
left, so swapping identical copies never yields a second tiling.

Counting up to symmetry either follows the symmetry-breaking plan of `puzzles.pentomino_breaking`
(exact orbit counts, derived from the problem's group, or its proper rotations alone with
`symmetry="rotations"`) or, with breaking off, keeps the first tiling of each canonical form. The plan's branches, split by the choice their first step takes,
are independent subtrees: `tilings_parallel` runs them on several forked processes.

Fewest options (`_dfsx`, Knuth's rule for Algorithm X / dancing links, TAOCP 7.2.2.1): the live
placements are a bitset, each placement's conflicts (itself, every placement sharing a cell) a
precomputed bitset; the columns are the cells and the pieces, each with its count of live
placements, recounted per depth by popcount over the column's words (2.1x faster on 3x4x5 than
decrementing the columns of every placement a choice kills, about 92 per choice, which is the
dancing-links bookkeeping: 2.87 s against 6.16 s for the 3940). The next choice is the open
column with the fewest; a placement that leaves an open column with none is taken back at once,
its neighbouring cells tested first. In 3D, where the first empty cell has many options and dead
cells show up late, this visits 24x fewer nodes than first-cell (3x4x5 up to symmetry: 7.1M
placements against 168M).

>>> from puzzlesat.puzzles.pentomino import catalogue
>>> sum(1 for _ in tilings(catalogue()["3x20"](), up_to_symmetry=True))
2
"""
from __future__ import annotations

import functools
import itertools
import multiprocessing.connection as mpc
import os
from dataclasses import dataclass
from typing import Callable, Iterator

import numba
import numpy as np

from ...core.procs import forking
from ...core.result import Context, Outcome, Status, Task
from ...puzzles.pentomino import Solution, Sym, Tiling, canonical, placements, symmetries, transform
from ...puzzles.pentomino_breaking import PlanNode, placement_orbits, symmetry_plan

SCANS = ("short", "long")
BRANCHINGS = ("auto", "first-cell", "fewest")
_CHUNK_SOLUTIONS = 4096
_CHUNK_NODES = 4_000_000
_KBITS = 8  # occupancy bits after the first empty cell that index the placement buckets


def scan_order(inst: Tiling, scan: str = "short") -> tuple[dict[tuple, int], tuple[int, ...]]:
    """(position -> scan index, stride of each axis): the whole bounding box numbered so that the
    index runs fastest along the shortest axis ('short') or the longest ('long'); positions off
    the board stay filled, so a neighbour along an axis is a fixed shift (its stride)."""
    axes = sorted(range(inst.dim), key=lambda a: (-inst.extent[a], a))  # slowest first
    if scan == "long":
        axes = axes[::-1]
    stride = [0] * inst.dim
    k = 1
    for a in reversed(axes):
        stride[a] = k
        k *= inst.extent[a]
    order = {x: sum(v * st for v, st in zip(x, stride))
             for x in itertools.product(*(range(e) for e in inst.extent))}
    return order, tuple(stride)


@numba.njit(cache=True)
def _dfs(masks, piece_of, skip, start, counts, occ, d, cell_st, pos_st, pl_st, ncells, out,
         node_limit):  # pragma: no cover - compiled
    """Resume the first-empty-cell search at depth d; stop when `out` is full, after `node_limit`
    placements, or when the search is exhausted. Returns (status 0 done / 1 out full / 2 node
    limit, solutions written, depth, placements made). State lives in the arrays passed in."""
    nwords = occ.shape[0]
    n_out = 0
    nodes = 0
    one = np.uint64(1)
    while True:
        c = cell_st[d]
        i = pos_st[d]
        end = start[c + 1]
        found = -1
        while i < end:
            if counts[piece_of[i]] == 0:
                i = skip[i]
                continue
            fits = True
            for w in range(nwords):
                if masks[i, w] & occ[w]:
                    fits = False
                    break
            if fits:
                found = i
                break
            i += 1
        if found >= 0:
            pos_st[d] = found + 1
            pl_st[d] = found
            for w in range(nwords):
                occ[w] |= masks[found, w]
            counts[piece_of[found]] -= 1
            nodes += 1
            nc = c + 1
            while nc < ncells and (occ[nc >> 6] >> np.uint64(nc & 63)) & one:
                nc += 1
            if nc == ncells:
                for j in range(d + 1):
                    out[n_out, j] = pl_st[j]
                n_out += 1
                for w in range(nwords):
                    occ[w] ^= masks[found, w]
                counts[piece_of[found]] += 1
                if n_out == out.shape[0]:
                    return 1, n_out, d, nodes
            else:
                d += 1
                cell_st[d] = nc
                pos_st[d] = start[nc]
            if nodes >= node_limit:
                return 2, n_out, d, nodes
        else:
            d -= 1
            if d < 0:
                return 0, n_out, d, nodes
            p = pl_st[d]
            for w in range(nwords):
                occ[w] ^= masks[p, w]
            counts[piece_of[p]] += 1


@numba.njit(cache=True)
def _window(occ, c):  # pragma: no cover - compiled
    """The 64 occupancy bits from position c on (occ has a spare word past the last position)."""
    q = c >> 6
    b = c & 63
    w = occ[q] >> np.uint64(b)
    if b:
        w |= occ[q + 1] << np.uint64(64 - b)
    return w


@numba.njit(cache=True)
def _dfsw(rel, piece_of, bstart, bent, bskip, kbits, wtest, wnbr, strides, counts, occ, d,
          cell_st, pos_st, end_st, pl_st, ncells, out, node_limit):  # pragma: no cover - compiled
    """Resume the first-empty-cell search at depth d over a 64-position window that starts at the
    current first empty cell c: placement j is stored as `rel[j]`, its cells relative to its
    first cell (bit 0), so a fit test is one AND for any board size. Bucket (c << kbits |
    pattern) lists the placements filed under c that avoid that occupancy pattern of the next
    kbits positions. Prune (when `strides` is non-empty): an empty position in wtest[c] with no
    empty neighbour (wnbr[c, 2a] / wnbr[c, 2a+1]: positions with a neighbour at +/- strides[a])
    can never be covered. Stops when `out` is full, after `node_limit` placements, or when
    exhausted; returns (status 0 done / 1 out full / 2 node limit, solutions written, depth,
    placements made). State lives in the arrays passed in."""
    n_out = 0
    nodes = 0
    one = np.uint64(1)
    pmask = np.uint64((1 << kbits) - 1)
    nax = strides.shape[0]
    while True:
        c = cell_st[d]
        w = _window(occ, c)
        i = pos_st[d]
        end = end_st[d]
        found = -1
        while i < end:
            j = bent[i]
            if counts[piece_of[j]] == 0:
                i = bskip[i]
            elif rel[j] & w:
                i += 1
            else:
                if nax:
                    e = ~(w | rel[j])
                    has = np.uint64(0)
                    for a in range(nax):
                        st = np.uint64(strides[a])
                        has |= ((e >> st) & wnbr[c, 2 * a]) | ((e << st) & wnbr[c, 2 * a + 1])
                    if e & wtest[c] & ~has:
                        i += 1
                        continue
                found = j
                break
        if found >= 0:
            pos_st[d] = i + 1
            pl_st[d] = found
            q = c >> 6
            b = c & 63
            occ[q] |= rel[found] << np.uint64(b)
            if b:
                occ[q + 1] |= rel[found] >> np.uint64(64 - b)
            counts[piece_of[found]] -= 1
            nodes += 1
            nc = c + 1
            while nc < ncells and (occ[nc >> 6] >> np.uint64(nc & 63)) & one:
                nc += 1
            if nc == ncells:
                for k in range(d + 1):
                    out[n_out, k] = pl_st[k]
                n_out += 1
                occ[q] ^= rel[found] << np.uint64(b)
                if b:
                    occ[q + 1] ^= rel[found] >> np.uint64(64 - b)
                counts[piece_of[found]] += 1
                if n_out == out.shape[0]:
                    return 1, n_out, d, nodes
            else:
                d += 1
                cell_st[d] = nc
                bk = (nc << kbits) | np.int64((_window(occ, nc) >> one) & pmask)
                pos_st[d] = bstart[bk]
                end_st[d] = bstart[bk + 1]
            if nodes >= node_limit:
                return 2, n_out, d, nodes
        else:
            d -= 1
            if d < 0:
                return 0, n_out, d, nodes
            p = pl_st[d]
            c = cell_st[d]
            q = c >> 6
            b = c & 63
            occ[q] ^= rel[p] << np.uint64(b)
            if b:
                occ[q + 1] ^= rel[p] >> np.uint64(64 - b)
            counts[piece_of[p]] += 1


@numba.njit(cache=True)
def _dfs1(m, piece_of, bstart, bent, bskip, kbits, full, nbr, strides, counts, occ, d, cell_st,
          pos_st, end_st, pl_st, ncells, out, node_limit):  # pragma: no cover - compiled
    """_dfsw for boxes of at most 64 positions: the whole board is one word kept in a register and
    placements are absolute masks `m` (the same buckets; nbr[2a] / nbr[2a+1]: positions with a
    neighbour at +/- strides[a]; full: the board's cells). Same state and returns as _dfsw."""
    n_out = 0
    nodes = 0
    one = np.uint64(1)
    pmask = np.uint64((1 << kbits) - 1)
    nax = strides.shape[0]
    board = occ[0]
    while True:
        i = pos_st[d]
        end = end_st[d]
        found = -1
        while i < end:
            j = bent[i]
            if counts[piece_of[j]] == 0:
                i = bskip[i]
            elif m[j] & board:
                i += 1
            else:
                if nax:
                    e = full & ~(board | m[j])
                    has = np.uint64(0)
                    for a in range(nax):
                        st = np.uint64(strides[a])
                        has |= ((e >> st) & nbr[2 * a]) | ((e << st) & nbr[2 * a + 1])
                    if e & ~has:
                        i += 1
                        continue
                found = j
                break
        if found >= 0:
            pos_st[d] = i + 1
            pl_st[d] = found
            board |= m[found]
            counts[piece_of[found]] -= 1
            nodes += 1
            nc = cell_st[d] + 1
            while nc < ncells and (board >> np.uint64(nc)) & one:
                nc += 1
            if nc == ncells:
                for k in range(d + 1):
                    out[n_out, k] = pl_st[k]
                n_out += 1
                board ^= m[found]
                counts[piece_of[found]] += 1
                if n_out == out.shape[0]:
                    occ[0] = board
                    return 1, n_out, d, nodes
            else:
                d += 1
                cell_st[d] = nc
                pat = (board >> np.uint64(nc + 1)) & pmask if nc < 63 else np.uint64(0)
                bk = (nc << kbits) | np.int64(pat)
                pos_st[d] = bstart[bk]
                end_st[d] = bstart[bk + 1]
            if nodes >= node_limit:
                occ[0] = board
                return 2, n_out, d, nodes
        else:
            d -= 1
            if d < 0:
                occ[0] = board
                return 0, n_out, d, nodes
            p = pl_st[d]
            board ^= m[p]
            counts[piece_of[p]] += 1


if numba.config.DISABLE_JIT:
    def _ctz(x):  # noqa: D103 - plain-Python stand-in for the numba intrinsic
        x = int(x)
        return (x & -x).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import trailing_zeros as _ctz


if numba.config.DISABLE_JIT:
    def _popcount(x):  # noqa: D103 - plain-Python stand-in (no uint64 overflow warnings)
        return int(x).bit_count()
else:
    _M1 = np.uint64(0x5555555555555555)
    _M2 = np.uint64(0x3333333333333333)
    _M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
    _H01 = np.uint64(0x0101010101010101)

    @numba.njit(cache=True)
    def _popcount(x):  # pragma: no cover - compiled
        """The number of set bits of a uint64 (the SWAR sum; LLVM emits one popcnt for it)."""
        x = x - ((x >> np.uint64(1)) & _M1)
        x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
        x = (x + (x >> np.uint64(4))) & _M4
        return int((x * _H01) >> np.uint64(56))


@numba.njit(cache=True)
def _choose(cnt, closed, counts, ncells):  # pragma: no cover - compiled
    """(column, live placements): the open column with the fewest live placements — an
    uncovered cell, or a piece with one copy left (column ncells + piece; preferred on ties);
    (-1, 0) when every cell is covered."""
    best = -1
    bestn = 1 << 62
    for c in range(ncells):
        if not closed[c] and cnt[c] < bestn:
            best = c
            bestn = cnt[c]
    if best < 0:
        return -1, 0
    for k in range(counts.shape[0]):
        if counts[k] == 1 and cnt[ncells + k] <= bestn:
            best = ncells + k
            bestn = cnt[ncells + k]
    return best, bestn


@numba.njit(cache=True)
def _dfsx(conf, pset, cols, pcols, ncol, nbc, nbn, wlo, whi, ncells, counts, closed, live_st,
          cnt_st, d, br_st, wp_st, pl_st, out, node_limit):  # pragma: no cover - compiled
    """Exact cover, branching on the column with the fewest live placements (Knuth's rule),
    over bitsets of placements. Columns: the cells, then one per piece (open while copies are
    left; a branching column only at one copy left, so identical copies never give a tiling
    twice). cols[c]: the placements in column c; pcols[p, :ncol[p]]: p's columns; conf[p]: p
    and every placement sharing a cell; pset[k]: piece k's placements. Depth d keeps its own
    live set live_st[d] and live counts cnt_st[d] (so backtracking only drops a level), each
    open column recounted per choice by popcount over its words wlo[c]..whi[c];
    br_st[d]: the untried choices at depth d. A choice is taken back at once when it leaves an
    open column without a live placement — its neighbouring cells nbc[p, :nbn[p]] are tested
    first (words wlo[c]..whi[c] of cols[c]), then every count. closed[c]: cell covered / piece
    used up. Stops when `out` is full, after `node_limit` placements, or when exhausted;
    returns (status 0 done / 1 out full / 2 node limit, solutions written, depth, placements
    made)."""
    n_out = 0
    nodes = 0
    col, n = -1, 0
    nw = live_st.shape[1]
    one = np.uint64(1)
    while True:
        p = -1
        for w in range(wp_st[d], nw):
            x = br_st[d, w]
            if x:
                p = w * 64 + _ctz(x)
                br_st[d, w] = x & (x - one)
                wp_st[d] = w
                break
        if p < 0:
            d -= 1
            if d < 0:
                return 0, n_out, d, nodes
            p = pl_st[d]
            for t in range(ncol[p]):
                closed[pcols[p, t]] = False
            k = pcols[p, ncol[p] - 1] - ncells
            counts[k] += 1
            continue
        nodes += 1
        k = pcols[p, ncol[p] - 1] - ncells
        counts[k] -= 1
        gone = counts[k] == 0
        for w in range(nw):
            kw = conf[p, w]
            if gone:
                kw |= pset[k, w]
            live_st[d + 1, w] = live_st[d, w] & ~kw
        ok = True
        for t in range(nbn[p]):
            c = nbc[p, t]
            if not closed[c]:
                ok = False
                for w in range(wlo[c], whi[c]):
                    if live_st[d + 1, w] & cols[c, w]:
                        ok = True
                        break
                if not ok:
                    break
        if ok:
            for t in range(ncol[p] - 1):
                closed[pcols[p, t]] = True
            closed[ncells + k] = gone
            for c in range(cnt_st.shape[1]):  # recount every open column over its words
                if closed[c]:
                    continue
                sc = 0
                for w in range(wlo[c], whi[c]):
                    sc += _popcount(live_st[d + 1, w] & cols[c, w])
                cnt_st[d + 1, c] = sc
                if sc == 0:
                    ok = False
                    break
            col, n = -1, 0
            if ok:
                col, n = _choose(cnt_st[d + 1], closed, counts, ncells)
                if col < 0:
                    for t in range(d + 1):
                        out[n_out, t] = pl_st[t]
                    out[n_out, d] = p
                    n_out += 1
            if n > 0:
                pl_st[d] = p
                d += 1
                wp_st[d] = wlo[col]
                for w in range(wlo[col], whi[col]):
                    br_st[d, w] = live_st[d, w] & cols[col, w]
                for w in range(whi[col], nw):
                    br_st[d, w] = 0
            else:
                for t in range(ncol[p]):
                    closed[pcols[p, t]] = False
        if not ok or n == 0:
            counts[k] += 1
            if n_out == out.shape[0]:
                return 1, n_out, d, nodes
        if nodes >= node_limit:
            return 2, n_out, d, nodes


@numba.njit(cache=True)
def _bucket_fill(rel, start, piece_of, ncells, kbits, bstart, bent, bskip):  # pragma: no cover
    """Fill bucket (cell << kbits | pattern) with the placements filed under the cell that avoid
    the pattern (the occupancy of the next kbits positions); returns the number of entries.
    Called once with empty `bent` (sizes only: bstart gets the counts), then to fill."""
    npat = 1 << kbits
    at = 0
    for c in range(ncells):
        for pat in range(npat):
            bstart[c * npat + pat] = at
            for j in range(start[c], start[c + 1]):
                if (rel[j] >> np.uint64(1)) & np.uint64(pat) == 0:
                    if at < bent.shape[0]:
                        bent[at] = j
                    at += 1
    bstart[ncells * npat] = at
    # skip links: past the run of one piece inside one bucket
    n = min(at, bent.shape[0])
    for b in range(ncells * npat):
        hi = min(bstart[b + 1], n)
        i = hi - 1
        while i >= bstart[b]:
            if i + 1 < hi and piece_of[bent[i + 1]] == piece_of[bent[i]]:
                bskip[i] = bskip[i + 1]
            else:
                bskip[i] = i + 1
            i -= 1
    return at


def _buckets(rel: np.ndarray, start: np.ndarray, piece_of: np.ndarray, ncells: int, kbits: int):
    """For each (cell, occupancy pattern of the next kbits positions): the placements filed under
    the cell that avoid the pattern, in piece order, with skip links past each piece's run."""
    bstart = np.zeros(ncells * (1 << kbits) + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    n = _bucket_fill(rel, start, piece_of, ncells, kbits, bstart, empty, empty)
    bent = np.zeros(n, dtype=np.int64)
    bskip = np.zeros(n, dtype=np.int64)
    _bucket_fill(rel, start, piece_of, ncells, kbits, bstart, bent, bskip)
    return bstart, bent, bskip


def _prune_masks(inst: Tiling, order: dict, strides: tuple[int, ...]):
    """Per position c, windows from c of: the board positions the isolated-cell test may judge
    (those whose neighbours all lie inside the window), and the positions with a neighbour at
    +/- each stride. Strides come back empty (the test off) when a piece has one cell."""
    n = len(order)
    full = sum(1 << k for x, k in order.items() if x in inst.cells)
    plus = [0] * len(strides)
    minus = [0] * len(strides)
    for x, k in order.items():
        for a in range(inst.dim):
            if x[a] + 1 < inst.extent[a]:
                plus[a] |= 1 << k
            if x[a] > 0:
                minus[a] |= 1 << k
    word = (1 << 64) - 1
    reach = (1 << max(0, 64 - max(strides))) - 1
    wtest = np.array([(full >> c) & reach for c in range(n)], dtype=np.uint64)
    wnbr = np.array([[v for a in range(len(strides)) for v in ((plus[a] >> c) & word,
                                                               (minus[a] >> c) & word)]
                     for c in range(n)], dtype=np.uint64).reshape(n, 2 * len(strides))
    ok = min(p.size for p in inst.pieces) >= 2 and max(strides) < 64
    nbr = np.array([v & word for a in range(len(strides)) for v in (plus[a], minus[a])],
                   dtype=np.uint64)
    return (wtest, wnbr, np.array(strides if ok else (), dtype=np.int64), np.uint64(full & word),
            nbr)


@dataclass
class Branch:
    """One independent search: placements fixed beforehand, per-piece allowed placements, and
    optionally the one choice (an index into the first cell's bucket) its first step takes."""

    fixed: tuple[int, ...]
    allowed: dict[int, tuple[int, ...]]   # piece index -> the only placements it may take
    dedup: bool = False                   # a residual symmetry remains: dedupe by canonical form
    first: int | None = None
    images: tuple[Sym, ...] = ()          # all-tilings orbit branch: each tiling found stands for
                                          # its images under these symmetries (identity first)


@functools.lru_cache(maxsize=8)
def orbit_piece(inst: Tiling) -> tuple[int, list[tuple[int, tuple[Sym, ...]]]] | None:
    """For counting all tilings by placement orbits: (piece k, [(r, transversal)]) where k is a
    piece used once that every symmetry of the problem maps to itself, each r the least placement
    of one orbit of k's placements under the group, and the transversal holds, for each placement
    of r's orbit, the first symmetry (identity first) taking r there. None when the group is
    trivial or no such piece exists. The piece: among those whose orbits per placement (about the
    fraction of the plain search left) are within 20% of the least, the one with the fewest
    orbits (searches). Measured with the first fewest-options kernel, before the popcount
    recount (kernel CPU s for all tilings, every candidate piece tried):
    3x4x5 fewest-options, V 6.7 (best W 5.7, worst P 12.8, plain 39); 8x8 minus corners
    first-cell, I 0.38 (best Z 0.27, worst F 1.06); 6x10 first-cell, X 0.11 (best)."""
    group = symmetries(inst)
    if len(group) < 2:
        return None
    pls = placements(inst)
    cands = []
    for k, pc in enumerate(inst.pieces):
        if pc.count != 1 or not pc.exact or any(g.pmap[k] != k for g in group):
            continue
        mine = [i for i, p in enumerate(pls) if p.piece == k]
        orbits = []
        for r, imgs in placement_orbits(inst, mine, group):
            trans: dict[int, Sym] = {}
            for g, j in zip(group, imgs):
                trans.setdefault(j, g)
            orbits.append((r, tuple(trans.values())))
        if mine:
            cands.append((len(orbits) / len(mine), k, orbits))
    if not cands:
        return None
    least = min(c[0] for c in cands)
    _, k, orbits = min((c for c in cands if c[0] <= 1.2 * least), key=lambda c: (len(c[2]), c[1]))
    return k, orbits


def use_orbits(inst: Tiling, fewest: bool) -> bool:
    """Whether counting all tilings goes by placement orbits (`orbit_piece`): yes with fewest-
    options branching, and with first-cell branching unless the board is at most 3 cells thin
    (the first-cell scan then refills the cells before the pinned piece once per orbit). Kernel
    CPU seconds, orbits against plain (python bench/pentomino.py --raw --modes all --orbits
    on,off): fewest 3x4x5 3.2 / 19.2, 2x5x6 0.44 / 1.36, soma 0.02 / 0.08; first-cell 6x10 0.13 /
    1.01, 8x8 minus corners 0.40 / 2.70, 4x15 0.04 / 0.08, 5x12 0.32 / 0.35, but one-sided
    3x30 0.80 / 0.37 and 3x20 0.05 / 0.02."""
    return orbit_piece(inst) is not None and (fewest or min(inst.extent) > 3)


def branches(inst: Tiling, up_to_symmetry: bool, symmetry_breaking: bool,
             orbits: bool = False, symmetry: str = "all") -> list[Branch]:
    """The searches to run: one plain search, or one per node of the symmetry-breaking plan for
    the group `symmetry` names, or (all tilings, `orbits`) one per orbit of a piece's placements
    under the problem's whole group: the piece fixed on the orbit's
    least placement, each tiling found mapped onto the rest of the orbit by the transversal. The
    tilings with the piece on placement g(r) are exactly the images under g of those with it on r
    (g permutes the tilings and keeps the piece), and different placements give different
    tilings, so the images partition all tilings: the count is exact, every tiling produced once."""
    if orbits and not up_to_symmetry and symmetry_breaking:
        op = orbit_piece(inst)
        if op is not None:
            return [Branch((r,), {}, images=trans) for r, trans in op[1]]
    if not (up_to_symmetry and symmetry_breaking):
        return [Branch((), {}, up_to_symmetry)]
    out = []

    def walk(n: PlanNode) -> None:
        if n.piece < 0:
            out.append(Branch(n.fixed, {}, n.residual > 1))
            return
        if not n.fixed:  # at the root: one search per kept placement, already on the board
            out.extend(Branch((q,), {}) for q in n.free)
        elif n.free:
            out.append(Branch(n.fixed, {n.piece: n.free}))
        for ch in n.children:
            walk(ch)
    walk(symmetry_plan(inst, symmetry))
    return out


@functools.lru_cache(maxsize=8)
def _geometry(inst: Tiling, scan: str) -> tuple[dict, tuple, list[int], list[int]]:
    """The scan order, its strides, and per placement: its anchor (first position in scan order)
    and its cells as an int bitmask."""
    order, strides = scan_order(inst, scan)
    pls = placements(inst)
    anchors = [min(order[x] for x in p.cells) for p in pls]
    bits = [sum(1 << order[x] for x in p.cells) for p in pls]
    return order, strides, anchors, bits


class _Search:
    """One branch prepared for the kernel: its placement table, buckets and start state."""

    def __init__(self, inst: Tiling, br: Branch, scan: str, branching: str = "auto"):
        pls = placements(inst)
        order, strides, anchors, bits = _geometry(inst, scan)
        self.ncells = ncells = len(order)
        self.counts = np.array([p.count for p in inst.pieces], dtype=np.int64)
        covered = set()
        for i in br.fixed:
            self.counts[pls[i].piece] -= 1
            covered |= set(pls[i].cells)
        occ = 0
        for x, k in order.items():  # fixed placements and positions off the board start filled
            if x in covered or x not in inst.cells:
                occ |= 1 << k
        occ |= ((1 << 128) - 1) << ncells  # past the end: filled (two spare words)
        nwords = (ncells + 63) // 64 + 2
        self.occ = np.array([(occ >> (64 * w)) & ((1 << 64) - 1) for w in range(nwords)],
                            dtype=np.uint64)
        self.fixed_sol = [pls[i].as_placement(inst) for i in br.fixed]
        left = self.counts.tolist()
        table = sorted((anchors[i], p.piece, i) for i, p in enumerate(pls)
                       if left[p.piece] > 0 and not bits[i] & occ
                       and (p.piece not in br.allowed or i in br.allowed[p.piece]))
        self.index = [i for _, _, i in table]          # table entry -> placement index
        self.as_pl = [pls[i].as_placement(inst) for i in self.index]
        self.done = int(self.counts.sum()) == 0
        n = len(table)
        self.windowed = all(bits[i] >> anchors[i] < 1 << 64 for i in self.index)
        self.first = next((k for k in range(ncells) if not (occ >> k) & 1), None)
        self.depth_max = int(self.counts.sum()) + 1
        self.piece_of = np.array([k for _, k, _ in table] or [0], dtype=np.int64)
        self.fewest = _use_fewest(inst, branching)
        self.neighbours = [[order[y] for a in range(inst.dim) for s in (-1, 1)
                            for y in [x[:a] + (x[a] + s,) + x[a + 1:]] if y in inst.cells]
                           for x in sorted(order, key=order.get)]
        if self.fewest:
            self._columns(bits, occ)
        start = np.zeros(ncells + 1, dtype=np.int64)
        if n:
            np.add.at(start, np.array([a + 1 for a, _, _ in table], dtype=np.int64), 1)
        self.start = np.cumsum(start).astype(np.int64)
        if self.windowed:
            self.rel = np.array([bits[i] >> anchors[i] for i in self.index] or [0],
                                dtype=np.uint64)
            self.bstart, self.bent, self.bskip = _buckets(self.rel, self.start, self.piece_of,
                                                          ncells, _KBITS)
            self.wtest, self.wnbr, self.strides, self.full, self.nbr = _prune_masks(inst, order,
                                                                                    strides)
            self.abs = (np.array([bits[i] for i in self.index] or [0], dtype=np.uint64)
                        if ncells <= 64 else None)
        else:  # a placement spans more than a window: the multi-word search
            w64 = (1 << 64) - 1
            self.masks = np.array([[(bits[i] >> (64 * w)) & w64 for w in range(nwords - 2)]
                                   for i in self.index] or [[0] * (nwords - 2)], dtype=np.uint64)
            self.skip = np.zeros(max(n, 1), dtype=np.int64)
            for j in range(n - 1, -1, -1):  # skip[j]: first entry after j's run of (anchor, piece)
                same = j + 1 < n and table[j + 1][:2] == table[j][:2]
                self.skip[j] = self.skip[j + 1] if same else j + 1

    def _columns(self, bits: list[int], occ: int) -> None:
        """The bitset exact cover of the fewest-options search (`_dfsx`): per table entry its
        conflict set, columns and neighbouring cells; per column its entries; the start counts
        and the column the first step branches on."""
        n, ncells, npieces = len(self.index), self.ncells, len(self.counts)
        nw = max(1, (n + 63) // 64)
        w64 = (1 << 64) - 1

        def words(x: int) -> list[int]:
            return [(x >> (64 * w)) & w64 for w in range(nw)]
        cells = [[k for k in range(ncells) if bits[i] >> k & 1] for i in self.index]
        colset = [0] * (ncells + npieces)
        for j, cs in enumerate(cells):
            for c in cs + [ncells + int(self.piece_of[j])]:
                colset[c] |= 1 << j
        self.conf = np.array([words(functools.reduce(int.__or__, (colset[k] for k in cs), 0))
                              for cs in cells] or [[0] * nw], dtype=np.uint64)
        self.cols = np.array([words(x) for x in colset], dtype=np.uint64)
        self.pset = self.cols[ncells:]
        width = max([len(cs) for cs in cells] or [0]) + 1
        self.pcols = np.zeros((max(n, 1), width), dtype=np.int32)
        self.ncol = np.ones(max(n, 1), dtype=np.int64)
        for j, cs in enumerate(cells):
            self.pcols[j, :len(cs) + 1] = cs + [ncells + int(self.piece_of[j])]
            self.ncol[j] = len(cs) + 1
        self.wlo = np.array([((x & -x).bit_length() - 1) // 64 if x else 0 for x in colset],
                            dtype=np.int64)
        self.whi = np.array([(x.bit_length() + 63) // 64 for x in colset], dtype=np.int64)
        near = [sorted({k2 for k in cs for k2 in self.neighbours[k]} - set(cs)) for cs in cells]
        self.nbc = np.zeros((max(n, 1), max([len(x) for x in near] or [1])), dtype=np.int32)
        self.nbn = np.zeros(max(n, 1), dtype=np.int64)
        for j, x in enumerate(near):
            self.nbc[j, :len(x)] = x
            self.nbn[j] = len(x)
        self.cnt = np.array([bin(x).count("1") for x in colset], dtype=np.int64)
        self.closed = np.array([bool(occ >> k & 1) for k in range(ncells)]
                               + [int(c) == 0 for c in self.counts], dtype=np.bool_)
        self.live = np.array(words((1 << n) - 1), dtype=np.uint64)
        self.root = 0
        if not self.done and self.first is not None:
            col, _ = _choose(self.cnt, self.closed, self.counts, ncells)
            self.root = colset[col]

    def first_choices(self) -> range:
        """The entries the first step may take (windowed search only): the first cell's bucket,
        or with fewest-fits branching the cover list of the position chosen first."""
        if self.fewest:
            return [j for j in range(len(self.index)) if self.root >> j & 1]
        bk = (self.first << _KBITS) | _pattern(self.occ, self.first)
        return range(int(self.bstart[bk]), int(self.bstart[bk + 1]))

    def run(self, first: int | None, stats: dict, progress, want: int | None):
        """Yield the branch's solutions as lists of table entries (the fixed ones not included)."""
        if self.done:
            yield []
            return
        if self.first is None:
            return
        dm = self.depth_max
        cell_st = np.zeros(dm, dtype=np.int64)
        pos_st = np.zeros(dm, dtype=np.int64)
        end_st = np.zeros(dm, dtype=np.int64)
        pl_st = np.zeros(dm, dtype=np.int64)
        out = np.zeros((min(_CHUNK_SOLUTIONS, want or _CHUNK_SOLUTIONS), dm), dtype=np.int64)
        counts, occ = self.counts.copy(), self.occ.copy()
        cell_st[0] = self.first
        if self.fewest:
            nw = self.live.shape[0]
            br_st = np.zeros((dm, nw), dtype=np.uint64)
            root = self.root if first is None else 1 << first
            br_st[0] = [(root >> (64 * w)) & ((1 << 64) - 1) for w in range(nw)]
            live_st = np.zeros((dm + 1, nw), dtype=np.uint64)
            live_st[0] = self.live
            cnt_st = np.zeros((dm + 1, self.cnt.shape[0]), dtype=np.int32)
            wp_st = np.zeros(dm, dtype=np.int64)
            cnt_st[0] = self.cnt
            closed = self.closed.copy()

            def step(d):
                return _dfsx(self.conf, self.pset, self.cols, self.pcols, self.ncol, self.nbc,
                             self.nbn, self.wlo, self.whi, self.ncells, counts, closed, live_st,
                             cnt_st, d, br_st, wp_st, pl_st, out, _CHUNK_NODES)
        elif self.windowed:
            r = self.first_choices() if first is None else range(first, first + 1)
            pos_st[0], end_st[0] = r.start, r.stop

            if self.abs is not None:  # one word holds the board: the register version

                def step(d):
                    return _dfs1(self.abs, self.piece_of, self.bstart, self.bent, self.bskip,
                                 _KBITS, self.full, self.nbr, self.strides, counts, occ, d,
                                 cell_st, pos_st, end_st, pl_st, self.ncells, out, _CHUNK_NODES)
            else:

                def step(d):
                    return _dfsw(self.rel, self.piece_of, self.bstart, self.bent, self.bskip,
                                 _KBITS, self.wtest, self.wnbr, self.strides, counts, occ, d,
                                 cell_st, pos_st, end_st, pl_st, self.ncells, out, _CHUNK_NODES)
        else:
            if first is not None:
                raise ValueError("a first choice needs the windowed search")
            pos_st[0] = self.start[self.first]
            words = occ[:occ.shape[0] - 2].copy()

            def step(d):
                return _dfs(self.masks, self.piece_of, self.skip, self.start, counts, words, d,
                            cell_st, pos_st, pl_st, self.ncells, out, _CHUNK_NODES)
        d = 0
        while True:
            status, n_out, d, nodes = step(d)
            stats["nodes"] += int(nodes)
            for row in out[:n_out, :dm - 1].tolist():
                yield row
            if progress is not None:
                progress(nodes=stats["nodes"])
            if status == 0:
                return


def _use_fewest(inst: Tiling, branching: str) -> bool:
    """Whether to branch on the fewest-options column (`_dfsx`) rather than the first empty cell.
    'auto': fewest options on 3D boards, first cell on 2D ones — measured side by side, kernel CPU
    seconds (`python bench/pentomino.py --raw --branching first-cell,fewest`): in 3D the first
    empty cell has many options and dead cells show up late (2x5x6 all: 134M placements and 10.2 s
    against 3.4M and 2.9 s; 3x4x5 up to symmetry 168M / 14.2 s against 7.1M / 6.0 s), while
    the small 3D counts it loses are fractions of a second (Soma all 0.05 against 0.15 s, 2x3x10
    all 0.17 against 0.37 s); in 2D first-cell's cheap nodes won on every catalogue board (8x8
    minus corners all 2.7 against 4.5 s, one-sided 3x30 all 0.36 against 1.95 s). Since the
    popcount recount, fewest options is about even in 2D (8x8 minus corners all 1.86 against
    2.89 s, up to symmetry 0.36 against 0.26; 6x10 all 0.92 against 1.02, up to symmetry 0.35
    against 0.13), and 3x4x5 up to symmetry takes 2.98 s."""
    if branching not in BRANCHINGS:
        raise ValueError(f"branching must be one of {BRANCHINGS}")
    if branching == "auto":
        return inst.dim == 3
    return branching == "fewest"


def _pattern(occ: np.ndarray, c: int) -> int:
    return (int(_window(occ, c)) >> 1) & ((1 << _KBITS) - 1)


def _solutions(inst: Tiling, search: _Search, br: Branch, rows):
    """Solution rows (table entries) as tilings: sorted placements, the fixed ones included;
    in an orbit branch each followed by its images under the branch's other symmetries."""
    for row in rows:
        sol = tuple(sorted(search.fixed_sol + [search.as_pl[j] for j in row]))
        yield sol
        for g in br.images[1:]:
            yield transform(sol, g)


def tilings(inst: Tiling, *, up_to_symmetry: bool = False, symmetry_breaking: bool = True,
            symmetry: str = "all", orbits: bool = False, scan: str = "short",
            branching: str = "auto",
            limit: int | None = None,
            stats: dict | None = None,
            progress: Callable[..., None] | None = None) -> Iterator[Solution]:
    """Every tiling of `inst` (or one per orbit of the group `symmetry` names, with
    `up_to_symmetry`), each once, as sorted placements.

    `stats` (if given) receives 'nodes' (placements made) and 'branches' (searches run).
    `branching`: 'first-cell', 'fewest' (the exact-cover column with the fewest live
    placements) or 'auto' (see `_use_fewest`); every choice gives the same tilings.

    >>> from puzzlesat.puzzles.pentomino import make
    >>> len(list(tilings(make("2x5", "....." + chr(10) + ".....", "PP"))))  # two P's; L+P cannot
    2
    """
    if scan not in SCANS:
        raise ValueError(f"scan must be one of {SCANS}")
    stats = {} if stats is None else stats
    stats.setdefault("nodes", 0)
    brs = branches(inst, up_to_symmetry, symmetry_breaking, orbits, symmetry)
    stats["branches"] = len(brs)
    group = symmetries(inst, symmetry)
    seen: set = set()
    n = 0
    for br in brs:
        search = _Search(inst, br, scan, branching)
        rows = search.run(None, stats, progress, None if limit is None else limit - n)
        for sol in _solutions(inst, search, br, rows):
            if br.dedup:
                key = canonical(inst, sol, group)
                if key in seen:
                    continue
                seen.add(key)
            yield sol
            n += 1
            if limit is not None and n >= limit:
                return


# ---- independent subtrees on several processes ------------------------------------------------
def _subtree_worker(conn, inst: Tiling, scan: str, brs: list, jobs: list,
                    branching: str = "auto") -> None:
    """Child: run `jobs` (branch k, first choice f) in turn, sending (k, nodes, rows) per job."""
    cache: dict = {}
    try:
        for k, f in jobs:
            if k not in cache:
                cache.clear()
                cache[k] = _Search(inst, brs[k], scan, branching)
            st = {"nodes": 0}
            rows = list(cache[k].run(f, st, None, None))
            width = cache[k].depth_max - 1
            conn.send((k, st["nodes"], np.array(rows, dtype=np.int32).reshape(len(rows), width)))
        conn.send(None)
    finally:
        conn.close()


def subtrees(inst: Tiling, brs: list[Branch], scan: str,
             branching: str = "auto") -> list[tuple[int, int | None]]:
    """The independent searches: each branch split by the choices of its first step (where the
    windowed search runs it), so that a pool balances them."""
    out: list[tuple[int, int | None]] = []
    for k, br in enumerate(brs):
        s = _Search(inst, br, scan, branching)
        if (s.windowed or s.fewest) and not s.done and s.first is not None and not br.dedup:
            out.extend((k, f) for f in s.first_choices())
        else:
            out.append((k, None))
    return out


def tilings_parallel(inst: Tiling, processes: int, *, up_to_symmetry: bool = False,
                     symmetry_breaking: bool = True, symmetry: str = "all", orbits: bool = False,
                     scan: str = "short", branching: str = "auto", part: int = 0,
                     parts: int = 1,
                     stats: dict | None = None,
                     progress: Callable[..., None] | None = None) -> Iterator[Solution]:
    """`tilings` with the independent subtrees run on `processes` forked processes; each tiling
    once (the subtrees partition the search); the order is not fixed. Branches that need
    canonical deduplication run here, in order. With `parts` > 1 only part `part` of the search:
    the subtrees i with i mod parts == part (the parts partition the tilings, so their counts
    add up to the whole count)."""
    if not 0 <= part < parts:
        raise ValueError(f"part must be in 0..{parts - 1}")
    stats = {} if stats is None else stats
    stats.setdefault("nodes", 0)
    brs = branches(inst, up_to_symmetry, symmetry_breaking, orbits, symmetry)
    group = symmetries(inst, symmetry)
    stats["branches"] = len(brs)
    jobs = subtrees(inst, brs, scan, branching)
    stats["subtrees"] = len(jobs)
    if parts > 1:
        jobs = jobs[part::parts]
        stats["part"] = f"{part}/{parts}: {len(jobs)} of {stats['subtrees']} subtrees"
    par = [j for j in jobs if not brs[j[0]].dedup]
    seen: set = set()
    searches: dict = {}
    # plain forked children (the runner's worker is a daemon process, which may not own a Pool);
    # job i goes to child i mod processes: hundreds of subtrees balance well enough that way
    conns, pids = [], []
    with forking():  # see core/procs.py
        for w in range(processes):
            parent, child = mpc.Pipe(duplex=False)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                parent.close()
                code = 0
                try:
                    _subtree_worker(child, inst, scan, brs, par[w::processes], branching)
                except BaseException:
                    code = 1
                os._exit(code)
            child.close()
            conns.append(parent)
            pids.append(pid)
    try:
        live = list(conns)
        while live:
            for c in mpc.wait(live):
                try:
                    msg = c.recv()
                except EOFError:
                    raise RuntimeError("a search process died") from None
                if msg is None:
                    live.remove(c)
                    continue
                k, nodes, rows = msg
                stats["nodes"] += nodes
                if k not in searches:
                    searches = {k: _Search(inst, brs[k], scan, branching)}
                yield from _solutions(inst, searches[k], brs[k], rows.tolist())
                if progress is not None:
                    progress(nodes=stats["nodes"])
    finally:
        for c in conns:
            c.close()
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    for k, f in jobs:
        if brs[k].dedup:
            s = _Search(inst, brs[k], scan, branching)
            for sol in _solutions(inst, s, brs[k], s.run(f, stats, progress, None)):
                key = canonical(inst, sol, group)
                if key not in seen:
                    seen.add(key)
                    yield sol


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs — tasks feasible and count (options up_to_symmetry, symmetry,
    symmetry_breaking, scan, processes, branching, part/parts). Counting streams every tiling to ctx.found and keeps
    none (the runner checks and counts the stream); with parts > 1 the count is that of part
    `part` of the subtrees (OPTIMAL, possibly 0), the parts summing to the whole count."""
    o = ctx.options
    up = o["up_to_symmetry"] and task is Task.COUNT
    brk, scan, procs = o["symmetry_breaking"], o["scan"], o["processes"]
    group = o.get("symmetry", "all")
    how = o.get("branching", "auto")
    part, parts = o.get("part", 0), o.get("parts", 1)
    if parts > 1 and task is not Task.COUNT:
        raise ValueError("parts > 1 splits a count: task count only")
    stats: dict = {"nodes": 0}
    prog = lambda **f: ctx.progress(**f)  # noqa: E731
    if task is Task.FEASIBLE:
        sols = list(tilings(inst, scan=scan, branching=how, limit=1, stats=stats,
                            progress=prog))
        for s in sols:
            ctx.found(s)
        params = {"scan": scan, "branching": how, "fewest_options": _use_fewest(inst, how)}
        return Outcome(Status.FEASIBLE if sols else Status.INFEASIBLE, solutions=tuple(sols),
                       stats=stats, params=params)
    orb = brk and not up and use_orbits(inst, _use_fewest(inst, how))
    if procs > 1 or parts > 1:
        gen = tilings_parallel(inst, procs, up_to_symmetry=up, symmetry_breaking=brk,
                               symmetry=group, orbits=orb, scan=scan, branching=how, part=part, parts=parts,
                               stats=stats, progress=prog)
    else:
        gen = tilings(inst, up_to_symmetry=up, symmetry_breaking=brk, symmetry=group, orbits=orb,
                      scan=scan,
                      branching=how, stats=stats, progress=prog)
    n = 0
    for s in gen:
        ctx.found(s)
        n += 1
    params = {"symmetry_breaking_applied": up and brk, "orbit_images": orb, "scan": scan,
              "processes": procs, "branching": how, "fewest_options": _use_fewest(inst, how),
              "part": part, "parts": parts}
    if up:
        params["group_order"] = len(symmetries(inst, group))
    if n == 0 and parts > 1:  # this part of the search holds no tiling: its count is 0
        return Outcome(Status.OPTIMAL, count=0, solutions=(), stats={**stats, "streamed": True}, params=params)
    if n == 0:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, params=params)
    return Outcome(Status.OPTIMAL, count=n, solutions=(), stats={**stats, "streamed": True}, params=params)
