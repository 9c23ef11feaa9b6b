"""Sliding-tile reference searches: BFS, bidirectional BFS, IDDFS and IDA* (numba kernels).

- `bfs`: full breadth-first search over a compact state table (the permutation's Lehmer rank
  indexes a byte array of distances, rows*cols <= 12), layer by layer; it proves unsolvable starts
  by exhausting the start's component, counts optimal solutions by walking the layers back, and
  `explore` reports a whole component (histogram, radius, farthest positions).
- `bidir`: bidirectional BFS over sorted layers of 4-bit packed boards (rows*cols <= 16): the
  graph is bipartite, so a layer's successors minus the previous layer is the next layer; a
  memory budget turns an outgrown search into UNKNOWN.
- `iddfs`: plain iterative deepening, never undoing the previous move, depth stepping by 2
  (every move flips the blank's square colour, so the length parity is known).
- `ida`: IDA* with Manhattan distance plus linear conflicts (Hansson, Mayer & Yung 1985: per line,
  tiles that must leave it = line length - longest increasing run), or on 4x4 with the additive
  pattern databases of `native_search.sliding_pdb` (Korf & Felner 2002).
Counting (task count) finishes the last iteration / walks every shortest path: a solution is the
sequence of tiles moved, and an optimal path never revisits a position, so paths are counted
exactly without duplicate detection.

>>> from puzzlesat.puzzles.sliding import catalogue
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

from puzzlesat.puzzles.core import Context, InputError, Outcome, Status, Task
from puzzlesat.puzzles.sliding import Sliding, infeasible_reason

BFS_MAX_CELLS = 12
FARTHEST_SHOWN = 50  # farthest positions listed in the stats of an exhausting BFS
BIDIR_MAX_CELLS = 16
UNSEEN = 255


# ---------------------------------------------------------------- board tables

def tables(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(nbr, nnbr): nbr[c, :nnbr[c]] are the cells next to c (fixed order: up, down, left, right)."""
    n = rows * cols
    nbr = np.full((n, 4), -1, np.int64)
    nnbr = np.zeros(n, np.int64)
    for c in range(n):
        r, q = divmod(c, cols)
        k = 0
        for ok, d in ((r > 0, -cols), (r < rows - 1, cols), (q > 0, -1), (q < cols - 1, 1)):
            if ok:
                nbr[c, k] = c + d
                k += 1
        nnbr[c] = k
    return nbr, nnbr


@njit(cache=True)
def _popcount_table(bits):
    t = np.zeros(1 << bits, np.int64)
    for x in range(1, 1 << bits):
        t[x] = t[x >> 1] + (x & 1)
    return t


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
        self.pc = _popcount_table(n)
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
    from puzzlesat.puzzles.sliding import default_goal
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


# ---------------------------------------------------------------- depth-first kernels (IDDFS, IDA*)

H_NONE, H_MANHATTAN, H_LINEAR, H_PDB = 0, 1, 2, 3


@njit(cache=True)
def _line_conflict(board, goalpos, rows, cols, line, is_row, seq, lis):
    """2 x (tiles of the line whose goal is in it, minus their longest increasing run).

    seq and lis are scratch arrays of at least max(rows, cols) entries."""
    m = 0
    length = cols if is_row else rows
    for i in range(length):
        cell = line * cols + i if is_row else i * cols + line
        t = board[cell]
        if t == 0:
            continue
        g = goalpos[t]
        if is_row and g // cols == line:
            seq[m] = g % cols
            m += 1
        elif not is_row and g % cols == line:
            seq[m] = g // cols
            m += 1
    if m < 2:
        return 0
    best = 0
    for i in range(m):
        lis[i] = 1
        for j in range(i):
            if seq[j] < seq[i] and lis[j] + 1 > lis[i]:
                lis[i] = lis[j] + 1
        if lis[i] > best:
            best = lis[i]
    return 2 * (m - best)


@njit(cache=True)
def _pattern_rank(pos, tiles, pc, ncells):
    """Rank of the cells of a pattern's tiles (partial permutation, mixed radix)."""
    used = 0
    r = 0
    for i in range(tiles.shape[0]):
        p = pos[tiles[i]]
        d = p - pc[used & ((1 << p) - 1)]
        used |= 1 << p
        r = r * (ncells - i) + d
    return r


@njit(cache=True)
def heuristic(board, goalpos, md, rows, cols, mode, pdb, pat_of, pat_tiles, pat_len, pc):
    """h of a whole board (used at the root; the search updates it incrementally)."""
    n = rows * cols
    if mode == H_NONE:
        return 0
    if mode == H_PDB:
        pos = np.zeros(n, np.int64)
        for c in range(n):
            pos[board[c]] = c
        h = 0
        for p in range(pat_len.shape[0]):
            h += pdb[p, _pattern_rank(pos, pat_tiles[p, :pat_len[p]], pc, n)]
        return h
    h = 0
    for c in range(n):
        if board[c] != 0:
            h += md[board[c], c]
    if mode == H_LINEAR:
        seq = np.empty(max(rows, cols), np.int64)
        lis = np.empty(max(rows, cols), np.int64)
        for r in range(rows):
            h += _line_conflict(board, goalpos, rows, cols, r, True, seq, lis)
        for c in range(cols):
            h += _line_conflict(board, goalpos, rows, cols, c, False, seq, lis)
    return h


@njit(cache=True)
def _dfs(board, goal, bound, mode, rows, cols, nbr, nnbr, goalpos, md, pdb, pat_of, pat_tiles,
         pat_len, pc, refl_cell, refl_tile, reflect, find_first, out, counters):
    """All move sequences of exactly `bound` moves from `board` to `goal` with f = g + h <= bound.

    Never undoes the previous move. Returns the number of solutions (the first out.shape[0] are
    written to `out`); counters[0] += nodes generated, counters[1] = the smallest f above bound.
    With `reflect` (pattern databases, a goal symmetric about the main diagonal), h is the larger
    of the databases' sums on the board and on its mirror image (refl_cell, refl_tile).
    """
    n = rows * cols
    npat = pat_len.shape[0]
    blank_st = np.zeros(bound + 1, np.int64)
    next_st = np.zeros(bound + 1, np.int64)
    h_st = np.zeros(bound + 1, np.int64)
    mis_st = np.zeros(bound + 1, np.int64)
    pv_st = np.zeros((bound + 1, max(npat, 1)), np.int64)
    rpv_st = np.zeros((bound + 1, max(npat, 1)), np.int64)
    hp_st = np.zeros(bound + 1, np.int64)
    hr_st = np.zeros(bound + 1, np.int64)
    rpos = np.zeros(n, np.int64)
    path = np.zeros(max(bound, 1), np.int64)
    pos = np.zeros(n, np.int64)
    for c in range(n):
        pos[board[c]] = c
    seq = np.empty(max(rows, cols), np.int64)
    lis = np.empty(max(rows, cols), np.int64)
    b0 = 0
    mis = 0
    for c in range(n):
        if board[c] == 0:
            b0 = c
        elif board[c] != goal[c]:
            mis += 1
    blank_st[0] = b0
    mis_st[0] = mis
    if mode == H_PDB:
        for p in range(npat):
            pv_st[0, p] = pdb[p, _pattern_rank(pos, pat_tiles[p, :pat_len[p]], pc, n)]
            hp_st[0] += pv_st[0, p]
        if reflect:
            for c in range(n):
                rpos[refl_tile[board[c]]] = refl_cell[c]
            for p in range(npat):
                rpv_st[0, p] = pdb[p, _pattern_rank(rpos, pat_tiles[p, :pat_len[p]], pc, n)]
                hr_st[0] += rpv_st[0, p]
        h_st[0] = max(hp_st[0], hr_st[0])
    else:
        h_st[0] = heuristic(board, goalpos, md, rows, cols, mode, pdb, pat_of, pat_tiles, pat_len, pc)
    # linear conflicts per row and per column, kept up to date along the path (lc_save undoes)
    lc_row = np.zeros(rows, np.int64)
    lc_col = np.zeros(cols, np.int64)
    lc_save = np.zeros((bound + 1, 4), np.int64)  # line 1, line 2, their old values
    if mode == H_LINEAR:
        for r in range(rows):
            lc_row[r] = _line_conflict(board, goalpos, rows, cols, r, True, seq, lis)
        for q in range(cols):
            lc_col[q] = _line_conflict(board, goalpos, rows, cols, q, False, seq, lis)
    nodes = 0
    found = 0
    next_bound = 1 << 30
    if mis == 0 and bound == 0:
        counters[1] = next_bound
        return 1
    d = 0
    while d >= 0:
        b = blank_st[d]
        k = next_st[d]
        if k >= nnbr[b] or d == bound:
            # backtrack: undo the move that led here
            if d > 0:
                pb = blank_st[d - 1]
                t = board[pb]
                board[b] = t
                board[pb] = 0
                if mode == H_LINEAR:
                    if (b // cols) != (pb // cols):
                        lc_row[lc_save[d - 1, 0]] = lc_save[d - 1, 2]
                        lc_row[lc_save[d - 1, 1]] = lc_save[d - 1, 3]
                    else:
                        lc_col[lc_save[d - 1, 0]] = lc_save[d - 1, 2]
                        lc_col[lc_save[d - 1, 1]] = lc_save[d - 1, 3]
                pos[t] = b
                pos[0] = pb
                if mode == H_PDB and reflect:
                    rpos[refl_tile[t]] = refl_cell[b]
            d -= 1
            continue
        next_st[d] = k + 1
        c = nbr[b, k]
        if d > 0 and c == blank_st[d - 1]:
            continue
        t = board[c]
        nodes += 1
        # the tile t moves from c to b
        if mode == H_NONE:
            h = 0
        elif mode == H_PDB:
            p = pat_of[t]
            pos[t] = b
            nv = pdb[p, _pattern_rank(pos, pat_tiles[p, :pat_len[p]], pc, n)]
            pos[t] = c
            hp = hp_st[d] - pv_st[d, p] + nv
            h = hp
            if reflect:
                tr = refl_tile[t]
                pr = pat_of[tr]
                rpos[tr] = refl_cell[b]
                nvr = pdb[pr, _pattern_rank(rpos, pat_tiles[pr, :pat_len[pr]], pc, n)]
                rpos[tr] = refl_cell[c]
                hr = hr_st[d] - rpv_st[d, pr] + nvr
                if hr > h:
                    h = hr
        else:
            h = h_st[d] - md[t, c] + md[t, b]
            if mode == H_LINEAR:
                vertical = (c // cols) != (b // cols)
                if vertical:
                    l1 = c // cols
                    l2 = b // cols
                    o1 = lc_row[l1]
                    o2 = lc_row[l2]
                else:
                    l1 = c % cols
                    l2 = b % cols
                    o1 = lc_col[l1]
                    o2 = lc_col[l2]
                board[b] = t
                board[c] = 0
                n1 = _line_conflict(board, goalpos, rows, cols, l1, vertical, seq, lis)
                n2 = _line_conflict(board, goalpos, rows, cols, l2, vertical, seq, lis)
                board[c] = t
                board[b] = 0
                h += n1 + n2 - o1 - o2
        f = d + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        # apply
        m2 = mis_st[d]
        if goal[c] == t:
            m2 += 1
        if goal[b] == t:
            m2 -= 1
        board[b] = t
        board[c] = 0
        pos[t] = b
        pos[0] = c
        path[d] = t
        if mode == H_LINEAR:
            lc_save[d, 0] = l1
            lc_save[d, 1] = l2
            lc_save[d, 2] = o1
            lc_save[d, 3] = o2
            if vertical:
                lc_row[l1] = n1
                lc_row[l2] = n2
            else:
                lc_col[l1] = n1
                lc_col[l2] = n2
        d += 1
        blank_st[d] = c
        next_st[d] = 0
        h_st[d] = h
        mis_st[d] = m2
        if mode == H_PDB:
            for q in range(npat):
                pv_st[d, q] = pv_st[d - 1, q]
            pv_st[d, p] = nv
            hp_st[d] = hp
            if reflect:
                for q in range(npat):
                    rpv_st[d, q] = rpv_st[d - 1, q]
                rpv_st[d, pr] = nvr
                hr_st[d] = hr
                rpos[tr] = refl_cell[b]
        if m2 == 0 and d == bound:
            if found < out.shape[0]:
                for i in range(d):
                    out[found, i] = path[i]
            found += 1
            if find_first:
                counters[0] += nodes
                counters[1] = next_bound
                return found
    counters[0] += nodes
    counters[1] = next_bound
    return found


@dataclass
class Problem:
    """Arrays the depth-first kernels need for one (board shape, goal, heuristic)."""

    rows: int
    cols: int
    start: np.ndarray
    goal: np.ndarray
    mode: int
    nbr: np.ndarray
    nnbr: np.ndarray
    goalpos: np.ndarray
    md: np.ndarray
    pdb: np.ndarray
    pat_of: np.ndarray
    pat_tiles: np.ndarray
    pat_len: np.ndarray
    pc: np.ndarray
    relabel: tuple[int, ...] | None = None  # solution tiles map back through this (PDB symmetry)
    refl_cell: np.ndarray | None = None     # mirror image about the main diagonal (4x4 PDB only)
    refl_tile: np.ndarray | None = None
    reflect: bool = False

    def h0(self) -> int:
        return int(heuristic(self.start, self.goalpos, self.md, self.rows, self.cols, self.mode,
                             self.pdb, self.pat_of, self.pat_tiles, self.pat_len, self.pc))

    def search(self, bound: int, find_first: bool, capacity: int = 64) -> tuple[list, int, int]:
        """(solutions of exactly `bound` moves, nodes, next bound)."""
        while True:
            out = np.zeros((capacity, max(bound, 1)), np.int8)  # tiles < 36
            counters = np.zeros(2, np.int64)
            found = int(_dfs(self.start.copy(), self.goal, bound, self.mode, self.rows, self.cols,
                             self.nbr, self.nnbr, self.goalpos, self.md, self.pdb, self.pat_of,
                             self.pat_tiles, self.pat_len, self.pc, self.refl_cell, self.refl_tile,
                             self.reflect, find_first, out, counters))
            if found <= capacity:
                sols = [tuple(int(x) for x in out[i, :bound]) for i in range(found)]
                if self.relabel is not None:
                    sols = [tuple(self.relabel[t] for t in s) for s in sols]
                return sols, int(counters[0]), int(counters[1])
            capacity = found  # rerun this iteration with room for every solution


def problem(inst: Sliding, heuristic_name: str = "auto", pdb: str = "663", progress=None,
            reflect: bool = True) -> Problem:
    """The kernels' arrays for `inst`: heuristic 'none', 'manhattan', 'linear' or 'auto' (a pattern
    database on 4x4 when pdb != 'none', else Manhattan + linear conflicts). With pattern databases
    and `reflect`, the mirror image of the board about the main diagonal is looked up too (the
    databases' goal is its own mirror image once tiles are renamed; Korf & Felner 2002)."""
    rows, cols, n = inst.rows, inst.cols, inst.cells
    start, goal = np.array(inst.start, np.int64), np.array(inst.goal, np.int64)
    relabel = None
    mode = {"none": H_NONE, "manhattan": H_MANHATTAN, "linear": H_LINEAR, "auto": H_LINEAR}[heuristic_name]
    pdb_arr = np.zeros((1, 1), np.uint8)
    pat_of = np.zeros(n, np.int64)
    pat_tiles = np.zeros((1, 1), np.int64)
    pat_len = np.zeros(0, np.int64)
    if heuristic_name == "auto" and pdb != "none" and (rows, cols) == (4, 4):
        from .sliding_pdb import canonical, load
        canon = canonical(inst)
        if canon is not None:
            start, goal, relabel = canon
            pdb_arr, pat_tiles, pat_len = load(pdb, progress=progress)
            for p in range(pat_len.shape[0]):
                for t in pat_tiles[p, :pat_len[p]]:
                    pat_of[t] = p
            mode = H_PDB
    goalpos = np.zeros(n, np.int64)
    for c in range(n):
        goalpos[goal[c]] = c
    md = np.zeros((n, n), np.int64)
    for t in range(1, n):
        g = goalpos[t]
        for c in range(n):
            md[t, c] = abs(c // cols - g // cols) + abs(c % cols - g % cols)
    nbr, nnbr = tables(rows, cols)
    refl_cell = np.zeros(n, np.int64)
    refl_tile = np.zeros(n, np.int64)
    if mode == H_PDB:
        for c in range(n):
            refl_cell[c] = (c % 4) * 4 + c // 4
        for t in range(1, n):
            refl_tile[t] = refl_cell[t - 1] + 1
        assert all(refl_tile[goal[c]] == goal[refl_cell[c]] for c in range(n))  # a symmetric goal
    return Problem(rows, cols, start, goal, mode, nbr, nnbr, goalpos, md, pdb_arr, pat_of, pat_tiles,
                   pat_len, _popcount_table(16 if mode == H_PDB else 1), relabel, refl_cell, refl_tile,
                   reflect and mode == H_PDB)


def _blank_parity(inst: Sliding) -> int:
    a, b = inst.start.index(0), inst.goal.index(0)
    return (abs(a // inst.cols - b // inst.cols) + abs(a % inst.cols - b % inst.cols)) % 2


def deepen(inst: Sliding, heuristic_name: str, count: bool, ctx: Context | None = None,
           pdb: str = "663", max_depth: int = 250, reflect: bool = True) -> tuple[Status, list, dict, str | None]:
    """Iterative deepening (IDA* with a heuristic, IDDFS with 'none') to the optimum.

    Unsolvable starts are INFEASIBLE from the parity invariant (a depth-first search would never
    end); a start that is solvable always ends with OPTIMAL.
    """
    reason = infeasible_reason(inst)
    if reason is not None:
        return Status.INFEASIBLE, [], {"nodes": 0}, reason
    prog = ctx.progress if ctx is not None else None
    t_build = time.perf_counter()
    pr = problem(inst, heuristic_name, pdb, progress=prog, reflect=reflect)
    t_build = time.perf_counter() - t_build
    h0 = pr.h0()
    if pr.mode == H_NONE:
        bound = _blank_parity(inst)
    else:
        bound = h0
    nodes = 0
    iters = []
    t0 = time.perf_counter()
    while bound <= max_depth:
        sols, k_nodes, nxt = pr.search(bound, find_first=not count)
        nodes += k_nodes
        iters.append(k_nodes)
        if ctx is not None:
            ctx.progress(bound=bound, nodes=nodes, elapsed=round(time.perf_counter() - t0, 2))
        if sols:
            if ctx is not None:
                ctx.found(sols[0])
            secs = time.perf_counter() - t0
            stats = {"nodes": nodes, "iterations": iters, "h0": h0, "search_seconds": round(secs, 4),
                     "nodes_per_second": int(nodes / secs) if secs > 0 else None,
                     "heuristic": {H_NONE: "none", H_MANHATTAN: "manhattan", H_LINEAR: "manhattan+linear",
                                   H_PDB: f"pdb-{pdb}" + ("+mirror" if pr.reflect else "")}[pr.mode]}
            if pr.mode == H_PDB:
                stats["pdb_load_seconds"] = round(t_build, 3)
            return Status.OPTIMAL, sols, stats, None
        if pr.mode == H_NONE:
            bound += 2
        else:
            if nxt >= 1 << 30:
                break
            bound = nxt
    return Status.UNKNOWN, [], {"nodes": nodes, "iterations": iters}, f"no solution within {max_depth} moves"


# ---------------------------------------------------------------- engines

def _outcome(task: Task, result) -> Outcome:
    status, sols, stats, reason = result
    if status is not Status.OPTIMAL:
        return Outcome(status, count=0 if status is Status.INFEASIBLE and task is Task.COUNT else None,
                       stats=stats, reason=reason)
    length = len(sols[0])
    if task is Task.COUNT:
        return Outcome(Status.OPTIMAL, length, len(sols), tuple(sols), stats)
    return Outcome(Status.OPTIMAL, length, None, (sols[0],), stats)


def run_bfs(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:bfs — breadth-first search over the whole rank table (boards of <= 12 cells)."""
    return _outcome(task, bfs(inst, task is Task.COUNT, progress=ctx.progress,
                              exhaust=bool(ctx.options.get("exhaust", False))))


def run_bidir(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:bidir — bidirectional BFS over packed boards (<= 16 cells)."""
    return _outcome(task, bidir(inst, task is Task.COUNT, progress=ctx.progress,
                                memory_mb=int(ctx.options.get("memory_mb", 2000))))


def run_iddfs(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:iddfs — plain iterative deepening without immediate undo."""
    return _outcome(task, deepen(inst, "none", task is Task.COUNT, ctx))


def run_ida(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:ida — IDA* with Manhattan + linear conflicts, or additive pattern databases on 4x4."""
    h = ctx.options.get("heuristic", "auto")
    return _outcome(task, deepen(inst, h, task is Task.COUNT, ctx, pdb=ctx.options.get("pdb", "663"),
                                 reflect=bool(ctx.options.get("mirror", True))))
