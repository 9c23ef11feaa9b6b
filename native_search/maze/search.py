"""Calculation-maze reference searches: a pruned trail DFS (numba) and a plain exhaustive enumeration.

`dfs` is a depth-first search over trails from the end of the pre-walked path, after the ideas of
YSRKEN's challerunF article (its bound corrected) plus a refined bound and a dominance table:

- never enter a vertex whose only free edge is the one being walked (unless it is the goal);
- at the goal with fewer than two free edges left, stop (it cannot leave and come back) — this is
  the article's "corner goal" rule, generalised, and correct when start = goal;
- upper bound from the unused operations. Every op is x -> m*x + c with m >= 0, so every op is
  non-decreasing and the final score is at most phi(s + P) where P is the sum of the unused
  positive additions, PI the product of the unused multipliers >= 2 and phi(y) = y*PI for y >= 0,
  y for y < 0 (when y < 0, s + P_left stays negative whatever is walked, so multiplying never
  helps). With an unused `*0`, the bound is (max(s, 0) + P)*PI. challerunF's (s + P)*PI is this
  bound for y >= 0 and wrong for y < 0;
- refined bound (`refine`): the same over the edges still usable — dead edges peeled, minus half
  the cheapest additions each odd-degree vertex must leave unused (see `_refined_bound`);
- dominance table: the best completion of a state (vertex, set of used edges) is non-decreasing in
  the score, so arriving at a state already reached with a score at least as high is pruned. The
  table is keyed by the exact used-edge set (no hash collisions can prune wrongly), ceil(E/62)
  words for E edges, any grid size; wider keys get fewer rows (`table_bits`), same memory.

Two-colouring: the grid is bipartite, so the walk is on a vertex of the goal's colour every
second edge. As in the article's two-edge moves, the costly checks (refined bound, dominance
table) run only there (`two_step`); the simple bound and the goal test run at every vertex.
Probing: the search first runs with high lower bounds (see `optimize`), which prune from the start.

Counting (task count): after the optimum is known, the same kernel in counting mode stores every
walk scoring exactly the optimum; bounds prune only strictly below it and the dominance table is
off (it would drop walks that tie). `trails`/`brute` are the unpruned oracle.

Scores are int64 in the kernel when a magnitude bound proves they fit; otherwise the same kernel
runs as plain Python over object arrays (exact integers, slow).
"""
from __future__ import annotations

import time
from collections import deque
from typing import Iterator

import numpy as np
from numba import njit

from ...core.result import Context, Outcome, Status, Task
from ...puzzles.maze import Maze, Walk

WORD = 62          # used-edge set: bits per int64 word (kept positive for plain-Python runs)
TT_WORDS = 3       # memory yardstick: the table never holds more than 2^tt_bits x 3 words of keys
I64_SAFE = 1 << 61
PACE = 0.25        # seconds: a kernel call runs fewer than `chunk` vertices while calls take longer


def edge_words(edges: int) -> int:
    """Words of the used-edge set for `edges` edges (at least one)."""
    return max(1, (edges + WORD - 1) // WORD)


def table_bits(tt_bits: int, words: int) -> int:
    """The dominance table's size actually used: 2^tt_bits rows, fewer when its keys are wider
    than TT_WORDS words, so that rows x words <= 2^tt_bits x TT_WORDS (0: no table)."""
    if tt_bits <= 0:
        return 0
    b = tt_bits
    while b > 0 and (words << b) > (TT_WORDS << tt_bits):
        b -= 1
    return b


def grid_arrays(m: Maze):
    """Adjacency (to, edge) per node in edge-file order, and each edge's op as mul*x + add."""
    n = m.nodes
    adj_to = np.full((n, 4), -1, np.int64)
    adj_e = np.full((n, 4), -1, np.int64)
    deg = np.zeros(n, np.int64)
    for e, (a, b) in enumerate(m.edges):
        adj_to[a, deg[a]], adj_e[a, deg[a]] = b, e
        deg[a] += 1
        adj_to[b, deg[b]], adj_e[b, deg[b]] = a, e
        deg[b] += 1
    mul = [k if c == "*" else 1 for c, k in m.ops]
    add = [k if c == "+" else -k if c == "-" else 0 for c, k in m.ops]
    return adj_to, adj_e, deg, mul, add


def fits_int64(m: Maze) -> bool:
    """True when no score or bound can leave int64: |score| <= (1 + sum|c|) * prod max(k, 1)."""
    a = 1 + sum(k for c, k in m.ops if c != "*")
    p = 1
    for c, k in m.ops:
        if c == "*":
            p *= max(k, 1)
    return 4 * a * p * p < I64_SAFE


@njit(cache=True)
def _refined_bound(v, goal, s, P, PI, Z, adj_to, adj_e, deg, used, fc, posadd, mulk, zero, tmp,
                   stack, dead):
    """The bound over the edges a trail from v to the goal can still use, minus a parity loss.

    Dead edges: a vertex other than v and the goal with one live edge can never be entered and
    left, so that edge is unusable (peeled repeatedly). Parity: the unused live edges form a
    T-join for T = {odd live degree} xor {v, goal}; each T vertex keeps one incident edge unused,
    so at least half the sum over T of the cheapest incident positive addition is lost.
    Returns a very low value when the goal is cut off.
    """
    n = fc.shape[0]
    top = 0
    for u in range(n):
        tmp[u] = fc[u]
        if tmp[u] == 1 and u != v and u != goal:
            stack[top] = u
            top += 1
    lossP = 0 * P
    divPI = 1 + 0 * PI
    dz = 0
    nd = 0
    while top > 0:
        top -= 1
        u = stack[top]
        if tmp[u] != 1:
            continue
        for i in range(deg[u]):
            e = adj_e[u, i]
            if used[e] == 0 and dead[e] == 0:
                dead[e] = 1
                stack[n + nd] = e
                nd += 1
                lossP += posadd[e]
                divPI *= mulk[e]
                dz += zero[e]
                tmp[u] = 0
                w = adj_to[u, i]
                tmp[w] -= 1
                if tmp[w] == 1 and w != v and w != goal:
                    stack[top] = w
                    top += 1
                break
    par2 = 0 * P
    cut = False
    for u in range(n):
        odd = tmp[u] & 1
        if u == v and v != goal:
            odd ^= 1
        if u == goal and v != goal:
            odd ^= 1
        if odd == 0:
            continue
        if tmp[u] == 0:
            cut = True
            break
        mw = -1
        for i in range(deg[u]):
            e = adj_e[u, i]
            if used[e] == 0 and dead[e] == 0:
                w = posadd[e]
                if mw < 0 or w < mw:
                    mw = w
        par2 += mw
    for k in range(nd):
        dead[stack[n + k]] = 0
    if cut:
        return -(1 << 62) + 0 * P
    P2 = P - lossP - (par2 + 1) // 2
    PI2 = PI // divPI
    if Z - dz > 0:
        y = s if s > 0 else 0
        return (y + P2) * PI2
    y = s + P2
    return y * PI2 if y >= 0 else y


@njit(cache=True)
def _dfs(adj_to, adj_e, deg, mul, add, posadd, mulk, zero, goal, d0, nw,
         tt_w, tt_v, tt_s, node_at, score_at, edge_at, dir_at, used, fc, words, st, best_walk,
         budget, refine, tmp, stack, dead, colour, two_step, counting, out, out_len):
    """Resumable DFS; runs until `budget` vertices were expanded or the search is complete.

    st: [0] depth, [1] best score, [2] P, [3] PI, [4] count of *0, [5] vertices,
    [6] best walk length, [7] have a best (or a lower bound), [8] done, [9] improvements,
    [10] walks counted, [11] walks waiting in `out`. Depths 0..d0 hold the pre-walked path.
    Counting mode: every walk scoring exactly st[1] is stored in `out` (the run pauses when it is
    full), bounds prune only below st[1], and the dominance table must be off (nw = 0).
    """
    d = st[0]
    best = st[1]
    P = st[2]
    PI = st[3]
    Z = st[4]
    have = st[7]
    tmask = tt_v.shape[0] - 1
    count = 0
    while d >= d0:
        if count >= budget or (counting != 0 and st[11] >= out.shape[0]):
            break
        v = node_at[d]
        s = score_at[d]
        i = dir_at[d]
        if i < 0:
            count += 1
            i = 0
            stop = False
            if v == goal:
                if counting != 0:
                    if s == best:
                        f = st[11]
                        for k in range(d + 1):
                            out[f, k] = node_at[k]
                        out_len[f] = d + 1
                        st[11] = f + 1
                        st[10] += 1
                elif have == 0 or s > best:
                    best = s
                    have = 1
                    for k in range(d + 1):
                        best_walk[k] = node_at[k]
                    st[6] = d + 1
                    st[9] += 1
                if fc[v] < 2:
                    stop = True
            deep = two_step == 0 or colour[v] == colour[goal]
            if not stop and have == 1:
                if Z > 0:
                    y = s if s > 0 else 0
                    b = (y + P) * PI
                else:
                    y = s + P
                    b = y * PI if y >= 0 else y
                if b < best or (b == best and counting == 0):
                    stop = True
                elif refine != 0 and deep:
                    rb = _refined_bound(v, goal, s, P, PI, Z, adj_to, adj_e, deg, used, fc, posadd,
                                        mulk, zero, tmp, stack, dead)
                    if rb < best or (rb == best and counting == 0):
                        stop = True
            if not stop and nw > 0 and deep:
                h = int(v) * 0x9E3779B1
                for k in range(nw):
                    h = (h ^ int(words[k])) * 0x100000001B3
                    h = h ^ (h >> 29)
                slot = h & tmask
                same = tt_v[slot] == v
                if same:
                    for k in range(nw):
                        if tt_w[slot, k] != words[k]:
                            same = False
                            break
                if same:
                    if s <= tt_s[slot]:
                        stop = True
                    else:
                        tt_s[slot] = s
                else:
                    tt_v[slot] = v
                    for k in range(nw):
                        tt_w[slot, k] = words[k]
                    tt_s[slot] = s
            if stop:
                i = deg[v]
        moved = False
        while i < deg[v]:
            e = adj_e[v, i]
            u = adj_to[v, i]
            i += 1
            if used[e] != 0:
                continue
            if u != goal and fc[u] < 2:
                continue
            dir_at[d] = i
            used[e] = 1
            fc[v] -= 1
            fc[u] -= 1
            P -= posadd[e]
            PI //= mulk[e]
            Z -= zero[e]
            words[e // 62] ^= 1 << (e % 62)
            d += 1
            node_at[d] = u
            edge_at[d] = e
            score_at[d] = mul[e] * s + add[e]
            dir_at[d] = -1
            moved = True
            break
        if not moved:
            if d > d0:
                e = edge_at[d]
                used[e] = 0
                fc[v] += 1
                fc[node_at[d - 1]] += 1
                P += posadd[e]
                PI *= mulk[e]
                Z += zero[e]
                words[e // 62] ^= 1 << (e % 62)
            d -= 1
    st[0] = d
    st[1] = best
    st[2] = P
    st[3] = PI
    st[4] = Z
    st[5] += count
    st[7] = have
    st[8] = 1 if d < d0 else 0
    return count


def _python_kernel():
    """The DFS kernel as plain Python calling the plain-Python bound (exact integer scores)."""
    import types
    f = getattr(_dfs, "py_func", _dfs)
    g = dict(f.__globals__)
    g["_refined_bound"] = getattr(_refined_bound, "py_func", _refined_bound)
    return types.FunctionType(f.__code__, g, f.__name__)


def _bound(s: int, P: int, PI: int, Z: int) -> int:
    """The kernel's upper bound on the final score (see the module docstring)."""
    if Z > 0:
        return (max(s, 0) + P) * PI
    y = s + P
    return y * PI if y >= 0 else y


class DFS:
    """The state of one pruned search on a maze, advanced in chunks by `run`.

    >>> from puzzlesat.puzzles.maze import catalogue
    >>> s = DFS(catalogue()["sample1"]())
    >>> s.run()
    True
    >>> s.best, s.walk
    (36, (0, 1, 2, 5, 4, 3, 6, 7, 8))
    """

    def __init__(self, m: Maze, *, tt_bits: int = 20, lower_bound: int | None = None,
                 refine: bool = True, two_step: bool = True, exact_python: bool | None = None,
                 count: int | None = None, buffer: int = 4096):
        self.maze = m
        adj_to, adj_e, deg, mul, add = grid_arrays(m)
        E, n = len(m.ops), m.nodes
        self.python = (not fits_int64(m)) if exact_python is None else exact_python
        dt = object if self.python else np.int64
        arr = lambda xs: np.array(list(xs), dtype=dt)  # noqa: E731
        posadd = [c if c > 0 else 0 for c in add]
        mulk = [k if k >= 2 else 1 for k in mul]
        zero = [1 if (c == "*" and k == 0) else 0 for c, k in m.ops]
        walked = m.walked
        used = np.zeros(max(E, 1), np.int64)
        fc = deg.copy()
        nw = edge_words(E)
        words = np.zeros(nw, dtype=object if self.python else np.int64)
        s = 1
        for a, b in zip(walked, walked[1:]):
            e = next(adj_e[a, i] for i in range(deg[a]) if adj_to[a, i] == b)
            used[e] = 1
            fc[a] -= 1
            fc[b] -= 1
            s = mul[e] * s + add[e]
            words[e // WORD] ^= 1 << (e % WORD)
        P = sum(posadd[e] for e in range(E) if not used[e])
        PI, Z = 1, 0
        for e in range(E):
            if not used[e]:
                PI *= mulk[e]
                Z += zero[e]
        D = len(walked) + E + 1
        self.d0 = len(walked) - 1
        tt_bits = 0 if count is not None else table_bits(tt_bits, nw)
        if tt_bits == 0:
            nw = 0
        self.nw, self.tt_bits = nw, tt_bits
        size = 1 << tt_bits
        self.tt_w = np.zeros((size, max(nw, 1)), np.int64)
        self.tt_v = np.full(size, -1, np.int64)
        self.tt_s = np.zeros(size, dtype=dt)
        self.node_at = np.zeros(D, np.int64)
        self.node_at[:len(walked)] = walked
        self.score_at = np.zeros(D, dtype=dt)
        self.score_at[self.d0] = s
        self.edge_at = np.full(D, -1, np.int64)
        self.dir_at = np.zeros(D, np.int64)
        self.dir_at[self.d0] = -1
        self.st = np.zeros(12, dtype=dt)
        self.st[0] = self.d0
        self.st[2], self.st[3], self.st[4] = P, PI, Z
        if lower_bound is not None:
            self.st[1], self.st[7] = lower_bound, 1
        self.counting = 0 if count is None else 1
        if count is not None:
            self.st[1], self.st[7] = count, 1
        self.out = np.zeros((buffer if count is not None else 1, D), np.int64)
        self.out_len = np.zeros(self.out.shape[0], np.int64)
        self.best_walk = np.zeros(D, np.int64)
        self.arrays = (adj_to, adj_e, deg, arr(mul), arr(add), arr(posadd), arr(mulk),
                       np.array(zero, np.int64))
        self.used, self.fc, self.words = used, fc, words
        self.refine = 1 if refine else 0
        self.two_step = 1 if two_step else 0
        self.colour = np.array([(v % m.width + v // m.width) & 1 for v in range(n)], np.int64)
        self.tmp = np.zeros(n, np.int64)
        self.stack = np.zeros(n + E + 1, np.int64)
        self.dead = np.zeros(max(E, 1), np.int64)
        self.kernel = _python_kernel() if self.python else _dfs
        self.start_bound = _bound(s, P, PI, Z)

    def run(self, budget: int = 1 << 62) -> bool:
        """Advance the search by up to `budget` vertices; True once it is complete."""
        if self.done:
            return True
        self.kernel(*self.arrays, self.maze.goal, self.d0, self.nw, self.tt_w, self.tt_v,
                    self.tt_s, self.node_at, self.score_at, self.edge_at, self.dir_at, self.used,
                    self.fc, self.words, self.st, self.best_walk, budget, self.refine,
                    self.tmp, self.stack, self.dead, self.colour, self.two_step, self.counting,
                    self.out, self.out_len)
        return self.done

    def drain(self) -> list[Walk]:
        """The walks stored by a counting run since the last drain."""
        f = int(self.st[11])
        walks = [tuple(int(x) for x in self.out[i, :self.out_len[i]]) for i in range(f)]
        self.st[11] = 0
        return walks

    @property
    def counted(self) -> int:
        return int(self.st[10])

    @property
    def done(self) -> bool:
        return bool(self.st[8])

    @property
    def nodes(self) -> int:
        return int(self.st[5])

    @property
    def improvements(self) -> int:
        return int(self.st[9])

    @property
    def walk(self) -> Walk | None:
        """The best walk found (None if none beat the lower bound)."""
        n = int(self.st[6])
        return tuple(int(x) for x in self.best_walk[:n]) if n else None

    @property
    def best(self) -> int | None:
        return int(self.st[1]) if self.walk is not None else None


class Pacer:
    """Runs a search in kernel calls of at most `chunk` vertices: the step doubles while a call
    takes under PACE/4 seconds and halves while it takes over PACE, so the caller's checks (time
    limit, progress) come at least about every PACE seconds whatever one vertex costs."""

    def __init__(self, chunk: int):
        self.cap = max(1, chunk)
        self.step = min(self.cap, 256)

    def run(self, s: "DFS", most: int | None = None) -> bool:
        """One kernel call of at most `most` vertices; True once the search is complete."""
        n = self.step if most is None else max(1, min(self.step, most))
        t = time.perf_counter()
        fin = s.run(n)
        dt = time.perf_counter() - t
        if dt < PACE / 4:
            self.step = min(self.cap, 2 * self.step)
        elif dt > PACE:
            self.step = max(1, self.step // 2)
        return fin


def any_walk(m: Maze) -> Walk | None:
    """A shortest continuation of the pre-walked path to the goal over unused edges (BFS)."""
    walked = m.walked
    used = {(min(a, b), max(a, b)) for a, b in zip(walked, walked[1:])}
    adj: dict[int, list[int]] = {v: [] for v in range(m.nodes)}
    for a, b in m.edges:
        if (a, b) not in used:
            adj[a].append(b)
            adj[b].append(a)
    src = walked[-1]
    prev = {src: -1}
    q = deque([src])
    while q:
        v = q.popleft()
        if v == m.goal:
            break
        for u in adj[v]:
            if u not in prev:
                prev[u] = v
                q.append(u)
    if m.goal not in prev:
        return None
    path = [m.goal]
    while path[-1] != src:
        path.append(prev[path[-1]])
    return tuple(walked[:-1]) + tuple(reversed(path))


def walk_score(m: Maze, walk: Walk) -> int:
    """The score of a walk known to be legal (the solver's own arithmetic, not the checker)."""
    eid = {e: i for i, e in enumerate(m.edges)}
    s = 1
    for a, b in zip(walk, walk[1:]):
        s = _apply(m.ops[eid[(min(a, b), max(a, b))]], s)
    return s


def optimize(m: Maze, *, tt_bits: int = 20, refine: bool = True, two_step: bool = True,
             probe: bool = True, growth: float = 2.0, warm: int = 300_000,
             chunk: int = 2_000_000, on_chunk=None) -> tuple[int | None, Walk | None, dict]:
    """(optimum, an optimal walk, stats) by the pruned DFS; (None, None, stats) if infeasible.

    A plain branch and bound runs first for `warm` vertices (it may finish: then that is the
    answer). With `probe`, the search then runs with high lower bounds L (the initial upper bound
    U minus gaps growing by `growth`): a complete search with lower bound L either finds the
    optimum (if it exceeds L) or proves optimum <= L. The last probe uses the best known walk's
    score minus one, so it always succeeds. Good bounds early prune far more than the incumbents
    a plain DFS finds. `on_chunk(search)` is called between chunks (progress, streaming, time
    limit: return True to stop); a stopped run returns the best walk known, complete=False.
    Kernel calls are paced (`Pacer`): at most `chunk` vertices, fewer while a call takes over PACE
    seconds (big grids, where one vertex costs O(edges), and the plain-Python kernel).
    """
    w0 = any_walk(m)
    stats = {"nodes": 0, "probes": []}
    if w0 is None:
        return None, None, stats
    best, walk = walk_score(m, w0), w0
    kw = dict(tt_bits=tt_bits, refine=refine, two_step=two_step)
    first = DFS(m, tt_bits=0)
    U = first.start_bound
    stats["kernel"] = "python-int" if first.python else "int64"
    stats["tt_bits_used"] = table_bits(tt_bits, edge_words(len(m.ops)))
    pace = Pacer(chunk)
    stats["start_bound"] = U
    lows: list[int] = []
    if probe:
        s = DFS(m, lower_bound=best - 1, **kw)
        fin = False
        stop = False
        while not fin and not stop and s.nodes < warm:
            fin = pace.run(s, warm - s.nodes)
            stop = not fin and on_chunk is not None and on_chunk(s)
        stats["nodes"] += s.nodes
        stats["warm"] = (s.nodes, s.best)
        if s.walk is not None:
            best, walk = s.best, s.walk
        if fin or stop:
            return best, walk, {**stats, "complete": fin}
        if U > best:
            gap = max(1, (U - best) // 64)
            while U - gap > best - 1:
                lows.append(U - gap)
                gap = max(gap + 1, int(gap * growth))
    lows.append(best - 1)
    for low in lows:
        s = DFS(m, lower_bound=low, **kw)
        while not pace.run(s):
            if on_chunk is not None and on_chunk(s):
                stats["nodes"] += s.nodes
                stats["probes"].append((low, s.nodes, "stopped"))
                if s.walk is not None and s.best > best:
                    best, walk = s.best, s.walk
                return best, walk, {**stats, "complete": False}
        stats["nodes"] += s.nodes
        stats["probes"].append((low, s.nodes, s.best))
        if s.walk is not None:
            return s.best, s.walk, {**stats, "complete": True}
    raise AssertionError("the last probe must find the known walk")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Plain exhaustive enumeration (oracle for tiny grids)

def trails(m: Maze) -> Iterator[tuple[Walk, int]]:
    """Every trail from the pre-walked path that ends at the goal, with its score, no pruning."""
    adj = {v: [] for v in range(m.nodes)}
    for e, (a, b) in enumerate(m.edges):
        adj[a].append((b, e))
        adj[b].append((a, e))
    walked = list(m.walked)
    used = set()
    s = 1
    for a, b in zip(walked, walked[1:]):
        e = next(e for u, e in adj[a] if u == b)
        used.add(e)
        s = _apply(m.ops[e], s)

    def go(v: int, s: int):
        if v == m.goal:
            yield tuple(walked), s
        for u, e in adj[v]:
            if e not in used:
                used.add(e)
                walked.append(u)
                yield from go(u, _apply(m.ops[e], s))
                walked.pop()
                used.discard(e)

    yield from go(walked[-1], s)


def _apply(op, s: int) -> int:
    c, k = op
    return s + k if c == "+" else s - k if c == "-" else s * k


def brute(m: Maze, limit: int | None = None) -> tuple[int | None, Walk | None, int, bool]:
    """(best score, a best walk, trails seen, complete) over every trail to the goal."""
    best, walk, n = None, None, 0
    for w, s in trails(m):
        n += 1
        if best is None or s > best:
            best, walk = s, w
        if limit is not None and n >= limit:
            return best, walk, n, False
    return best, walk, n, True


# ---------------------------------------------------------------------------------------------
# Engines

def run_dfs(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs (optimize, count, feasible); options from ctx.options (registry defaults)."""
    if task is Task.FEASIBLE:
        w = any_walk(m)
        if w is None:
            return Outcome(Status.INFEASIBLE, reason="goal unreachable over unused edges")
        return Outcome(Status.FEASIBLE, solutions=(w,), stats={"nodes": 0})
    if task is Task.COUNT:
        return _count(m, ctx)
    o = ctx.options
    seen = [None]

    def on_chunk(s: DFS) -> bool:
        if s.walk is not None and (id(s), s.improvements) != seen[0]:
            seen[0] = (id(s), s.improvements)
            ctx.found(s.walk)
        ctx.progress(nodes=s.nodes, best=s.best)
        return ctx.expired()

    best, walk, st = optimize(m, tt_bits=o["tt_bits"], refine=o["refine"], two_step=o["two_step"],
                              warm=o["warm"], probe=o["probe"], growth=o["growth"], chunk=o["chunk"],
                              on_chunk=on_chunk)
    stats = {"nodes": st["nodes"], "kernel": st.get("kernel"), "tt_bits_used": st.get("tt_bits_used"),
             "warm_nodes": st.get("warm", (0, None))[0],
             "probes": [list(p) for p in st["probes"]]}  # the options are the run's params
    if walk is None:
        if st.get("complete", True) and not st["probes"]:
            return Outcome(Status.INFEASIBLE, stats=stats, reason="goal unreachable over unused edges")
        return Outcome(Status.UNKNOWN, stats=stats)
    status = Status.OPTIMAL if st.get("complete") else Status.FEASIBLE
    return Outcome(status, objective=best, solutions=(walk,), stats=stats)


def count_optimal(m: Maze, best: int, *, refine: bool = True, two_step: bool = True,
                  on_chunk=None, chunk: int = 2_000_000) -> tuple[list[Walk], bool, int]:
    """(every walk scoring `best`, complete?, vertices): the DFS in counting mode."""
    s = DFS(m, count=best, refine=refine, two_step=two_step)
    pace = Pacer(chunk)
    walks: list[Walk] = []
    while True:
        fin = pace.run(s)
        walks += s.drain()
        if fin:
            return walks, True, s.nodes
        if on_chunk is not None and on_chunk(s):
            return walks, False, s.nodes


def _count(m: Maze, ctx: Context) -> Outcome:
    """Task count: the optimum by `optimize`, then every walk reaching it (no dominance table:
    it would drop walks that tie)."""
    o = ctx.options
    kw = dict(refine=o["refine"], two_step=o["two_step"], chunk=o["chunk"])
    stop = lambda s: (ctx.progress(nodes=s.nodes, counted=s.counted), ctx.expired())[1]  # noqa: E731
    best, walk, st = optimize(m, tt_bits=o["tt_bits"], warm=o["warm"], probe=o["probe"],
                              growth=o["growth"], on_chunk=stop, **kw)
    stats = {"nodes": st["nodes"]}
    if walk is None:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, reason="no trail reaches the goal")
    if not st.get("complete"):
        return Outcome(Status.UNKNOWN, stats=stats, solutions=(walk,), reason="optimum not proved")
    walks, complete, nodes = count_optimal(m, best, on_chunk=stop, **kw)
    stats["count_nodes"] = nodes
    if not complete:
        return Outcome(Status.UNKNOWN, objective=best, solutions=tuple(walks), stats=stats,
                       reason="counting stopped by the limit")
    return Outcome(Status.OPTIMAL, objective=best, count=len(walks), solutions=tuple(walks), stats=stats)


def run_brute(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine native:brute: every trail, no pruning (tiny grids only)."""
    limit = ctx.options["max_trails"]
    n = 0
    best, walks = None, []
    for w, s in trails(m):
        n += 1
        if best is None or s > best:
            best, walks = s, [w]
            if task is Task.FEASIBLE:
                break
        elif s == best and task is Task.COUNT:
            walks.append(w)
        if n % 100_000 == 0:
            ctx.progress(trails=n, best=best)
        if n >= limit or (n % 10_000 == 0 and ctx.expired()):
            return Outcome(Status.FEASIBLE if walks else Status.UNKNOWN, objective=best,
                           solutions=tuple(walks[:1]), stats={"trails": n},
                           reason="trail limit" if n >= limit else "time limit")
    stats = {"trails": n, "nodes": n}
    if not walks:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, reason="no trail reaches the goal")
    status = Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL
    return Outcome(status, objective=best, count=len(walks), solutions=tuple(walks), stats=stats)
