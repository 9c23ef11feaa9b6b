"""Peg solitaire upper bounds: a beam search by moves that meets stored backward layers.

Vocabulary (as native_search/peg/bfs.py): bitboards, moves = one peg's whole jump chain.
- B[e]: the positions whose distance to the finish is exactly e moves (unjump layers, no symmetry
  reduction), stored to a small depth E.
- beam[d]: at most `width` positions reached from the start in d moves: all successors of
  beam[d - 1], the `width` best by a score (isolated pegs and pegs on the board's rim count
  against a position; ties broken by a hash of the position, so runs are reproducible).
A position of beam[d] in B[e] gives a solution of d + e moves, rebuilt through the beams and B.
It is a heuristic: it proves nothing about the minimum (a miss means nothing either); the
solution it returns is an upper bound, and the caller's checker replays it.

>>> from puzzlesat.puzzles.peg import catalogue, check
>>> inst = catalogue()["english33"]()
>>> sol = beam_solution(inst, width=20000, back_depth=3)
>>> check(inst, sol) >= 18
True
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ...puzzles.peg import PegInstance, Solution

from . import bfs
from .bfs import Space, _bits, _unique, common_sorted, contains


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - np.uint64(1)
        c += 1
    return c


@njit(cache=True)
def _scores(ps, adj, nbytes, rim):
    """Per position: 4 * isolated pegs (no neighbouring peg) + pegs on rim holes, times 2^20,
    plus a 20-bit hash of the position (a reproducible tie-break). adj[j, byte] is the union of
    the neighbours of the holes in that byte."""
    out = np.empty(ps.shape[0], np.int64)
    for i in range(ps.shape[0]):
        p = ps[i]
        a = np.uint64(0)
        x = p
        for j in range(nbytes):
            a |= adj[j, x & np.uint64(255)]
            x >>= np.uint64(8)
        s = 4 * _popcount(p & ~a) + _popcount(p & rim)
        h = p * np.uint64(0x9E3779B97F4A7C15)
        out[i] = (np.int64(s) << 20) | np.int64(h >> np.uint64(44))
    return out


def _neighbours(inst: PegInstance):
    """(adj, nbytes, rim) for _scores: per-byte neighbour unions and the rim holes' mask (holes
    with fewer neighbours than the board's most; wide.neighbour_masks)."""
    from .wide import neighbour_masks
    rows, rim = neighbour_masks(inst.board)
    return np.array(rows, np.uint64), len(rows), np.uint64(rim)


def beam_solution(inst: PegInstance, width: int = 200_000, back_depth: int = 4,
                  time_limit: float | None = None) -> Solution | None:
    """A solution found by the beam (see the module docstring), or None (which proves nothing)."""
    t0 = time.monotonic()
    ident = [tuple(range(inst.board.n))]
    sp = Space(inst, ident)
    finish = _bits(inst.finish)
    back = list(bfs.layers(sp, np.array([finish], np.uint64), True, limit=back_depth))
    back = [x for x in back if len(x)]
    nbs = _neighbours(inst)
    beams = [np.array([_bits(inst.start)], np.uint64)]
    empty = np.empty(0, np.uint64)
    while len(beams[-1]):
        d = len(beams) - 1
        for e, layer in enumerate(back):
            hit = common_sorted(beams[-1], layer)
            if len(hit):
                return _rebuild(sp, beams, back, d, e, int(hit[0]))
        if time_limit is not None and time.monotonic() - t0 > time_limit:
            return None
        nxt = sp.expand(beams[-1], False, empty, {"nodes": 0})
        if len(nxt) > width:
            keep = np.argpartition(_scores(nxt, *nbs), width)[:width]
            nxt = _unique(nxt[keep])
        beams.append(nxt)
    return None


def _rebuild(sp: Space, beams, back, d: int, e: int, y: int) -> Solution:
    chains = []
    x = y
    for k in range(d, 0, -1):  # every beam position has a predecessor in the previous beam
        x, unjumps = next((q, u) for q, u in sp.chains(x, backward=True) if contains(beams[k - 1], q))
        chains.append([(c, m, a) for a, m, c in reversed(unjumps)])
    chains.reverse()
    x = y
    for k in range(e, 0, -1):
        x, ch = next((q, ch) for q, ch in sp.chains(x) if contains(back[k - 1], q))
        chains.append(ch)
    return tuple(j for ch in chains for j in ch)
