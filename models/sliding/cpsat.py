"""Sliding-tile puzzles as time-indexed planning in CP-SAT.

The formulation is `models.sliding.time_indexed` (Kautz & Selman's planning as satisfiability with
explanatory frame axioms: x[t,c,k] tile k on cell c after t moves, m[t,a,b] move t takes the blank
from a to b), compiled by `formulation.to_cpsat`: AddExactlyOne for every cell, tile and step,
clauses as AddBoolOr, and the Manhattan bound "at most (T - h0)/2 moves increase the Manhattan
sum" as one linear constraint. The horizon rises from the Manhattan bound (by 2 with
`parity_step`), each shorter horizon proved infeasible; optimal plans are counted by enumeration
projected on the move variables with one worker.
"""
from __future__ import annotations

import time

from ...core.result import CertificateClaim, Context, Outcome, Status, Task
from ...puzzles.sliding import Sliding

from ..formulation import to_cpsat
from .time_indexed import TimeModel, build, horizons, trivial


def compile_model(tm: TimeModel):
    """The CpModel of one horizon with the Manhattan bound (a `formulation.CpData`)."""
    data = to_cpsat(tm.f)
    b = tm.manhattan_bound()
    if b is not None and b.keys:
        data.add("manhattan bound", b)
    return data


def run(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """cpsat:time — raise the horizon until feasible; count optimal plans by projected enumeration."""
    from .. import _cpsat
    out = trivial(inst, task)
    if out is not None:
        if ctx.options.get("certify") and out.status is Status.INFEASIBLE:
            from dataclasses import replace
            return replace(out, certificate=CertificateClaim(out.reason, invariant="parity"))
        return out
    if ctx.options.get("certify"):
        from ..cpsat_cnf import run_certified
        return run_certified(inst, task, ctx, "puzzlesat.models.sliding.time_indexed:decision")
    o = ctx.options
    tried = []
    params: dict = {}  # the pinned solver parameters of the last call
    t0 = time.perf_counter()
    for T in horizons(inst, o):
        tm = build(inst, T, o["no_undo"], o["manhattan_bound"], o["parity_step"])
        if tm.empty:
            tried.append((T, False, 0.0))
            continue
        data = compile_model(tm)
        model = data.model
        p = _cpsat.params(o)
        t1 = time.perf_counter()
        st, solver = _cpsat.solve(model, p, ctx)
        tried.append((T, {Status.OPTIMAL: True, Status.FEASIBLE: True, Status.INFEASIBLE: False}.get(st),
                      round(time.perf_counter() - t1, 3)))
        ctx.progress(horizon=T, result=str(st))
        stats = {**_cpsat.model_size(model), "horizons": tried,
                 "branches": solver.num_branches, "conflicts": solver.num_conflicts}
        params = {"cpsat": p}
        if st is Status.INFEASIBLE:
            continue
        if st not in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.UNKNOWN if st is Status.UNKNOWN else st, stats=stats,
                           reason=f"CP-SAT {st} at horizon {T}", params=params)
        first = tm.decode({k for k in tm.moves if solver.BooleanValue(data.vars[k])})
        ctx.found(first)
        if task is not Task.COUNT:
            stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
            return Outcome(Status.OPTIMAL, T, None, (first,), stats, params=params)
        est, projs, estats, ep = _cpsat.enumerate_projected(model, data.projection_vars(), o, ctx)
        params["cpsat_enumerate"] = ep
        sols = tuple(tm.decode({k for k, val in zip(tm.moves, pr) if val}) for pr in projs)
        stats.update(estats)
        if est is not Status.OPTIMAL:
            return Outcome(Status.UNKNOWN, T, None, sols, stats, reason="limit while counting", params=params)
        return Outcome(Status.OPTIMAL, T, len(sols), sols, stats, params=params)
    return Outcome(Status.UNKNOWN, stats={"horizons": tried},
                   reason=f"no plan within max_horizon={o['max_horizon']} moves", params=params)
