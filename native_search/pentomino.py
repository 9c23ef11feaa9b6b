"""Native tiling search: depth-first, always filling the first empty cell, over bitboards (numba).

Cells are numbered in a scan order; each placement is filed under its first cell in that order, so
the first empty cell can only be covered by a placement filed under it. Scanning along the board's
short side (down the 6-cell columns of 6x10) is much faster than along the long side. Each
tiling is produced once: the search picks placements per piece *kind* with a count of copies left,
so swapping identical copies never yields a second tiling (SPEC §2).

Counting up to symmetry either follows the symmetry-breaking plan of `puzzles.pentomino`
(exact orbit counts, derived from the board's group) or, with breaking off, keeps the first
tiling of each canonical form.

>>> from puzzlesat.puzzles.pentomino import catalogue
>>> sum(1 for _ in tilings(catalogue()["3x20"](), up_to_symmetry=True))
2
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Iterator

import numba
import numpy as np

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.pentomino import (PlanNode, Solution, Tiling, as_solution, canonical,
                               placements, symmetry_plan)

SCANS = ("short", "long")
_CHUNK_SOLUTIONS = 4096
_CHUNK_NODES = 4_000_000
_KBITS = 8  # occupancy bits after the first empty cell that index the placement buckets


def scan_order(inst: Tiling, scan: str = "short") -> tuple[dict[tuple[int, int], int], int]:
    """(position -> scan index, scan line length): lines along the short side of the bounding box
    ('short') or the long one. Up to 64 positions, the whole bounding box is numbered (positions
    off the board stay filled), so that neighbours are bit shifts; beyond, only the cells."""
    along_rows = (inst.width <= inst.height) == (scan == "short")
    key = (lambda x: (x[0], x[1])) if along_rows else (lambda x: (x[1], x[0]))
    box = [(r, c) for r in range(inst.height) for c in range(inst.width)]
    if len(box) <= 64:
        return {x: i for i, x in enumerate(sorted(box, key=key))}, (inst.width if along_rows
                                                                     else inst.height)
    return {x: i for i, x in enumerate(sorted(inst.cells, key=key))}, 0


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
def _dfs1(m, piece_of, bstart, bent, bskip, kbits, full, not_last, not_first, line, counts, occ,
          d, cell_st, pos_st, end_st, pl_st, ncells, out, node_limit):  # pragma: no cover - compiled
    """_dfs specialised to boards of at most 64 cells (one bitboard word), with each cell's
    placements pre-filtered by the occupancy of the next `kbits` cells in scan order: bucket
    (cell << kbits | pattern) lists the placements (indices into `m`) that avoid that pattern.
    State: pos_st/end_st = the bucket range left to try at each depth. Same returns as _dfs."""
    n_out = 0
    nodes = 0
    one = np.uint64(1)
    pmask = np.uint64((1 << kbits) - 1)
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
                if line > 0:  # prune: an empty cell with no empty neighbour can never be covered
                    e = full & ~(board | m[j])
                    if e & ~(((e >> one) & not_last) | ((e << one) & not_first)
                             | (e >> np.uint64(line)) | (e << np.uint64(line))):
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
                for j in range(d + 1):
                    out[n_out, j] = pl_st[j]
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


def _prune_masks(inst: Tiling, order: dict, scan_len: int):
    """Bitboards for the isolated-cell test: board cells, positions that have a next / previous
    position on their scan line, and the line length (0 disables the test: a piece of one cell)."""
    full = np.uint64(0)
    nl = nf = np.uint64(0)
    for x, k in order.items():
        b = np.uint64(1) << np.uint64(k)
        if x in inst.cells:
            full |= b
        if k % scan_len != scan_len - 1:
            nl |= b
        if k % scan_len:
            nf |= b
    ok = min(p.size for p in inst.pieces) >= 2 and 0 < scan_len < 64
    return full, nl, nf, (scan_len if ok else 0)


@numba.njit(cache=True)
def _bucket_fill(m1, start, piece_of, ncells, kbits, bstart, bent, bskip):  # pragma: no cover
    """Fill bucket (cell << kbits | pattern) with the placements filed under the cell that avoid
    the pattern (the occupancy of the next kbits cells); returns the number of entries. Called
    once with empty `bent` (sizes only: bstart gets the counts), then to fill."""
    npat = 1 << kbits
    at = 0
    for c in range(ncells):
        for pat in range(npat):
            bstart[c * npat + pat] = at
            for j in range(start[c], start[c + 1]):
                sh = m1[j] >> np.uint64(c + 1) if c < 63 else np.uint64(0)
                if sh & np.uint64(pat) == 0:
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


def _buckets(m1: np.ndarray, start: np.ndarray, piece_of: np.ndarray, ncells: int, kbits: int):
    """For each (cell, occupancy pattern of the next kbits cells): the placements filed under the
    cell that avoid the pattern, in piece order, with skip links past each piece's run."""
    bstart = np.zeros(ncells * (1 << kbits) + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    n = _bucket_fill(m1, start, piece_of, ncells, kbits, bstart, empty, empty)
    bent = np.zeros(n, dtype=np.int64)
    bskip = np.zeros(n, dtype=np.int64)
    _bucket_fill(m1, start, piece_of, ncells, kbits, bstart, bent, bskip)
    return bstart, bent, bskip


@dataclass
class Branch:
    """One independent search: placements fixed beforehand, and per-piece allowed placements."""

    fixed: tuple[int, ...]
    allowed: dict[int, tuple[int, ...]]   # piece index -> the only placements it may take
    dedup: bool = False                   # a residual symmetry remains: dedupe by canonical form


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
def _geometry(inst: Tiling, order_items: tuple) -> tuple[list[int], list[int]]:
    """Per placement: its anchor (first cell in scan order) and its cells as an int bitmask."""
    order = dict(order_items)
    pls = placements(inst)
    anchors = [min(order[x] for x in p.cells) for p in pls]
    bits = [sum(1 << order[x] for x in p.cells) for p in pls]
    return anchors, bits


def _run_branch(inst: Tiling, br: Branch, order: dict, scan_len: int, stats: dict,
                progress: Callable[..., None] | None, want: int | None = None) -> Iterator[Solution]:
    pls = placements(inst)
    anchors, bits = _geometry(inst, tuple(sorted(order.items())))
    ncells = len(order)
    nwords = (ncells + 63) // 64
    counts = np.array([p.count for p in inst.pieces], dtype=np.int64)
    occ = np.zeros(nwords, dtype=np.uint64)
    covered = set()
    for i in br.fixed:
        counts[pls[i].piece] -= 1
        covered |= set(pls[i].cells)
    for x, k in order.items():  # fixed placements and positions off the board start filled
        if x in covered or x not in inst.cells:
            occ[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    fixed_sol = [pls[i].as_placement(inst) for i in br.fixed]  # cells already sorted
    table: list[tuple[int, int, int]] = []  # (anchor, piece, placement index)
    left = counts.tolist()
    cov = sum(1 << order[x] for x in covered)
    for i, p in enumerate(pls):
        if left[p.piece] <= 0 or bits[i] & cov:
            continue
        if p.piece in br.allowed and i not in br.allowed[p.piece]:
            continue
        table.append((anchors[i], p.piece, i))
    table.sort()
    n = len(table)
    if int(counts.sum()) == 0:
        yield as_solution(fixed_sol)
        return
    masks = np.zeros((max(n, 1), nwords), dtype=np.uint64)
    piece_of = np.zeros(max(n, 1), dtype=np.int64)
    skip = np.zeros(max(n, 1), dtype=np.int64)
    start = np.zeros(ncells + 1, dtype=np.int64)
    word = (1 << 64) - 1
    if n:
        masks[:] = np.array([[(bits[i] >> (64 * w)) & word for w in range(nwords)]
                             for _, _, i in table], dtype=np.uint64)
        piece_of[:] = [k for _, k, _ in table]
        np.add.at(start, np.array([a + 1 for a, _, _ in table], dtype=np.int64), 1)
    start = np.cumsum(start).astype(np.int64)
    for j in range(n - 1, -1, -1):  # skip[j]: first entry after j's run of (anchor, piece)
        same = j + 1 < n and table[j + 1][:2] == table[j][:2]
        skip[j] = skip[j + 1] if same else j + 1
    first = next((k for k in range(ncells) if not (int(occ[k >> 6]) >> (k & 63)) & 1), None)
    if first is None:
        return
    depth_max = int(counts.sum()) + 1
    as_pl = [pls[i].as_placement(inst) for _, _, i in table]
    cell_st = np.zeros(depth_max, dtype=np.int64)
    pos_st = np.zeros(depth_max, dtype=np.int64)
    end_st = np.zeros(depth_max, dtype=np.int64)
    pl_st = np.zeros(depth_max, dtype=np.int64)
    out = np.zeros((min(_CHUNK_SOLUTIONS, want or _CHUNK_SOLUTIONS), depth_max), dtype=np.int64)
    if nwords == 1:
        m1 = np.ascontiguousarray(masks[:, 0])
        bstart, bent, bskip = _buckets(m1, start, piece_of, ncells, _KBITS)
        full, not_last, not_first, line = _prune_masks(inst, order, scan_len)
        pat = (int(occ[0]) >> (first + 1)) & ((1 << _KBITS) - 1)
        bk = (first << _KBITS) | pat
        cell_st[0], pos_st[0], end_st[0] = first, bstart[bk], bstart[bk + 1]

        def step(d):
            return _dfs1(m1, piece_of, bstart, bent, bskip, _KBITS, full, not_last, not_first,
                         line, counts, occ, d, cell_st,
                         pos_st, end_st, pl_st, ncells, out, _CHUNK_NODES)
    else:
        cell_st[0], pos_st[0] = first, start[first]

        def step(d):
            return _dfs(masks, piece_of, skip, start, counts, occ, d, cell_st, pos_st, pl_st,
                        ncells, out, _CHUNK_NODES)
    d = 0
    while True:
        status, n_out, d, nodes = step(d)
        stats["nodes"] += int(nodes)
        for row in out[:n_out, :depth_max - 1].tolist():
            yield tuple(sorted(fixed_sol + [as_pl[j] for j in row]))
        if progress is not None:
            progress(nodes=stats["nodes"])
        if status == 0:
            return


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
    order, scan_len = scan_order(inst, scan)
    brs = branches(inst, up_to_symmetry, symmetry_breaking)
    stats["branches"] = len(brs)
    seen: set = set()
    n = 0
    for br in brs:
        for sol in _run_branch(inst, br, order, scan_len, stats, progress,
                               None if limit is None else limit - n):
            if br.dedup:
                key = canonical(inst, sol)
                if key in seen:
                    continue
                seen.add(key)
            yield sol
            n += 1
            if limit is not None and n >= limit:
                return


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs — tasks feasible and count (options up_to_symmetry, symmetry_breaking, scan)."""
    up = bool(ctx.options.get("up_to_symmetry", False)) and task is Task.COUNT
    brk = bool(ctx.options.get("symmetry_breaking", True))
    scan = ctx.options.get("scan", "short")
    stats: dict = {"nodes": 0}
    limit = 1 if task is Task.FEASIBLE else None
    sols = []
    for s in tilings(inst, up_to_symmetry=up, symmetry_breaking=brk, scan=scan, limit=limit,
                     stats=stats, progress=lambda **f: ctx.progress(**f)):
        sols.append(s)
        ctx.found(s)
    stats["params"] = {"symmetry_breaking_applied": up and brk, "scan": scan}
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE if sols else Status.INFEASIBLE, solutions=tuple(sols),
                       stats=stats)
    if not sols:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats)
    return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats)
