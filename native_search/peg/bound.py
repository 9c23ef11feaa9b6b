"""Admissible move bounds for pruning the layered peg searches: Merson regions counted per position.

A Merson region R is a hole set such that every jump line (a, b, c) with b in R has a or c in R
(J. M. Beasley, "The Ins and Outs of Peg Solitaire", 1985, ch. 4). Between two moves, a full R can
lose a peg only by a jump that starts in R: a jump over b in R lands in an empty hole, so outside the
full R, and must start in R. That jump starts a new move, since a move's later jumps start where the
previous jump landed, in a hole that was empty. Within one move no later jump empties another
region of a disjoint family that was full when the move began (the moving peg never stands in it),
so a move lowers the number of full regions of a family by at most one. Hence, for a family of
pairwise disjoint regions:

- forward: the moves still needed from P >= the regions of the family full in P that are not full
  at the finish (a region full at the end may stay as it is; for "one peg anywhere" a one-hole
  region may hold the survivor, so one is taken off when the family counts one);
- backward: the moves from the start to P >= the regions of the family full at the start that are
  not full in P (the same argument, run from the start: each such region lost its fullness at
  some move, one region per move); for "any single vacancy" the vacancy may lie in any one region
  of the family, so one is taken off the count.

  (Until 2026-11-26 the backward bound counted the regions *empty* in P and not empty at the
  start, by a "forward game of the holes" argument. That is wrong for moves: a multi-jump, run
  backward, is a chain of unjumps that each land in a new hole, and one such move can fill several
  empty regions. Hypothesis found a triangle21 position reached in 5 moves whose old bound was 6;
  tests/test_peg_disk.py keeps it.)

A layered search that keeps only positions with depth + bound <= K loses no solution of at most K
moves: every position on such a solution, at depth d, has at most K - d moves left. The regions are
derived from the board here (connected minimal regions, as `models/peg/merson.py` derives its own:
native searches share no code with the models); per position the best family is found exactly
(the larger regions fall into small connected groups, each with a table of its best packings).

>>> from puzzlesat.puzzles.peg import catalogue
>>> inst = catalogue()["english33"]()
>>> fb = forward_bound(inst.board, inst.finish)
>>> int(fb.of([_bits(inst.start)])[0])   # 8 corners + the 4 L-trominoes, all full
12
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import numpy as np
from numba import njit

from ...puzzles.peg import Board

MAX_REGION = 4      # largest region enumerated (holes)
TABLE_BITS = 20     # a connected group of up to this many larger regions gets an exact table;
                    # a larger group is packed greedily (still a valid bound)


@njit(cache=True)
def bound_of(p, singles, masks, group_len, offset, table, anywhere, flip):
    """The bound of bitboard p. Forward (`flip` false): the regions full in p — one-hole regions
    (less one if `anywhere`: the survivor may sit in one) plus, per connected group of larger
    regions (masks[g, :group_len[g]]), the most disjoint ones full in p, looked up in
    table[offset[g] + (bits of the counted ones)] (offset -1: packed greedily in order instead).
    Backward (`flip`): the regions *not* full in p, the same way (less one in all if `anywhere`:
    the start's vacancy may sit in any one of them). One-hole regions lie in no larger minimal
    region and the groups meet no other group, so the sum is the best disjoint family's count."""
    s = 0
    for k in range(singles.shape[0]):
        if ((p & singles[k]) == 0) if flip else ((p & singles[k]) != 0):
            s += 1
    if anywhere and not flip and s > 0:
        s -= 1
    for g in range(masks.shape[0]):
        if offset[g] >= 0:
            key = 0
            for i in range(group_len[g]):
                m = masks[g, i]
                if ((p & m) != m) if flip else ((p & m) == m):
                    key |= 1 << i
            s += table[offset[g] + key]
        else:
            taken = np.uint64(0)
            for i in range(group_len[g]):
                m = masks[g, i]
                if (((p & m) != m) if flip else ((p & m) == m)) and (taken & m) == 0:
                    taken |= m
                    s += 1
    if anywhere and flip and s > 0:
        s -= 1
    return s


@njit(cache=True)
def bounds_many(ps, singles, masks, group_len, offset, table, anywhere, flip):
    """bound_of for an array of bitboards."""
    out = np.empty(ps.shape[0], np.int64)
    for i in range(ps.shape[0]):
        out[i] = bound_of(ps[i], singles, masks, group_len, offset, table, anywhere, flip)
    return out


def _bits(holes: Iterable[int]) -> int:
    m = 0
    for h in holes:
        m |= 1 << h
    return m


@lru_cache(maxsize=64)
def regions(board: Board, max_size: int = MAX_REGION) -> tuple[frozenset, ...]:
    """Connected Merson regions of at most `max_size` holes with no Merson proper subset, sorted by
    size, then holes (connected: holes one lattice direction apart)."""
    adj: dict[int, set[int]] = {h: set() for h in range(board.n)}
    for h, (x, y) in enumerate(board.coords):
        for dx, dy in board.directions:
            o = board.index.get((x + dx, y + dy))
            if o is not None:
                adj[h].add(o)
                adj[o].add(h)
    over: dict[int, list[tuple[int, int]]] = {h: [] for h in range(board.n)}
    for a, b, c in board.lines:
        over[b].append((a, c))

    def merson(r: frozenset) -> bool:
        return all(a in r or c in r for b in r for a, c in over[b])

    found: list[frozenset] = []
    level = {frozenset({h}) for h in range(board.n)}
    for _ in range(max_size):
        grow = set()
        for r in level:
            if any(f <= r for f in found):
                continue
            if merson(r):
                found.append(r)
            else:
                grow.update(r | {o} for h in r for o in adj[h] if o not in r)
        level = grow
    return tuple(sorted(found, key=lambda r: (len(r), sorted(r))))


@dataclass(frozen=True)
class Bound:
    """Per-position move bound (see the module docstring and bound_of): one-hole regions
    (`singles`), the larger regions in connected groups (`masks`, `group_len`) with their tables
    of most disjoint regions (`offset`, `table`), `anywhere` and `flip`."""

    singles: np.ndarray
    masks: np.ndarray
    group_len: np.ndarray
    offset: np.ndarray
    table: np.ndarray
    anywhere: bool
    flip: bool
    description: str

    def of(self, ps) -> np.ndarray:
        """The bound of each bitboard in ps."""
        return bounds_many(np.asarray(ps, dtype=np.uint64), *self.args)

    @property
    def args(self) -> tuple:
        """The kernel arguments (bound_of after the position)."""
        return (self.singles, self.masks, self.group_len, self.offset, self.table, self.anywhere,
                self.flip)


def _groups(big: list[frozenset]) -> list[list[frozenset]]:
    """The connected components of 'meets' among the regions, each in the regions' order."""
    comp = list(range(len(big)))

    def find(i):
        while comp[i] != i:
            comp[i] = comp[comp[i]]
            i = comp[i]
        return i
    for i in range(len(big)):
        for j in range(i):
            if big[i] & big[j]:
                comp[find(i)] = find(j)
    out: dict[int, list[frozenset]] = {}
    for i, r in enumerate(big):
        out.setdefault(find(i), []).append(r)
    return list(out.values())


def _most_disjoint_table(group: list[frozenset]) -> np.ndarray:
    """t[key] = the most pairwise disjoint regions among those whose bits are set in key."""
    k = len(group)
    meets = [sum(1 << j for j, o in enumerate(group) if j != i and r & o) for i, r in enumerate(group)]
    t = np.zeros(1 << k, np.int8)
    for key in range(1, 1 << k):
        i = (key & -key).bit_length() - 1
        rest = key & ~(1 << i)
        t[key] = max(t[rest], 1 + t[rest & ~meets[i]])
    return t


def _make(keep: list[frozenset], anywhere: bool, flip: bool, what: str) -> Bound:
    singles = [r for r in keep if len(r) == 1]
    groups = _groups([r for r in keep if len(r) > 1])
    width = max((len(g) for g in groups), default=0)
    masks = np.zeros((len(groups), width), np.uint64)
    offset = np.full(len(groups), -1, np.int64)
    tables = []
    at = 0
    for gi, g in enumerate(groups):
        masks[gi, :len(g)] = [_bits(r) for r in g]
        if len(g) <= TABLE_BITS:
            tables.append(_most_disjoint_table(g))
            offset[gi] = at
            at += len(tables[-1])
    table = np.concatenate(tables) if tables else np.zeros(0, np.int8)
    return Bound(np.array([_bits(r) for r in singles], np.uint64), masks,
                 np.array([len(g) for g in groups], np.int64), offset, table, anywhere, flip,
                 f"{what}: {len(singles)} one-hole Merson regions, {sum(map(len, groups))} larger "
                 f"in {len(groups)} groups")


NO_BOUND = _make([], False, False, "none")
def forward_bound(board: Board, finish: Iterable[int] | None, max_size: int = MAX_REGION) -> Bound:
    """Moves from a position to the finish (`finish` None: one peg anywhere, or any single peg)."""
    fin = None if finish is None else frozenset(finish)
    keep = [r for r in regions(board, max_size) if fin is None or not r <= fin]
    return _make(keep, fin is None, False, "forward")


def backward_bound(board: Board, start_empty: Iterable[int] | None,
                   max_size: int = MAX_REGION) -> Bound:
    """Moves from the start to a position: `start_empty` the start's empty holes (None: any single
    vacancy). Counts the regions full at the start and not full in the position."""
    emp = None if start_empty is None else frozenset(start_empty)
    keep = [r for r in regions(board, max_size) if emp is None or not r & emp]
    # the description is part of the search keys of work folders: layers pruned by the old,
    # inadmissible backward bound ("backward: ...") are never read back
    return _make(keep, emp is None, True, "backward (full at the start, not full here)")
