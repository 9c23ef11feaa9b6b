"""Calculation maze in CP-SAT: two formulations of a maximum-score trail with ordered arithmetic.

Every operation is an affine map x -> m*x + c (m = 1 for +k/-k, c = 0 for *k), so a score step
is one linear equality enforced by the literal that chooses the edge.

`time` (engine cpsat:time): a time-indexed trail. Step t either walks one directed arc a
(x[t][a]) or the walk has stopped (inactive steps are a suffix); pos[t][v] is the one-hot position,
each edge is used at most once over all steps, and s[t+1] = m_e * s[t] + c_e under x[t][a]
(s[t+1] = s[t] once stopped). Maximise s[T] with pos[T] = goal.

`segments` (engine cpsat:segments): the multiplications used split a walk into segments inside
which only additions happen, so a segment's order does not matter: its effect is the sum of its
additions. Segment j is an edge set y[j][e] that must be an Euler trail from p_j to q_j: degree
parity (odd exactly at p_j and q_j when they differ) and connectivity (a single-commodity flow
from p_j reaching every touched vertex). Multiplication slot j (an arc of a *k edge, or none,
inactive slots last) joins q_{j-1} to p_j. The score is S_0 = s0 + A_0, S_j = k_j*S_{j-1} + A_j.
A solution is decoded into a walk by Hierholzer's algorithm inside each segment.

Counting (task count) fixes the objective at the optimum and lists the walks: `time` by CP-SAT's
enumeration projected on the arcs (every other variable follows from them); `segments` by
repeated solves with a blocking clause on (edge sets, multiplication arcs, segment ends) — its
flow variables are not unique, so CP-SAT's enumeration would visit each flow — and each solution
expands into all walks it stands for (the product of every segment's Euler trails). A walk has
exactly one segment decomposition, so the expansions are disjoint and the count is exact. This is the
project's formulation (issue 5): measured there to prove the 5x6 instance in seconds where the
time-indexed model did not in minutes.
"""
from __future__ import annotations

from typing import Any, Callable

from ortools.sat.python import cp_model

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.maze import Maze, Walk

from . import _cpsat

LIMIT = 1 << 60


class _Base:
    """What both formulations share: the free edges after the pre-walked path and score bounds."""

    def __init__(self, m: Maze):
        self.maze = m
        self.edges = m.edges
        walked = m.walked
        used = {(min(a, b), max(a, b)) for a, b in zip(walked, walked[1:])}
        self.free = [e for e, ab in enumerate(self.edges) if ab not in used]
        eid = {ab: e for e, ab in enumerate(self.edges)}
        s = 1
        for a, b in zip(walked, walked[1:]):
            s = _apply(m.ops[eid[(min(a, b), max(a, b))]], s)
        self.s0 = s
        self.v0 = walked[-1]
        adds = sum(k for c, k in m.ops if c != "*")
        prod = 1
        for c, k in m.ops:
            if c == "*":
                prod *= max(k, 1)
        self.mag = (abs(s) + adds) * prod  # |score| never exceeds this
        self.model = cp_model.CpModel()

    def too_big(self) -> bool:
        return self.mag >= LIMIT


def _apply(op, s: int) -> int:
    c, k = op
    return s + k if c == "+" else s - k if c == "-" else s * k


def _affine(op) -> tuple[int, int]:
    c, k = op
    return (k, 0) if c == "*" else (1, k if c == "+" else -k)


class TimeModel(_Base):
    """The time-indexed formulation (see the module docstring)."""

    def __init__(self, m: Maze, steps: int = 0):
        super().__init__(m)
        md = self.model
        n = m.nodes
        T = len(self.free) if steps <= 0 else min(steps, len(self.free))
        self.T = T
        self.arcs = [(a, b, e) for e in self.free for a, b in (self.edges[e], self.edges[e][::-1])]
        self.pos = [[md.new_bool_var(f"pos[{t}][{v}]") for v in range(n)] for t in range(T + 1)]
        self.x = [[md.new_bool_var(f"x[{t}][{i}]") for i in range(len(self.arcs))] for t in range(T)]
        self.act = [md.new_bool_var(f"act[{t}]") for t in range(T)]
        self.s = [md.new_int_var(-self.mag, self.mag, f"s[{t}]") for t in range(T + 1)]
        md.add(self.pos[0][self.v0] == 1)
        md.add(self.s[0] == self.s0)
        for t in range(T + 1):
            md.add_exactly_one(self.pos[t])
        md.add(self.pos[T][m.goal] == 1)
        out = {v: [] for v in range(n)}
        for i, (a, b, e) in enumerate(self.arcs):
            out[a].append(i)
        for t in range(T):
            md.add(sum(self.x[t]) == self.act[t])
            if t > 0:
                md.add_implication(self.act[t], self.act[t - 1])
            for v in range(n):
                # leaving v at step t needs being at v; being at v and active means leaving v
                md.add(sum(self.x[t][i] for i in out[v]) >= self.pos[t][v] + self.act[t] - 1)
                md.add(self.pos[t + 1][v] == self.pos[t][v]).only_enforce_if(~self.act[t])
            for i, (a, b, e) in enumerate(self.arcs):
                md.add_implication(self.x[t][i], self.pos[t][a])
                md.add_implication(self.x[t][i], self.pos[t + 1][b])
                mul, c = _affine(m.ops[e])
                md.add(self.s[t + 1] == mul * self.s[t] + c).only_enforce_if(self.x[t][i])
            md.add(self.s[t + 1] == self.s[t]).only_enforce_if(~self.act[t])
        by_edge = {e: [] for e in self.free}
        for i, (a, b, e) in enumerate(self.arcs):
            by_edge[e].append(i)
        for e, idx in by_edge.items():
            md.add(sum(self.x[t][i] for t in range(T) for i in idx) <= 1)
        self.objective = self.s[T]

    unique_aux = True  # pos, act and s follow from the arcs: CP-SAT's enumeration is exact

    def projection(self) -> list:
        return [x for row in self.x for x in row]

    def walks(self, value: Callable) -> list[Walk]:
        return [self.decode(value)]

    def decode(self, value: Callable) -> Walk:
        walk = list(self.maze.walked)
        for t in range(self.T):
            for i, (a, b, e) in enumerate(self.arcs):
                if value(self.x[t][i]):
                    walk.append(b)
        return tuple(walk)


class SegmentModel(_Base):
    """The segment formulation (see the module docstring)."""

    def __init__(self, m: Maze, segments: int = 0):
        super().__init__(m)
        md = self.model
        n = m.nodes
        self.adds = [e for e in self.free if m.ops[e][0] != "*"]
        self.muls = [e for e in self.free if m.ops[e][0] == "*"]
        J = len(self.muls) + 1 if segments <= 0 else min(segments, len(self.muls) + 1)
        self.J = J
        inc = {v: [] for v in range(n)}
        for e in self.adds:
            a, b = self.edges[e]
            inc[a].append(e)
            inc[b].append(e)
        self.y = [{e: md.new_bool_var(f"y[{j}][{e}]") for e in self.adds} for j in range(J)]
        self.P = [[md.new_bool_var(f"p[{j}][{v}]") for v in range(n)] for j in range(J)]
        self.Q = [[md.new_bool_var(f"q[{j}][{v}]") for v in range(n)] for j in range(J)]
        # slot j (1..J-1) joins segment j-1 to segment j by one multiplication arc, or nothing
        self.marcs = [(a, b, e) for e in self.muls for a, b in (self.edges[e], self.edges[e][::-1])]
        self.mx = [None] + [[md.new_bool_var(f"m[{j}][{i}]") for i in range(len(self.marcs))]
                            for j in range(1, J)]
        self.sact = [None] + [md.new_bool_var(f"slot[{j}]") for j in range(1, J)]
        for j in range(J):
            md.add_exactly_one(self.P[j])
            md.add_exactly_one(self.Q[j])
        md.add(self.P[0][self.v0] == 1)
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
                a, b = self.edges[e]
                for u, w in ((a, b), (b, a)):
                    f = md.new_int_var(0, n, f"f[{j}][{u}>{w}]")
                    md.add(f <= n * self.y[j][e])
                    flow_out[u].append(f)
                    flow_in[w].append(f)
            for v in range(n):
                md.add(sum(flow_in[v]) - sum(flow_out[v]) >= touched[v] - n * self.P[j][v])
        # the score, segment by segment
        mag = self.mag
        self.S = []
        prev = None
        for j in range(J):
            A = sum(self._add(e) * self.y[j][e] for e in self.adds)
            S = md.new_int_var(-mag, mag, f"S[{j}]")
            if j == 0:
                md.add(S == self.s0 + A)
            else:
                T = md.new_int_var(-mag, mag, f"T[{j}]")
                for i, (a, b, e) in enumerate(self.marcs):
                    md.add(T == m.ops[e][1] * prev).only_enforce_if(self.mx[j][i])
                md.add(T == prev).only_enforce_if(~self.sact[j])
                md.add(S == T + A)
            self.S.append(S)
            prev = S
        self.objective = self.S[-1]

    unique_aux = False  # flows are not unique: count by blocking clauses instead

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
            parts.append([t[1:] for t in _euler_all(cur, q, es)])
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
            walk += _euler(walk[-1], q, [self.edges[e] for e in es])[1:]
        return tuple(walk)


def _euler(p: int, q: int, edges: list[tuple[int, int]]) -> list[int]:
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


def _euler_all(p: int, q: int, edges: list[tuple[int, int]]) -> list[list[int]]:
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


def _block_loop(model: cp_model.CpModel, proj: list, ctx: Context):
    """All distinct projections by repeated solves, each excluding the ones found (a clause).

    For models whose auxiliary variables (flows) take many values per projection, where CP-SAT's
    own enumeration would visit every one of them.
    """
    p = _cpsat.params(ctx.options)
    projs, calls = [], 0
    while True:
        st, solver = _cpsat.solve(model, p, ctx)
        calls += 1
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            tup = tuple(solver.value(v) for v in proj)
            projs.append(tup)
            model.add_bool_or([~v if val else v for v, val in zip(proj, tup)])
            ctx.progress(solutions=len(projs))
            continue
        status = Status.OPTIMAL if st is Status.INFEASIBLE else Status.UNKNOWN
        return status, projs, {"solve_calls": calls, "model_size": _cpsat.model_size(model),
                               "params": {"cpsat": p}}


class _Stream(cp_model.CpSolverSolutionCallback):
    def __init__(self, model, ctx: Context):
        super().__init__()
        self.m, self.ctx, self.n = model, ctx, 0

    def on_solution_callback(self) -> None:
        self.n += 1
        self.ctx.found(self.m.decode(self.value))
        self.ctx.progress(solutions=self.n, objective=round(self.objective_value),
                          bound=round(self.best_objective_bound))


def _count(build, m: Maze, best: int, ctx: Context, stats: dict, **kw: Any) -> Outcome:
    """Every walk scoring `best`: enumerate the model's solutions with objective == best,
    projected on the variables that define the walk (time: the arcs per step; segments: edge sets,
    multiplication arcs and segment ends, each expanded into all its walks)."""
    mod = build(m, **kw)
    mod.model.add(mod.objective == best)
    proj = mod.projection()
    if mod.unique_aux:
        st, projs, est = _cpsat.enumerate_projected(mod.model, proj, ctx.options, ctx)
    else:
        st, projs, est = _block_loop(mod.model, proj, ctx)
    stats.update({k: v for k, v in est.items() if k != "params"})
    stats["params"]["cpsat_enumerate"] = est["params"]["cpsat"]
    walks = []
    for tup in projs:
        vals = dict(zip((v.index for v in proj), tup))
        walks += mod.walks(lambda var: vals[var.index])
    stats["projected_solutions"] = len(projs)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, objective=best, count=len(walks), solutions=tuple(walks),
                       stats=stats)
    return Outcome(Status.UNKNOWN, objective=best, solutions=tuple(walks), stats=stats,
                   reason="enumeration stopped by the limit")


def _run(build, m: Maze, task: Task, ctx: Context, **kw: Any) -> Outcome:
    mod = build(m, **kw)
    p = _cpsat.params(ctx.options)
    stats: dict[str, Any] = {"params": {"cpsat": p, **kw}}
    if mod.too_big():
        return Outcome(Status.UNKNOWN, stats=stats, reason="scores may exceed CP-SAT's integer range")
    stats["model_size"] = _cpsat.model_size(mod.model)
    if task in (Task.OPTIMIZE, Task.COUNT):
        mod.model.maximize(mod.objective)
    st, solver = _cpsat.solve(mod.model, p, ctx, _Stream(mod, ctx) if task is Task.OPTIMIZE else None)
    stats.update(branches=solver.num_branches, conflicts=solver.num_conflicts,
                 wall=round(solver.wall_time, 3))
    if st in (Status.OPTIMAL, Status.FEASIBLE):
        walk = mod.decode(solver.value)
        if task is Task.FEASIBLE:
            return Outcome(Status.FEASIBLE, solutions=(walk,), stats=stats)
        if task is Task.COUNT:
            if st is not Status.OPTIMAL:
                return Outcome(Status.UNKNOWN, solutions=(walk,), stats=stats, reason="optimum not proved")
            return _count(build, m, solver.value(mod.objective), ctx, stats, **kw)
        return Outcome(st, objective=solver.value(mod.objective), solutions=(walk,), stats=stats)
    return Outcome(st, count=0 if st is Status.INFEASIBLE and task is Task.COUNT else None, stats=stats,
                   reason="no trail reaches the goal" if st is Status.INFEASIBLE else None)


def run_time(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:time. A step limit below the number of free edges can only give FEASIBLE."""
    steps = int(ctx.options.get("steps", 0))
    out = _run(TimeModel, m, task, ctx, steps=steps)
    return _limited(out, 0 < steps < len(_Base(m).free))


def run_segments(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:segments. A segment limit below the multiplications + 1 only gives FEASIBLE."""
    segs = int(ctx.options.get("segments", 0))
    base = _Base(m)
    nmul = sum(1 for e in base.free if m.ops[e][0] == "*")
    out = _run(SegmentModel, m, task, ctx, segments=segs)
    return _limited(out, 0 < segs < nmul + 1)


def _limited(out: Outcome, restricted: bool) -> Outcome:
    """A restricted model proves nothing about the maze: OPTIMAL -> FEASIBLE, INFEASIBLE -> UNKNOWN."""
    if not restricted:
        return out
    st = {Status.OPTIMAL: Status.FEASIBLE, Status.INFEASIBLE: Status.UNKNOWN}.get(out.status, out.status)
    return Outcome(st, out.objective, out.count, out.solutions, out.stats,
                   (out.reason or "") + " (restricted model)")
