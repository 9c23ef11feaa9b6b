"""Peg solitaire on boards of up to 128 holes: positions as two 64-bit words, a beam by moves.

Vocabulary (as native_search/peg/bfs.py, whose bitboards stop at 64 holes):
- a wide position is a pair of `uint64` words (lo, hi): hole h < 64 is bit h of lo, hole h >= 64
  bit h - 64 of hi; arrays of positions are two arrays `lo`, `hi` of one length;
- a move is one peg's whole jump chain; every prefix of a chain is a successor;
- canonical form: the least image (by (hi, lo)) under a group of board symmetries that fix the
  start (the stabiliser of the vacancy), so a position and its mirror image count once.

The beam (`beam`): level 0 is the start; level d + 1 keeps the `width` best distinct canonical
successors of level d by a score (lower is better): a weighted sum of position features — pegs,
isolated pegs (no neighbouring peg), pegs on the rim, full Merson regions of one disjoint family
(`Weights`) — plus a 20-bit hash of the position as a reproducible tie-break. Every kept position
remembers its parent's index, so a position of one peg at level d is a solution of d moves,
rebuilt by walking the parents and replaying the symmetries (`Beam.solution`). A beam is a
heuristic: a solution it finds is an upper bound (the caller replays it with the checker); a miss
proves nothing.

>>> from puzzlesat.puzzles.peg import board, check
>>> from puzzlesat.native_search.peg.problems import problem_instance
>>> b = board("triangle6")
>>> found = beam(b, 3, width=2000)
>>> f, sol = min((len(s), f, s) for f, s in found.items())[1:]
>>> check(problem_instance(b, 3, f), sol) == found_moves(sol)
True
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np
from numba import njit

from ...puzzles.peg import Board, Hole, Jump, Solution, moves as found_moves

MAX_HOLES = 128
ZERO = np.uint64(0)
ONE = np.uint64(1)
BYTE = np.uint64(255)
EIGHT = np.uint64(8)
LOW32 = np.uint64(0xFFFFFFFF)
CHUNK = 1 << 21            # successors per kernel call
STATES = 1 << 14           # chain states remembered per position expanded, to start with


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _image(lo, hi, tl, th, g, nbytes):
    """The image of (lo, hi) under symmetry g, tabulated per byte: tl/th[g, byte index, byte]."""
    ql = ZERO
    qh = ZERO
    x = lo
    for j in range(nbytes):
        if j == 8:
            x = hi
        b = x & BYTE
        ql |= tl[g, j, b]
        qh |= th[g, j, b]
        x >>= EIGHT
    return ql, qh


@njit(cache=True)
def _canon(lo, hi, tl, th, nbytes):
    """The least image of (lo, hi) by (hi, lo) under the tabulated symmetries (and identity), and
    the index of the symmetry that gives it (-1: identity)."""
    bl, bh, bg = lo, hi, -1
    for g in range(tl.shape[0]):
        ql, qh = _image(lo, hi, tl, th, g, nbytes)
        if qh < bh or (qh == bh and ql < bl):
            bl, bh, bg = ql, qh, g
    return bl, bh, bg


@njit(cache=True)
def _canon_many(lo, hi, tl, th, nbytes):
    ol = np.empty(lo.shape[0], np.uint64)
    oh = np.empty(lo.shape[0], np.uint64)
    for i in range(lo.shape[0]):
        ol[i], oh[i], _ = _canon(lo[i], hi[i], tl, th, nbytes)
    return ol, oh


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - ONE
        c += 1
    return c


@njit(cache=True)
def _hash(lo, hi):
    """A 64-bit mix of a wide position (32-bit halves times odd constants: no product wraps)."""
    return (((lo & LOW32) * np.uint64(0x9E3779B1)) ^ ((lo >> np.uint64(32)) * np.uint64(0x85EBCA77))
            ^ ((hi & LOW32) * np.uint64(0xC2B2AE3D)) ^ ((hi >> np.uint64(32)) * np.uint64(0x27D4EB2F)))


@njit(cache=True)
def _visit(sl, sh, hole, kl, kh, kho, ticks, t, used):
    """Mark chain state (position, moving peg's hole) for the position stamped t: (seen, used)."""
    mask = kl.shape[0] - 1
    x = _hash(sl, sh) ^ (np.uint64(hole + 1) * np.uint64(0x165667B1))
    idx = np.int64((x >> np.uint64(7)) & np.uint64(mask))
    while ticks[idx] == t:
        if kl[idx] == sl and kh[idx] == sh and kho[idx] == hole:
            return True, used
        idx = (idx + 1) & mask
    ticks[idx] = t
    kl[idx] = sl
    kh[idx] = sh
    kho[idx] = hole
    return False, used + 1


@njit(cache=True)
def _expand(lo, hi, i0, m3l, m3h, wl, wh, to, lstart, tl, th, nbytes, outl, outh, outp,
            kl, kh, kho, ticks, tick):
    """Canonical successors by one move of positions i0.. of (lo, hi), each with its parent's
    index in outp, written until the buffers are full. A line j applies to p when
    p & m3[j] == want[j] (both words); the moving peg lands in to[j] and may go on with lines
    lstart[to[j]] .. lstart[to[j] + 1] - 1. A chain state two or more jumps deep that an earlier
    chain of the same move reached is not followed again. A position's successors are written
    all or none: returns (first position not expanded, entries written, table full: then the
    caller gives a larger chain-state table and calls again from that index)."""
    cap = outl.shape[0]
    nlines = m3l.shape[0]
    stk_l = np.empty(130, np.uint64)
    stk_h = np.empty(130, np.uint64)
    stk_o = np.empty(130, np.int64)
    stk_j = np.empty(130, np.int64)
    k = 0
    i = i0
    while i < lo.shape[0]:
        pl = lo[i]
        ph = hi[i]
        k0 = k
        full = False
        tick[0] += 1
        t = tick[0]
        used = 0
        for j0 in range(nlines):
            if (pl & m3l[j0]) != wl[j0] or (ph & m3h[j0]) != wh[j0]:
                continue
            if k == cap:
                full = True
                break
            ql = pl ^ m3l[j0]
            qh = ph ^ m3h[j0]
            cl, ch, _ = _canon(ql, qh, tl, th, nbytes)
            outl[k] = cl
            outh[k] = ch
            outp[k] = i
            k += 1
            sp = 0
            stk_l[0] = ql
            stk_h[0] = qh
            stk_o[0] = to[j0]
            stk_j[0] = lstart[to[j0]]
            while sp >= 0:
                h = stk_o[sp]
                j = stk_j[sp]
                if j < lstart[h + 1]:
                    stk_j[sp] = j + 1
                    rl = stk_l[sp]
                    rh = stk_h[sp]
                    if (rl & m3l[j]) == wl[j] and (rh & m3h[j]) == wh[j]:
                        sl = rl ^ m3l[j]
                        sh = rh ^ m3h[j]
                        seen, used = _visit(sl, sh, to[j], kl, kh, kho, ticks, t, used)
                        if seen:
                            continue
                        if 2 * used > kl.shape[0]:
                            return i, k0, True
                        if k == cap:
                            full = True
                            break
                        cl, ch, _ = _canon(sl, sh, tl, th, nbytes)
                        outl[k] = cl
                        outh[k] = ch
                        outp[k] = i
                        k += 1
                        sp += 1
                        stk_l[sp] = sl
                        stk_h[sp] = sh
                        stk_o[sp] = to[j]
                        stk_j[sp] = lstart[to[j]]
                else:
                    sp -= 1
            if full:
                break
        if full:
            return i, k0, False
        i += 1
    return i, k, False


@njit(cache=True)
def _first_of(lo, hi):
    """Indices of the first occurrence of each distinct position (an open-addressing set)."""
    n = lo.shape[0]
    size = 1
    while size < 2 * n + 2:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, np.int64)
    keep = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        idx = np.int64((_hash(lo[i], hi[i]) >> np.uint64(11)) & np.uint64(mask))
        while True:
            e = table[idx]
            if e < 0:
                table[idx] = i
                keep[k] = i
                k += 1
                break
            if lo[e] == lo[i] and hi[e] == hi[i]:
                break
            idx = (idx + 1) & mask
    return keep[:k]


@njit(cache=True)
def _scores(lo, hi, adjl, adjh, nbytes, riml, rimh, regl, regh, w_pegs, w_iso, w_rim, w_regions):
    """Per position: w_pegs * pegs + w_iso * isolated pegs + w_rim * pegs on the rim +
    w_regions * full regions (regl/regh: one disjoint family), times 2^20, plus a 20-bit hash
    (a reproducible tie-break). adjl/adjh[j, byte]: the union of the neighbours of the holes in
    that byte."""
    out = np.empty(lo.shape[0], np.int64)
    for i in range(lo.shape[0]):
        pl = lo[i]
        ph = hi[i]
        al = ZERO
        ah = ZERO
        x = pl
        for j in range(nbytes):
            if j == 8:
                x = ph
            b = x & BYTE
            al |= adjl[j, b]
            ah |= adjh[j, b]
            x >>= EIGHT
        pegs = _popcount(pl) + _popcount(ph)
        iso = _popcount(pl & ~al) + _popcount(ph & ~ah)
        rim = _popcount(pl & riml) + _popcount(ph & rimh)
        full = 0
        for r in range(regl.shape[0]):
            if (pl & regl[r]) == regl[r] and (ph & regh[r]) == regh[r]:
                full += 1
        s = w_pegs * pegs + w_iso * iso + w_rim * rim + w_regions * full
        out[i] = (np.int64(s) << 20) | np.int64(_hash(pl, ph) >> np.uint64(44))
    return out


@njit(cache=True)
def _pegs(lo, hi):
    out = np.empty(lo.shape[0], np.int64)
    for i in range(lo.shape[0]):
        out[i] = _popcount(lo[i]) + _popcount(hi[i])
    return out


@njit(cache=True)
def _end(pl, ph, m3l, m3h, wl, wh, to, lstart, n, tkl, tkh, tv, tused):
    """The exact end game of position p = (pl, ph): the least moves from p to a lone peg in each
    hole (255: none), memoised in an open-addressing table (keys tkl/tkh, rows tv[slot, :n],
    tused[0] entries); returns p's slot, or -1 when the table is three quarters full (the caller
    clears it and asks again). Recursion over the positions one move on, each move's chains
    enumerated depth-first (every prefix a successor): meant for positions of few pegs."""
    size = tkl.shape[0]
    mask = size - 1
    idx = np.int64((_hash(pl, ph) >> np.uint64(9)) & np.uint64(mask))
    while tv[idx, n] == 1:
        if tkl[idx] == pl and tkh[idx] == ph:
            return idx
        idx = (idx + 1) & mask
    if 4 * tused[0] > 3 * size:
        return -1
    vec = np.full(n, 255, np.uint8)
    if _popcount(pl) + _popcount(ph) == 1:
        h = 0
        x = pl
        if x == ZERO:
            x = ph
            h = 64
        while (x & ONE) == ZERO:
            x >>= ONE
            h += 1
        vec[h] = 0
    else:
        nlines = m3l.shape[0]
        stk_l = np.empty(130, np.uint64)
        stk_h = np.empty(130, np.uint64)
        stk_o = np.empty(130, np.int64)
        stk_j = np.empty(130, np.int64)
        for j0 in range(nlines):
            if (pl & m3l[j0]) != wl[j0] or (ph & m3h[j0]) != wh[j0]:
                continue
            sp = 0
            stk_l[0] = pl ^ m3l[j0]
            stk_h[0] = ph ^ m3h[j0]
            stk_o[0] = to[j0]
            stk_j[0] = lstart[to[j0]]
            s = _end(stk_l[0], stk_h[0], m3l, m3h, wl, wh, to, lstart, n, tkl, tkh, tv, tused)
            if s < 0:
                return -1
            for h in range(n):
                if tv[s, h] < 254 and tv[s, h] + 1 < vec[h]:
                    vec[h] = tv[s, h] + 1
            while sp >= 0:
                hh = stk_o[sp]
                j = stk_j[sp]
                if j < lstart[hh + 1]:
                    stk_j[sp] = j + 1
                    rl = stk_l[sp]
                    rh = stk_h[sp]
                    if (rl & m3l[j]) == wl[j] and (rh & m3h[j]) == wh[j]:
                        sp += 1
                        stk_l[sp] = rl ^ m3l[j]
                        stk_h[sp] = rh ^ m3h[j]
                        stk_o[sp] = to[j]
                        stk_j[sp] = lstart[to[j]]
                        s = _end(stk_l[sp], stk_h[sp], m3l, m3h, wl, wh, to, lstart, n, tkl,
                                 tkh, tv, tused)
                        if s < 0:
                            return -1
                        for h in range(n):
                            if tv[s, h] < 254 and tv[s, h] + 1 < vec[h]:
                                vec[h] = tv[s, h] + 1
                else:
                    sp -= 1
        # the table may have moved on while the successors were solved: find a free slot again
        idx = np.int64((_hash(pl, ph) >> np.uint64(9)) & np.uint64(mask))
        while tv[idx, n] == 1:
            idx = (idx + 1) & mask
    tkl[idx] = pl
    tkh[idx] = ph
    for h in range(n):
        tv[idx, h] = vec[h]
    tv[idx, n] = 1
    tused[0] += 1
    return idx


@njit(cache=True)
def _ends(lo, hi, sel, m3l, m3h, wl, wh, to, lstart, n, tkl, tkh, tv, tused, out):
    """_end for positions sel[k] of (lo, hi), each row copied to out[k]; returns how many were
    done before the table filled (the caller clears it and goes on from there)."""
    for k in range(sel.shape[0]):
        i = sel[k]
        s = _end(lo[i], hi[i], m3l, m3h, wl, wh, to, lstart, n, tkl, tkh, tv, tused)
        if s < 0:
            return k
        for h in range(n):
            out[k, h] = tv[s, h]
    return sel.shape[0]


# ---- Python side ------------------------------------------------------------------------------
def split(p: int) -> tuple[int, int]:
    """(lo, hi) words of a position given as a Python int."""
    return p & 0xFFFF_FFFF_FFFF_FFFF, p >> 64


def join(lo, hi) -> int:
    return int(lo) | int(hi) << 64


def _bits(holes) -> int:
    m = 0
    for h in holes:
        m |= 1 << h
    return m


def _apply(perm, p: int) -> int:
    q = 0
    while p:
        low = p & -p
        q |= 1 << perm[low.bit_length() - 1]
        p ^= low
    return q


def _inverse(g) -> tuple[int, ...]:
    inv = [0] * len(g)
    for i, x in enumerate(g):
        inv[x] = i
    return tuple(inv)


@dataclass(frozen=True)
class Weights:
    """The beam's score: lower is better (see `_scores`). The default was chosen by measurement on
    the triangles 8–12 (docs/peg.md, short solutions)."""

    pegs: int = 8
    isolated: int = 16
    rim: int = 8
    regions: int = 16

    def key(self) -> str:
        """The weights as text, e.g. p8i16r8m16 (Weights.parse reads it back)."""
        return f"p{self.pegs}i{self.isolated}r{self.rim}m{self.regions}"

    @classmethod
    def parse(cls, text: str) -> "Weights":
        import re
        m = re.fullmatch(r"p(\d+)i(\d+)r(\d+)m(\d+)", text.strip())
        if m is None:
            raise ValueError(f"beam weights {text!r}: expected pPiIrRmM, e.g. p8i16r8m16 (pegs, "
                             "isolated pegs, rim pegs, full Merson regions)")
        return cls(*(int(x) for x in m.groups()))


class WideBoard:
    """A board's forward jump lines, neighbours, rim and Merson family as kernel arrays, and a
    symmetry group (identity included) for canonical forms."""

    def __init__(self, b: Board, group: list[tuple[int, ...]]):
        if b.n > MAX_HOLES:
            raise ValueError(f"wide positions hold at most {MAX_HOLES} holes (board {b.name} has {b.n})")
        self.board, self.n = b, b.n
        self.nbytes = (b.n + 7) // 8
        ident = tuple(range(b.n))
        self.group = [ident] + [tuple(g) for g in group if tuple(g) != ident]
        others = self.group[1:]
        self.tl = np.zeros((len(others), max(self.nbytes, 1), 256), np.uint64)
        self.th = np.zeros_like(self.tl)
        for gi, g in enumerate(others):
            for j in range(self.nbytes):
                for v in range(256):
                    img = _apply(g, v << (8 * j) & ((1 << b.n) - 1))
                    self.tl[gi, j, v], self.th[gi, j, v] = split(img)
        lines = sorted(b.lines)   # a peg in a jumps over b into c
        self.lines = lines
        self.by_from: dict[int, list[Jump]] = {h: [] for h in range(b.n)}
        for l in lines:
            self.by_from[l[0]].append(l)
        m3 = [split(_bits(l)) for l in lines]
        want = [split(_bits(l[:2])) for l in lines]
        self.m3l = np.array([x for x, _ in m3], np.uint64)
        self.m3h = np.array([x for _, x in m3], np.uint64)
        self.wl = np.array([x for x, _ in want], np.uint64)
        self.wh = np.array([x for _, x in want], np.uint64)
        self.to = np.array([l[2] for l in lines], np.int64)
        self.lstart = np.searchsorted(np.array([l[0] for l in lines], np.int64),
                                      np.arange(b.n + 1)).astype(np.int64)
        adj, rim = neighbour_masks(b)
        self.adjl = np.zeros((max(self.nbytes, 1), 256), np.uint64)
        self.adjh = np.zeros_like(self.adjl)
        for j, row in enumerate(adj):
            for v, m in enumerate(row):
                self.adjl[j, v], self.adjh[j, v] = split(m)
        self.riml, self.rimh = (np.uint64(x) for x in split(rim))
        fam = merson_family(b)
        self.regl = np.array([split(_bits(r))[0] for r in fam], np.uint64)
        self.regh = np.array([split(_bits(r))[1] for r in fam], np.uint64)

    def canon_many(self, ps: list[int]) -> list[int]:
        """Canonical forms of positions (Python ints)."""
        words = [split(p) for p in ps]
        lo = np.array([w[0] for w in words], np.uint64)
        hi = np.array([w[1] for w in words], np.uint64)
        return np.array([join(a, b) for a, b in zip(*_canon_many(lo, hi, self.tl, self.th,
                                                                   self.nbytes))], dtype=object)

    def canon(self, p: int) -> int:
        """The canonical form of a position (a Python int)."""
        lo, hi = split(p)
        cl, ch, _ = _canon(np.uint64(lo), np.uint64(hi), self.tl, self.th, self.nbytes)
        return join(cl, ch)

    def chains(self, p: int) -> Iterator[tuple[int, list[Jump]]]:
        """Every (position, chain) one move away from p (plain Python, for rebuilding)."""
        def ok(q: int, l: Jump) -> bool:
            a, m, c = l
            return bool(q >> a & 1) and bool(q >> m & 1) and not q >> c & 1
        stack = [(p ^ _bits(l), [l]) for l in self.lines if ok(p, l)]
        while stack:
            q, ch = stack.pop()
            yield q, ch
            for l in self.by_from[ch[-1][2]]:
                if ok(q, l):
                    stack.append((q ^ _bits(l), ch + [l]))

    def scores(self, lo, hi, w: Weights) -> np.ndarray:
        return _scores(lo, hi, self.adjl, self.adjh, self.nbytes, self.riml, self.rimh,
                       self.regl, self.regh, w.pegs, w.isolated, w.rim, w.regions)


def neighbour_masks(b: Board) -> tuple[list[list[int]], int]:
    """The scores' board tables as Python ints: per byte j of a position and value v of that byte,
    the union of the neighbours of its holes (a hole's neighbours: the holes it jumps over or that
    jump over it); and the rim, the holes with fewer neighbours than the board's most."""
    nb: dict[int, set[int]] = {h: set() for h in range(b.n)}
    for a, m, _ in b.lines:
        nb[a].add(m)
        nb[m].add(a)
    adj = []
    for j in range((b.n + 7) // 8):
        row = []
        for v in range(256):
            m = 0
            for k in range(8):
                h = 8 * j + k
                if v >> k & 1 and h < b.n:
                    for x in nb[h]:
                        m |= 1 << x
            row.append(m)
        adj.append(row)
    most = max(len(nb[h]) for h in range(b.n))
    return adj, _bits(h for h in range(b.n) if len(nb[h]) < most)


def merson_family(b: Board) -> list[frozenset]:
    """A disjoint family of minimal Merson regions (peg_bound.regions, greedily: smallest first)."""
    from .bound import regions
    out: list[frozenset] = []
    used: set[int] = set()
    for r in regions(b):
        if not r & used:
            out.append(r)
            used |= r
    return out


def stabiliser(b: Board, h: Hole) -> list[tuple[int, ...]]:
    return [tuple(g) for g in b.symmetries if g[h] == h]


@dataclass
class Level:
    """One beam level: canonical positions (lo, hi) and each one's parent index in the level
    before."""

    lo: np.ndarray
    hi: np.ndarray
    parent: np.ndarray


@dataclass
class Beam:
    """A beam's levels from one start (see the module docstring); `ends[h]` = (moves, level,
    entry): the fewest moves found to a lone peg in canonical hole h through an exact end game
    from a kept position of at most `end_pegs` pegs (`EndGame`)."""

    wb: WideBoard
    start: int
    levels: list[Level] = field(default_factory=list)
    ends: dict[Hole, tuple[int, int, int]] = field(default_factory=dict)
    successors: int = 0
    seconds: float = 0.0
    complete: bool = False     # ran to its end (not stopped by the deadline)
    endgame: "EndGame | None" = None

    def path(self, d: int, i: int) -> list[int]:
        """The canonical positions from the start to entry i of level d."""
        out = []
        for k in range(d, -1, -1):
            lv = self.levels[k]
            out.append(join(lv.lo[i], lv.hi[i]))
            i = int(lv.parent[i])
        return out[::-1]

    def jumps_to(self, d: int, i: int) -> tuple[list[Jump], tuple[int, ...]]:
        """The jumps from the start to entry i of level d, in actual holes (the symmetries that
        made each level canonical are undone along the path), and the map s from that entry's
        canonical frame to actual holes (hole h of the entry is hole s[h] of the real position)."""
        cs = self.path(d, i)
        wb = self.wb
        s = tuple(range(wb.n))
        jumps: list[Jump] = []
        for prev, cur in zip(cs, cs[1:]):
            succ = list(wb.chains(prev))
            k = int(np.flatnonzero(wb.canon_many([q for q, _ in succ]) == cur)[0])
            x, ch = succ[k]
            g = next(g for g in wb.group if _apply(g, x) == cur)
            jumps.extend((s[a], s[m], s[c]) for a, m, c in ch)
            gi = _inverse(g)
            s = tuple(s[gi[h]] for h in range(wb.n))
        return jumps, s

    def solution(self, d: int, i: int, h: Hole | None = None) -> Solution:
        """The jumps from the start to entry i of level d and, with `h`, on through its exact end
        game to a lone peg in canonical hole h (actual holes)."""
        jumps, s = self.jumps_to(d, i)
        if h is not None:
            lv = self.levels[d]
            if self.endgame is None:
                self.endgame = EndGame(self.wb)
            jumps.extend((s[a], s[m], s[c]) for a, m, c in
                         self.endgame.path(join(lv.lo[i], lv.hi[i]), h))
        return tuple(jumps)


class EndGame:
    """Exact end games (`_end`): the least moves from a position of few pegs to a lone peg in each
    hole, memoised in a table cleared whenever it fills."""

    def __init__(self, wb: WideBoard, size: int = 1 << 18):
        self.wb = wb
        self.kl, self.kh = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
        self.tv = np.zeros((size, wb.n + 1), np.uint8)
        self.used = np.zeros(1, np.int64)

    def _clear(self) -> None:
        self.tv[:, self.wb.n] = 0
        self.used[0] = 0

    def many(self, lo: np.ndarray, hi: np.ndarray, sel: np.ndarray) -> np.ndarray:
        """Rows of least moves to each hole (255: none) for positions sel of (lo, hi)."""
        wb = self.wb
        out = np.empty((len(sel), wb.n), np.uint8)
        k = 0
        while k < len(sel):
            done = _ends(lo, hi, sel[k:], wb.m3l, wb.m3h, wb.wl, wb.wh, wb.to, wb.lstart, wb.n,
                         self.kl, self.kh, self.tv, self.used, out[k:])
            k += done
            if k < len(sel):
                if done == 0 and self.used[0] == 0:
                    raise RuntimeError("an end game larger than its table")
                self._clear()
        return out

    def row(self, p: int) -> np.ndarray:
        lo, hi = split(p)
        return self.many(np.array([lo], np.uint64), np.array([hi], np.uint64),
                         np.zeros(1, np.int64))[0]

    def path(self, p: int, h: Hole) -> list[Jump]:
        """One shortest jump sequence from p to a lone peg in h (in p's frame)."""
        out: list[Jump] = []
        left = int(self.row(p)[h])
        assert left < 255, "no end game to that hole"
        while left:
            succ = list(self.wb.chains(p))
            words = [split(q) for q, _ in succ]
            rows = self.many(np.array([w[0] for w in words], np.uint64),
                             np.array([w[1] for w in words], np.uint64), np.arange(len(succ)))
            q, ch = succ[int(np.flatnonzero(rows[:, h] == left - 1)[0])]
            out.extend(ch)
            p, left = q, left - 1
        return out


END_PEGS = 9   # kept positions with at most this many pegs get an exact end game


def run_beam(wb: WideBoard, start: int, width: int, weights: Weights = Weights(),
             deadline: float | None = None, progress: Callable[[str], None] | None = None,
             end_pegs: int = END_PEGS,
             on_found: Callable[[Beam, Hole, int, int], None] | None = None) -> Beam:
    """The beam from `start` (a Python int) to its end (no position left to expand) or the
    deadline (time.monotonic()): each level's kept positions of at most `end_pegs` pegs get an
    exact end game (`Beam.ends`) and are not expanded further; the rest are. `on_found(beam, h,
    level, entry)` is called at once for every new best way to a lone peg in canonical hole h
    (`Beam.solution(level, entry, h)` rebuilds it)."""
    t0 = time.monotonic()
    lo, hi = split(wb.canon(start))
    bm = Beam(wb, start)
    bm.levels.append(Level(np.array([lo], np.uint64), np.array([hi], np.uint64),
                           np.array([-1], np.int64)))
    outl = np.empty(CHUNK, np.uint64)
    outh = np.empty(CHUNK, np.uint64)
    outp = np.empty(CHUNK, np.int64)
    kl, kh = np.zeros(STATES, np.uint64), np.zeros(STATES, np.uint64)
    kho, ticks, tick = np.zeros(STATES, np.int64), np.zeros(STATES, np.int64), np.zeros(1, np.int64)
    eg = bm.endgame = EndGame(wb)
    live = np.zeros(1, np.int64)  # the entries of the last level that are expanded
    while True:
        cur = bm.levels[-1]
        if deadline is not None and time.monotonic() > deadline:
            break
        cur_lo, cur_hi = cur.lo[live], cur.hi[live]
        keep_l = np.empty(0, np.uint64)
        keep_h = np.empty(0, np.uint64)
        keep_p = np.empty(0, np.int64)
        keep_s = np.empty(0, np.int64)
        i = 0
        n = len(cur_lo)
        while i < n:
            if deadline is not None and time.monotonic() > deadline:  # inside a level too
                bm.seconds = time.monotonic() - t0
                return bm
            i2, k, table_full = _expand(cur_lo, cur_hi, i, wb.m3l, wb.m3h, wb.wl, wb.wh, wb.to,
                                        wb.lstart, wb.tl, wb.th, wb.nbytes, outl, outh, outp,
                                        kl, kh, kho, ticks, tick)
            if table_full:
                size = 4 * len(kl)
                kl, kh = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
                kho, ticks = np.zeros(size, np.int64), np.zeros(size, np.int64)
                tick = np.zeros(1, np.int64)
                continue
            if i2 == i and k == 0:  # one position has more successors than the buffer holds
                outl, outh = np.empty(2 * len(outl), np.uint64), np.empty(2 * len(outl), np.uint64)
                outp = np.empty(len(outl), np.int64)
                continue
            bm.successors += k
            al = np.concatenate([keep_l, outl[:k]])
            ah = np.concatenate([keep_h, outh[:k]])
            ap = np.concatenate([keep_p, live[outp[:k]]])
            first = _first_of(al, ah)
            al, ah, ap = al[first], ah[first], ap[first]
            # the kept positions are distinct and come first: _first_of keeps them all, in place
            sc = np.concatenate([keep_s, wb.scores(al[len(keep_s):], ah[len(keep_s):], weights)])
            if len(al) > width:
                sel = np.argpartition(sc, width)[:width]
                al, ah, ap, sc = al[sel], ah[sel], ap[sel], sc[sel]
            keep_l, keep_h, keep_p, keep_s = al, ah, ap, sc
            i = i2
        if not len(keep_l):
            bm.complete = True
            break
        bm.levels.append(Level(keep_l, keep_h, keep_p))
        d = len(bm.levels) - 1
        pegs = _pegs(keep_l, keep_h)
        few = np.flatnonzero(pegs <= end_pegs)
        live = np.flatnonzero(pegs > end_pegs)
        if len(few):
            rows = eg.many(keep_l, keep_h, few)
            for h in np.flatnonzero(rows.min(axis=0) < 255):
                k = int(np.argmin(rows[:, h]))
                total = d + int(rows[k, h])
                if int(h) not in bm.ends or total < bm.ends[int(h)][0]:
                    bm.ends[int(h)] = (total, d, int(few[k]))
                    if on_found is not None:
                        on_found(bm, int(h), d, int(few[k]))
        if progress is not None:
            best = min((v[0] for v in bm.ends.values()), default=None)
            progress(f"level {d}: {len(keep_l)} kept ({len(few)} end games), pegs "
                     f"{pegs.min()}..{pegs.max()}, best {best}, {bm.successors} successors, "
                     f"{time.monotonic() - t0:.1f} s")
        if not len(live):
            bm.complete = True
            break
    bm.seconds = time.monotonic() - t0
    return bm


def beam(b: Board, vacate: Hole, width: int = 10_000, weights: Weights = Weights(),
         deadline: float | None = None, progress: Callable[[str], None] | None = None,
         end_pegs: int = END_PEGS) -> dict[Hole, Solution]:
    """The beam from the single vacancy `vacate` (canonical under its stabiliser): for every
    finish hole it reaches, one solution with the fewest moves it found (actual holes). A
    heuristic: each is an upper bound for its problem, replayed by the caller."""
    wb = WideBoard(b, stabiliser(b, vacate))
    start = ((1 << b.n) - 1) ^ (1 << vacate)
    bm = run_beam(wb, start, width, weights, deadline, progress, end_pegs)
    out: dict[Hole, Solution] = {}
    for h, (_, d, i) in sorted(bm.ends.items(), key=lambda kv: kv[1]):
        sol = bm.solution(d, i, h)
        f = sol[-1][2] if sol else vacate
        if f not in out or found_moves(sol) < found_moves(out[f]):
            out[f] = sol
    return out


# ---- exact layers (for estimates) -------------------------------------------------------------
@njit(cache=True)
def _insert(tl, th, occ, lo, hi, out):
    """Insert positions (lo, hi) into the open-addressing set (tl, th, occupied flags occ); write
    the new ones to out; returns how many (the caller keeps the set at most half full)."""
    mask = tl.shape[0] - 1
    k = 0
    for i in range(lo.shape[0]):
        idx = np.int64((_hash(lo[i], hi[i]) >> np.uint64(11)) & np.uint64(mask))
        while occ[idx]:
            if tl[idx] == lo[i] and th[idx] == hi[i]:
                break
            idx = (idx + 1) & mask
        else:
            occ[idx] = True
            tl[idx] = lo[i]
            th[idx] = hi[i]
            out[k] = i
            k += 1
    return k


class _Seen:
    """A growing set of wide positions (for layers without repeats)."""

    def __init__(self, size: int = 1 << 20):
        self.tl, self.th = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
        self.occ = np.zeros(size, np.bool_)
        self.n = 0

    def add(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The indices of the positions not seen before (now seen)."""
        while 2 * (self.n + len(lo)) > len(self.tl):
            old = np.flatnonzero(self.occ)
            ol, oh = self.tl[old], self.th[old]
            size = 2 * len(self.tl)
            self.tl, self.th = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
            self.occ = np.zeros(size, np.bool_)
            _insert(self.tl, self.th, self.occ, ol, oh, np.empty(len(ol), np.int64))
        out = np.empty(len(lo), np.int64)
        k = _insert(self.tl, self.th, self.occ, lo, hi, out)
        self.n += k
        return out[:k]


def layer_sizes(b: Board, probe: int, depth: int, progress: Callable[[str], None] | None = None
                ) -> tuple[list[int], list[int], list[float]]:
    """Exact layers by moves from every single vacancy (canonical under the whole group, each
    position in the first layer that reaches it), up to layer `depth` or the first layer of at
    least `probe` positions: (sizes, successors generated for each layer, CPU seconds for each)."""
    wb = WideBoard(b, list(b.symmetries))
    full = (1 << b.n) - 1
    roots = sorted({wb.canon(full ^ (1 << h)) for h in range(b.n)})
    seen = _Seen()
    lo = np.array([split(p)[0] for p in roots], np.uint64)
    hi = np.array([split(p)[1] for p in roots], np.uint64)
    seen.add(lo, hi)
    sizes, nodes, cpu = [len(lo)], [0], [0.0]
    outl, outh = np.empty(CHUNK, np.uint64), np.empty(CHUNK, np.uint64)
    outp = np.empty(CHUNK, np.int64)
    kl, kh = np.zeros(STATES, np.uint64), np.zeros(STATES, np.uint64)
    kho, ticks, tick = np.zeros(STATES, np.int64), np.zeros(STATES, np.int64), np.zeros(1, np.int64)
    while len(sizes) - 1 < depth and 0 < sizes[-1] < probe:
        c0 = time.process_time()
        new_l, new_h, gen, i = [], [], 0, 0
        while i < len(lo):
            i2, k, table_full = _expand(lo, hi, i, wb.m3l, wb.m3h, wb.wl, wb.wh, wb.to, wb.lstart,
                                        wb.tl, wb.th, wb.nbytes, outl, outh, outp, kl, kh, kho,
                                        ticks, tick)
            if table_full:
                size = 4 * len(kl)
                kl, kh = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
                kho, ticks, tick = np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(1, np.int64)
                continue
            if i2 == i and k == 0:
                outl, outh = np.empty(2 * len(outl), np.uint64), np.empty(2 * len(outl), np.uint64)
                outp = np.empty(len(outl), np.int64)
                continue
            gen += k
            fresh = seen.add(outl[:k], outh[:k])
            new_l.append(outl[fresh])
            new_h.append(outh[fresh])
            i = i2
        lo = np.concatenate(new_l) if new_l else np.empty(0, np.uint64)
        hi = np.concatenate(new_h) if new_h else np.empty(0, np.uint64)
        sizes.append(len(lo))
        nodes.append(gen)
        cpu.append(time.process_time() - c0)
        if progress is not None:
            progress(f"estimate: forward layer {len(sizes) - 1}: {len(lo)} positions")
    if sizes[-1] == 0:
        sizes.pop(), nodes.pop(), cpu.pop()
    return sizes, nodes, cpu
