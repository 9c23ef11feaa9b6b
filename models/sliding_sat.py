"""Sliding-tile puzzles as time-indexed planning in CNF (python-sat).

Formulation (planning as satisfiability, Kautz & Selman 1992, with explanatory frame axioms):
for a horizon T, Booleans x[t,c,k] "cell c holds tile k (0 = blank) after t moves" and
m[t,a,b] "move t takes the blank from cell a to the neighbouring cell b" (the tile on b slides
to a). Each cell holds one tile and each tile is somewhere at every step; exactly one move per
step; a move needs the blank at a before and at b after, carries the tile of b to a, and every
cell the blank does not enter keeps its tile (frame axioms, both directions).
Options: `no_undo` forbids m[t,a,b] & m[t+1,b,a]; `manhattan_bound` uses that every move changes
the Manhattan sum by exactly ±1, so exactly (T - h0)/2 moves increase it (at most that many,
by a cardinality constraint), and drops x[t,c,k] when c is farther than t from k's start cell or
than T - t from its goal cell. The shortest horizon is found by raising T from the Manhattan
bound (by 2 with `parity_step`: the blank's square colour fixes the length's parity, and the
blank is left out of the cells of the wrong colour for each step), each smaller horizon proved
UNSAT; optimal plans are counted by enumeration projected on m.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.sliding import Sliding, infeasible_reason, manhattan, neighbours


@dataclass
class Plan:
    """The formulation for one horizon, solver-neutral: variables are positive integers."""

    inst: Sliding
    T: int
    no_undo: bool = True
    bound: bool = True
    parity: bool = True  # the blank only where its square colour fits the step
    nvars: int = 0
    x: dict = field(default_factory=dict)      # (t, c, k) -> var (absent: false)
    m: dict = field(default_factory=dict)      # (t, a, b) -> var
    exactly_one: list = field(default_factory=list)
    at_least_one: list = field(default_factory=list)
    clauses: list = field(default_factory=list)
    increases: list = field(default_factory=list)  # vars: move t increases the Manhattan sum
    max_increases: int | None = None

    def new(self) -> int:
        self.nvars += 1
        return self.nvars

    def build(self) -> "Plan":
        inst, T = self.inst, self.T
        n, cols = inst.cells, inst.cols
        dist = lambda a, b: abs(a // cols - b // cols) + abs(a % cols - b % cols)  # noqa: E731
        s_at = {k: c for c, k in enumerate(inst.start)}
        g_at = {k: c for c, k in enumerate(inst.goal)}
        for t in range(T + 1):
            for c in range(n):
                for k in range(n):
                    if t == 0 and inst.start[c] != k or t == T and inst.goal[c] != k:
                        continue
                    if self.bound and (dist(c, s_at[k]) > t or dist(c, g_at[k]) > T - t):
                        continue
                    if self.parity and k == 0 and (dist(c, s_at[0]) + t) % 2:
                        continue
                    self.x[t, c, k] = self.new()
        X = self.x.get
        for t in range(T + 1):
            for c in range(n):
                self.exactly_one.append([v for k in range(n) if (v := X((t, c, k)))])
            for k in range(n):
                self.exactly_one.append([v for c in range(n) if (v := X((t, c, k)))])
        for t in range(T):
            moves = []
            for a in range(n):
                for b in neighbours(inst.rows, cols, a):
                    if X((t, a, 0)) and X((t + 1, b, 0)):
                        v = self.new()
                        self.m[t, a, b] = v
                        moves.append(v)
            self.exactly_one.append(moves)
        cl = self.clauses
        for (t, a, b), v in self.m.items():
            cl.append([-v, self.x[t, a, 0]])
            cl.append([-v, self.x[t + 1, b, 0]])
            cl.append([-self.x[t, a, 0], -self.x[t + 1, b, 0], v])
            for k in range(1, n):  # the tile on b slides to a
                src, dst = X((t, b, k)), X((t + 1, a, k))
                if src and dst:
                    cl.append([-v, -src, dst])
                elif src:
                    cl.append([-v, -src])
            if self.no_undo and (t + 1, b, a) in self.m:
                cl.append([-v, -self.m[t + 1, b, a]])
        for t in range(T):
            for c in range(n):
                into = [self.m[t, a, c] for a in neighbours(inst.rows, cols, c) if (t, a, c) in self.m]
                out_of = [self.m[t, c, b] for b in neighbours(inst.rows, cols, c) if (t, c, b) in self.m]
                for k in range(1, n):
                    now, nxt = X((t, c, k)), X((t + 1, c, k))
                    if now:  # tile k stays on c unless the blank enters c
                        cl.append([-now] + ([nxt] if nxt else []) + into)
                    if nxt:  # tile k arrived on c only if the blank left c
                        cl.append([-nxt] + ([now] if now else []) + out_of)
        if self.bound:
            h0 = manhattan(inst)
            self.max_increases = (T - h0) // 2
            for t in range(T):
                inc = None
                for (tt, a, b), v in self.m.items():
                    if tt != t:
                        continue
                    for k in range(1, n):
                        src = X((t, b, k))
                        if src and dist(a, g_at[k]) > dist(b, g_at[k]):
                            if inc is None:
                                inc = self.new()
                                self.increases.append(inc)
                            cl.append([-v, -src, inc])
        return self

    def moves(self, true_m) -> tuple[int, ...]:
        """The tiles moved, from the set of true move variables."""
        board = list(self.inst.start)
        out = []
        for t in range(self.T):
            for (tt, a, b), v in self.m.items():
                if tt == t and v in true_m:
                    k = board[b]
                    board[a], board[b] = k, 0
                    out.append(k)
                    break
        return tuple(out)


def horizons(inst: Sliding, options: dict):
    """The horizons to try, in order, from the Manhattan bound."""
    h0 = manhattan(inst)
    step = 2 if options.get("parity_step", True) else 1
    return range(h0, int(options.get("max_horizon", 90)) + 1, step)


def trivial(inst: Sliding, task: Task) -> Outcome | None:
    """The outcome without a model: unsolvable by parity, or already at the goal."""
    reason = infeasible_reason(inst)
    if reason is not None:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, reason=reason)
    if inst.start == inst.goal:
        return Outcome(Status.OPTIMAL, 0, 1 if task is Task.COUNT else None, ((),), {"model_size": "0"})
    return None


def run(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """sat:time — raise the horizon until SAT; count optimal plans by blocking clauses on m."""
    from . import _sat
    out = trivial(inst, task)
    if out is not None:
        return out
    o = ctx.options
    solver_name, enc = o.get("solver", "cadical195"), o.get("encoding", "seqcounter")
    tried = []
    t0 = time.perf_counter()
    for T in horizons(inst, o):
        plan = Plan(inst, T, o.get("no_undo", True), o.get("manhattan_bound", True),
                    o.get("parity_step", True)).build()
        pool = _sat.IDPool(start_from=plan.nvars + 1)
        clauses = list(plan.clauses)
        for g in plan.exactly_one:
            clauses += _sat.exactly_one(g, pool, enc) if len(g) > 1 else [g]
        bound_enc = enc if enc not in _sat.AMO_ONLY else "seqcounter"  # they encode at-most-one only
        if plan.max_increases is not None:
            clauses += _sat.at_most(plan.increases, plan.max_increases, pool, bound_enc)
        nv = pool.top
        if any(not c for c in clauses):  # a cell or tile with no possible content: UNSAT outright
            tried.append((T, False, 0.0))
            continue
        s = _sat.new_solver(solver_name, clauses)
        try:
            t1 = time.perf_counter()
            res = _sat.solve_limited(s, ctx)
            tried.append((T, None if res is None else bool(res), round(time.perf_counter() - t1, 3)))
            ctx.progress(horizon=T, result={None: "limit", True: "SAT", False: "UNSAT"}[res])
            stats = {**_sat.stats(s, nv, len(clauses)), "horizons": tried,
                     "params": {"sat": {"solver": solver_name, "encoding": enc,
                                              "bound_encoding": bound_enc}}}
            if res is None:
                return Outcome(Status.UNKNOWN, stats=stats, reason=f"time limit at horizon {T}")
            if not res:
                continue
            proj = sorted(plan.m.values())
            first = plan.moves({v for v in proj if s.get_model()[v - 1] > 0})
            ctx.found(first)
            if task is not Task.COUNT:
                stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
                return Outcome(Status.OPTIMAL, T, None, (first,), stats)
            sols = []
            try:
                for true in _sat.enumerate_projected(s, proj, ctx):
                    sols.append(plan.moves(true))
            except TimeoutError:
                return Outcome(Status.UNKNOWN, T, None, tuple(sols), stats, reason="time limit while counting")
            return Outcome(Status.OPTIMAL, T, len(sols), tuple(sols), stats)
        finally:
            s.delete()
    return Outcome(Status.UNKNOWN, stats={"horizons": tried},
                   reason=f"no plan within max_horizon={o.get('max_horizon', 90)} moves")
