"""Native reference search: breadth-first search over packed positions (Moore 1959), in numba.

A position is the vehicles' offsets packed into one int64 (vehicle v's offset in bits
shift[v] .. shift[v] + bits[v] - 1, bits[v] = bit length of its largest offset; a 6x6 board with
18 vehicles needs 54 bits). The search keeps every position it has seen in open-addressing hash
table (linear probing) over NumPy arrays, with its BFS parent, depth and the move that reached it,
and expands positions in BFS order in budgeted kernel calls (the time limit is checked between
calls). Edges are the metric's moves: any distance (moves) or one cell (steps); the connected
component of the start (positions reachable by any moves, the same set in both metrics) is
explored to the end unless `component` is off, and its size is a stat.

Optimal plans: the first position with the red car at the exit is at the optimal depth D (its
parent chain is a shortest plan). Counting all optimal plans: every position at depth < D that
has a successor at the next depth on a shortest plan is marked backwards from the goal positions
at depth D (number of shortest plans by the same recursion), then the plans are enumerated
depth-first over the marked positions. Shares no code with the checker or the models.
"""
from __future__ import annotations

import time
from typing import Iterator

import numpy as np
from numba import njit

from puzzlesat import Context, InputError, Outcome, Status, Task

from .puzzle import RushHour, Solution

EMPTY_KEY = 0          # the hash table stores state + 1, so 0 marks an empty slot
BUDGET = 1 << 15       # positions expanded per kernel call between time checks
MAX_BITS = 62          # packed positions must fit a non-negative int64


# ---- the packed geometry ----------------------------------------------------------------------
class Geometry:
    """The instance as the kernels see it: per vehicle (0 = the red car) its orientation,
    length, line, largest offset, bit shift and mask; the board's walls as a cell array."""

    def __init__(self, inst: RushHour):
        n = len(inst.vehicles)
        self.inst = inst
        self.horiz = np.array([v.horizontal for v in inst.vehicles], dtype=np.int64)
        self.length = np.array([v.length for v in inst.vehicles], dtype=np.int64)
        self.line = np.array([v.line for v in inst.vehicles], dtype=np.int64)
        self.maxoff = np.array([(inst.cols if v.horizontal else inst.rows) - v.length
                                for v in inst.vehicles], dtype=np.int64)
        bits = [max(1, int(m).bit_length()) for m in self.maxoff]
        self.bits = sum(bits)
        self.shift = np.array([sum(bits[:i]) for i in range(n)], dtype=np.int64)
        self.mask = np.array([(1 << b) - 1 for b in bits], dtype=np.int64)
        self.walls = np.zeros(inst.rows * inst.cols, dtype=np.int8)
        for c in inst.walls:
            self.walls[c] = 1
        self.ids = [v.id for v in inst.vehicles]
        self.max_succ = int(self.maxoff.sum()) * 2 + 2

    def pack(self, offsets) -> int:
        return sum(int(o) << int(s) for o, s in zip(offsets, self.shift))

    def start(self) -> int:
        return self.pack([v.offset for v in self.inst.vehicles])

    def args(self):
        return (self.horiz, self.length, self.line, self.shift, self.mask, self.maxoff, self.walls,
                self.inst.rows, self.inst.cols)


def validate(inst: RushHour, options: dict) -> None:
    """InputError when the position does not pack into one int64."""
    g = Geometry(inst)
    if g.bits > MAX_BITS:
        raise InputError(f"{inst.name}: the position needs {g.bits} bits; native:bfs packs "
                         f"at most {MAX_BITS}")


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _hash(s: int, tmask: int) -> int:
    h = s ^ (s >> 31)
    h = h * 0x5BD1E995 + (h >> 17) * 0x27D4EB2F
    return (h ^ (h >> 23)) & tmask


@njit(cache=True)
def _find(keys, vals, s):
    """The index of position s, or -1."""
    tmask = keys.shape[0] - 1
    h = _hash(s, tmask)
    while keys[h] != EMPTY_KEY:
        if keys[h] == s + 1:
            return vals[h]
        h = (h + 1) & tmask
    return -1


@njit(cache=True)
def _rehash(states, tail, keys, vals):
    """Fill empty tables keys/vals with the first `tail` positions."""
    tmask = keys.shape[0] - 1
    for i in range(tail):
        s = states[i]
        h = _hash(s, tmask)
        while keys[h] != EMPTY_KEY:
            h = (h + 1) & tmask
        keys[h] = s + 1
        vals[h] = i


@njit(cache=True)
def _decode(s, shift, mask, off, grid, walls, horiz, length, line, cols):
    """Offsets of position s into `off`, its occupied cells into `grid`."""
    n = shift.shape[0]
    for c in range(grid.shape[0]):
        grid[c] = walls[c]
    for v in range(n):
        o = (s >> shift[v]) & mask[v]
        off[v] = o
        for i in range(length[v]):
            if horiz[v]:
                grid[line[v] * cols + o + i] = 1
            else:
                grid[(o + i) * cols + line[v]] = 1


@njit(cache=True)
def _successors(s, unit, out_s, out_v, out_d, horiz, length, line, shift, mask, maxoff, walls,
                rows, cols):
    """The positions one move (unit: one step) from s, into out_*; their number."""
    n = shift.shape[0]
    off = np.empty(n, np.int64)
    grid = np.empty(rows * cols, np.int8)
    _decode(s, shift, mask, off, grid, walls, horiz, length, line, cols)
    k = 0
    for v in range(n):
        step = 1 if horiz[v] else cols
        base = line[v] * cols if horiz[v] else line[v]
        o = off[v]
        d = 1
        while o - d >= 0 and grid[base + (o - d) * step] == 0:
            out_s[k] = s - (d << shift[v])
            out_v[k] = v
            out_d[k] = -d
            k += 1
            if unit:
                break
            d += 1
        d = 1
        while o + d <= maxoff[v] and grid[base + (o + length[v] - 1 + d) * step] == 0:
            out_s[k] = s + (d << shift[v])
            out_v[k] = v
            out_d[k] = d
            k += 1
            if unit:
                break
            d += 1
    return k


@njit(cache=True)
def _expand(states, parent, depth, mvv, mvd, keys, vals, head, tail, goal, mode, budget, unit,
            goal_off, horiz, length, line, shift, mask, maxoff, walls, rows, cols):
    """Expand positions states[head:tail] in BFS order, adding unseen successors.

    mode 0: stop at the first goal position; 1: stop when the next position to expand is as
    deep as the first goal; 2: exhaust the component. Returns (head, tail, goal, code): code 0
    done, 1 the arrays are full (grow them and call again), 2 the budget is spent."""
    n = shift.shape[0]
    cap = states.shape[0]
    tmask = keys.shape[0] - 1
    max_succ = 2
    for v in range(n):
        max_succ += 2 * maxoff[v]
    out_s = np.empty(max_succ, np.int64)
    out_v = np.empty(max_succ, np.int64)
    out_d = np.empty(max_succ, np.int64)
    done = 0
    while head < tail:
        if mode == 0 and goal >= 0:
            return head, tail, goal, 0
        if mode == 1 and goal >= 0 and depth[head] >= depth[goal]:
            return head, tail, goal, 0
        if done >= budget:
            return head, tail, goal, 2
        if tail + max_succ > cap or 2 * (tail + max_succ) > keys.shape[0]:
            return head, tail, goal, 1
        s = states[head]
        k = _successors(s, unit, out_s, out_v, out_d, horiz, length, line, shift, mask, maxoff,
                        walls, rows, cols)
        for j in range(k):
            t = out_s[j]
            h = _hash(t, tmask)
            seen = False
            while keys[h] != EMPTY_KEY:
                if keys[h] == t + 1:
                    seen = True
                    break
                h = (h + 1) & tmask
            if seen:
                continue
            keys[h] = t + 1
            vals[h] = tail
            states[tail] = t
            parent[tail] = head
            depth[tail] = depth[head] + 1
            mvv[tail] = out_v[j]
            mvd[tail] = out_d[j]
            if goal < 0 and ((t >> shift[0]) & mask[0]) == goal_off:
                goal = tail
            tail += 1
        head += 1
        done += 1
    return head, tail, goal, 0


@njit(cache=True)
def _mark(states, depth, keys, vals, tail, goal_depth, unit, goal_off, useful, paths, horiz,
          length, line, shift, mask, maxoff, walls, rows, cols):
    """Mark the positions on shortest plans (useful) and count the shortest plans from each
    (paths, float64), backwards from the goal positions at goal_depth."""
    n = shift.shape[0]
    max_succ = 2
    for v in range(n):
        max_succ += 2 * maxoff[v]
    out_s = np.empty(max_succ, np.int64)
    out_v = np.empty(max_succ, np.int64)
    out_d = np.empty(max_succ, np.int64)
    for i in range(tail - 1, -1, -1):
        d = depth[i]
        if d > goal_depth:
            continue
        s = states[i]
        if d == goal_depth:
            if ((s >> shift[0]) & mask[0]) == goal_off:
                useful[i] = True
                paths[i] = 1.0
            continue
        k = _successors(s, unit, out_s, out_v, out_d, horiz, length, line, shift, mask, maxoff,
                        walls, rows, cols)
        for j in range(k):
            t = _find(keys, vals, out_s[j])
            if t >= 0 and depth[t] == d + 1 and useful[t]:
                useful[i] = True
                paths[i] += paths[t]


# ---- the search -------------------------------------------------------------------------------
class Search:
    """A BFS from the instance's start position in its metric, resumable in budgeted steps."""

    def __init__(self, inst: RushHour, capacity: int = 1 << 12):
        self.g = Geometry(inst)
        self.unit = inst.metric == "steps"
        self.goal_off = inst.goal
        self.states = np.empty(capacity, np.int64)
        self.parent = np.empty(capacity, np.int32)
        self.depth = np.empty(capacity, np.int32)
        self.mvv = np.empty(capacity, np.int8)
        self.mvd = np.empty(capacity, np.int8)
        self.keys = np.zeros(2 * capacity, np.int64)
        self.vals = np.empty(2 * capacity, np.int32)
        s0 = self.g.start()
        self.states[0], self.parent[0], self.depth[0], self.mvv[0], self.mvd[0] = s0, -1, 0, -1, 0
        _rehash(self.states, 1, self.keys, self.vals)
        self.head, self.tail = 0, 1
        self.goal = 0 if inst.red.offset == inst.goal else -1

    def _grow(self) -> None:
        cap = 2 * self.states.shape[0]
        for name in ("states", "parent", "depth", "mvv", "mvd"):
            old = getattr(self, name)
            new = np.empty(cap, old.dtype)
            new[:self.tail] = old[:self.tail]
            setattr(self, name, new)
        self.keys = np.zeros(2 * cap, np.int64)
        self.vals = np.empty(2 * cap, np.int32)
        _rehash(self.states, self.tail, self.keys, self.vals)

    def run(self, mode: int, ctx: Context | None = None) -> bool:
        """Search until mode's stop (see _expand); False if the time limit came first."""
        while True:
            self.head, self.tail, self.goal, code = _expand(
                self.states, self.parent, self.depth, self.mvv, self.mvd, self.keys, self.vals,
                self.head, self.tail, self.goal, mode, BUDGET, self.unit, self.goal_off,
                *self.g.args())
            if code == 0:
                return True
            if code == 1:
                self._grow()
            if ctx is not None:
                if ctx.expired():
                    return False
                ctx.progress(positions=self.tail, expanded=self.head,
                             depth=int(self.depth[self.head]) if self.head < self.tail else None)

    def plan(self, i: int) -> Solution:
        """The moves from the start to position i (its BFS parent chain)."""
        out = []
        while self.parent[i] >= 0:
            out.append((self.g.ids[self.mvv[i]], int(self.mvd[i])))
            i = self.parent[i]
        return merge(tuple(reversed(out))) if self.unit else tuple(reversed(out))

    def mark(self) -> tuple[np.ndarray, np.ndarray]:
        """(useful, paths) of every position seen: see _mark."""
        useful = np.zeros(self.tail, np.bool_)
        paths = np.zeros(self.tail, np.float64)
        _mark(self.states, self.depth, self.keys, self.vals, self.tail, int(self.depth[self.goal]),
              self.unit, self.goal_off, useful, paths, *self.g.args())
        return useful, paths

    def plans(self, useful: np.ndarray) -> Iterator[Solution]:
        """Every shortest plan, depth-first over the marked positions (successor order)."""
        g = self.g
        D = int(self.depth[self.goal])
        buf = [np.empty(g.max_succ, np.int64) for _ in range(3)]
        path: list[tuple[str, int]] = []

        def succ(s: int) -> list[tuple[int, int, int]]:
            k = _successors(s, self.unit, buf[0], buf[1], buf[2], *g.args())
            return [(int(buf[0][j]), int(buf[1][j]), int(buf[2][j])) for j in range(k)]

        def walk(i: int, d: int) -> Iterator[Solution]:
            if d == D:
                yield merge(tuple(path)) if self.unit else tuple(path)
                return
            for t, v, dist in succ(int(self.states[i])):
                j = _find(self.keys, self.vals, t)
                if j >= 0 and self.depth[j] == d + 1 and useful[j]:
                    path.append((g.ids[v], dist))
                    yield from walk(j, d + 1)
                    path.pop()

        yield from walk(0, 0)

    def stats(self, exhausted: bool) -> dict:
        out = {"nodes": int(self.head), "positions": int(self.tail), "bits": self.g.bits}
        if exhausted:
            out["component"] = int(self.tail)
            out["eccentricity"] = int(self.depth[self.tail - 1])
        return out


def merge(steps: Solution) -> Solution:
    """Consecutive one-cell steps of one vehicle in one direction as one move."""
    out: list[tuple[str, int]] = []
    for v, d in steps:
        if out and out[-1][0] == v and (out[-1][1] > 0) == (d > 0):
            out[-1] = (v, out[-1][1] + d)
        else:
            out.append((v, d))
    return tuple(out)


def run(inst: RushHour, task: Task, ctx: Context) -> Outcome:
    """Engine native:bfs: the optimum (a shortest plan), every shortest plan, or any plan (a
    shortest one); then, unless `component` is off, the rest of the start's component."""
    t0 = time.process_time()
    search = Search(inst)
    finished = search.run(1 if task is Task.COUNT else 0, ctx)
    stats = search.stats(exhausted=False)

    def done(status, objective=None, count=None, sols=(), reason=None) -> Outcome:
        if ctx.options["component"] and not ctx.expired():
            stats.update(search.stats(exhausted=search.run(2, ctx)))
        stats["search_cpu_seconds"] = round(time.process_time() - t0, 3)
        return Outcome(status, objective, count, tuple(sols), stats, reason)

    if not finished:
        return done(Status.UNKNOWN, reason="time limit")
    if search.goal < 0:  # the whole component searched
        stats.update(search.stats(exhausted=True))
        return done(Status.INFEASIBLE, count=0 if task is Task.COUNT else None,
                    reason=f"none of the {search.tail} positions reachable from the start has "
                           "the red car at the exit")
    D = int(search.depth[search.goal])
    best = search.plan(search.goal)
    ctx.found(best)
    if task is not Task.COUNT:
        return done(Status.OPTIMAL if task is Task.OPTIMIZE else Status.FEASIBLE, D, None, (best,))
    useful, paths = search.mark()
    total = float(paths[0])
    stats["optimal_plans_by_recursion"] = int(total) if total < 2 ** 53 else total
    sols = []
    try:
        for k, p in enumerate(search.plans(useful)):
            sols.append(p)
            if k % 1024 == 1023:
                if ctx.expired():
                    raise TimeoutError
                ctx.progress(plans=len(sols))
    except TimeoutError:
        return done(Status.UNKNOWN, D, None, sols, reason="time limit while counting")
    return done(Status.OPTIMAL, D, len(sols), sols)
