"""Sliding-tile breadth-first searches: full BFS over the rank table, bidirectional BFS (numba).

- `bfs`: full breadth-first search over a compact state table (the permutation's Lehmer rank
  indexes a byte array of distances, rows*cols <= 12), layer by layer; it proves unsolvable starts
  by exhausting the start's component, counts optimal solutions by walking the layers back, and
  `explore` reports a whole component (histogram, radius, farthest positions).
- `bidir`: bidirectional BFS over sorted layers of 4-bit packed boards (rows*cols <= 16): the
  graph is bipartite, so a layer's successors minus the previous layer is the next layer; a
  memory budget turns an outgrown search into UNKNOWN.
Counting walks every shortest path back through the layers: a solution is the sequence of tiles
moved.

>>> r = explore(3, 3)
>>> r.positions, r.radius, len(r.farthest)
(181440, 31, 2)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...core.result import InputError, Status
from ...puzzles.sliding import Sliding, default_goal, infeasible_reason

from .tables import popcount_table, tables

BFS_MAX_CELLS = 12
FARTHEST_SHOWN = 50  # farthest positions listed in the stats of an exhausting BFS
BIDIR_MAX_CELLS = 16
UNSEEN = 255


# ---------------------------------------------------------------- permutation ranks

@njit(cache=True)
def rank_perm(board, pc):
    """Lehmer rank of a permutation of 0..n-1 (pc: popcount table)."""
    n = board.shape[0]
    used = 0
    r = 0
    for i in range(n):
        v = board[i]
        d = v - pc[used & ((1 << v) - 1)]
        used |= 1 << v
        r = r * (n - i) + d
    return r


@njit(cache=True)
def unrank_perm(r, n, out, fact):
    """Inverse of rank_perm (fact: factorials)."""
    used = 0
    for i in range(n):
        f = fact[n - 1 - i]
        d = r // f
        r -= d * f
        v = 0
        while True:
            if (used >> v) & 1 == 0:
                if d == 0:
                    break
                d -= 1
            v += 1
        out[i] = v
        used |= 1 << v


# ---------------------------------------------------------------- BFS over the rank table

@njit(cache=True)
def _bfs_layer(dist, d, n, nbr, nnbr, pc, fact):
    """Expand every state at distance d; returns how many states got distance d+1."""
    board = np.zeros(n, np.int64)
    added = 0
    for s in range(dist.shape[0]):
        if dist[s] != d:
            continue
        unrank_perm(s, n, board, fact)
        b = 0
        while board[b] != 0:
            b += 1
        for k in range(nnbr[b]):
            c = nbr[b, k]
            board[b] = board[c]
            board[c] = 0
            t = rank_perm(board, pc)
            if dist[t] == 255:
                dist[t] = d + 1
                added += 1
            board[c] = board[b]
            board[b] = 0
    return added


@njit(cache=True)
def _states_at(dist, d, n, fact):
    cnt = 0
    for s in range(dist.shape[0]):
        if dist[s] == d:
            cnt += 1
    out = np.zeros((cnt, n), np.int64)
    board = np.zeros(n, np.int64)
    i = 0
    for s in range(dist.shape[0]):
        if dist[s] == d:
            unrank_perm(s, n, board, fact)
            out[i] = board
            i += 1
    return out


class RankSpace:
    """The byte table of BFS distances over all n! arrangements of an r×c board."""

    def __init__(self, rows: int, cols: int):
        n = rows * cols
        if n > BFS_MAX_CELLS:
            raise InputError(f"native:bfs keeps a byte per arrangement and handles boards of at most "
                             f"{BFS_MAX_CELLS} cells; {rows}x{cols} has {n} (use native:ida)")
        self.rows, self.cols, self.n = rows, cols, n
        self.nbr, self.nnbr = tables(rows, cols)
        self.pc = popcount_table(n)
        self.fact = np.array([math.factorial(i) for i in range(n + 1)], np.int64)
        self.dist = np.full(math.factorial(n), UNSEEN, np.uint8)

    def rank(self, board) -> int:
        return int(rank_perm(np.asarray(board, np.int64), self.pc))

    def run(self, root, stop=None, progress=None) -> list[int]:
        """BFS from `root` (until the layer holding `stop`, or exhaustion); the layer sizes."""
        self.dist[self.rank(root)] = 0
        sizes = [1]
        stop_rank = None if stop is None else self.rank(stop)
        d = 0
        while True:
            if stop_rank is not None and self.dist[stop_rank] != UNSEEN:
                break
            if d + 1 >= UNSEEN:
                raise InputError("BFS depth exceeds the byte table's range")
            added = int(_bfs_layer(self.dist, d, self.n, self.nbr, self.nnbr, self.pc, self.fact))
            if added == 0:
                break
            sizes.append(added)
            d += 1
            if progress is not None:
                progress(depth=d, layer=added, positions=sum(sizes))
        return sizes

    def layer(self, d: int) -> list[tuple[int, ...]]:
        return [tuple(int(x) for x in row) for row in _states_at(self.dist, d, self.n, self.fact)]

    def paths_back(self, target, limit: int | None = None) -> list[tuple[int, ...]]:
        """Every shortest move list from the BFS root to `target` (tiles moved, in order)."""
        return _walk_back(list(target), int(self.dist[self.rank(target)]), self.nbr, self.nnbr,
                          lambda board, d: self.dist[self.rank(board)] == d, limit)


def _walk_back(board: list[int], depth: int, nbr, nnbr, at_depth, limit) -> list[tuple[int, ...]]:
    """Every move list from the root (depth 0) to `board` (at `depth`): step back through the
    neighbours for which `at_depth(board, d)` holds at each d below. Up to `limit` lists."""
    out: list[tuple[int, ...]] = []
    rev: list[int] = []

    def walk(board: list[int], d: int) -> bool:
        if d == 0:
            out.append(tuple(reversed(rev)))
            return limit is not None and len(out) >= limit
        b = board.index(0)
        for k in range(int(nnbr[b])):
            c = int(nbr[b, k])
            t = board[c]
            board[b], board[c] = t, 0
            if at_depth(board, d - 1):
                rev.append(t)  # going back, tile t moved from b to c; forward it moved c -> b
                stop = walk(board, d - 1)
                rev.pop()
                if stop:
                    board[c], board[b] = t, 0
                    return True
            board[c], board[b] = t, 0
        return False

    walk(board, depth)
    return out


def bfs(inst: Sliding, count: bool = False, progress=None,
        exhaust: bool = False) -> tuple[Status, list, dict, str | None]:
    """Shortest solution(s) by BFS from the start; INFEASIBLE proved by exhausting its component.

    With `exhaust`, the BFS goes on over every position reachable from the start, and the stats
    hold the distance histogram, the radius (the start's eccentricity) and the farthest positions.
    """
    sp = RankSpace(inst.rows, inst.cols)
    sizes = sp.run(inst.start, stop=None if exhaust else inst.goal, progress=progress)
    stats = {"nodes": sum(sizes), "layers": sizes}
    if exhaust:
        far = sp.layer(len(sizes) - 1)
        stats.update({"positions": sum(sizes), "radius": len(sizes) - 1, "farthest_count": len(far),
                      "farthest": [list(p) for p in far[:FARTHEST_SHOWN]]})
    if sp.dist[sp.rank(inst.goal)] == UNSEEN:
        return (Status.INFEASIBLE, [], stats,
                f"exhaustive BFS: the {sum(sizes)} positions reachable from the start exclude the goal")
    return Status.OPTIMAL, sp.paths_back(inst.goal, None if count else 1), stats, None


@dataclass(frozen=True)
class Exploration:
    """A whole state space explored by BFS from its root."""

    rows: int
    cols: int
    root: tuple[int, ...]
    histogram: tuple[int, ...]   # positions at each distance from the root
    farthest: tuple[tuple[int, ...], ...]
    seconds: float

    @property
    def positions(self) -> int:
        return sum(self.histogram)

    @property
    def radius(self) -> int:
        """The largest distance from the root (its eccentricity)."""
        return len(self.histogram) - 1


def explore(rows: int, cols: int, root=None, progress=None) -> Exploration:
    """BFS from `root` (default: the standard goal) over every position it reaches.

    >>> e = explore(2, 3)
    >>> e.positions, e.radius, e.farthest
    (360, 21, ((4, 5, 0, 1, 2, 3),))
    """
    root = tuple(default_goal(rows, cols) if root is None else root)
    t0 = time.perf_counter()
    sp = RankSpace(rows, cols)
    sizes = sp.run(root, progress=progress)
    far = tuple(sp.layer(len(sizes) - 1))
    return Exploration(rows, cols, root, tuple(sizes), far, time.perf_counter() - t0)


# ---------------------------------------------------------------- bidirectional BFS

@njit(cache=True)
def _expand_packed(layer, n, nbr, nnbr):
    """All successors of the packed boards in `layer` (4 bits per cell)."""
    out = np.empty(layer.shape[0] * 4, np.uint64)
    m = 0
    for i in range(layer.shape[0]):
        s = layer[i]
        b = 0
        while (s >> np.uint64(4 * b)) & np.uint64(15) != 0:
            b += 1
        for k in range(nnbr[b]):
            c = nbr[b, k]
            t = (s >> np.uint64(4 * c)) & np.uint64(15)
            out[m] = s - (t << np.uint64(4 * c)) + (t << np.uint64(4 * b))
            m += 1
    return out[:m]


def pack(board) -> int:
    return sum(int(t) << (4 * i) for i, t in enumerate(board))


def unpack(s: int, n: int) -> list[int]:
    return [(s >> (4 * i)) & 15 for i in range(n)]


def _next_layer(cur: np.ndarray, prev: np.ndarray, n, nbr, nnbr) -> np.ndarray:
    nxt = np.unique(_expand_packed(cur, n, nbr, nnbr))
    if prev.size:
        nxt = nxt[~np.isin(nxt, prev, assume_unique=True)]
    return nxt


def _member(layer: np.ndarray, s: int) -> bool:
    i = int(np.searchsorted(layer, np.uint64(s)))
    return i < layer.size and int(layer[i]) == s


def _paths(layers: list[np.ndarray], s: int, n: int, nbr, nnbr, limit) -> list[tuple[int, ...]]:
    """Move lists from layers[0]'s root to s (in layers[-1]), walking back through the layers."""
    return _walk_back(unpack(s, n), len(layers) - 1, nbr, nnbr,
                      lambda board, d: _member(layers[d], pack(board)), limit)


def bidir(inst: Sliding, count: bool = False, progress=None,
          memory_mb: int = 2000) -> tuple[Status, list, dict, str | None]:
    """Shortest solution(s) by bidirectional BFS, expanding the smaller frontier first.

    Every layer is kept (8 bytes a position) to rebuild the paths; when the next expansion would
    pass `memory_mb`, the search stops with UNKNOWN (never a wrong proof)."""
    n = inst.cells
    if n > BIDIR_MAX_CELLS:
        raise InputError(f"native:bidir packs boards in 64 bits: at most {BIDIR_MAX_CELLS} cells, "
                         f"{inst.rows}x{inst.cols} has {n} (use native:ida)")
    reason = infeasible_reason(inst)
    if reason is not None:
        return Status.INFEASIBLE, [], {"nodes": 0}, reason
    nbr, nnbr = tables(inst.rows, inst.cols)
    fw = [np.array([pack(inst.start)], np.uint64)]
    bw = [np.array([pack(inst.goal)], np.uint64)]
    empty = np.zeros(0, np.uint64)
    nodes = 2
    while True:
        meet = np.intersect1d(fw[-1], bw[-1], assume_unique=True)
        if meet.size:
            break
        side = fw if fw[-1].size <= bw[-1].size else bw
        need = 8 * (nodes + 10 * int(side[-1].size))  # kept layers + successors, sorted copy
        if need > memory_mb * 1_000_000:
            return (Status.UNKNOWN, [], {"nodes": nodes, "forward_layers": [int(x.size) for x in fw],
                                         "backward_layers": [int(x.size) for x in bw]},
                    f"memory budget: the next layer would need about {need // 1_000_000} MB "
                    f"(memory_mb={memory_mb})")
        nxt = _next_layer(side[-1], side[-2] if len(side) > 1 else empty, n, nbr, nnbr)
        if nxt.size == 0:  # cannot happen for a solvable start; kept as an exhaustion proof
            return (Status.INFEASIBLE, [], {"nodes": nodes},
                    "bidirectional BFS exhausted a side without meeting")
        side.append(nxt)
        nodes += int(nxt.size)
        if progress is not None:
            progress(depth=len(fw) + len(bw) - 2, forward=int(fw[-1].size), backward=int(bw[-1].size),
                     nodes=nodes)
    stats = {"nodes": nodes, "forward_layers": [int(x.size) for x in fw],
             "backward_layers": [int(x.size) for x in bw], "meeting_positions": int(meet.size)}
    sols = []
    for x in meet:
        firsts = _paths(fw, int(x), n, nbr, nnbr, None if count else 1)
        seconds = _paths(bw, int(x), n, nbr, nnbr, None if count else 1)
        for a in firsts:
            for b in seconds:
                # b leads goal -> x; reversed, the same tiles move back in reverse order
                sols.append(a + tuple(reversed(b)))
                if not count:
                    return Status.OPTIMAL, sols, stats, None
    return Status.OPTIMAL, sols, stats, None
