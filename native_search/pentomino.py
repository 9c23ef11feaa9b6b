"""Native tiling search: depth-first, always filling the first empty cell, over bitboards (numba).

Positions of the board's bounding box (2D or 3D) are numbered in a scan order that runs fastest
along the shortest side; each placement is filed under its first position in that order, so the
first empty cell can only be covered by a placement filed under it. A placement is stored relative
to that first position, and the kernel tests it against the 64 positions from the current first
empty cell on (a window): one word per test whatever the board's size (90 cells for one-sided
6x15); a placement spanning more than a window falls back to the multi-word search `_dfs`. Each
tiling is produced once: the search picks placements per piece *kind* with a count of copies
left, so swapping identical copies never yields a second tiling (SPEC §2).

Counting up to symmetry either follows the symmetry-breaking plan of `puzzles.pentomino_breaking`
(exact orbit counts, derived from the problem's group) or, with breaking off, keeps the first
tiling of each canonical form. The plan's branches, split by the choice their first step takes,
are independent subtrees: `tilings_parallel` runs them on several forked processes.

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

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.pentomino import Solution, Tiling, canonical, placements
from puzzlesat.puzzles.pentomino_breaking import PlanNode, symmetry_plan

SCANS = ("short", "long")
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


def branches(inst: Tiling, up_to_symmetry: bool, symmetry_breaking: bool) -> list[Branch]:
    """The searches to run: one plain search, or one per node of the symmetry-breaking plan."""
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
    walk(symmetry_plan(inst))
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

    def __init__(self, inst: Tiling, br: Branch, scan: str):
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

    def first_choices(self) -> range:
        """The bucket entries the first step may take (windowed search only)."""
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
        if self.windowed:
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


def _pattern(occ: np.ndarray, c: int) -> int:
    return (int(_window(occ, c)) >> 1) & ((1 << _KBITS) - 1)


def _solutions(inst: Tiling, search: _Search, br: Branch, rows):
    """Solution rows (table entries) as tilings: sorted placements, the fixed ones included."""
    for row in rows:
        yield tuple(sorted(search.fixed_sol + [search.as_pl[j] for j in row]))


def tilings(inst: Tiling, *, up_to_symmetry: bool = False, symmetry_breaking: bool = True,
            scan: str = "short", limit: int | None = None, stats: dict | None = None,
            progress: Callable[..., None] | None = None) -> Iterator[Solution]:
    """Every tiling of `inst` (or one per symmetry orbit), each once, as sorted placements.

    `stats` (if given) receives 'nodes' (placements made) and 'branches' (searches run).

    >>> from puzzlesat.puzzles.pentomino import make
    >>> len(list(tilings(make("2x5", "....." + chr(10) + ".....", "PP"))))  # two P's; L+P cannot
    2
    """
    if scan not in SCANS:
        raise ValueError(f"scan must be one of {SCANS}")
    stats = {} if stats is None else stats
    stats.setdefault("nodes", 0)
    brs = branches(inst, up_to_symmetry, symmetry_breaking)
    stats["branches"] = len(brs)
    seen: set = set()
    n = 0
    for br in brs:
        search = _Search(inst, br, scan)
        rows = search.run(None, stats, progress, None if limit is None else limit - n)
        for sol in _solutions(inst, search, br, rows):
            if br.dedup:
                key = canonical(inst, sol)
                if key in seen:
                    continue
                seen.add(key)
            yield sol
            n += 1
            if limit is not None and n >= limit:
                return


# ---- independent subtrees on several processes ------------------------------------------------
def _subtree_worker(conn, inst: Tiling, scan: str, brs: list, jobs: list) -> None:
    """Child: run `jobs` (branch k, first choice f) in turn, sending (k, nodes, rows) per job."""
    cache: dict = {}
    try:
        for k, f in jobs:
            if k not in cache:
                cache.clear()
                cache[k] = _Search(inst, brs[k], scan)
            st = {"nodes": 0}
            rows = list(cache[k].run(f, st, None, None))
            width = cache[k].depth_max - 1
            conn.send((k, st["nodes"], np.array(rows, dtype=np.int32).reshape(len(rows), width)))
        conn.send(None)
    finally:
        conn.close()


def subtrees(inst: Tiling, brs: list[Branch], scan: str) -> list[tuple[int, int | None]]:
    """The independent searches: each branch split by the choices of its first step (where the
    windowed search runs it), so that a pool balances them."""
    out: list[tuple[int, int | None]] = []
    for k, br in enumerate(brs):
        s = _Search(inst, br, scan)
        if s.windowed and not s.done and s.first is not None and not br.dedup:
            out.extend((k, f) for f in s.first_choices())
        else:
            out.append((k, None))
    return out


def tilings_parallel(inst: Tiling, processes: int, *, up_to_symmetry: bool = False,
                     symmetry_breaking: bool = True, scan: str = "short",
                     stats: dict | None = None,
                     progress: Callable[..., None] | None = None) -> Iterator[Solution]:
    """`tilings` with the independent subtrees run on `processes` forked processes; each tiling
    once (the subtrees partition the search); the order is not fixed. Branches that need
    canonical deduplication run here, in order."""
    stats = {} if stats is None else stats
    stats.setdefault("nodes", 0)
    brs = branches(inst, up_to_symmetry, symmetry_breaking)
    stats["branches"] = len(brs)
    jobs = subtrees(inst, brs, scan)
    stats["subtrees"] = len(jobs)
    par = [j for j in jobs if not brs[j[0]].dedup]
    seen: set = set()
    searches: dict = {}
    # plain forked children (the runner's worker is a daemon process, which may not own a Pool);
    # job i goes to child i mod processes: hundreds of subtrees balance well enough that way
    conns, pids = [], []
    for w in range(processes):
        parent, child = mpc.Pipe(duplex=False)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            parent.close()
            code = 0
            try:
                _subtree_worker(child, inst, scan, brs, par[w::processes])
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
                    searches = {k: _Search(inst, brs[k], scan)}
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
            s = _Search(inst, brs[k], scan)
            for sol in _solutions(inst, s, brs[k], s.run(f, stats, progress, None)):
                key = canonical(inst, sol)
                if key not in seen:
                    seen.add(key)
                    yield sol


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs — tasks feasible and count (options up_to_symmetry, symmetry_breaking,
    scan, processes). Counting streams every tiling to ctx.found and keeps none (the runner
    checks and counts the stream)."""
    o = ctx.options
    up = o["up_to_symmetry"] and task is Task.COUNT
    brk, scan, procs = o["symmetry_breaking"], o["scan"], o["processes"]
    stats: dict = {"nodes": 0}
    prog = lambda **f: ctx.progress(**f)  # noqa: E731
    if task is Task.FEASIBLE:
        sols = list(tilings(inst, scan=scan, limit=1, stats=stats, progress=prog))
        for s in sols:
            ctx.found(s)
        stats["params"] = {"scan": scan}
        return Outcome(Status.FEASIBLE if sols else Status.INFEASIBLE, solutions=tuple(sols),
                       stats=stats)
    if procs > 1:
        gen = tilings_parallel(inst, procs, up_to_symmetry=up, symmetry_breaking=brk, scan=scan,
                               stats=stats, progress=prog)
    else:
        gen = tilings(inst, up_to_symmetry=up, symmetry_breaking=brk, scan=scan, stats=stats,
                      progress=prog)
    n = 0
    for s in gen:
        ctx.found(s)
        n += 1
    stats["params"] = {"symmetry_breaking_applied": up and brk, "scan": scan,
                       "processes": procs}
    if n == 0:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats)
    return Outcome(Status.OPTIMAL, count=n, solutions=(), stats={**stats, "streamed": True})
