"""Calculation maze, segment formulation (engine cpsat:segments).

Source: puzzlesat's own formulation, measured there to prove the 5x6 instance 11_56 in
seconds where the time-indexed model did not in minutes.

The multiplications used split a walk into segments inside which only additions happen, so a
segment's order does not matter: its effect is the sum of its additions. Segment j is an edge set
y[j][e] that must be an Euler trail from p_j to q_j: degree parity (odd exactly at p_j and q_j
when they differ) and connectivity (a single-commodity flow from p_j reaching every touched
vertex). Multiplication slot j (an arc of a *k edge, or none, inactive slots last) joins q_{j-1}
to p_j. The score is S_0 = s0 + A_0, S_j = k_j*S_{j-1} + A_j. A solution is decoded into a walk
by Hierholzer's algorithm inside each segment.

Counting: repeated solves with a blocking clause on (edge sets, multiplication arcs, segment
ends) — the flow variables are not unique, so CP-SAT's enumeration would visit each flow — and
each solution expands into all walks it stands for (the product of every segment's Euler
trails). A walk has exactly one segment decomposition, so the expansions are disjoint and the
count is exact.
"""
from __future__ import annotations

import time
from typing import Callable

from ...core.result import Context, Outcome, Task
from ...puzzles.maze import Maze, Walk

from ..formulation import AtMostOne, Clause, ExactlyOne, Formulation, Linear, to_cpsat
from .common import decision, free_part, limited, run

SOURCE = ("segments between multiplications (puzzlesat's own): Euler edge sets y[j][e] "
          "(parity + flow), S_j = k_j*S_{j-1} + A_j")


def formulation(m: Maze, segments: int = 0) -> Formulation:
    """The segment formulation as data: Booleans ('y', j, e) (addition e in segment j),
    ('p' | 'q', j, v) (segment ends), ('m', j, arc) and ('slot', j) (multiplication slots),
    ('t', j, v) (touched); integers ('z', j, v) (half degree), ('f', j, u, w) (flow), ('S', j) and
    ('T', j) (scores)."""
    t0 = time.perf_counter()
    fp = free_part(m)
    f = Formulation("maze:segments", SOURCE)
    edges = m.edges
    n = m.nodes
    adds = [e for e in fp.edges if m.ops[e][0] != "*"]
    muls = [e for e in fp.edges if m.ops[e][0] == "*"]
    J = len(muls) + 1 if segments <= 0 else min(segments, len(muls) + 1)
    inc = {v: [] for v in range(n)}
    for e in adds:
        a, b = edges[e]
        inc[a].append(e)
        inc[b].append(e)
    y = lambda j, e: ("y", j, e)  # noqa: E731
    P = lambda j, v: ("p", j, v)  # noqa: E731
    Q = lambda j, v: ("q", j, v)  # noqa: E731
    mx = lambda j, i: ("m", j, i)  # noqa: E731
    slot = lambda j: ("slot", j)  # noqa: E731
    marcs = [(a, b, e) for e in muls for a, b in (edges[e], edges[e][::-1])]
    for j in range(J):
        f.add("segment ends", ExactlyOne(tuple(P(j, v) for v in range(n))),
              ExactlyOne(tuple(Q(j, v) for v in range(n))))
    f.add("start and goal", Clause(((P(0, fp.v0), True),)), Clause(((Q(J - 1, m.goal), True),)))
    f.add("each addition once", *(AtMostOne(tuple(y(j, e) for j in range(J))) for e in adds))
    by_mul = {e: [] for e in muls}
    for i, (_, _, e) in enumerate(marcs):
        by_mul[e].append(i)
    f.add("each multiplication once",
          *(AtMostOne(tuple(mx(j, i) for j in range(1, J) for i in idx)) for idx in by_mul.values()))
    for j in range(1, J):
        f.add("slot: one multiplication or none",
              Linear(tuple((1, mx(j, i)) for i in range(len(marcs))) + ((-1, slot(j)),), 0, 0))
        if j > 1:
            f.add("used slots first", Clause(((slot(j), False), (slot(j - 1), True))))
        for i, (a, b, _) in enumerate(marcs):
            f.add("multiplication joins segments", Clause(((mx(j, i), False), (Q(j - 1, a), True))),
                  Clause(((mx(j, i), False), (P(j, b), True))))
        for v in range(n):
            f.add("empty slot keeps the end", Linear(((1, P(j, v)), (-1, Q(j - 1, v))), 0, 0,
                                                     ((slot(j), False),)))
        f.add("empty slot, empty segment", *(Clause(((y(j, e), False), (slot(j), True))) for e in adds))
    for j in range(J):
        for v in range(n):
            z = f.int_var(("z", j, v), 0, 3)
            f.add("degree parity", Linear(tuple((1, y(j, e)) for e in inc[v])
                                          + ((1, P(j, v)), (1, Q(j, v)), (-2, z)), 0, 0))
            t = ("t", j, v)
            f.add("touched", *(Clause(((y(j, e), False), (t, True))) for e in inc[v]),
                  Clause(((t, False),) + tuple((y(j, e), True) for e in inc[v])))
        # connectivity: flow from p_j feeds one unit to every touched vertex
        flow_in = {v: [] for v in range(n)}
        flow_out = {v: [] for v in range(n)}
        for e in adds:
            a, b = edges[e]
            for u, w in ((a, b), (b, a)):
                fl = f.int_var(("f", j, u, w), 0, n)
                f.add("flow only on used edges", Linear(((1, fl), (-n, y(j, e))), -n, 0))
                flow_out[u].append(fl)
                flow_in[w].append(fl)
        for v in range(n):
            big = n * (len(flow_in[v]) + len(flow_out[v]) + 2)
            f.add("flow feeds touched vertices",
                  Linear(tuple((1, k) for k in flow_in[v]) + tuple((-1, k) for k in flow_out[v])
                         + ((-1, ("t", j, v)), (n, P(j, v))), 0, big))
    # the score, segment by segment; every S_j and T_j is the score of a walk's prefix
    for j in range(J):
        A = tuple((-_add(m, e), y(j, e)) for e in adds)
        S = f.int_var(("S", j), fp.low, fp.high)
        if j == 0:
            f.add("score", Linear(((1, S),) + A, fp.s0, fp.s0))
        else:
            T = f.int_var(("T", j), fp.low, fp.high)
            for i, (_, _, e) in enumerate(marcs):
                f.add("score", Linear(((1, T), (-m.ops[e][1], ("S", j - 1))), 0, 0, ((mx(j, i), True),)))
            f.add("score", Linear(((1, T), (-1, ("S", j - 1))), 0, 0, ((slot(j), False),)),
                  Linear(((1, S), (-1, T)) + A, 0, 0))
    f.projection = (tuple(y(j, e) for j in range(J) for e in adds)
                    + tuple(mx(j, i) for j in range(1, J) for i in range(len(marcs)))
                    + tuple(Q(j, v) for j in range(J) for v in range(n)))
    f.objective = ("max", ((1, ("S", J - 1)),))
    f.build_seconds = time.perf_counter() - t0
    return f


def _add(m: Maze, e: int) -> int:
    c, k = m.ops[e]
    return k if c == "+" else -k


class SegmentModel:
    """The segment formulation compiled to CP-SAT; `segments` <= 0: one more than the unused
    multiplications."""

    unique_aux = False  # flows are not unique: count by blocking clauses instead

    def __init__(self, m: Maze, segments: int = 0):
        self.maze = m
        self.formulation = f = formulation(m, segments)
        self.cp = cp = to_cpsat(f)
        self.model = cp.model
        fp = free_part(m)
        self.edges = edges = m.edges
        n = m.nodes
        self.adds = [e for e in fp.edges if m.ops[e][0] != "*"]
        self.muls = [e for e in fp.edges if m.ops[e][0] == "*"]
        self.J = J = len(self.muls) + 1 if segments <= 0 else min(segments, len(self.muls) + 1)
        self.marcs = [(a, b, e) for e in self.muls for a, b in (edges[e], edges[e][::-1])]
        self.y = [{e: cp.var(("y", j, e)) for e in self.adds} for j in range(J)]
        self.Q = [[cp.var(("q", j, v)) for v in range(n)] for j in range(J)]
        self.mx = [None] + [[cp.var(("m", j, i)) for i in range(len(self.marcs))] for j in range(1, J)]
        self.objective = cp.var(("S", J - 1))

    def projection(self) -> list:
        return ([y for row in self.y for y in row.values()] + [x for row in self.mx[1:] for x in row]
                + [q for row in self.Q for q in row])

    def walks(self, value: Callable) -> list[Walk]:
        """Every walk with this solution's segments (all Euler trails of each segment)."""
        n = self.maze.nodes
        parts = []
        cur = self.maze.walked[-1]
        for j in range(self.J):
            if j > 0:
                arc = [(a, b) for i, (a, b, e) in enumerate(self.marcs) if value(self.mx[j][i])]
                if arc:
                    cur = arc[0][1]
                    parts.append([[cur]])
            q = next(v for v in range(n) if value(self.Q[j][v]))
            es = [self.edges[e] for e in self.adds if value(self.y[j][e])]
            parts.append([t[1:] for t in euler_all(cur, q, es)])
            cur = q
        out = [list(self.maze.walked)]
        for options in parts:
            out = [w + list(t) for w in out for t in options]
        return [tuple(w) for w in out]

    def decode(self, value: Callable) -> Walk:
        walk = list(self.maze.walked)
        for j in range(self.J):
            if j > 0:
                for i, (a, b, _) in enumerate(self.marcs):
                    if value(self.mx[j][i]):
                        assert walk[-1] == a
                        walk.append(b)
            es = [e for e in self.adds if value(self.y[j][e])]
            q = next(v for v in range(self.maze.nodes) if value(self.Q[j][v]))
            walk += euler(walk[-1], q, [self.edges[e] for e in es])[1:]
        return tuple(walk)


def euler(p: int, q: int, edges: list[tuple[int, int]]) -> list[int]:
    """An Euler trail from p to q over `edges` (Hierholzer); [p] if there are none."""
    if not edges:
        return [p]
    adj: dict[int, list[tuple[int, int]]] = {}
    for i, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append((b, i))
        adj.setdefault(b, []).append((a, i))
    used = [False] * len(edges)
    stack, out = [p], []
    while stack:
        v = stack[-1]
        nb = adj.get(v, [])
        while nb and used[nb[-1][1]]:
            nb.pop()
        if nb:
            u, i = nb.pop()
            used[i] = True
            stack.append(u)
        else:
            out.append(stack.pop())
    out.reverse()
    if len(out) != len(edges) + 1 or out[0] != p or out[-1] != q:
        raise RuntimeError(f"segment is not an Euler trail from {p} to {q}")
    return out


def euler_all(p: int, q: int, edges: list[tuple[int, int]]) -> list[list[int]]:
    """Every trail from p to q using each of `edges` exactly once."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for i, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append((b, i))
        adj.setdefault(b, []).append((a, i))
    used = [False] * len(edges)
    path, out = [p], []

    def go(v: int, left: int) -> None:
        if left == 0:
            if v == q:
                out.append(list(path))
            return
        for u, i in adj.get(v, ()):
            if not used[i]:
                used[i] = True
                path.append(u)
                go(u, left - 1)
                path.pop()
                used[i] = False

    go(p, len(edges))
    return out


def hook(m: Maze, task: Task, options: dict, bound: int | None):
    """Formulation hook of cpsat:segments (export, stats, puzzlesat.model): score >= bound."""
    f = formulation(m, options["segments"])
    nmul = sum(1 for e in free_part(m).edges if m.ops[e][0] == "*")
    segs = options["segments"]
    J = nmul + 1 if segs <= 0 else min(segs, nmul + 1)

    def decode(true: set) -> Walk:
        adds = [e for e in free_part(m).edges if m.ops[e][0] != "*"]
        muls = [e for e in free_part(m).edges if m.ops[e][0] == "*"]
        marcs = [(a, b, e) for e in muls for a, b in (m.edges[e], m.edges[e][::-1])]
        walk = list(m.walked)
        for j in range(J):
            for (_, jj, i) in (k for k in true if k[0] == "m"):
                if jj == j:
                    walk.append(marcs[i][1])
            q = next(k[2] for k in true if k[0] == "q" and k[1] == j)
            es = [m.edges[e] for e in adds if ("y", j, e) in true]
            walk += euler(walk[-1], q, es)[1:]
        return tuple(walk)

    return decision(f, ("S", J - 1), decode, m, bound, complete=J == nmul + 1)


# one projection (edge sets, multiplication arcs, segment ends) stands for every walk through its
# segments' Euler trails: enumerating projections undercounts walks (the engine expands them)
hook.countable = False


def run_segments(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:segments. A segment limit below the multiplications + 1 only gives FEASIBLE."""
    segs = ctx.options["segments"]
    nmul = sum(1 for e in free_part(m).edges if m.ops[e][0] == "*")
    out = run(SegmentModel, m, task, ctx, segments=segs)
    return limited(out, 0 < segs < nmul + 1)
