"""Additive disjoint pattern databases for sliding-tile puzzles (Korf & Felner, "Disjoint pattern
database heuristics", Artificial Intelligence 134, 2002).

The tiles are split into disjoint patterns; a pattern's database holds, for every placement of its
tiles, the fewest moves *of those tiles* that bring them home, where the blank moves freely over
the other cells. Only pattern-tile moves are counted, so the databases of a partition add up to
an admissible heuristic. A database is built by breadth-first search over (placement, blank
region): the blank stands for the whole region of free cells it can reach at no cost, named by the
region's lowest cell, so every edge costs one pattern move.

Vocabulary:
- frame: databases are defined for a frame goal (tiles 1..n-1 in row-major order, the blank last
  in the standard frame); `canonical` maps any goal to one by a board symmetry and a relabelling
  of the tiles (Korf's instances have the blank first: a corner, the standard frame). A goal
  whose blank is not in a corner gets the partition with the blank's cell swapped for the last
  cell (`for_blank`) and databases of its own, built on first use.
- partition: patterns as goal cells in the frame (`PARTITIONS[(rows, cols)][name]`).
- key: a database is named by its pattern cells (sorted) and its blank region's lowest cell, after
  the board symmetry that makes them smallest, so patterns that are images of each other under a
  symmetry of the board (three of Korf & Felner's four 24-puzzle patterns) share one database.
- lookup: (database, the pattern's tiles in the database's item order, a cell map into the
  database's frame), assembled by `dida.tables` for the partition and its mirror image
  (and, for dual lookups, every pattern minus each blank object).
- storage: one byte per entry, indexed by the placement's partial rank (a perfect hash onto
  0 .. n(n-1)...(n-k+1)-1); cached in platformdirs.user_cache_dir("puzzlesat")/sliding as a JSON
  header line and the raw bytes, with the format version, key, size and a BLAKE2 digest checked on
  load: a missing, truncated, damaged or other-version file is rebuilt, never trusted.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit, objmode

from ...core.files import write_atomic
from ...core.result import InputError
from .tables import partial_count, pc16, tables

VERSION = 2
UNSEEN = 255
Cells = tuple[int, ...]

# Korf & Felner's 24-puzzle partition, in their blank-first frame (cell i holds tile i): tiles
# {1,2,5,6,7,12}, {3,4,8,9,13,14}, {10,11,15,16,20,21}, {17,18,19,22,23,24}.
KF24: tuple[Cells, ...] = ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21),
                           (17, 18, 19, 22, 23, 24))

# Patterns by goal cell in the frame (cell c holds tile c+1; the last cell the blank).
PARTITIONS: dict[tuple[int, int], dict[str, tuple[Cells, ...]]] = {
    (3, 3): {"44": ((0, 1, 3, 4), (2, 5, 6, 7)), "53": ((0, 1, 3, 4, 6), (2, 5, 7))},
    (4, 4): {
        "663": ((0, 4, 5, 8, 9, 12), (6, 7, 10, 11, 13, 14), (1, 2, 3)),
        "555": ((0, 1, 4, 5, 8), (2, 3, 6, 7, 11), (9, 10, 12, 13, 14)),
        # Korf & Felner's 7-8 (tiles 1-7 and 8-15 around a blank-first goal), turned 180 degrees
        "78": ((0, 1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14)),
        # a second 7-8 for the max over partitions (78+78b): the 3x3 block away from the blank's
        # corner minus one cell, and the L along the blank's row and column; its own mirror image
        "78b": ((0, 1, 2, 4, 5, 6, 8, 9), (3, 7, 10, 11, 12, 13, 14)),
    },
    # the 180-degree turn takes Korf & Felner's blank-first frame to ours: cell c -> 24 - c
    (5, 5): {"6666": tuple(tuple(sorted(24 - c for c in p)) for p in KF24)},
}


def partitions(rows: int, cols: int) -> tuple[str, ...]:
    """Names of the partitions defined for an r×c board (empty: no databases for it)."""
    return tuple(PARTITIONS.get((rows, cols), {}))


def cache_dir() -> Path:
    import platformdirs
    return Path(platformdirs.user_cache_dir("puzzlesat")) / "sliding"


# ---------------------------------------------------------------- symmetries and the frame

def symmetries(rows: int, cols: int) -> list[list[int]]:
    """The board's symmetries as cell maps g (cell c goes to g[c]); the identity first."""
    out = []
    for k in range(4 if rows == cols else 2):
        for flip in (False, True):
            g = []
            for c in range(rows * cols):
                r, q = divmod(c, cols)
                if flip:
                    q = cols - 1 - q
                for _ in range(k):  # a quarter turn (square boards only), or a half turn
                    r, q = (q, rows - 1 - r) if rows == cols else (rows - 1 - r, cols - 1 - q)
                g.append(r * cols + q)
            out.append(g)
    return out


def mirror_cells(rows: int, cols: int) -> list[int]:
    """The reflection about the main diagonal (square boards): cell (r, c) -> (c, r)."""
    return [(c % cols) * cols + c // cols for c in range(rows * cols)]


def frame_goal(n: int, blank: int) -> list[int]:
    """The frame's goal with the blank at `blank`: tiles 1..n-1 in row-major order on the other cells."""
    out, t = [0] * n, 1
    for c in range(n):
        if c != blank:
            out[c] = t
            t += 1
    return out


def canonical(rows: int, cols: int, start, goal):
    """(start, goal, relabel) mapping any goal onto a frame goal (`frame_goal`) by the board
    symmetry that takes the goal's blank to the largest cell (a corner goes to the last cell, the
    standard frame) and a relabelling of the tiles. relabel[t] is the original tile for frame tile t."""
    n = rows * cols
    gb = list(goal).index(0)
    syms = symmetries(rows, cols)
    g = max(syms, key=lambda h: h[gb])  # the first of the best: deterministic
    fg = frame_goal(n, g[gb])
    s2 = [0] * n
    g2 = [0] * n
    for c in range(n):
        s2[g[c]] = start[c]
        g2[g[c]] = goal[c]
    sigma = {g2[c]: fg[c] for c in range(n)}
    relabel = [0] * n
    for t, s in sigma.items():
        relabel[s] = t
    frame_start = np.array([sigma[t] for t in s2], np.int64)
    return frame_start, np.array(fg, np.int64), tuple(relabel)


def for_blank(patterns: tuple[Cells, ...], n: int, blank: int) -> tuple[Cells, ...]:
    """A partition of the standard frame (the blank at the last cell) moved to a frame whose blank
    is at `blank`: the pattern holding cell `blank` takes the last cell instead."""
    if blank == n - 1:
        return tuple(tuple(p) for p in patterns)
    return tuple(tuple(sorted(n - 1 if c == blank else c for c in p)) for p in patterns)


def _region(cells: set[int], free: set[int], rows: int, cols: int) -> set[int]:
    """The free cells reachable from `cells` through free cells."""
    nbr, nnbr = tables(rows, cols)
    seen = set(cells)
    todo = list(cells)
    while todo:
        c = todo.pop()
        for e in range(int(nnbr[c])):
            y = int(nbr[c, e])
            if y in free and y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


@dataclass(frozen=True)
class Key:
    """A database: board shape, pattern goal cells (its item order) and the blank's start cell."""

    rows: int
    cols: int
    cells: Cells
    blank: int

    @property
    def entries(self) -> int:
        return partial_count(self.rows * self.cols, len(self.cells))

    def filename(self) -> str:
        return f"pdb-{self.rows}x{self.cols}-{'.'.join(map(str, self.cells))}-b{self.blank}-v{VERSION}.bin"


def key_of(rows: int, cols: int, cells: Cells, blank: int | None = None) -> tuple[Key, list[int]]:
    """The database a pattern (goal cells in the frame, the goal's blank at `blank`, default the
    last cell) reads, and the symmetry into its frame."""
    n = rows * cols
    blank = n - 1 if blank is None else blank
    free = set(range(n)) - set(cells)
    region = _region({blank}, free, rows, cols)
    best = None
    for g in symmetries(rows, cols):
        cand = (tuple(sorted(g[c] for c in cells)), min(g[x] for x in region))
        if best is None or cand < best[0]:
            best = (cand, g)
    (kcells, blank), g = best
    return Key(rows, cols, kcells, blank), g


# ---------------------------------------------------------------- the breadth-first build

@njit(cache=True)
def _popc(x, pc):
    return pc[x & 65535] + pc[(x >> 16) & 65535] + pc[(x >> 32) & 65535]


@njit(cache=True)
def _flood(b, free, nmask, pc):
    """Bit mask of the free cells the blank at b reaches through free cells."""
    reg = 1 << b
    front = reg
    while front != 0:
        grow = 0
        f = front
        while f != 0:
            low = f & -f
            grow |= nmask[_popc(low - 1, pc)]
            f ^= low
        grow &= free & ~reg
        reg |= grow
        front = grow
    return reg


@njit(cache=True)
def _prank(q, m, n, pc):
    """Partial rank of items on cells q[0..m-1] (mixed radix n, n-1, ...)."""
    used = 0
    r = 0
    for i in range(m):
        c = q[i]
        d = c - _popc(used & ((1 << c) - 1), pc)
        used |= 1 << c
        r = r * (n - i) + d
    return r


@njit(cache=True)
def _bfs_level(dist, d, n, k, nbr, nnbr, nmask, pc, deadline):
    """Expand every (placement, blank region) at distance d; returns how many got d+1, or -1
    when the wall clock passed `deadline` (time.monotonic seconds) first."""
    m = k + 1
    q = np.zeros(m, np.int64)
    digits = np.zeros(m, np.int64)
    full = (1 << n) - 1
    added = 0
    hits = 0
    for r in range(dist.shape[0]):
        if dist[r] != d:
            continue
        hits += 1
        if (hits & 32767) == 0:
            with objmode(now="float64"):
                now = time.monotonic()
            if now > deadline:
                return -1
        x = r
        for i in range(m - 1, -1, -1):
            digits[i] = x % (n - i)
            x //= n - i
        used = 0
        for i in range(m):
            dd = digits[i]
            c = 0
            while True:
                if (used >> c) & 1 == 0:
                    if dd == 0:
                        break
                    dd -= 1
                c += 1
            q[i] = c
            used |= 1 << c
        b = q[k]
        occ = used & ~(1 << b)
        reg = _flood(b, full & ~occ, nmask, pc)
        for i in range(k):
            ci = q[i]
            for e in range(nnbr[ci]):
                y = nbr[ci, e]
                if (reg >> y) & 1 == 0:
                    continue
                occ2 = (occ & ~(1 << ci)) | (1 << y)
                reg2 = _flood(ci, full & ~occ2, nmask, pc)
                q[i] = y
                q[k] = _popc((reg2 & -reg2) - 1, pc)
                rr = _prank(q, m, n, pc)
                q[i] = ci
                q[k] = b
                if dist[rr] == UNSEEN:
                    dist[rr] = d + 1
                    added += 1
    return added


class Expired(Exception):
    """The time limit passed during a database build."""


def build(key: Key, progress=None, deadline: float = float("inf")) -> np.ndarray:
    """The database of `key`: fewest pattern-tile moves for each placement, indexed by its partial
    rank. progress(level=, states=, placements=) after each BFS level; Expired past `deadline`."""
    rows, cols = key.rows, key.cols
    n, k = rows * cols, len(key.cells)
    size = partial_count(n, k + 1)
    dist = np.full(size, UNSEEN, np.uint8)
    nbr, nnbr = tables(rows, cols)
    nmask = np.zeros(n, np.int64)
    for c in range(n):
        for e in range(int(nnbr[c])):
            nmask[c] |= 1 << int(nbr[c, e])
    pc = pc16()
    q = np.array(list(key.cells) + [key.blank], np.int64)
    dist[int(_prank(q, k + 1, n, pc))] = 0
    d, states, added = 0, 1, 1
    while added:
        if time.monotonic() > deadline:
            raise Expired
        if d + 1 >= UNSEEN:
            raise ValueError("pattern database depth exceeds a byte")
        added = int(_bfs_level(dist, d, n, k, nbr, nnbr, nmask, pc, deadline))
        if added < 0:
            raise Expired
        states += added
        d += 1
        if progress is not None:
            progress(level=d, states=states, placements=key.entries)
    db = dist.reshape(-1, n - k).min(axis=1)
    del dist
    if int(db.max()) >= UNSEEN:
        raise ValueError(f"pattern {key.cells}: some placement unreachable")
    return db


# ---------------------------------------------------------------- the disk cache

def path(key: Key) -> Path:
    return cache_dir() / key.filename()


def _digest(db: np.ndarray) -> str:
    return hashlib.blake2b(memoryview(db), digest_size=16).hexdigest()


def _header(key: Key, db: np.ndarray, seconds: float) -> dict:
    return {"format": "puzzlesat-sliding-pdb", "version": VERSION, "rows": key.rows, "cols": key.cols,
            "cells": list(key.cells), "blank": key.blank, "entries": int(db.size),
            "blake2b": _digest(db), "build_seconds": round(seconds, 2)}


def _context(key: Key) -> str:
    return "sliding pdb " + key.filename()


def read(key: Key) -> np.ndarray | None:
    """The cached database of `key`, or None when the file is missing, truncated, damaged,
    written by another version, or without the seal of this user's puzzlesat (core/seal.py: a
    database with forged distances and a recomputed checksum would make IDA* claim wrong
    bounds; an unsealed one — from elsewhere, or written before seals — is built again)."""
    from ...core.seal import verified
    f = path(key)
    try:
        if not f.is_file() or f.stat().st_size > key.entries + (1 << 16):  # a FIFO, a device,
            return None                                                    # a file too large
        with open(f, "rb") as fh:
            head = json.loads(fh.readline(1 << 16).decode("utf-8"))  # a header is < 1 KB
            want = {"format": "puzzlesat-sliding-pdb", "version": VERSION, "rows": key.rows,
                    "cols": key.cols, "cells": list(key.cells), "blank": key.blank,
                    "entries": key.entries}
            if not isinstance(head, dict) or any(head.get(k) != v for k, v in want.items()):
                return None
            if not verified(head, _context(key)):
                return None
            db = np.fromfile(fh, np.uint8)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if db.size != key.entries or _digest(db) != head.get("blake2b"):
        return None
    return db


def write(key: Key, db: np.ndarray, seconds: float) -> Path:
    """Write the database atomically (a temporary file renamed into place)."""
    from ...core.seal import sign
    f = path(key)
    f.parent.mkdir(parents=True, exist_ok=True)

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            fh.write((json.dumps(sign(_header(key, db, seconds), _context(key))) + "\n").encode("utf-8"))
            db.tofile(fh)
    return write_atomic(f, fill, "pattern database")


_LOADED: dict[Key, np.ndarray] = {}


def database(key: Key, progress=None, deadline: float = float("inf"), rebuild: bool = False,
             info: dict | None = None) -> np.ndarray:
    """The database of `key`: from memory, from the disk cache, or built (and cached).
    `info` (if given) gets, per key file name, how it was had and the build seconds."""
    if key in _LOADED and not rebuild:
        return _LOADED[key]
    db = None if rebuild else read(key)
    how, secs = "cache", 0.0
    if db is None:
        t0 = time.perf_counter()
        db = build(key, progress, deadline)
        secs = time.perf_counter() - t0
        how = "built"
        try:
            write(key, db, secs)
        except (OSError, InputError) as e:   # a read-only or full cache: used from memory, not kept
            how = f"built, not cached ({e})"
        for memo in CACHES:  # they hold the copies they were assembled from
            memo.clear()
    if info is not None:
        info[key.filename()] = {"source": how, "build_seconds": round(secs, 2), "entries": int(db.size),
                                "bytes": int(db.nbytes)}
    _LOADED[key] = db
    return db


# memos of assembled lookups (dida.tables registers its own), cleared when a database is
# (re)built: they hold the arrays they were assembled from
CACHES: list[dict] = []
