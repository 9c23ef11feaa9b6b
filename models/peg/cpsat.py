"""Peg solitaire in CP-SAT: the time-indexed formulation of models/peg/time_indexed.py as Boolean clauses.

Minimum moves by descending decision calls "moves <= K" (each K below the best found so far,
until INFEASIBLE or the corner lower bound is met), by ascending calls from the corner lower bound
(`strategy=ascend`: every INFEASIBLE call raises the proved bound, the first feasible one is the
optimum), or by CP-SAT's own minimisation (`strategy=minimize`). With default parameters CP-SAT
does not solve the 21-hole board in minutes; `linearization_level=0`, one worker and the
clause-style encoding were measured to prove 12. `search=fixed` makes every decision call a
depth-first search in time order: CP-SAT's FIXED_SEARCH over the jump literals j[0][·], j[1][·], …
(lines in board order, true first), with clause learning and the formulation's propagation — with
the Merson counts of peg:merson / peg:ordered that is an IDA*-like search whose bound is the
model's own per-state move count. `presolve=false` turns CP-SAT's presolve off.
Counting enumerates with one worker, projected on the jump variables (default search, presolve on).
"""
from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from ...core.result import Context, Outcome, Status, Task
from ...puzzles.peg import PegInstance, moves, start_lower_bound

from .. import _cpsat
from ..formulation import to_cpsat
from .time_indexed import TimeModel, build as build_time


class PegCpModel:
    """The CP-SAT compilation of the time model (`data`: CpModel + variables by key)."""

    def __init__(self, inst: PegInstance, invariants: bool = True, builder=build_time,
                 search: str = "auto"):
        self.tm: TimeModel = builder(inst, invariants)
        self.data = to_cpsat(self.tm.f)
        self.model = self.data.model
        self.vars = self.data.vars
        if search == "fixed":  # kept by every clone (the strategy is part of the model proto)
            self.model.add_decision_strategy([self.vars[k] for k in self.tm.jump_vars],
                                             cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)

    def bounded(self, k: int) -> cp_model.CpModel:
        """A copy of the model with moves <= k."""
        d = self.data.clone()
        if self.tm.horizon:
            d.add("move counting", *self.tm.bounds(k))
        return d.model

    def decode(self, solver: cp_model.CpSolver):
        true = {k for k in self.tm.jump_vars if solver.value(self.vars[k])}
        return self.tm.decode(true)


def build(inst: PegInstance, builder=build_time, **options: Any) -> PegCpModel:
    """The CP-SAT model of `inst` (`builder`: the formulation, default the time model); option
    `invariants` adds the position-class parities, `search=fixed` the time-order decision strategy
    (the engine's options, defaults filled in by the registry)."""
    return PegCpModel(inst, options["invariants"], builder, options.get("search", "auto"))


SEARCHES = ("auto", "fixed")


def search_params(opts: dict) -> dict[str, Any]:
    """The decision calls' CP-SAT parameters for these engine options (pinned, recorded):
    _cpsat.params plus `search_branching` (AUTOMATIC_SEARCH, or FIXED_SEARCH for search=fixed)
    and `cp_model_presolve`."""
    from ...core.result import InputError
    search = opts.get("search", "auto")
    if search not in SEARCHES:
        raise InputError(f"option search={search!r}: expected one of {', '.join(SEARCHES)}")
    return _cpsat.params(opts, search_branching="FIXED_SEARCH" if search == "fixed" else "AUTOMATIC_SEARCH",
                         cp_model_presolve=bool(opts.get("presolve", True)))


def _solve(model: cp_model.CpModel, p: dict[str, Any], ctx: Context):
    """_cpsat.solve with `search_branching` given by name (the recorded form)."""
    q = {k: v for k, v in p.items() if k != "search_branching"}
    solver = _cpsat.make_solver(q, ctx)
    if "search_branching" in p:
        solver.parameters.search_branching = getattr(solver.parameters, p["search_branching"])
    st = solver.solve(model)
    return _cpsat._STATUS.get(st, Status.ERROR), solver


def run(inst: PegInstance, task: Task, ctx: Context, builder=build_time, count_builder=None,
        hook: str | None = "puzzlesat.models.peg.sat:decision") -> Outcome:
    """Engine `cpsat:time` (other peg formulations pass their `builder`; a formulation whose
    solution set is not the full one — symmetry breaking — passes `count_builder`, the model the
    count enumerates over; `hook`: the formulation hook certify solves as CNF)."""
    opts = ctx.options
    if opts.get("certify") and hook is not None:
        from ..cpsat_cnf import run_certified
        return run_certified(inst, task, ctx, hook)
    pm = build(inst, builder, **opts)
    p = search_params(opts)
    stats: dict[str, Any] = {**_cpsat.model_size(pm.model)}
    params: dict[str, Any] = {"cpsat": p}
    if pm.tm.horizon == 0:
        ok = inst.solved_at_start
        return Outcome(Status.OPTIMAL if ok else Status.INFEASIBLE, 0 if ok else None,
                       1 if ok and task is Task.COUNT else None, ((),) if ok else (), stats, params=params)
    if task is Task.FEASIBLE:
        st, solver = _solve(pm.model, p, ctx)
        stats.update(conflicts=solver.num_conflicts, branches=solver.num_branches)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.FEASIBLE, None, None, (pm.decode(solver),), stats, params=params)
        return Outcome(st, stats=stats, params=params)
    best, best_sol, proved = _minimise(pm, p, ctx, opts["strategy"], stats)
    if best is None:
        return Outcome(Status.INFEASIBLE if proved else Status.UNKNOWN, stats=stats, params=params)
    if not proved:
        return Outcome(Status.FEASIBLE, best, None, (best_sol,), stats, params=params)
    if task is Task.OPTIMIZE:
        return Outcome(Status.OPTIMAL, best, None, (best_sol,), stats, params=params)
    if count_builder is not None:
        pm = build(inst, count_builder, **opts)  # the enumeration's model_size is recorded below
    model = pm.bounded(best)
    proj = [model.get_bool_var_from_proto_index(pm.vars[k].index) for k in pm.tm.jump_vars]
    st, projs, est, ep = _cpsat.enumerate_projected(model, proj, opts, ctx)
    stats.update({k: v for k, v in est.items() if k not in ("conflicts", "branches")})
    for k in ("conflicts", "branches"):  # totals over every solver call; the enumeration's own
        stats[f"enumeration_{k}"] = est[k]
        stats[k] = stats.get(k, 0) + est[k]
    params["cpsat_enumerate"] = ep
    keys = pm.tm.jump_vars
    sols = tuple(pm.tm.decode({keys[i] for i, v in enumerate(pr) if v}) for pr in projs)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, best, len(sols), sols, stats, params=params)
    return Outcome(Status.UNKNOWN, best, None, sols, stats, reason="enumeration stopped by the limit", params=params)


def _minimise(pm: PegCpModel, p: dict, ctx: Context, strategy: str, stats: dict):
    """(best moves, its solution, proved?) by descending decisions or by minimisation."""
    lb = start_lower_bound(pm.tm.inst)
    if strategy == "minimize":
        m = pm.model.clone()
        m.minimize(sum(m.get_bool_var_from_proto_index(pm.vars[k].index) for k in pm.tm.move_vars))
        st, solver = _solve(m, p, ctx)
        stats.update(conflicts=solver.num_conflicts, branches=solver.num_branches)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            sol = pm.decode(solver)
            ctx.found(sol)
            return moves(sol), sol, st is Status.OPTIMAL
        return None, None, st is Status.INFEASIBLE
    calls: list[dict] = []

    def decide(k: int):
        """One decision call moves <= k: (status, solver), recorded in `calls` and the totals."""
        st, solver = _solve(pm.bounded(k), p, ctx)
        calls.append({"moves_le": k, "status": str(st), "seconds": round(solver.wall_time, 3),
                      "conflicts": solver.num_conflicts, "branches": solver.num_branches})
        stats["conflicts"] = stats.get("conflicts", 0) + solver.num_conflicts
        stats["branches"] = stats.get("branches", 0) + solver.num_branches
        ctx.progress(bound=k, status=str(st))
        return st, solver

    if strategy == "ascend":
        k = lb
        while k <= pm.tm.horizon:  # moves never exceed jumps
            st, solver = decide(k)
            if st in (Status.OPTIMAL, Status.FEASIBLE):
                sol = pm.decode(solver)
                ctx.found(sol)
                stats["decisions"] = calls
                return moves(sol), sol, True  # every smaller bound was refuted
            if st is not Status.INFEASIBLE:
                stats["decisions"] = calls
                return None, None, False
            stats["lower_bound"] = k + 1
            k += 1
        stats["decisions"] = calls
        return None, None, True
    best, best_sol = None, None
    k = pm.tm.horizon  # moves never exceed jumps
    while k >= lb:
        st, solver = decide(k)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            best_sol = pm.decode(solver)
            best = moves(best_sol)
            ctx.found(best_sol)
            k = best - 1
        elif st is Status.INFEASIBLE:
            stats["decisions"] = calls
            return best, best_sol, True
        else:
            stats["decisions"] = calls
            return best, best_sol, False
    stats["decisions"] = calls
    return best, best_sol, True  # the best meets the lower bound
