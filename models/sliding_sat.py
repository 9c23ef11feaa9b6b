"""Sliding-tile puzzles as time-indexed planning in CNF (python-sat).

The formulation is `models.sliding_time` (planning as satisfiability, Kautz & Selman 1992, with
explanatory frame axioms), compiled by `formulation.to_cnf` with the cardinality encoding chosen
by `encoding` (the Manhattan bound in seqcounter when that encoding does at-most-one only). The
shortest horizon is found by raising T from the Manhattan bound (by 2 with `parity_step`), each
smaller horizon proved UNSAT; optimal plans are counted by enumeration projected on the moves.
"""
from __future__ import annotations

import time

from ..core.result import Context, Outcome, Status, Task
from ..puzzles.sliding import Sliding

from .formulation import to_cnf
from .sliding_time import build, horizons, trivial


def run(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """sat:time — raise the horizon until SAT; count optimal plans by blocking clauses on m."""
    from . import _sat
    out = trivial(inst, task)
    if out is not None:
        return out
    o = ctx.options
    solver_name, enc = o["solver"], o["encoding"]
    bound_enc = enc if enc not in _sat.AMO_ONLY else "seqcounter"  # they encode at-most-one only
    tried = []
    params: dict = {}  # the pinned solver parameters of the last call
    t0 = time.perf_counter()
    for T in horizons(inst, o):
        tm = build(inst, T, o["no_undo"], o["manhattan_bound"], o["parity_step"])
        if tm.empty:  # a cell, tile or step with no possible content: UNSAT outright
            tried.append((T, False, 0.0))
            continue
        cnf = to_cnf(tm.f, enc)
        clauses = list(cnf.clauses)
        b = tm.manhattan_bound()
        if b is not None:
            clauses += _sat.at_most([cnf.id(k) for k in b.keys], b.k, cnf.pool, bound_enc)
        nv = cnf.pool.top
        if any(not c for c in clauses):
            tried.append((T, False, 0.0))
            continue
        s = _sat.new_solver(solver_name, clauses)
        try:
            t1 = time.perf_counter()
            res = _sat.solve_limited(s, ctx)
            tried.append((T, None if res is None else bool(res), round(time.perf_counter() - t1, 3)))
            ctx.progress(horizon=T, result={None: "limit", True: "SAT", False: "UNSAT"}[res])
            stats = {**_sat.stats(s, nv, len(clauses)), "horizons": tried}
            params = {"sat": {"solver": solver_name, "encoding": enc, "bound_encoding": bound_enc}}
            if res is None:
                return Outcome(Status.UNKNOWN, stats=stats, reason=f"time limit at horizon {T}", params=params)
            if not res:
                continue
            proj = cnf.projection_ids()
            model = s.get_model()
            on = set(_sat.true_in(model, proj))
            first = tm.decode({k for k, v in zip(tm.moves, proj) if v in on})
            ctx.found(first)
            if task is not Task.COUNT:
                stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
                return Outcome(Status.OPTIMAL, T, None, (first,), stats, params=params)
            sols = []
            try:
                for true in _sat.enumerate_projected(s, proj, ctx):
                    true = set(true)
                    sols.append(tm.decode({k for k, v in zip(tm.moves, proj) if v in true}))
            except TimeoutError:
                return Outcome(Status.UNKNOWN, T, None, tuple(sols), stats, reason="time limit while counting", params=params)
            return Outcome(Status.OPTIMAL, T, len(sols), tuple(sols), stats, params=params)
        finally:
            s.delete()
    return Outcome(Status.UNKNOWN, stats={"horizons": tried},
                   reason=f"no plan within max_horizon={o['max_horizon']} moves", params=params)
