"""Sliding-tile puzzles as time-indexed planning in CNF (python-sat).

The formulation is `models.sliding.time_indexed` (planning as satisfiability, Kautz & Selman 1992, with
explanatory frame axioms), compiled by `formulation.to_cnf` with the cardinality encoding chosen
by `encoding` (the Manhattan bound in seqcounter when that encoding does at-most-one only). The
shortest horizon is found by raising T from the Manhattan bound (by 2 with `parity_step`), each
smaller horizon proved UNSAT; optimal plans are counted by enumeration projected on the moves.
"""
from __future__ import annotations

import time

from ...core.result import CertificateClaim, Context, Outcome, Status, Task
from ...puzzles.sliding import Sliding

from ..formulation import to_cnf
from ..prooflog import ProofLog, blocking, not_certifiable
from .time_indexed import build, horizons, trivial


def run(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """sat:time — raise the horizon until SAT; count optimal plans by blocking clauses on m."""
    from .. import _sat
    o = ctx.options
    log = ProofLog(ctx, o["solver"], f"sliding-{getattr(inst, 'name', 'instance')}")
    out = trivial(inst, task)
    if out is not None:
        if log.on:
            from dataclasses import replace
            out = replace(out, certificate=CertificateClaim(out.reason, invariant="parity")
                          if out.status is Status.INFEASIBLE else not_certifiable(
                              "no solver call: the start is the goal"))
        return out
    solver_name, enc = o["solver"], o["encoding"]
    bound_enc = enc if enc not in _sat.AMO_ONLY else "seqcounter"  # they encode at-most-one only
    tried = []
    refuted: list[int] = []  # horizons a solver refuted (with certify: each with its proof)
    trusted = ("the CNF of horizon T states 'a plan of exactly T moves' (models.sliding.time_indexed; "
               "cross-validated against the native searches); horizons below the Manhattan bound "
               + ("and of the other parity (parity_step) " if o["parity_step"] else "")
               + "are ruled out by those arguments, not by a proof")
    params: dict = {}  # the pinned solver parameters of the last call
    t0 = time.perf_counter()
    for T in horizons(inst, o):
        tm = build(inst, T, o["no_undo"], o["manhattan_bound"], o["parity_step"])
        if tm.empty:  # a cell, tile or step with no possible content: UNSAT outright
            tried.append((T, False, 0.0))
            trusted += f"; horizon {T}: the model builder found a cell, tile or step with no content"
            continue
        cnf = to_cnf(tm.f, enc)
        clauses = list(cnf.clauses)
        b = tm.manhattan_bound()
        if b is not None:
            clauses += _sat.at_most([cnf.id(k) for k in b.keys], b.k, cnf.pool, bound_enc)
        nv = cnf.pool.top
        if any(not c for c in clauses):
            tried.append((T, False, 0.0))
            trusted += f"; horizon {T}: an empty clause in the CNF"
            continue
        s = log.solver(clauses)
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
                log.unsat(s, clauses, f"no plan of exactly {T} moves", nv)
                refuted.append(T)
                continue
            proj = cnf.projection_ids()
            model = s.get_model()
            on = set(_sat.true_in(model, proj))
            first = tm.decode({k for k, v in zip(tm.moves, proj) if v in on})
            ctx.found(first)
            done = ("no plan of " + ", ".join(map(str, refuted)) + " moves" if refuted
                    else "no horizon below it was tried")
            if task is not Task.COUNT:
                stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
                cert = log.certificate(f"minimum {T} moves: the plan found has {T}; {done}", trusted)
                if cert is not None and not refuted:
                    cert = not_certifiable(f"the optimum {T} is the Manhattan lower bound: no "
                                           "horizon below it was a solver call, so there is no "
                                           "refutation (the bound is the argument)")
                return Outcome(Status.OPTIMAL, T, None, (first,), stats, params=params,
                               certificate=cert)
            sols, trues = [], [on]
            try:
                for true in _sat.enumerate_projected(s, proj, ctx):
                    true = set(true)
                    trues.append(true)
                    sols.append(tm.decode({k for k, v in zip(tm.moves, proj) if v in true}))
            except TimeoutError:
                return Outcome(Status.UNKNOWN, T, None, tuple(sols), stats, reason="time limit while counting", params=params)
            cert = None
            if log.on:  # enumerate_projected repeats the first model: blocked once
                blocks = {tuple(blocking(t, proj)) for t in trues}
                log.refute(clauses + [list(b) for b in blocks],
                           f"no plan of {T} moves beyond the {len(blocks)} blocked (blocking "
                           f"clauses over the {len(proj)} move variables, which define a plan)", nv)
                cert = log.certificate(f"exactly {len(sols)} plans of the minimum {T} moves; {done}",
                                       trusted, blocking=len(blocks))
            return Outcome(Status.OPTIMAL, T, len(sols), tuple(sols), stats, params=params,
                           certificate=cert)
        finally:
            s.delete()
    return Outcome(Status.UNKNOWN, stats={"horizons": tried},
                   reason=f"no plan within max_horizon={o['max_horizon']} moves", params=params)
