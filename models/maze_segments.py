"""Calculation maze, segment formulation (engine cpsat:segments).

Source: puzzlesat's own formulation (issue 5), measured there to prove the 5x6 instance 11_56 in
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

from typing import Callable

from ortools.sat.python import cp_model

from puzzlesat.puzzles.core import Context, Outcome, Task
from puzzlesat.puzzles.maze import Maze, Walk

from .maze_common import free_part, limited, run

FORMULATION = "segments between multiplications: Euler edge sets y[j][e] (parity + flow), S_j = k_j*S_{j-1} + A_j"


class SegmentModel:
    """The segment formulation (see the module docstring); `segments` <= 0: one more than the
    unused multiplications."""

    unique_aux = False  # flows are not unique: count by blocking clauses instead

    def __init__(self, m: Maze, segments: int = 0):
        fp = free_part(m)
        self.maze = m
        self.model = md = cp_model.CpModel()
        self.edges = edges = m.edges
        n = m.nodes
        self.adds = [e for e in fp.edges if m.ops[e][0] != "*"]
        self.muls = [e for e in fp.edges if m.ops[e][0] == "*"]
        J = len(self.muls) + 1 if segments <= 0 else min(segments, len(self.muls) + 1)
        self.J = J
        inc = {v: [] for v in range(n)}
        for e in self.adds:
            a, b = edges[e]
            inc[a].append(e)
            inc[b].append(e)
        self.y = [{e: md.new_bool_var(f"y[{j}][{e}]") for e in self.adds} for j in range(J)]
        self.P = [[md.new_bool_var(f"p[{j}][{v}]") for v in range(n)] for j in range(J)]
        self.Q = [[md.new_bool_var(f"q[{j}][{v}]") for v in range(n)] for j in range(J)]
        # slot j (1..J-1) joins segment j-1 to segment j by one multiplication arc, or nothing
        self.marcs = [(a, b, e) for e in self.muls for a, b in (edges[e], edges[e][::-1])]
        self.mx = [None] + [[md.new_bool_var(f"m[{j}][{i}]") for i in range(len(self.marcs))]
                            for j in range(1, J)]
        self.sact = [None] + [md.new_bool_var(f"slot[{j}]") for j in range(1, J)]
        for j in range(J):
            md.add_exactly_one(self.P[j])
            md.add_exactly_one(self.Q[j])
        md.add(self.P[0][fp.v0] == 1)
        md.add(self.Q[J - 1][m.goal] == 1)
        for e in self.adds:
            md.add(sum(self.y[j][e] for j in range(J)) <= 1)
        by_mul = {e: [] for e in self.muls}
        for i, (a, b, e) in enumerate(self.marcs):
            by_mul[e].append(i)
        for e, idx in by_mul.items():
            md.add(sum(self.mx[j][i] for j in range(1, J) for i in idx) <= 1)
        for j in range(1, J):
            md.add(sum(self.mx[j]) == self.sact[j])
            if j > 1:
                md.add_implication(self.sact[j], self.sact[j - 1])
            for i, (a, b, e) in enumerate(self.marcs):
                md.add_implication(self.mx[j][i], self.Q[j - 1][a])
                md.add_implication(self.mx[j][i], self.P[j][b])
            for v in range(n):
                md.add(self.P[j][v] == self.Q[j - 1][v]).only_enforce_if(~self.sact[j])
            for e in self.adds:  # an unused slot leaves its segment empty
                md.add_implication(self.y[j][e], self.sact[j])
        for j in range(J):
            touched = []
            for v in range(n):
                z = md.new_int_var(0, 3, f"z[{j}][{v}]")
                md.add(sum(self.y[j][e] for e in inc[v]) + self.P[j][v] + self.Q[j][v] == 2 * z)
                t = md.new_bool_var(f"t[{j}][{v}]")
                for e in inc[v]:
                    md.add_implication(self.y[j][e], t)
                md.add_bool_or([self.y[j][e] for e in inc[v]]).only_enforce_if(t)
                touched.append(t)
            # connectivity: flow from p_j feeds one unit to every touched vertex
            flow_in = {v: [] for v in range(n)}
            flow_out = {v: [] for v in range(n)}
            for e in self.adds:
                a, b = edges[e]
                for u, w in ((a, b), (b, a)):
                    f = md.new_int_var(0, n, f"f[{j}][{u}>{w}]")
                    md.add(f <= n * self.y[j][e])
                    flow_out[u].append(f)
                    flow_in[w].append(f)
            for v in range(n):
                md.add(sum(flow_in[v]) - sum(flow_out[v]) >= touched[v] - n * self.P[j][v])
        # the score, segment by segment; every S_j and T_j is the score of a walk's prefix
        self.S = []
        prev = None
        for j in range(J):
            A = sum(self._add(e) * self.y[j][e] for e in self.adds)
            S = md.new_int_var(fp.low, fp.high, f"S[{j}]")
            if j == 0:
                md.add(S == fp.s0 + A)
            else:
                T = md.new_int_var(fp.low, fp.high, f"T[{j}]")
                for i, (a, b, e) in enumerate(self.marcs):
                    md.add(T == m.ops[e][1] * prev).only_enforce_if(self.mx[j][i])
                md.add(T == prev).only_enforce_if(~self.sact[j])
                md.add(S == T + A)
            self.S.append(S)
            prev = S
        self.objective = self.S[-1]

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

    def _add(self, e: int) -> int:
        c, k = self.maze.ops[e]
        return k if c == "+" else -k

    def decode(self, value: Callable) -> Walk:
        walk = list(self.maze.walked)
        for j in range(self.J):
            if j > 0:
                for i, (a, b, e) in enumerate(self.marcs):
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


def run_segments(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:segments. A segment limit below the multiplications + 1 only gives FEASIBLE."""
    segs = ctx.options["segments"]
    nmul = sum(1 for e in free_part(m).edges if m.ops[e][0] == "*")
    out = run(SegmentModel, m, task, ctx, segments=segs)
    return limited(out, 0 < segs < nmul + 1)
