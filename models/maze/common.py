"""What the calculation-maze CP-SAT formulations share: free edges, exact score bounds, the engine
plumbing (solve, stream, count, restricted models).

Every operation is an affine map x -> m*x + c (m = 1 for +k/-k, c = 0 for *k), so a score step
is one linear equality enforced by the literal that chooses the edge; every score variable gets
the domain [low, high] of `score_bounds`, and a maze whose bounds would overflow CP-SAT's int64
arithmetic is answered UNKNOWN (with the bound) before any model is built.

Formulations: `time_indexed` (time-indexed trail, engine cpsat:time) and `segments` (segments
between multiplications, engine cpsat:segments).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ortools.sat.python import cp_model

from ...core.result import Context, InputError, Outcome, Status, Task
from ...puzzles.maze import Maze

from .. import _cpsat

Affine = tuple[int, int]   # (m, c): the op as x -> m*x + c
LIMIT = 1 << 62            # every linear constraint's |terms| must stay below this (CP-SAT: int64)


def apply(op, s: int) -> int:
    """The score after `op` (the models' own arithmetic; the checker has its own)."""
    c, k = op
    return s + k if c == "+" else s - k if c == "-" else s * k


def affine(op) -> Affine:
    c, k = op
    return (k, 0) if c == "*" else (1, k if c == "+" else -k)


def _phi(y: int, adds: int, prod: int, reset: bool) -> int:
    """Highest score reachable from y with unused additions summing to `adds`, multipliers >= 2
    multiplying to `prod`, and a `*0` among them if `reset`: every op is non-decreasing, and
    below zero multiplying never helps."""
    if reset:
        return (max(y, 0) + adds) * prod
    z = y + adds
    return z * prod if z >= 0 else z


@dataclass(frozen=True)
class Free:
    """The maze after its pre-walked path: unused edges, the score s0 at v0 and bounds on every
    score a walk to the goal passes through (pre-walked and dead-end edges excluded; additions
    counted for the upper bound, subtractions for the lower: x -> -f(-x) maps the one onto the
    other)."""

    edges: tuple[int, ...]     # unused edge ids a walk to the goal can use (dead ends dropped)
    s0: int
    v0: int
    low: int
    high: int
    kmax: int                  # the largest unused multiplier (1 if none)
    cmax: int                  # sum of |c| over unused additions and subtractions

    @property
    def magnitude(self) -> int:
        return max(abs(self.low), abs(self.high))

    def too_big(self) -> str | None:
        """Why CP-SAT cannot hold this maze's scores exactly (None if it can): the widest linear
        constraint, s' = k*s + c or S = T + A, sums |terms| up to (kmax + 2) * bound + cmax."""
        need = (self.kmax + 2) * self.magnitude + self.cmax
        if need < LIMIT:
            return None
        return (f"scores may reach {self.magnitude:.3g} (bound from the unused ops); a step's "
                f"linear constraint would pass CP-SAT's int64 range (2^{need.bit_length() - 1})")


def _live(m: Maze, free: tuple[int, ...], v0: int) -> set[int]:
    """The unused edges a walk from v0 to the goal can use: an edge at a vertex (other than v0 and
    the goal) with one unused edge left leads into a dead end — entered, it can never be left —
    so it is dropped, repeatedly. No walk to the goal uses a dropped edge: the models leave them
    out, and the bounds do not count their ops."""
    inc: dict[int, set[int]] = {}
    for e in free:
        for v in m.edges[e]:
            inc.setdefault(v, set()).add(e)
    todo = [v for v, es in inc.items() if len(es) == 1 and v not in (v0, m.goal)]
    live = set(free)
    while todo:
        v = todo.pop()
        if len(inc[v]) != 1:
            continue
        e = inc[v].pop()
        live.discard(e)
        u = m.edges[e][0] + m.edges[e][1] - v
        inc[u].discard(e)
        if len(inc[u]) == 1 and u not in (v0, m.goal):
            todo.append(u)
    return live


def free_part(m: Maze) -> Free:
    """The usable unused edges, the score after the pre-walked path, and exact score bounds."""
    walked = m.walked
    used = {(min(a, b), max(a, b)) for a, b in zip(walked, walked[1:])}
    eid = {ab: e for e, ab in enumerate(m.edges)}
    s0 = 1
    for a, b in zip(walked, walked[1:]):
        s0 = apply(m.ops[eid[(min(a, b), max(a, b))]], s0)
    free = tuple(e for e, ab in enumerate(m.edges) if ab not in used)
    live = _live(m, free, walked[-1])
    free = tuple(e for e in free if e in live)
    P = sum(m.ops[e][1] for e in live if m.ops[e][0] == "+")
    N = sum(m.ops[e][1] for e in live if m.ops[e][0] == "-")
    prod, kmax, reset = 1, 1, False
    for e in live:
        c, k = m.ops[e]
        if c == "*":
            kmax = max(kmax, k)
            reset |= k == 0
            if k >= 2:
                prod *= k
    return Free(free, s0, walked[-1], -_phi(-s0, N, prod, reset), _phi(s0, P, prod, reset),
                kmax, P + N)


class Stream(cp_model.CpSolverSolutionCallback):
    """Streams each improving walk and the bound while CP-SAT optimises."""

    def __init__(self, model, ctx: Context):
        super().__init__()
        self.m, self.ctx, self.n = model, ctx, 0

    def on_solution_callback(self) -> None:
        self.n += 1
        self.ctx.found(self.m.decode(self.value))
        self.ctx.progress(solutions=self.n, objective=round(self.objective_value),
                          bound=round(self.best_objective_bound))


def block_loop(model: cp_model.CpModel, proj: list, ctx: Context):
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
        return status, projs, {"solve_calls": calls, **_cpsat.model_size(model)}, p


def _count(build, m: Maze, best: int, ctx: Context, stats: dict, params: dict, **kw: Any) -> Outcome:
    """Every walk scoring `best`: enumerate the model's solutions with objective == best,
    projected on the variables that define the walk, each expanded into the walks it stands for."""
    mod = build(m, **kw)
    mod.model.clear_objective()  # enumerate the walks at the optimum, do not optimise again
    mod.model.add(mod.objective == best)
    proj = mod.projection()
    if mod.unique_aux:
        st, projs, est, ep = _cpsat.enumerate_projected(mod.model, proj, ctx.options, ctx)
    else:
        st, projs, est, ep = block_loop(mod.model, proj, ctx)
    stats.update(est)
    params["cpsat_enumerate"] = ep
    walks = []
    for tup in projs:
        vals = dict(zip((v.index for v in proj), tup))
        walks += mod.walks(lambda var, vals=vals: vals[var.index])
    stats["projected_solutions"] = len(projs)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, objective=best, count=len(walks), solutions=tuple(walks),
                       stats=stats, params=params)
    return Outcome(Status.UNKNOWN, objective=best, solutions=tuple(walks), stats=stats,
                   reason="enumeration stopped by the limit", params=params)


def run(build: Callable, m: Maze, task: Task, ctx: Context, **kw: Any) -> Outcome:
    """Build, solve and decode one formulation: `build(m, **kw)` has .formulation (the model as
    data, models/formulation.py), .model (compiled), .objective, .decode, .projection, .walks and
    .unique_aux. Scores past CP-SAT's range: UNKNOWN before building."""
    p = _cpsat.params(ctx.options)
    fp = free_part(m)
    params: dict[str, Any] = {"cpsat": p, **kw}
    stats: dict[str, Any] = {"score_bounds": [fp.low, fp.high]}
    why = fp.too_big()
    if why is not None:
        return Outcome(Status.UNKNOWN, stats=stats, reason=why, params=params)
    mod = build(m, **kw)
    stats.update(_cpsat.model_size(mod.model))
    stats["groups"] = {g: s["constraints"] for g, s in mod.cp.stats()["groups"].items()}
    if task in (Task.OPTIMIZE, Task.COUNT):
        mod.model.maximize(mod.objective)
    else:
        mod.model.clear_objective()
    st, solver = _cpsat.solve(mod.model, p, ctx, Stream(mod, ctx) if task is Task.OPTIMIZE else None)
    stats.update(branches=solver.num_branches, conflicts=solver.num_conflicts,
                 wall=round(solver.wall_time, 3), deterministic_time=round(solver.deterministic_time, 3))
    if st is Status.ERROR:
        return Outcome(Status.ERROR, stats=stats,
                       reason="CP-SAT: model invalid: " + (mod.model.validate() or "no message"), params=params)
    if st in (Status.OPTIMAL, Status.FEASIBLE):
        walk = mod.decode(solver.value)
        if task is Task.FEASIBLE:
            return Outcome(Status.FEASIBLE, solutions=(walk,), stats=stats, params=params)
        if task is Task.COUNT:
            if st is not Status.OPTIMAL:
                return Outcome(Status.UNKNOWN, solutions=(walk,), stats=stats, reason="optimum not proved", params=params)
            return _count(build, m, solver.value(mod.objective), ctx, stats, params, **kw)
        return Outcome(st, objective=solver.value(mod.objective), solutions=(walk,), stats=stats, params=params)
    if st is Status.INFEASIBLE and _reachable(m, fp):
        # OR-tools 9.15's presolve was seen to call a feasible maze model INFEASIBLE (a 10x11 maze,
        # scores ~1e11; feasible with presolve off): a reachable goal makes that claim false
        return Outcome(Status.UNKNOWN, stats=stats, reason="CP-SAT said INFEASIBLE but the goal is "
                       "reachable over unused edges: not trusted (a CP-SAT presolve defect)", params=params)
    return Outcome(st, count=0 if st is Status.INFEASIBLE and task is Task.COUNT else None, stats=stats,
                   reason="no trail reaches the goal" if st is Status.INFEASIBLE else None, params=params)


def _reachable(m: Maze, fp: Free) -> bool:
    """True when the goal is reachable from v0 over the usable edges (then some walk exists)."""
    adj: dict[int, list[int]] = {}
    for e in fp.edges:
        a, b = m.edges[e]
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    seen, todo = {fp.v0}, [fp.v0]
    while todo:
        v = todo.pop()
        for u in adj.get(v, ()):
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return m.goal in seen


def decision(f, objective_key, decode: Callable, m: Maze, bound: int | None, complete: bool = True):
    """The formulation hook's Decision (models/_ext.py) for a formulation `f` built by one of the
    maze models: a maximisation, so `bound` is a lower bound on the score (group "score bound");
    no bound: every walk. `complete`: the model holds every walk (not restricted by a step or
    segment limit), so its optimum is the maze's and no solution in it means none at all (the
    mip: and cpmpy: engines read it as `upper_complete`)."""
    from .._ext import Decision
    from ..formulation import Linear
    fp = free_part(m)
    why = fp.too_big()
    if why is not None:
        raise InputError(why)
    f = f.copy()
    f.objective = None
    if bound is not None:
        f.add("score bound", Linear(((1, objective_key),), bound, max(bound, fp.high)))
    return Decision(f, decode, bound, "no bound" if bound is None else f"score >= {bound}",
                    upper_complete=complete, objective=("max", ((1, objective_key),), 0))


def limited(out: Outcome, restricted: bool) -> Outcome:
    """A restricted model proves nothing about the maze: OPTIMAL -> FEASIBLE, INFEASIBLE -> UNKNOWN."""
    if not restricted:
        return out
    st = {Status.OPTIMAL: Status.FEASIBLE, Status.INFEASIBLE: Status.UNKNOWN}.get(out.status, out.status)
    return Outcome(st, out.objective, out.count, out.solutions, out.stats,
                   (out.reason or "") + " (restricted model)")


