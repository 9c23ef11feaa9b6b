"""Additive pattern databases for the 15-puzzle (Korf & Felner, "Disjoint pattern database
heuristics", Artificial Intelligence 134, 2002).

The 15 tiles are split into disjoint patterns; each database stores, for every placement of its
pattern's tiles, the fewest moves *of those tiles* that bring them home, found by a 0-1 BFS
backwards from the goal over (pattern cells, blank cell) where moving any other tile is free.
Only pattern-tile moves are counted, so the databases add up to an admissible heuristic.

Databases are built for the standard goal (1..15, blank last); `canonical` maps any 4x4 goal with
the blank in a corner to it by a board symmetry and a relabelling of the tiles (Korf's instances
have the blank first). Built once, then cached as .npz in the user cache directory
(platformdirs.user_cache_dir("puzzlesat")).
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from puzzlesat.puzzles.sliding import Sliding

N = 16
VERSION = 1
# Patterns by goal cell (row-major; cell c holds tile c+1 in the standard goal, cell 15 the blank).
PARTITIONS: dict[str, tuple[tuple[int, ...], ...]] = {
    "663": ((0, 4, 5, 8, 9, 12), (6, 7, 10, 11, 13, 14), (1, 2, 3)),
    "555": ((0, 1, 4, 5, 8), (2, 3, 6, 7, 11), (9, 10, 12, 13, 14)),
}


def cache_dir() -> Path:
    import platformdirs
    return Path(platformdirs.user_cache_dir("puzzlesat")) / "sliding"


def patterns(name: str) -> list[list[int]]:
    """The partition's patterns as lists of tiles."""
    if name not in PARTITIONS:
        raise ValueError(f"unknown pattern partition '{name}'; known: {', '.join(PARTITIONS)}")
    return [[c + 1 for c in cells] for cells in PARTITIONS[name]]


def _symmetries() -> list[list[int]]:
    """The 8 symmetries of the 4x4 square as cell maps g (cell c goes to g[c])."""
    out = []
    for k in range(4):
        for flip in (False, True):
            g = []
            for c in range(N):
                r, q = divmod(c, 4)
                if flip:
                    q = 3 - q
                for _ in range(k):
                    r, q = q, 3 - r
                g.append(r * 4 + q)
            out.append(g)
    return out


def canonical(inst: Sliding):
    """(start, goal, relabel) mapping `inst` onto the standard goal, or None if the goal's blank is
    not in a corner. relabel[t] is the original tile for standard tile t."""
    gb = inst.goal.index(0)
    for g in _symmetries():
        if g[gb] != N - 1:
            continue
        s2 = [0] * N
        g2 = [0] * N
        for c in range(N):
            s2[g[c]] = inst.start[c]
            g2[g[c]] = inst.goal[c]
        sigma = {g2[c]: (c + 1 if c < N - 1 else 0) for c in range(N)}
        relabel = [0] * N
        for t, s in sigma.items():
            relabel[s] = t
        start = np.array([sigma[t] for t in s2], np.int64)
        goal = np.array(list(range(1, N)) + [0], np.int64)
        return start, goal, tuple(relabel)
    return None


@njit(cache=True)
def _rank(pos, m, pc):
    used = 0
    r = 0
    for i in range(m):
        p = pos[i]
        d = p - pc[used & ((1 << p) - 1)]
        used |= 1 << p
        r = r * (16 - i) + d
    return r


@njit(cache=True)
def _push(arr, m, x):
    if m == arr.shape[0]:
        new = np.empty(arr.shape[0] * 2, arr.dtype)
        new[:m] = arr
        arr = new
    arr[m] = x
    return arr


@njit(cache=True)
def _rank_packed(p, m, pc):
    """Rank of m cells packed 4 bits each (field i = cell of item i)."""
    used = 0
    r = 0
    for i in range(m):
        c = (p >> (4 * i)) & 15
        d = c - pc[used & ((1 << c) - 1)]
        used |= 1 << c
        r = r * (16 - i) + d
    return r


@njit(cache=True)
def _level(dist, d, cur, ncur, k, nbr, nnbr, pc):
    """Settle level d of the 0-1 BFS: free moves close the level, pattern moves feed level d+1.

    States travel packed (4 bits per cell: the k pattern tiles, then the blank); dist is indexed
    by their rank."""
    stack = cur
    m = ncur
    nxt = np.empty(1024, np.int64)
    mn = 0
    settled = 0
    bshift = 4 * k
    while m > 0:
        m -= 1
        p = stack[m]
        if dist[_rank_packed(p, k + 1, pc)] != d:
            continue
        settled += 1
        b = (p >> bshift) & 15
        occ = 0
        for i in range(k):
            occ |= 1 << ((p >> (4 * i)) & 15)
        for e in range(nnbr[b]):
            c = nbr[b, e]
            if (occ >> c) & 1 == 0:
                q = p + ((c - b) << bshift)
                r = _rank_packed(q, k + 1, pc)
                if dist[r] > d:
                    dist[r] = d
                    stack = _push(stack, m, q)
                    m += 1
            else:
                j = 0
                while (p >> (4 * j)) & 15 != c:
                    j += 1
                q = p + ((c - b) << bshift) + ((b - c) << (4 * j))
                r = _rank_packed(q, k + 1, pc)
                if dist[r] == 255:
                    dist[r] = d + 1
                    nxt = _push(nxt, mn, q)
                    mn += 1
    return nxt[:mn].copy(), settled


def build_pattern(tiles: list[int], progress=None) -> np.ndarray:
    """The database of one pattern: fewest pattern-tile moves, indexed by the rank of its cells."""
    from .sliding import tables, _popcount_table
    k = len(tiles)
    size = 1
    for i in range(k + 1):
        size *= N - i
    dist = np.full(size, 255, np.uint8)
    nbr, nnbr = tables(4, 4)
    pc = _popcount_table(N)
    pos = np.array([t - 1 for t in tiles] + [N - 1], np.int64)
    s0 = int(_rank(pos, k + 1, pc))
    dist[s0] = 0
    cur = np.array([sum(int(c) << (4 * i) for i, c in enumerate(pos))], np.int64)
    d = 0
    done = 0
    while cur.size:
        cur, settled = _level(dist, d, cur, cur.size, k, nbr, nnbr, pc)
        done += int(settled)
        d += 1
        if progress is not None:
            progress(done, size)
    return dist.reshape(-1, N - k).min(axis=1)


def path(name: str) -> Path:
    return cache_dir() / f"pdb-4x4-{name}-v{VERSION}.npz"


def build(name: str, progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Build every pattern of partition `name` (progress(pattern_index, done, total))."""
    pats = patterns(name)
    dbs = []
    for i, tiles in enumerate(pats):
        cb = None if progress is None else (lambda done, total, i=i: progress(i, done, total))
        dbs.append(build_pattern(tiles, cb))
    width = max(db.size for db in dbs)
    arr = np.full((len(pats), width), 0, np.uint8)
    for i, db in enumerate(dbs):
        arr[i, :db.size] = db
    pat_tiles = np.zeros((len(pats), max(len(p) for p in pats)), np.int64)
    pat_len = np.array([len(p) for p in pats], np.int64)
    for i, p in enumerate(pats):
        pat_tiles[i, :len(p)] = p
    return arr, pat_tiles, pat_len


_LOADED: dict[str, tuple] = {}


def load(name: str = "663", progress=None, rebuild: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(databases, pattern tiles, pattern lengths) of partition `name`: from the disk cache, or built
    and cached. `progress(**fields)` receives the build's progress; without it, a rich progress
    bar is shown on stderr."""
    if name in _LOADED and not rebuild:
        return _LOADED[name]
    f = path(name)
    if f.exists() and not rebuild:
        try:
            with np.load(f) as z:
                res = (z["pdb"], z["pat_tiles"], z["pat_len"])
            _LOADED[name] = res
            return res
        except Exception:  # a damaged cache file is rebuilt
            pass
    t0 = time.perf_counter()
    if progress is not None:
        res = build(name, lambda i, done, total: progress(
            phase=f"building pattern database {name} ({i + 1}/{len(PARTITIONS[name])})",
            done=f"{100 * done / total:.0f}%"))
    else:
        res = _build_with_bar(name)
    f.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=f.parent, suffix=".tmp.npz")
    os.close(fd)
    np.savez(tmp, pdb=res[0], pat_tiles=res[1], pat_len=res[2],
             seconds=np.array(time.perf_counter() - t0))
    os.replace(tmp, f)
    _LOADED[name] = res
    return res


def _build_with_bar(name: str):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    pats = patterns(name)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        tasks = [bar.add_task(f"pattern database {name}: tiles {','.join(map(str, p))}", total=1.0)
                 for p in pats]
        return build(name, lambda i, done, total: bar.update(tasks[i], completed=done / total))
