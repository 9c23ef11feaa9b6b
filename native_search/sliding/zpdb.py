"""Zero-aware pattern databases with 1-bit entries, and their catalogues (Clausecker & Reinefeld,
"Zero-Aware Pattern Databases with 1-Bit Compression", SoCS 2019).

A zero-aware database of a pattern (k tiles) holds, for every placement of the pattern's tiles
*and every region the blank may be in* (a connected component of the cells the pattern leaves
free), the fewest moves of the pattern's tiles that bring them home with the blank in the goal's
region; the blank walks through its region at no cost. Databases of disjoint patterns add up
(only pattern moves are counted), and a catalogue takes the largest sum over several partitions.

Vocabulary:
- frame: the goal has the blank at cell 0 and tile c on cell c (Korf's and Clausecker's frame);
  any goal with the blank in a corner is mapped onto it by a board symmetry and a relabelling.
- key: a database is named by the board shape and its pattern (goal cells, sorted) after the
  transposition when that makes the tuple smaller (the transposition is the only board symmetry
  that keeps the blank's goal cell 0, square boards only); a *unit* is one pattern of a
  partition: (database, the original tile of each database item, the cell map into the
  database's frame: identity or transposition).
- index: (map, region, order). The map is the set of cells the pattern occupies, ranked in the
  combinatorial number system (colex: sum of C(c_i, i+1) over the sorted cells, read from two
  small tables of the low and high bits); the map's free regions are numbered by their lowest
  cell and every (map, region) pair gets a running number q (`offset[map] + region`); the
  order is the Lehmer code of the tiles' cells (digit i: how many later tiles sit on a lower
  cell). entry = q * k! + order: dense, no hole (6 of 25 cells: 251,400 (map, region) pairs,
  181,008,000 entries).
- encoding (1 bit): the graph of a zero-aware abstraction is bipartite with h's parity known from
  the placement (each pattern move changes one tile's square colour), and every edge changes h by
  exactly one (h is a BFS distance: consistent, and never equal on neighbours), so the bit
  (h >> 1) & 1 decides a neighbour's value from a known one: h' = h + 1 if ((h + 1) >> 1) & 1 is
  the stored bit, else h - 1. A search carries every unit's exact value down its path and looks
  up differences; a value from scratch (a search root) walks the abstraction downhill to the
  goal (`value`), as the paper does.
- storage: a JSON header line padded to 4096 bytes, then the bits (entry e: bit e & 7 of byte
  e >> 3), cached in platformdirs.user_cache_dir("puzzlesat")/sliding with the format version,
  key, entry count and a BLAKE2 digest checked on load (a missing, truncated, damaged or
  other-version file is rebuilt, never read); loading memory-maps the bits (read-only, shared by
  processes).
- build: breadth-first from the goal over one byte per entry (the exact distances; 181 MB for 6
  tiles of 25), then packed to bits and written atomically: a killed build leaves no file, a
  catalogue resumes at its first missing database.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
from numba import config, njit, objmode, types
from numba.extending import intrinsic

from ...core.files import write_atomic
from ...core.result import InputError
from ..live import tick
from .pattern_db import Expired  # noqa: F401 (the same exception for both kinds of database)
from .tables import sorted_tables, tables

VERSION = 1
FSMS = ("simple", "loops-12", "loops-14", "loops-16", "loops-18")  # native:ida's `fsm` choices (see ZProblem)
FORMAT = "puzzlesat-sliding-zpdb"
UNSEEN = 255
HEADER_BYTES = 4096
SPLIT = 13          # the map rank is read from two tables: bits below SPLIT and the rest
Cells = tuple[int, ...]


def cache_dir() -> Path:
    import platformdirs
    return Path(platformdirs.user_cache_dir("puzzlesat")) / "sliding"


# ---------------------------------------------------------------- catalogues

def _small_5x5() -> tuple[tuple[Cells, ...], ...]:
    """Clausecker's `small` catalogue with its transpositions (`catalogues/small-t.cat`): 7
    partitions of the 24 tiles into four 6-tile patterns, and each one transposed (14 in all)."""
    base = (
        ((1, 5, 6, 10, 11, 12), (2, 3, 4, 7, 8, 9), (13, 14, 18, 19, 23, 24), (15, 16, 17, 20, 21, 22)),
        ((1, 2, 5, 6, 10, 11), (3, 4, 7, 8, 9, 12), (13, 14, 18, 19, 23, 24), (15, 16, 17, 20, 21, 22)),
        ((1, 5, 6, 10, 11, 12), (2, 3, 4, 7, 8, 9), (13, 14, 15, 16, 17, 18), (19, 20, 21, 22, 23, 24)),
        ((1, 2, 5, 6, 10, 11), (3, 4, 7, 8, 9, 12), (13, 14, 15, 16, 17, 18), (19, 20, 21, 22, 23, 24)),
        ((1, 5, 6, 10, 15, 20), (2, 3, 4, 7, 8, 9), (11, 12, 16, 17, 21, 22), (13, 14, 18, 19, 23, 24)),
        ((1, 2, 5, 6, 10, 11), (3, 4, 9, 14, 19, 24), (7, 8, 12, 13, 18, 23), (15, 16, 17, 20, 21, 22)),
        ((1, 5, 6, 10, 15, 20), (2, 3, 4, 7, 8, 9), (11, 12, 13, 16, 17, 18), (14, 19, 21, 22, 23, 24)),
    )
    return _with_transpositions(base, 5)


def _with_transpositions(parts, side: int):
    """Each partition followed by its transposition (cell (r, c) -> (c, r))."""
    out = []
    for p in parts:
        out.append(tuple(tuple(sorted(x)) for x in p))
        out.append(tuple(tuple(sorted(transpose_cell(c, side) for c in x)) for x in p))
    return tuple(out)


def transpose_cell(c: int, side: int) -> int:
    return (c % side) * side + c // side


def _large_5x5() -> tuple[tuple[Cells, ...], ...]:
    """`small` and eight partitions more over two 7-tile patterns (ours, not Clausecker's): the
    blocks {1,2,5,6,7,10,11} and {3,4,8,9,12,13,14} around the blank's goal, the ten tiles left
    split 6-4 three ways or 5-5, each partition also transposed (22 partitions, 22 databases,
    1.36 GB: zpdb-small's 14, one more of 6 tiles, two of 7 tiles (4,066,655,040 entries, 508 MB
    each at one bit; ~210 CPU s and 4.1 GB to build each), five of 4 or 5 tiles)."""
    a, b = (1, 2, 5, 6, 7, 10, 11), (3, 4, 8, 9, 12, 13, 14)
    big = (
        (a, b, (15, 16, 17, 20, 21, 22), (18, 19, 23, 24)),
        (a, b, (17, 18, 19, 22, 23, 24), (15, 16, 20, 21)),
        (a, b, (16, 17, 18, 21, 22, 23), (15, 19, 20, 24)),
        (a, b, (17, 18, 19, 23, 24), (15, 16, 20, 21, 22)),
    )
    return _with_transpositions(big, 5) + _small_5x5()


# A 15-puzzle analogue of `small` (tests and examples: databases of 5 tiles of 16 cells, 0.7 M
# entries each): three 5-5-5 partitions and their transpositions.
_SMALL_4X4 = _with_transpositions((
    ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
    ((1, 2, 3, 5, 6), (4, 8, 9, 12, 13), (7, 10, 11, 14, 15)),
    ((1, 4, 5, 8, 9), (2, 3, 6, 7, 11), (10, 12, 13, 14, 15)),
), 4)

# An 8-puzzle analogue (tests without the JIT: databases of 4 tiles of 9 cells, 5,000 entries).
_SMALL_3X3 = _with_transpositions((((1, 2, 4, 5), (3, 6, 7, 8)), ((1, 2, 3, 5), (4, 6, 7, 8))), 3)

# name -> (rows, cols, partitions in the frame: patterns as goal cells = tiles)
CATALOGUES: dict[str, tuple[int, int, tuple[tuple[Cells, ...], ...]]] = {
    "zpdb-small": (5, 5, _small_5x5()),
    "zpdb-large": (5, 5, _large_5x5()),
    "zpdb-small4": (4, 4, _SMALL_4X4),
    "zpdb-small3": (3, 3, _SMALL_3X3),
}


def catalogues(rows: int, cols: int) -> tuple[str, ...]:
    """Names of the zero-aware catalogues defined for an r×c board."""
    return tuple(name for name, (r, c, _) in CATALOGUES.items() if (r, c) == (rows, cols))


@dataclass(frozen=True)
class Key:
    """A zero-aware database: board shape and pattern goal cells (its item order); the blank's
    goal is cell 0."""

    rows: int
    cols: int
    cells: Cells

    @property
    def k(self) -> int:
        return len(self.cells)

    @property
    def entries(self) -> int:
        return index_tables(self.rows * self.cols, self.k).entries

    @property
    def nbytes(self) -> int:
        return (self.entries + 7) // 8

    def filename(self) -> str:
        return f"zpdb-{self.rows}x{self.cols}-{'.'.join(map(str, self.cells))}-v{VERSION}.bits"


def cell_maps(rows: int, cols: int) -> list[list[int]]:
    """The board symmetries that keep cell 0 (the blank's goal): identity, and the transposition
    on square boards."""
    n = rows * cols
    maps = [list(range(n))]
    if rows == cols:
        maps.append([transpose_cell(c, rows) for c in range(n)])
    return maps


@dataclass(frozen=True)
class Unit:
    """One pattern of a partition as a database lookup: the database, the tile (frame label) of
    each database item, and the cell map from the board into the database's frame."""

    key: Key
    tiles: tuple[int, ...]
    cmap: tuple[int, ...]


def unit_of(rows: int, cols: int, pattern: Cells) -> Unit:
    """The lookup of a pattern (goal cells = tile labels in the frame): the symmetry that gives
    the smallest sorted cell tuple names the database."""
    best = None
    for g in cell_maps(rows, cols):
        cand = tuple(sorted(g[c] for c in pattern))
        if best is None or cand < best[0]:
            best = (cand, g)
    cells, g = best
    inv = {g[c]: c for c in range(rows * cols)}
    return Unit(Key(rows, cols, cells), tuple(inv[x] for x in cells), tuple(g))


def catalogue_units(name: str) -> tuple[list[Unit], list[list[int]]]:
    """(distinct units, partitions as lists of unit numbers) of a catalogue."""
    rows, cols, parts = CATALOGUES[name]
    units: list[Unit] = []
    out = []
    for p in parts:
        row = []
        for pat in p:
            u = unit_of(rows, cols, pat)
            if u not in units:
                units.append(u)
            row.append(units.index(u))
        out.append(row)
    return units, out


def catalogue_keys(name: str) -> list[Key]:
    """The databases a catalogue reads, each once, in first-use order."""
    keys: list[Key] = []
    for u in catalogue_units(name)[0]:
        if u.key not in keys:
            keys.append(u.key)
    return keys


# ---------------------------------------------------------------- the index

@dataclass
class IndexTables:
    """Ranking tables for k-tile maps of an n-cell board (see the module docstring)."""

    n: int
    k: int
    lo: np.ndarray        # [2**SPLIT]: (colex rank of the low bits) << 5 | their popcount
    hi: np.ndarray        # [k+1, 2**(n-SPLIT)]: rank of the high bits after j low ones
    info: np.ndarray      # [C(n,k)]: offset << 1 | (the map has more than one free region)
    regtab: np.ndarray    # [C(n,k), n]: region number of each free cell (-1: occupied)
    qmap: np.ndarray      # [nq]: the map (bit mask) of (map, region) pair q
    qreg: np.ndarray      # [nq]: the region's cells (bit mask)
    fact: int             # k!

    @property
    def nq(self) -> int:
        return int(self.qmap.size)

    @property
    def entries(self) -> int:
        return self.nq * self.fact


def _rank_tables(n: int, kmax: int) -> tuple[np.ndarray, np.ndarray]:
    lo_bits = min(SPLIT, n)
    lo = np.zeros(1 << SPLIT, np.int64)
    for m in range(1 << lo_bits):
        r, i = 0, 0
        for c in range(lo_bits):
            if (m >> c) & 1:
                r += math.comb(c, i + 1)
                i += 1
        lo[m] = (r << 5) | i
    hb = max(n - SPLIT, 0)
    hi = np.zeros((kmax + 1, 1 << hb), np.int64)
    for j in range(kmax + 1):
        for m in range(1 << hb):
            r, i = 0, j
            for c in range(hb):
                if (m >> c) & 1:
                    r += math.comb(SPLIT + c, i + 1)
                    i += 1
            hi[j, m] = r
    return lo, hi


_TABLES: dict[tuple[int, int], IndexTables] = {}


def _neighbour_masks(rows: int, cols: int) -> np.ndarray:
    nbr, nnbr = tables(rows, cols)
    nm = np.zeros(rows * cols, np.int64)
    for c in range(rows * cols):
        for e in range(int(nnbr[c])):
            nm[c] |= 1 << int(nbr[c, e])
    return nm


def index_tables(n: int, k: int, cols: int | None = None) -> IndexTables:
    """The ranking tables of k-tile maps on an n-cell board (the board's shape only matters for
    the regions: n = rows * cols with `cols` given, or a square board)."""
    if cols is None:
        side = math.isqrt(n)
        if side * side != n:
            raise ValueError(f"index_tables({n}, {k}): give cols for a non-square board")
        cols = side
    rows = n // cols
    memo = (n, k, cols)
    if memo in _TABLES:
        return _TABLES[memo]
    lo, hi = _rank_tables(n, k)
    nmaps = math.comb(n, k)
    masks = np.zeros(nmaps, np.int64)
    for cells in combinations(range(n), k):
        m = 0
        for c in cells:
            m |= 1 << c
        masks[_rank_py(m, lo, hi, n)] = m
    nm = _neighbour_masks(rows, cols)
    info, regtab, qmap, qreg = _regions(masks, n, nm)
    t = IndexTables(n, k, lo, hi, info, regtab, qmap, qreg, math.factorial(k))
    _TABLES[memo] = t
    return t


def _rank_py(m: int, lo, hi, n: int) -> int:
    low = int(lo[m & ((1 << SPLIT) - 1)])
    return (low >> 5) + int(hi[low & 31, m >> SPLIT]) if n > SPLIT else low >> 5


@njit(cache=True)
def _regions(masks, n, nm):
    """Per map: offset << 1 | multi, the region number of each free cell, and per (map, region)
    pair its map and region masks."""
    nmaps = masks.size
    info = np.zeros(nmaps, np.int64)
    regtab = np.full((nmaps, n), -1, np.int8)
    full = (1 << n) - 1
    qmap = np.zeros(nmaps * 5 + 16, np.int64)
    qreg = np.zeros(nmaps * 5 + 16, np.int64)
    q = 0
    for r in range(nmaps):
        occ = masks[r]
        free = full & ~occ
        nreg = 0
        start = q
        for c in range(n):
            if (free >> c) & 1 and regtab[r, c] < 0:
                reg = _flood(c, free, nm)
                x = reg
                while x:
                    low = x & -x
                    regtab[r, _bit(low)] = nreg
                    x ^= low
                if q >= qmap.size:
                    qmap = _grow(qmap)
                    qreg = _grow(qreg)
                qmap[q] = occ
                qreg[q] = reg
                q += 1
                nreg += 1
        info[r] = (start << 1) | (1 if nreg > 1 else 0)
    return info, regtab, qmap[:q].copy(), qreg[:q].copy()


@njit(cache=True)
def _grow(a):
    b = np.zeros(a.size * 2, a.dtype)
    b[:a.size] = a
    return b


@njit(cache=True)
def _bit(low):
    """The position of the single set bit of `low`."""
    c = 0
    while low > 1:
        low >>= 1
        c += 1
    return c


@njit(cache=True)
def _flood(b, free, nm):
    """The free cells reachable from cell b through free cells (bit mask)."""
    reg = 1 << b
    front = reg
    while front != 0:
        grow = 0
        f = front
        while f != 0:
            low = f & -f
            grow |= nm[_bit(low)]
            f ^= low
        grow &= free & ~reg
        reg |= grow
        front = grow
    return reg


@njit(cache=True)
def map_rank(mask, lo, hi):
    low = lo[mask & 8191]
    return (low >> 5) + hi[low & 31, mask >> 13]


@njit(cache=True)
def lehmer(cells, k):
    """The order of k tiles on distinct cells as a number below k! (digit i: later tiles on lower
    cells)."""
    r = 0
    for i in range(k):
        ci = cells[i]
        d = 0
        for j in range(i + 1, k):
            if cells[j] < ci:
                d += 1
        r = r * (k - i) + d
    return r


@njit(cache=True)
def entry(cells, k, blank, lo, hi, info, regtab, fact):
    """The entry of k tiles on `cells` with the blank on cell `blank`."""
    m = 0
    for i in range(k):
        m |= 1 << cells[i]
    mr = map_rank(m, lo, hi)
    inf = info[mr]
    reg = 0
    if inf & 1:
        reg = regtab[mr, blank]
    return ((inf >> 1) + reg) * fact + lehmer(cells, k)


# ---------------------------------------------------------------- the breadth-first build

@njit(cache=True)
def _shift_tables(k):
    """moved[ia * k + ib, p]: the order (Lehmer code) after the tile of rank ia among the map's
    cells moves to the cell of rank ib among the new map's cells, for every order p. A move keeps
    every other tile's relative order, so it acts on orders by this table alone, whichever tile it
    is (ranks are positions in the sorted cell list)."""
    fact = 1
    for i in range(2, k + 1):
        fact *= i
    ranks = np.zeros((fact, k), np.int64)
    used = np.zeros(k, np.int64)
    for p in range(fact):
        rem = p
        digits = np.zeros(k, np.int64)
        for i in range(k - 1, -1, -1):
            digits[i] = rem % (k - i)
            rem //= k - i
        for j in range(k):
            used[j] = 0
        for i in range(k):
            dd = digits[i]
            j = 0
            while True:
                if used[j] == 0:
                    if dd == 0:
                        break
                    dd -= 1
                j += 1
            used[j] = 1
            ranks[p, i] = j
    moved = np.zeros((k * k, fact), np.int32)
    r2 = np.zeros(k, np.int64)
    for ia in range(k):
        for ib in range(k):
            for p in range(fact):
                for i in range(k):
                    j = ranks[p, i]
                    if j == ia:
                        r2[i] = ib
                    else:
                        j2 = j - (1 if j > ia else 0)
                        r2[i] = j2 + (1 if j2 >= ib else 0)
                moved[ia * k + ib, p] = lehmer(r2, k)
    return moved


@njit(cache=True)
def _bfs_level(dist, d, k, n, nbr, nnbr, lo, hi, info, regtab, qmap, qreg, fact, moved, deadline):
    """Give d+1 to every unseen neighbour of the entries at distance d; returns how many, or -1
    when the wall clock passed `deadline` (time.monotonic seconds) first. The moves of a (map,
    region) pair are the same for all its orders: each gives a target pair and a `moved` row."""
    sorted_cells = np.empty(k, np.int64)
    tq = np.empty(4 * k, np.int64)
    trow = np.empty(4 * k, np.int64)
    added = 0
    for q in range(qmap.size):
        base = q * fact
        hit = False
        for p in range(fact):
            if dist[base + p] == d:
                hit = True
                break
        if not hit:
            continue
        if (q & 1023) == 0:
            with objmode(now="float64"):
                now = time.monotonic()
            if now > deadline:
                return -1
        occ = qmap[q]
        reg = qreg[q]
        j = 0
        for c in range(n):
            if (occ >> c) & 1:
                sorted_cells[j] = c
                j += 1
        nm = 0
        for ia in range(k):
            a = sorted_cells[ia]
            for e in range(nnbr[a]):
                b = nbr[a, e]
                if (reg >> b) & 1 == 0:
                    continue
                occ2 = occ ^ (1 << a) ^ (1 << b)
                mr = map_rank(occ2, lo, hi)
                inf = info[mr]
                q2 = inf >> 1
                if inf & 1:
                    q2 += regtab[mr, a]
                ib = 0
                for c in range(b):
                    if (occ2 >> c) & 1:
                        ib += 1
                tq[nm] = q2 * fact
                trow[nm] = ia * k + ib
                nm += 1
        for p in range(fact):
            if dist[base + p] != d:
                continue
            for m in range(nm):
                x = tq[m] + moved[trow[m], p]
                if dist[x] == UNSEEN:
                    dist[x] = d + 1
                    added += 1
    return added


def build_distances(key: Key, progress=None, deadline: float = float("inf")) -> np.ndarray:
    """The exact distances (one byte per entry) of `key`'s database by breadth-first search
    from the goal. progress(level=, states=, entries=) after each level; Expired past `deadline`."""
    rows, cols, k = key.rows, key.cols, key.k
    n = rows * cols
    T = index_tables(n, k, cols)
    dist = np.full(T.entries, UNSEEN, np.uint8)
    nbr, nnbr = tables(rows, cols)
    goal = np.array(key.cells, np.int64)
    moved = _shift_tables(k)
    dist[int(entry(goal, k, 0, T.lo, T.hi, T.info, T.regtab, T.fact))] = 0
    d, states, added = 0, 1, 1
    while added:
        if time.monotonic() > deadline:
            raise Expired
        if d + 1 >= UNSEEN:
            raise ValueError("zero-aware database depth exceeds a byte")
        added = int(_bfs_level(dist, d, k, n, nbr, nnbr, T.lo, T.hi, T.info, T.regtab, T.qmap, T.qreg,
                               T.fact, moved, deadline))
        if added < 0:
            raise Expired
        states += added
        d += 1
        if progress is not None:
            progress(level=d, states=states, entries=T.entries)
    if states != T.entries:
        raise ValueError(f"zero-aware database {key.cells}: {T.entries - states} entries unreachable")
    return dist


def pack_bits(dist: np.ndarray, chunk: int = 1 << 27) -> np.ndarray:
    """Bit (h >> 1) & 1 of every entry, eight to a byte (entry e: bit e & 7 of byte e >> 3);
    packed in slices of `chunk` entries (a multiple of 8) so the build's peak memory stays one
    byte per entry plus a slice (a 7-tile database has 4.07 G entries)."""
    out = np.empty((dist.size + 7) // 8, np.uint8)
    for a in range(0, dist.size, chunk):
        part = dist[a:a + chunk]
        out[a // 8:(a + part.size + 7) // 8] = np.packbits((part >> 1) & 1, bitorder="little")
    return out


# ---------------------------------------------------------------- the disk cache

def path(key: Key) -> Path:
    return cache_dir() / key.filename()


def _digest(bits) -> str:
    return hashlib.blake2b(memoryview(bits), digest_size=16).hexdigest()


def _want(key: Key) -> dict:
    return {"format": FORMAT, "version": VERSION, "rows": key.rows, "cols": key.cols,
            "cells": list(key.cells), "blank": 0, "entries": key.entries, "bits_per_entry": 1}


def _context(key: Key) -> str:
    return "sliding zpdb " + key.filename()


def read_header(key: Key) -> dict | None:
    """The header of `key`'s cached file when it names this database in this format version
    and carries the seal of this user's puzzlesat (core/seal.py): a database with recomputed
    checksums but forged distances would make IDA* claim wrong bounds, so an unsealed one (from
    elsewhere, or written before seals) is built again. A FIFO or device is never opened."""
    from ...core.inputs import open_regular
    from ...core.seal import verified
    try:
        fd = open_regular(path(key), "zero-aware pattern database")
        with os.fdopen(fd, "rb") as fh:
            head = json.loads(fh.read(HEADER_BYTES).split(b"\n", 1)[0].decode("utf-8"))
    except (InputError, OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(head, dict) or any(head.get(k) != v for k, v in _want(key).items()):
        return None
    if not verified(head, _context(key)):
        return None
    return head


def read(key: Key) -> np.ndarray | None:
    """The cached bits of `key`, memory-mapped read-only, or None when the file is missing,
    truncated, damaged or written by another version or for another database (never trusted)."""
    f = path(key)
    head = read_header(key)
    if head is None:
        return None
    try:
        if f.stat().st_size != HEADER_BYTES + key.nbytes:
            return None
        bits = np.memmap(f, np.uint8, "r", offset=HEADER_BYTES, shape=(key.nbytes,))
    except (OSError, ValueError):
        return None
    if _digest(bits) != head.get("blake2b"):
        return None
    return bits


def write(key: Key, bits: np.ndarray, seconds: float, levels: int, cpu: float | None = None) -> Path:
    """Write the database atomically (a temporary file renamed into place)."""
    f = path(key)
    f.parent.mkdir(parents=True, exist_ok=True)
    from ...core.seal import sign
    head = dict(_want(key), blake2b=_digest(bits), build_seconds=round(seconds, 2), radius=levels)
    if cpu is not None:
        head["build_cpu_seconds"] = round(cpu, 2)
    line = (json.dumps(sign(head, _context(key))) + "\n").encode("utf-8")
    if len(line) > HEADER_BYTES:
        raise ValueError("zero-aware database header too long")

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            fh.write(line + b" " * (HEADER_BYTES - len(line)))
            bits.tofile(fh)
    return write_atomic(f, fill, "zero-aware pattern database")


_LOADED: dict[Key, np.ndarray] = {}


def database(key: Key, progress=None, deadline: float = float("inf"), rebuild: bool = False,
             info: dict | None = None) -> np.ndarray:
    """The bits of `key`'s database: from memory, from the disk cache (memory-mapped), or built
    (and cached). `info` (if given) gets, per file name, how it was had and the build seconds."""
    if key in _LOADED and not rebuild:
        return _LOADED[key]
    bits = None if rebuild else read(key)
    how, secs = "cache", 0.0
    if bits is None:
        t0 = time.perf_counter()
        c0 = time.process_time()
        dist = build_distances(key, progress, deadline)
        levels = int(dist.max())
        packed = pack_bits(dist)
        del dist
        secs = time.perf_counter() - t0
        how = "built"
        try:
            write(key, packed, secs, levels, time.process_time() - c0)
        except (OSError, InputError) as e:   # a read-only or full cache: used from memory, not kept
            how, bits = f"built, not cached ({e})", packed
        else:
            bits = read(key)
            if bits is None:
                raise OSError(f"zero-aware database {path(key)}: written but not readable back")
    if info is not None:
        info[key.filename()] = {"source": how, "build_seconds": round(secs, 2), "entries": key.entries,
                                "bytes": key.nbytes}
    _LOADED[key] = bits
    return bits


# the CPU seconds of one 6-of-25 database measured here (a shared 2-core AMD EPYC, 2026),
# per entry: the estimate before a build when no database of the size is cached yet
SECONDS_PER_ENTRY = 9.5 / 181_008_000


def estimate(keys: list[Key], rebuild: bool = False) -> dict:
    """What building the missing ones of `keys` costs: databases, entries, disk bytes, the build's
    peak memory (one byte per entry of the largest) and CPU seconds (from the cached databases'
    own build CPU seconds per entry where there are any, else SECONDS_PER_ENTRY)."""
    missing = list(keys) if rebuild else [k for k in keys if read_header(k) is None]
    rates = []
    for k in keys:
        h = read_header(k)
        if h is not None and h.get("build_cpu_seconds"):
            rates.append(h["build_cpu_seconds"] / k.entries)
    rate = sorted(rates)[len(rates) // 2] if rates else SECONDS_PER_ENTRY
    entries = sum(k.entries for k in missing)
    return {"missing": missing, "entries": entries, "disk_bytes": sum(k.nbytes for k in missing),
            "peak_bytes": max((k.entries for k in missing), default=0),
            "seconds": entries * rate, "rate_source": "cached builds" if rates else "nominal"}


# ---------------------------------------------------------------- lookups

# The search reads a database's bits through its address (`Catalogue.arrays["u_addr"]`): one
# flat load, where a tuple of arrays indexed at run time costs numba a copy of the tuple per
# lookup (measured: 64 ns per lookup against 42 ns). The arrays stay referenced by their
# Catalogue while any kernel runs; without the JIT the byte is read through ctypes.
if config.DISABLE_JIT:
    def byte_at(addr):
        """The byte at memory address `addr`."""
        return ctypes.c_uint8.from_address(int(addr)).value

    def prefetch(addr):
        """Ask the processor to bring memory address `addr` into its caches (a hint)."""

    def popcount(x):
        """Set bits of the non-negative integer x."""
        return bin(int(x)).count("1")
else:
    @intrinsic
    def _ctpop(typingctx, x):
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            from numba.core import cgutils
            i64 = ir.IntType(64)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64]), "llvm.ctpop.i64")
            return builder.call(fn, [args[0]])
        return sig, codegen

    @njit(inline="always")
    def popcount(x):
        """Set bits of the non-negative integer x."""
        return _ctpop(x)

    @intrinsic
    def _prefetch(typingctx, addr):
        sig = types.void(types.int64)

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            from numba.core import cgutils
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
            builder.call(fn, [builder.inttoptr(args[0], i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                              ir.Constant(i32, 1)])
            return context.get_dummy_value()
        return sig, codegen

    @njit(inline="always")
    def prefetch(addr):
        """Ask the processor to bring memory address `addr` into its caches (a hint)."""
        _prefetch(addr)

    @intrinsic
    def _load_u8(typingctx, addr):
        sig = types.uint8(types.int64)

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            return builder.load(builder.inttoptr(args[0], ir.IntType(8).as_pointer()))
        return sig, codegen

    @njit(inline="always")
    def byte_at(addr):
        """The byte at memory address `addr`."""
        return _load_u8(addr)


@njit(cache=True)
def _flood_free(b, occ, n, nbr, nnbr):
    """Cells reachable from b without entering `occ` (bit masks)."""
    reg = 1 << b
    stack = np.empty(n, np.int64)
    top = 1
    stack[0] = b
    while top:
        top -= 1
        x = stack[top]
        for e in range(nnbr[x]):
            y = nbr[x, e]
            if (occ >> y) & 1 == 0 and (reg >> y) & 1 == 0:
                reg |= 1 << y
                stack[top] = y
                top += 1
    return reg


@njit(cache=True)
def _bit_of(bits, e):
    return (bits[e >> 3] >> (e & 7)) & 1


@njit(cache=True)
def walk_value(bits, cells, blank, goal, k, n, cols, nbr, nnbr, lo, hi, info, regtab, fact):
    """The exact value of k tiles on `cells` (changed in place) with the blank on `blank`, from
    the 1-bit database alone: h mod 2 from the squares' colours, bit 1 from the entry, then
    downhill steps (a neighbour one less is always there off the goal) until the goal.
    Returns -1 if the walk ends anywhere but the goal (a damaged database)."""
    par = 0
    for j in range(k):
        c, g = cells[j], goal[j]
        par ^= ((c // cols + c % cols) ^ (g // cols + g % cols)) & 1
    e = entry(cells, k, blank, lo, hi, info, regtab, fact)
    start = 256 + 2 * _bit_of(bits, e) + par
    cur = start
    for _ in range(400):
        occ = 0
        for j in range(k):
            occ |= 1 << cells[j]
        reg = _flood_free(blank, occ, n, nbr, nnbr)
        moved = False
        for j in range(k):
            a = cells[j]
            for ee in range(nnbr[a]):
                b = nbr[a, ee]
                if (reg >> b) & 1 == 0:
                    continue
                cells[j] = b
                x = entry(cells, k, a, lo, hi, info, regtab, fact)
                up = cur + 1
                nv = up if ((up >> 1) & 1) == _bit_of(bits, x) else cur - 1
                if nv < cur:
                    cur = nv
                    blank = a
                    moved = True
                    break
                cells[j] = a
            if moved:
                break
        if not moved:
            break
    for j in range(k):
        if cells[j] != goal[j]:
            return -1
    occ = 0
    for j in range(k):
        occ |= 1 << cells[j]
    if (_flood_free(blank, occ, n, nbr, nnbr) & 1) == 0:
        return -1
    return start - cur


@njit(cache=True, inline="always")
def _diff(u, old, pos, scratch, u_addr, u_k, u_tiles, u_cmap, u_ibase, u_fact, lo, hi, info, regtab):
    """Unit u's value after a move of one of its tiles, from its value `old` before it."""
    k = u_k[u]
    m = 0
    for j in range(k):
        c = u_cmap[u, pos[u_tiles[u, j]]]
        scratch[j] = c
        m |= 1 << c
    low = lo[m & 8191]
    mr = (low >> 5) + hi[low & 31, m >> 13] + u_ibase[u]
    inf = info[mr]
    q = inf >> 1
    if inf & 1:
        q += regtab[mr, u_cmap[u, pos[0]]]
    e = q * u_fact[u] + lehmer(scratch, k)
    up = old + 1
    if ((up >> 1) & 1) == ((byte_at(u_addr[u] + (e >> 3)) >> (e & 7)) & 1):
        return up
    return old - 1


@njit(cache=True, inline="always")
def _step(old, bit):
    """The neighbour's value: old + 1 if bit 1 of old + 1 is the stored bit, else old - 1
    (no branch, so the loads of a batch overlap)."""
    return old - 1 + 2 * (bit == (((old + 1) >> 1) & 1))


@njit(cache=True, inline="always")
def _move_unit(u, mask, perm, ca, cb, u_k, u_ibase, u_fact, u_mbase, lo, hi, info, regtab, moved):
    """Unit u's (map, order, entry) after its tile on cell ca (database frame) moves to cb, the
    blank taking ca: the map by two bits, the order by the `moved` table row of the tile's rank
    before and after (`_shift_tables`), the region of ca in the new map."""
    k = u_k[u]
    m2 = mask ^ (1 << ca) ^ (1 << cb)
    ia = popcount(mask & ((1 << ca) - 1))
    ib = popcount(m2 & ((1 << cb) - 1))
    f = u_fact[u]
    p2 = moved[u_mbase[u] + (ia * k + ib) * f + perm]
    low = lo[m2 & 8191]
    mr = (low >> 5) + hi[low & 31, m2 >> 13] + u_ibase[u]
    inf = info[mr]
    q = inf >> 1
    if inf & 1:
        q += regtab[mr, ca]
    return m2, p2, q * f + p2


# ---------------------------------------------------------------- one iteration over several processes

_SPLIT: dict = {"counter": None, "lock": None}  # this iteration's shared [next claim, first solution]


def _split_claim() -> int:
    """The next subtree number for this process, or -1 when it lies past the first solution."""
    a, lock = _SPLIT["counter"], _SPLIT["lock"]
    with lock:
        x = a[0]
        if x > a[1]:
            return -1
        a[0] = x + 1
    return int(x)


def _split_best() -> int:
    """The lowest subtree number with a solution so far (large: none)."""
    return int(_SPLIT["counter"][1])


def _split_found(sub: int) -> None:
    a, lock = _SPLIT["counter"], _SPLIT["lock"]
    with lock:
        if sub < a[1]:
            a[1] = sub


@njit(cache=True)
def _claim():
    with objmode(x="int64"):
        x = _split_claim()
    return x


@njit(cache=True)
def _best():
    with objmode(x="int64"):
        x = _split_best()
    return x


@njit(cache=True)
def _found(sub):
    with objmode():
        _split_found(sub)


@njit(cache=True)
def _record(recs, nrec, sub, g, e, lk, tg, te, tl):
    """recs with row nrec = [sub, g, e, lk, tg, te, tl] (grown when full), and nrec + 1."""
    if nrec == recs.shape[0]:
        more = np.zeros((2 * nrec + 64, 7), np.int64)
        more[:nrec] = recs[:nrec]
        recs = more
    recs[nrec, 0] = sub
    recs[nrec, 1] = g
    recs[nrec, 2] = e
    recs[nrec, 3] = lk
    recs[nrec, 4] = tg
    recs[nrec, 5] = te
    recs[nrec, 6] = tl
    return recs, nrec + 1


@njit(cache=True)
def search(board, bound, prev_blank, fsm0, find_first, deadline, out, counters, vals0, n, nbr, nnbr,
           fsm_next, u_addr, u_k, u_tiles, u_cmap, u_ibase, u_fact, u_mbase, lo, hi, info, regtab, moved,
           t_units, t_nunits, h_units, h_np, h_uot, mode, cut, out_s):
    """All move sequences of exactly `bound` moves from `board` (frame labels, cell -> tile) to the
    goal with f = g + h <= bound, h the largest partition sum of the catalogue.

    vals0: every unit's exact value at `board`; fsm0: the move-pruning automaton's state there
    (fsm_next[state, e] is the state after the blank moves to nbr[blank, e], -1: pruned), and the
    blank never goes back to `prev_blank` first. Each unit keeps its map, order and value, changed
    by a move of one of its tiles (`_move_unit`) and restored from an undo log on the way back.
    A child is pruned as soon as one partition tight at its parent (sum = bound - g) grows: sums
    change by exactly one and share the parity of bound - g, so no other partition can prune it;
    the partition that pruned last is asked first (mode 0: every tight one, then the others, one
    lookup at a time; mode 1: the units left once the child survives, in one batch whose loads
    overlap; mode 2: mode 1, and each child's first lookup prefetched when its parent is
    expanded). Returns the number of solutions (the first out.shape[0] written to `out` as tiles
    moved); counters += [nodes generated, nodes expanded (f <= bound, not the goal), database
    lookups]; counters[3] = the next bound (bound + 2 if anything was pruned); counters[4] = 1 if
    the wall clock passed `deadline` (time.monotonic seconds) first.

    cut > 0 (0 < cut < bound): one of several processes sharing the iteration (`SplitShared`).
    Every process walks the tree above depth `cut`; the nodes at depth `cut` are numbered in
    depth-first order (identical in every process) and each is searched by the process that
    claimed its number (`_claim`: a shared counter, so the work balances itself); a process whose
    claim lies past the first solution found (find_first) stops. Returns (solutions, records):
    one record per subtree searched, [its number, nodes generated, expanded, lookups in it (from
    the expansion of its root on), and the same three counters above the cut before it]; out_s[i]
    = the subtree of solution i. So every process's counters are exactly those one process would
    have had: the first solution is the one in the lowest-numbered subtree, and the counts up to it
    are the ones above the cut before it plus those of the subtrees before it (`merge_split`).
    With cut = 0 the records are empty.
    """
    U = u_k.size
    H = h_np.size
    D = bound + 2
    cval = np.empty(U, np.int64)      # each unit's value, map and order at the current node
    cmask = np.empty(U, np.int64)
    cperm = np.empty(U, np.int64)
    nval = np.empty(U, np.int64)      # a child's, for the units its moved tile touches
    nmask = np.empty(U, np.int64)
    nperm = np.empty(U, np.int64)
    mark = np.zeros(U, np.int64)
    umax = 0
    for t in range(n):
        if t_nunits[t] > umax:
            umax = t_nunits[t]
    log_u = np.empty(D * umax + 1, np.int64)   # undo log: the units a move changed, old state
    log_v = np.empty(D * umax + 1, np.int64)
    log_m = np.empty(D * umax + 1, np.int64)
    log_p = np.empty(D * umax + 1, np.int64)
    log_top = np.zeros(D + 1, np.int64)
    sums = np.empty((D, H), np.int64)
    tight = np.empty((D, H), np.int64)
    ntight = np.zeros(D, np.int64)
    blank_st = np.zeros(D, np.int64)
    next_st = np.zeros(D, np.int64)
    fsm_st = np.zeros(D, np.int64)
    path = np.zeros(max(bound, 1), np.int64)
    bu = np.zeros(U, np.int64)     # a batch of lookups: units, byte addresses, bit shifts
    ba = np.zeros(U, np.int64)
    bs = np.zeros(U, np.int64)
    pos = np.empty(n, np.int64)
    scratch = np.zeros(16, np.int64)
    for c in range(n):
        pos[board[c]] = c
    for u in range(U):
        cval[u] = vals0[u]
        k = u_k[u]
        m = 0
        for j in range(k):
            x = u_cmap[u, pos[u_tiles[u, j]]]
            scratch[j] = x
            m |= 1 << x
        cmask[u] = m
        cperm[u] = lehmer(scratch, k)
    hmax = 0
    for h in range(H):
        s = 0
        for j in range(h_np[h]):
            s += vals0[h_units[h, j]]
        sums[0, h] = s
        if s > hmax:
            hmax = s
    generated = 0
    expanded = 0
    lookups = 0
    found = 0
    pruned_any = False
    recs = np.zeros((64 if cut > 0 else 0, 7), np.int64)
    nrec = 0
    if hmax > bound:
        counters[3] = hmax
        return 0, recs[:0]
    if hmax == 0:
        counters[3] = 1 << 30
        return (1 if bound == 0 else 0), recs[:0]
    expanded += 1
    nt = 0
    for h in range(H):
        if sums[0, h] == bound:
            tight[0, nt] = h
            nt += 1
    ntight[0] = nt
    blank_st[0] = pos[0]
    fsm_st[0] = fsm0
    lastp = 0
    stamp = 0
    # the split (cut > 0): cut nodes seen, the one claimed next, the one being searched (-1: none),
    # counters at its root, counters of the subtrees searched so far
    ncut = 0
    mine = -1
    if cut > 0:
        mine = _claim()
        if mine < 0:
            return 0, recs[:0]
    cur = -1
    g0 = e0 = l0 = 0
    sub_g = sub_e = sub_l = 0
    d = 0
    while d >= 0:
        b = blank_st[d]
        e = next_st[d]
        if e >= nnbr[b]:
            if d > 0:  # undo the move that led here
                pb = blank_st[d - 1]
                board[b] = board[pb]
                board[pb] = 0
                for i in range(log_top[d - 1], log_top[d]):
                    u = log_u[i]
                    cval[u] = log_v[i]
                    cmask[u] = log_m[i]
                    cperm[u] = log_p[i]
            if d == cut and cur >= 0:  # a claimed subtree is done: its record, the next claim
                recs, nrec = _record(recs, nrec, cur, generated - g0, expanded - e0, lookups - l0,
                                     g0 - sub_g, e0 - sub_e, l0 - sub_l)
                sub_g += generated - g0
                sub_e += expanded - e0
                sub_l += lookups - l0
                cur = -1
                mine = _claim()
                if mine < 0:  # past the first solution found: nothing left worth searching
                    counters[0] += generated
                    counters[1] += expanded
                    counters[2] += lookups
                    counters[3] = bound + 2
                    return found, recs[:nrec]
            d -= 1
            continue
        next_st[d] = e + 1
        c = nbr[b, e]
        if d == 0 and c == prev_blank:
            continue
        ns = fsm_next[fsm_st[d], e]
        if ns < 0:
            continue
        t = board[c]
        generated += 1
        if (generated & 1048575) == 0:
            with objmode(now="float64"):
                now = tick(generated)
            if now > deadline:
                counters[0] += generated
                counters[1] += expanded
                counters[2] += lookups
                counters[3] = bound + 2
                counters[4] = 1
                return found, recs[:nrec]
            if cur >= 0 and find_first and _best() < cur:  # a solution in an earlier subtree
                counters[0] += generated
                counters[1] += expanded
                counters[2] += lookups
                counters[3] = bound + 2
                return found, recs[:nrec]
        # the tile t would move from c to b, the blank to c
        stamp += 1
        pruned = False
        if ntight[d] > 0:
            first = lastp if sums[d, lastp] == bound - d else -1
            for i in range(-1, ntight[d]):
                h = first if i < 0 else tight[d, i]
                if h < 0 or (i >= 0 and h == first):
                    continue
                u = h_uot[h, t]
                if mark[u] != stamp:
                    mark[u] = stamp
                    m2, p2, x = _move_unit(u, cmask[u], cperm[u], u_cmap[u, c], u_cmap[u, b], u_k, u_ibase,
                                           u_fact, u_mbase, lo, hi, info, regtab, moved)
                    nmask[u] = m2
                    nperm[u] = p2
                    nval[u] = _step(cval[u], (byte_at(u_addr[u] + (x >> 3)) >> (x & 7)) & 1)
                    lookups += 1
                if nval[u] > cval[u]:
                    pruned = True
                    lastp = h
                    break
        if pruned:
            pruned_any = True
            continue
        nb = 0
        for i in range(t_nunits[t]):
            u = t_units[t, i]
            if mark[u] != stamp:
                mark[u] = stamp
                m2, p2, x = _move_unit(u, cmask[u], cperm[u], u_cmap[u, c], u_cmap[u, b], u_k, u_ibase,
                                       u_fact, u_mbase, lo, hi, info, regtab, moved)
                nmask[u] = m2
                nperm[u] = p2
                if mode == 0:
                    nval[u] = _step(cval[u], (byte_at(u_addr[u] + (x >> 3)) >> (x & 7)) & 1)
                else:
                    bu[nb] = u
                    ba[nb] = u_addr[u] + (x >> 3)
                    bs[nb] = x & 7
                    nb += 1
                lookups += 1
        for i in range(nb):
            u = bu[i]
            nval[u] = _step(cval[u], (byte_at(ba[i]) >> bs[i]) & 1)
        # the child survives: the move for real
        d1 = d + 1
        top = log_top[d]
        hmax = 0
        nt = 0
        for h in range(H):
            u = h_uot[h, t]
            s = sums[d, h] + nval[u] - cval[u]
            sums[d1, h] = s
            if s > hmax:
                hmax = s
            if s == bound - d1:
                tight[d1, nt] = h
                nt += 1
        ntight[d1] = nt
        for i in range(t_nunits[t]):
            u = t_units[t, i]
            log_u[top] = u
            log_v[top] = cval[u]
            log_m[top] = cmask[u]
            log_p[top] = cperm[u]
            top += 1
            cval[u] = nval[u]
            cmask[u] = nmask[u]
            cperm[u] = nperm[u]
        log_top[d1] = top
        board[b] = t
        board[c] = 0
        path[d] = t
        d = d1
        blank_st[d] = c
        next_st[d] = 0
        fsm_st[d] = ns
        if d == cut:
            if ncut != mine:  # another process's subtree
                ncut += 1
                next_st[d] = nnbr[c]
                continue
            ncut += 1
            cur = mine
            g0, e0, l0 = generated, expanded, lookups
        if hmax == 0:
            if d == bound:
                if found < out.shape[0]:
                    for i in range(d):
                        out[found, i] = path[i]
                    out_s[found] = cur
                found += 1
                if find_first:
                    counters[0] += generated
                    counters[1] += expanded
                    counters[2] += lookups
                    counters[3] = bound + 2
                    if cur >= 0:
                        recs, nrec = _record(recs, nrec, cur, generated - g0, expanded - e0, lookups - l0,
                                             g0 - sub_g, e0 - sub_e, l0 - sub_l)
                        _found(cur)
                    return found, recs[:nrec]
            next_st[d] = nnbr[c]  # the goal is not expanded
            continue
        expanded += 1
        if mode == 2 and nt > 0:
            # the first lookup of each child, prefetched: the loads of the siblings overlap
            hp = lastp if sums[d, lastp] == bound - d else tight[d, 0]
            for e2 in range(nnbr[c]):
                if fsm_next[ns, e2] < 0:
                    continue
                c2 = nbr[c, e2]
                u = h_uot[hp, board[c2]]
                m2, p2, x = _move_unit(u, cmask[u], cperm[u], u_cmap[u, c2], u_cmap[u, c], u_k, u_ibase,
                                       u_fact, u_mbase, lo, hi, info, regtab, moved)
                prefetch(u_addr[u] + (x >> 3))
    counters[0] += generated
    counters[1] += expanded
    counters[2] += lookups
    counters[3] = bound + 2 if pruned_any else 1 << 30
    return found, recs[:nrec]


# ---------------------------------------------------------------- a catalogue ready to search

@dataclass
class Catalogue:
    """A catalogue's databases and the kernel's arrays (see `search`)."""

    name: str
    rows: int
    cols: int
    units: list
    parts: list
    keys: list
    dbs: tuple
    arrays: dict

    def values(self, board) -> np.ndarray:
        """Every unit's exact value on `board` (frame labels, cell -> tile), walking the 1-bit
        databases downhill."""
        n = self.rows * self.cols
        pos = np.empty(n, np.int64)
        for c in range(n):
            pos[int(board[c])] = c
        A = self.arrays
        nbr, nnbr = tables(self.rows, self.cols)
        out = np.zeros(len(self.units), np.int64)
        for i, u in enumerate(self.units):
            T = index_tables(n, u.key.k, self.cols)
            cells = np.array([u.cmap[pos[t]] for t in u.tiles], np.int64)
            v = int(walk_value(self.dbs[A["u_db"][i]], cells, u.cmap[pos[0]], np.array(u.key.cells, np.int64),
                               u.key.k, n, self.cols, nbr, nnbr, T.lo, T.hi, T.info, T.regtab, T.fact))
            if v < 0:
                raise ValueError(f"zero-aware database {path(u.key)}: the walk to the goal failed")
            out[i] = v
        return out

    def h(self, board) -> int:
        v = self.values(board)
        return max(sum(int(v[u]) for u in p) for p in self.parts)


_CATS: dict[str, Catalogue] = {}


def catalogue(name: str, progress=None, deadline: float = float("inf"), info: dict | None = None) -> Catalogue:
    """The catalogue `name` with its databases loaded (built first where missing)."""
    if name in _CATS:
        if info is not None:
            for k in _CATS[name].keys:
                info[k.filename()] = {"source": "memory", "build_seconds": 0.0, "entries": k.entries,
                                      "bytes": k.nbytes}
        return _CATS[name]
    rows, cols, parts = CATALOGUES[name]
    n = rows * cols
    units, uparts = catalogue_units(name)
    keys = catalogue_keys(name)
    for p in parts:
        tiles = sorted(t for pat in p for t in pat)
        if tiles != list(range(1, n)):
            raise ValueError(f"catalogue {name}: a partition does not cover every tile once")
    dbs = []
    for i, k in enumerate(keys):
        def prog(_i=i, _k=k, **kw):
            if progress is not None:
                progress(database=_i + 1, databases=len(keys), cells=_k.cells, **kw)
        dbs.append(np.asarray(database(k, prog, deadline, info=info)))
    ks = sorted({u.key.k for u in units})
    lo, hi = _rank_tables(n, max(ks))
    infos, regs, base, moves, mbase = [], [], {}, [], {}
    row = mrow = 0
    for k in ks:
        T = index_tables(n, k, cols)
        base[k] = row
        infos.append(T.info)
        regs.append(T.regtab)
        row += T.info.size
        mv = _shift_tables(k).ravel()
        mbase[k] = mrow
        moves.append(mv)
        mrow += mv.size
    U, H = len(units), len(uparts)
    kmax = max(ks)
    A = {
        "u_db": np.array([keys.index(u.key) for u in units], np.int64),
        # addresses of the units' bits (the arrays stay referenced by the Catalogue's dbs)
        "u_addr": np.array([dbs[keys.index(u.key)].ctypes.data for u in units], np.int64),
        "u_k": np.array([u.key.k for u in units], np.int64),
        "u_tiles": np.array([list(u.tiles) + [0] * (kmax - u.key.k) for u in units], np.int64),
        "u_cmap": np.array([list(u.cmap) for u in units], np.int64),
        "u_ibase": np.array([base[u.key.k] for u in units], np.int64),
        "u_fact": np.array([math.factorial(u.key.k) for u in units], np.int64),
        "u_mbase": np.array([mbase[u.key.k] for u in units], np.int64),
        # the kernel's tables at their narrowest exact width: they stay in the processor's caches
        # (#38's iteration 94, best of 4, load 15: 2.67 CPU s with 64-bit tables, 2.42 with these)
        "moved": _narrow(np.concatenate(moves)),
        # lo and hi at one width on every board (int32: a 5x5's ranks need it), so that the
        # kernel compiles once for the 8-, 15- and 24-puzzle rather than once per width
        "lo": _narrow(lo, np.int32), "hi": _narrow(hi, np.int32), "info": _narrow(np.concatenate(infos)),
        "regtab": np.concatenate(regs),
    }
    t_units = np.zeros((n, U), np.int64)
    t_nunits = np.zeros(n, np.int64)
    for i, u in enumerate(units):
        for t in u.tiles:
            t_units[t, t_nunits[t]] = i
            t_nunits[t] += 1
    h_units = np.zeros((H, max(len(p) for p in uparts)), np.int64)
    h_np = np.array([len(p) for p in uparts], np.int64)
    h_uot = np.zeros((H, n), np.int64)
    for h, p in enumerate(uparts):
        for j, u in enumerate(p):
            h_units[h, j] = u
            for t in units[u].tiles:
                h_uot[h, t] = u
    A.update(t_units=t_units, t_nunits=t_nunits, h_units=h_units, h_np=h_np, h_uot=h_uot)
    cat = Catalogue(name, rows, cols, units, uparts, keys, tuple(dbs), A)
    _CATS[name] = cat
    return cat


def _narrow(a: np.ndarray, least=np.int16) -> np.ndarray:
    """`a` as int16 or int32 (none narrower than `least`) where every value fits (the same
    numbers), else as it is."""
    lo, hi = int(a.min(initial=0)), int(a.max(initial=0))
    for t in (np.int16, np.int32):
        if np.dtype(t).itemsize < np.dtype(least).itemsize:
            continue
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return a.astype(t)
    return a


MODE = 1  # the kernel's lookup order (see `search`); bench/sliding.py measures the others


def run_search(cat: Catalogue, board, bound: int, find_first: bool, prev_blank: int = -1,
               deadline: float = float("inf"), fsm=None, fsm0: int = -1, vals=None, capacity: int = 64,
               nbr=None, cut: int = 0):
    """One iteration from `board` (frame labels): (solutions as tiles moved, counters, expired);
    counters = [generated, expanded, lookups, next bound]. With `cut` > 0 this process's share of
    a split iteration (`run_split`): also the subtree of each solution and the records, and the
    counters in full (5)."""
    n = cat.rows * cat.cols
    board = np.array(board, np.int64)
    if fsm is None:
        fsm = simple_fsm_sorted(cat.rows, cat.cols)
    if fsm0 < 0:
        fsm0 = int(fsm[1][int(np.flatnonzero(board == 0)[0])])
    if vals is None:
        vals = cat.values(board)
    nbr, nnbr = sorted_tables(cat.rows, cat.cols) if nbr is None else (nbr, sorted_tables(cat.rows, cat.cols)[1])
    A = cat.arrays
    while True:
        counters = np.zeros(5, np.int64)
        out = np.zeros((capacity, max(bound, 1)), np.int8)
        out_s = np.zeros(capacity, np.int64)
        found, recs = search(board.copy(), bound, prev_blank, fsm0, find_first, deadline, out, counters, vals,
                             n, nbr, nnbr, fsm[0], A["u_addr"], A["u_k"], A["u_tiles"], A["u_cmap"],
                             A["u_ibase"], A["u_fact"], A["u_mbase"], A["lo"], A["hi"], A["info"],
                             A["regtab"], A["moved"], A["t_units"], A["t_nunits"], A["h_units"], A["h_np"],
                             A["h_uot"], MODE, cut, out_s)
        found = int(found)
        expired = bool(counters[4])
        if found <= capacity or expired:
            k = min(found, capacity)
            sols = [tuple(int(x) for x in out[i, :bound]) for i in range(k)]
            if cut > 0:
                return sols, [int(x) for x in counters], expired, [int(x) for x in out_s[:k]], recs
            return sols, [int(x) for x in counters[:4]], expired
        capacity = found


def merge_split(parts: list, bound: int, find_first: bool) -> tuple[list, list[int], bool]:
    """One iteration's (solutions, [generated, expanded, lookups, next bound], expired) from its
    processes' shares (`run_search` with cut > 0: solutions, counters, expired, subtree of each
    solution, records), with the solutions, nodes and expansions one process would have had;
    lookups are those of every process (each also walks the tree above the cut, and the order of
    the lookups follows the partition that pruned last, which depends on the subtrees it saw)."""
    expired = any(p[2] for p in parts)
    lookups = sum(p[1][2] for p in parts)
    recs = {}
    for p in parts:
        for r in p[4]:
            recs[int(r[0])] = [int(x) for x in r]
    sols = sorted(((sub, i, w, sol) for w, p in enumerate(parts) for i, (sol, sub) in enumerate(zip(p[0], p[3]))),
                  key=lambda x: x[:3])
    if find_first and sols and not expired:
        first = sols[0]
        r = recs[first[0]]
        if sorted(x for x in recs if x < first[0]) != list(range(first[0])):
            raise RuntimeError(f"split iteration with bound {bound}: a subtree before the solution's "
                               "is missing")
        g = r[4] + r[1] + sum(recs[x][1] for x in range(first[0]))
        e = r[5] + r[2] + sum(recs[x][2] for x in range(first[0]))
        return [first[3]], [g, e, lookups, bound + 2], expired
    # every process walked the whole tree above the cut: its own counters less its subtrees'
    top = set()
    for p in parts:
        top.add((p[1][0] - sum(int(r[1]) for r in p[4]), p[1][1] - sum(int(r[2]) for r in p[4])))
    if expired:
        return [], [sum(p[1][0] for p in parts), sum(p[1][1] for p in parts), lookups, bound + 2], True
    if len(top) != 1 or sorted(recs) != list(range(len(recs))):
        raise RuntimeError(f"split iteration with bound {bound}: the processes' trees disagree {top}")
    tg, te = top.pop()
    g = tg + sum(r[1] for r in recs.values())
    e = te + sum(r[2] for r in recs.values())
    nxt = min(p[1][3] for p in parts)
    return [x[3] for x in sols], [g, e, lookups, nxt], expired


def run_split(cat: Catalogue, board, bound: int, find_first: bool, processes: int, cut: int,
              deadline: float = float("inf"), fsm=None, fsm0: int = -1, vals=None, nbr=None):
    """One iteration over `processes` forked processes sharing it (`search` with `cut`, 0 < cut <
    bound): the same (solutions, counters, expired) as `run_search` in one process (`merge_split`:
    lookups apart)."""
    import multiprocessing as mp
    import pickle
    import select

    from ...core.procs import fork_pipes, reap_pipes
    ctx = mp.get_context("fork")
    shared = ctx.RawArray("q", 2)
    shared[0], shared[1] = 0, 1 << 62
    _SPLIT["counter"], _SPLIT["lock"] = shared, ctx.Lock()
    if vals is None:
        vals = cat.values(np.asarray(board, np.int64))
    # the kernel loaded (or compiled) here, once, not in every process of every iteration: a
    # call with bound 0 returns at its root
    run_search(cat, board, 0, find_first, -1, deadline, fsm, fsm0, vals, nbr=nbr, cut=cut)

    def work(out) -> None:
        pickle.dump(run_search(cat, board, bound, find_first, -1, deadline, fsm, fsm0, vals, nbr=nbr, cut=cut), out)

    pipes, pids = [], []
    try:
        pipes, pids = fork_pipes(processes, work)
        parts = []
        waiting = list(pipes)
        while waiting:
            ready, _, _ = select.select(waiting, [], [])
            for f in ready:
                waiting.remove(f)
                try:
                    parts.append(pickle.load(f))
                except EOFError:
                    raise RuntimeError(f"a process of the split iteration with bound {bound} died") from None
    finally:
        reap_pipes(pipes, pids)
        _SPLIT["counter"] = _SPLIT["lock"] = None
    return merge_split(parts, bound, find_first)


@njit(cache=True)
def step_values(vals, board, b, c, n, u_addr, u_k, u_tiles, u_cmap, u_ibase, u_fact, lo, hi, info, regtab,
                t_units, t_nunits):
    """Every unit's value after the tile on cell c moves to the blank's cell b (`board` unchanged)."""
    pos = np.empty(n, np.int64)
    for x in range(n):
        pos[board[x]] = x
    t = board[c]
    pos[t] = b
    pos[0] = c
    out = vals.copy()
    scratch = np.zeros(16, np.int64)
    for i in range(t_nunits[t]):
        u = t_units[t, i]
        out[u] = _diff(u, vals[u], pos, scratch, u_addr, u_k, u_tiles, u_cmap, u_ibase, u_fact, lo, hi,
                       info, regtab)
    return out


def to_frame(rows: int, cols: int, start, goal):
    """(start, relabel) in the zero-aware frame (goal: blank on cell 0, tile c on cell c), by a
    board symmetry taking the goal's blank to cell 0 and a relabelling; relabel[t] is the
    original tile of frame tile t. None if the goal's blank is not in a corner."""
    from .pattern_db import symmetries
    n = rows * cols
    gb = list(goal).index(0)
    for g in symmetries(rows, cols):
        if g[gb] == 0:
            break
    else:
        return None
    s2 = [0] * n
    g2 = [0] * n
    for c in range(n):
        s2[g[c]] = start[c]
        g2[g[c]] = goal[c]
    sigma = {g2[c]: c for c in range(n)}
    relabel = [0] * n
    for t, s in sigma.items():
        relabel[s] = t
    return np.array([sigma[t] for t in s2], np.int64), tuple(relabel)


class ZProblem:
    """IDA* on a zero-aware catalogue for one instance: the interface `sliding.ida` drives
    (h0, h, run, frontier, original), in the frame of `to_frame`."""

    mode = 3      # ida.H_PDB
    dual = 0
    order = 0

    def __init__(self, inst, name: str, fsm: str = "simple", progress=None,
                 deadline: float = float("inf")):
        from ...core.result import InputError
        rows, cols = inst.rows, inst.cols
        if name not in CATALOGUES or CATALOGUES[name][:2] != (rows, cols):
            raise InputError(f"zero-aware catalogue {name} is not defined for {rows}x{cols} boards "
                             f"(there: {', '.join(catalogues(rows, cols)) or 'none'})")
        fr = to_frame(rows, cols, inst.start, inst.goal)
        if fr is None:
            raise InputError(f"zero-aware catalogue {name}: the goal's blank must be in a corner")
        self.rows, self.cols = rows, cols
        self.start, self.relabel = fr
        n = rows * cols
        self.goal = np.arange(n, dtype=np.int64)
        self.goalpos = self.goal.copy()
        self.nbr, self.nnbr = sorted_tables(rows, cols)
        self.pdb_info: dict = {}
        self.cat = catalogue(name, progress, deadline, self.pdb_info)
        self.fsm = self._automaton(fsm)
        self.fsm_name = fsm
        self.name = f"{name}" + ("" if fsm == "simple" else f"+fsm-{fsm}")
        self._memo: dict = {}

    def _automaton(self, fsm: str):
        if fsm == "simple":
            return simple_fsm_sorted(self.rows, self.cols)
        from .fsm import loops
        if not fsm.startswith("loops-") or not fsm[6:].isdigit():
            raise ValueError(f"unknown move-pruning automaton {fsm}")
        return loops(self.rows, self.cols, int(fsm[6:]), cache_dir())

    def h(self, board) -> int:
        return self.cat.h(np.asarray(board, np.int64))

    def h0(self) -> int:
        return self.h(self.start)

    def _fsm_state(self, board, path) -> int:
        """The automaton's state after `path` (tiles moved) from the start, if `board` is where it
        leads; else the start state of `board`'s blank."""
        nxt, first = self.fsm
        bd = [int(x) for x in self.start]
        b = bd.index(0)
        st = int(first[b])
        for t in path:
            c = bd.index(t)
            e = [int(self.nbr[b, x]) for x in range(int(self.nnbr[b]))].index(c)
            st = int(nxt[st, e])
            bd[b], bd[c] = t, 0
            b = c
            if st < 0:
                break
        if st < 0 or tuple(bd) != tuple(int(x) for x in board):
            return int(first[int(np.flatnonzero(np.asarray(board) == 0)[0])])
        return st

    def run(self, board, bound: int, find_first: bool, prev_blank: int = -1,
            deadline: float = float("inf"), capacity: int = 64, path=()):
        """(solutions of exactly `bound` moves from `board`, nodes generated, next bound, expired,
        {expanded, lookups}); solutions as tiles moved, in frame labels."""
        board = np.array(board, np.int64)
        key = tuple(int(x) for x in board)
        vals = self._memo.get(key)
        if vals is None:
            vals = self.cat.values(board)
        fsm0 = self._fsm_state(board, path)
        sols, cnt, expired = run_search(self.cat, board, bound, find_first, prev_blank, deadline, self.fsm,
                                        fsm0, vals, capacity, self.nbr)
        return sols, cnt[0], (cnt[3] if cnt[3] < (1 << 30) else 1 << 30), expired, \
            {"expanded": cnt[1], "lookups": cnt[2]}

    def run_split(self, bound: int, find_first: bool, processes: int, deadline: float, cut: int):
        """One iteration from the start over `processes` processes (`run_split`): the same return
        as `run` from the start, with the same solutions, nodes and expansions."""
        sols, cnt, expired = run_split(self.cat, self.start, bound, find_first, processes, cut, deadline,
                                       self.fsm, self._fsm_state(self.start, ()), None, self.nbr)
        return sols, cnt[0], (cnt[3] if cnt[3] < (1 << 30) else 1 << 30), expired, \
            {"expanded": cnt[1], "lookups": cnt[2]}

    def frontier(self, bound: int, depth: int) -> tuple[list, int, int, dict]:
        """The subtrees of one iteration cut at `depth`: (jobs (board, blank's previous cell, path),
        nodes generated above the cut, the next bound, {expanded}), as the kernel would prune."""
        A = self.cat.arrays
        nxt_t, first = self.fsm
        n = self.rows * self.cols
        self._memo = {}
        jobs: list = []
        gen = exp = 0
        pruned = False
        parts = self.cat.parts

        def walk(board, vals, st, prev, path, d):
            nonlocal gen, exp, pruned
            hmax = max(sum(int(vals[u]) for u in p) for p in parts)
            if d + hmax > bound:
                pruned = True
                return
            if hmax == 0:
                return  # the goal above the cut (shorter than the bound): not a solution here
            if d == depth:
                key = tuple(int(x) for x in board)
                self._memo[key] = vals
                jobs.append((key, prev, tuple(path)))
                return
            exp += 1
            b = int(np.flatnonzero(board == 0)[0])
            for e in range(int(self.nnbr[b])):
                c = int(self.nbr[b, e])
                if c == prev:
                    continue
                ns = int(nxt_t[st, e])
                if ns < 0:
                    continue
                gen += 1
                v2 = step_values(vals, board, b, c, n, A["u_addr"], A["u_k"], A["u_tiles"], A["u_cmap"],
                                 A["u_ibase"], A["u_fact"], A["lo"], A["hi"], A["info"], A["regtab"],
                                 A["t_units"], A["t_nunits"])
                t = int(board[c])
                board[b], board[c] = t, 0
                path.append(t)
                walk(board, v2, ns, b, path, d + 1)
                path.pop()
                board[c], board[b] = t, 0

        start = self.start.copy()
        walk(start, self.cat.values(start), int(first[int(np.flatnonzero(start == 0)[0])]), -1, [], 0)
        return jobs, gen, (bound + 2 if pruned else 1 << 30), {"expanded": exp}

    def original(self, sol) -> tuple[int, ...]:
        return tuple(self.relabel[t] for t in sol)


def simple_fsm_sorted(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """`simple_fsm` over the neighbour order of `sorted_tables`."""
    n = rows * cols
    nbr, nnbr = sorted_tables(rows, cols)
    nxt = np.full((n * 5, 4), -1, np.int32)  # the loops-N automata's width: one kernel for both
    for b in range(n):
        for s in range(5):
            for e in range(int(nnbr[b])):
                c = int(nbr[b, e])
                if s < int(nnbr[b]) and int(nbr[b, s]) == c:
                    continue
                back = [int(nbr[c, x]) for x in range(int(nnbr[c]))].index(b)
                nxt[b * 5 + s, e] = c * 5 + back
    start = np.array([b * 5 + 4 for b in range(n)], np.int64)
    return nxt, start
