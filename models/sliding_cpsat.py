"""Sliding-tile puzzles as time-indexed planning in CP-SAT.

The same formulation as `models.sliding_sat` (Kautz & Selman's planning as satisfiability with
explanatory frame axioms: x[t,c,k] tile k on cell c after t moves, m[t,a,b] move t takes the blank
from a to b), stated with CP-SAT's native constraints: AddExactlyOne for every cell, tile and step,
clauses as AddBoolOr, and the Manhattan bound "at most (T - h0)/2 moves increase the Manhattan sum"
as one linear constraint. The horizon rises from the Manhattan bound (by 2 with `parity_step`),
each shorter horizon proved infeasible; optimal plans are counted by enumeration projected on the
move variables with one worker.
"""
from __future__ import annotations

import time

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.sliding import Sliding

from .sliding_sat import Plan, horizons, trivial


def build(plan: Plan):
    """A CpModel for the plan; returns (model, the move BoolVars by plan variable)."""
    from ortools.sat.python import cp_model
    model = cp_model.CpModel()
    var = [None] + [model.NewBoolVar(f"v{i}") for i in range(1, plan.nvars + 1)]
    lit = lambda v: var[v] if v > 0 else var[-v].Not()  # noqa: E731
    for g in plan.exactly_one:
        model.AddExactlyOne([var[v] for v in g])
    for c in plan.clauses:
        model.AddBoolOr([lit(v) for v in c])
    if plan.max_increases is not None and plan.increases:
        model.Add(sum(var[v] for v in plan.increases) <= plan.max_increases)
    return model, var


def run(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """cpsat:time — raise the horizon until feasible; count optimal plans by projected enumeration."""
    from . import _cpsat
    out = trivial(inst, task)
    if out is not None:
        return out
    o = ctx.options
    tried = []
    t0 = time.perf_counter()
    for T in horizons(inst, o):
        plan = Plan(inst, T, o.get("no_undo", True), o.get("manhattan_bound", True),
                    o.get("parity_step", True)).build()
        if any(not g for g in plan.exactly_one):
            tried.append((T, False, 0.0))
            continue
        model, var = build(plan)
        p = _cpsat.params(o)
        t1 = time.perf_counter()
        st, solver = _cpsat.solve(model, p, ctx)
        tried.append((T, {Status.OPTIMAL: True, Status.FEASIBLE: True, Status.INFEASIBLE: False}.get(st),
                      round(time.perf_counter() - t1, 3)))
        ctx.progress(horizon=T, result=str(st))
        stats = {"model_size": _cpsat.model_size(model), "horizons": tried,
                 "branches": solver.num_branches, "conflicts": solver.num_conflicts, "params": {"cpsat": p}}
        if st is Status.INFEASIBLE:
            continue
        if st not in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.UNKNOWN if st is Status.UNKNOWN else st, stats=stats,
                           reason=f"CP-SAT {st} at horizon {T}")
        mv = sorted(plan.m.items(), key=lambda kv: kv[1])
        first = plan.moves({v for _, v in mv if solver.BooleanValue(var[v])})
        ctx.found(first)
        if task is not Task.COUNT:
            stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
            return Outcome(Status.OPTIMAL, T, None, (first,), stats)
        proj_ids = [v for _, v in mv]
        est, projs, estats = _cpsat.enumerate_projected(model, [var[v] for v in proj_ids], o, ctx)
        sols = tuple(plan.moves({v for v, val in zip(proj_ids, pr) if val}) for pr in projs)
        stats.update(estats)
        if est is not Status.OPTIMAL:
            return Outcome(Status.UNKNOWN, T, None, sols, stats, reason="limit while counting")
        return Outcome(Status.OPTIMAL, T, len(sols), sols, stats)
    return Outcome(Status.UNKNOWN, stats={"horizons": tried},
                   reason=f"no plan within max_horizon={o.get('max_horizon', 90)} moves")
