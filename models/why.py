"""Why a decision call answers as it does: group cores and group ablation over a formulation's
named constraint groups (`puzzlesat lab core`, `puzzlesat lab ablate`, `Model.core()`).

Vocabulary:

    selector    one fresh Boolean per group; every clause of the group's CNF (its encoding's
                auxiliary clauses included) gets the selector's negation, so assuming the selector
                switches the whole group on and leaving it out switches the group off
    group core  a set of groups whose conjunction is INFEASIBLE. Found by deletion (Marques-Silva,
                "Minimal unsatisfiability: models, algorithms and applications", ISMVL 2010; groups
                as in Liffiton & Sakallah's group MUS): start from the solver's core over the
                selectors; for each group in turn, solve without it — UNSAT: drop it and shrink the
                candidates to the new core (clause-set refinement); SAT: it is necessary. The result
                is minimal: each group left is necessary, because the set it was tested against
                contained the final set, and a subset of a satisfiable set is satisfiable.
    re-check    a fresh solver on only the core's groups (no selectors) must answer UNSAT; with
                `certify`, that solve logs a DRAT proof that the runner checks with
                puzzlesat.certify; and for each group of the core, a fresh solve of the core
                without it must answer SAT, its model checked against every clause (the witness
                that the group is necessary)
    ablation    the decision engine (models/paradigm.py) on a backend of the configuration's kind,
                every decision call's formulation with one optional group left out
                (Formulation.optional: implied constraints, symmetry breaking, dominance)
"""
from __future__ import annotations

import time
from typing import Any, Callable

from ..core.result import Context, InputError, Outcome, Status, Task

from . import _cpsat, _sat
from ._ext import Decision, violated
from .formulation import Formulation, to_cnf, to_cpsat
from .paradigm import Answer, Backend, no_good
from .prooflog import ProofLog

SEL = "group selector"   # the domain key of a selector: (SEL, group name)


def group_core(f: Formulation, ctx: Context, solver: str = "cadical195",
               encoding: str = "seqcounter") -> dict[str, Any]:
    """The group core of `f` (module doc): {'status': INFEASIBLE | FEASIBLE | UNKNOWN, 'core':
    [group...], 'necessary': {group: True}, 'calls': n, 'model': SAT model when FEASIBLE, ...}.
    UNKNOWN (a time limit): 'core' is the smallest infeasible set found so far, not shown minimal."""
    if not f.is_cnf():
        raise InputError(f"lab core: formulation {f.name} has integer variables or Linear "
                         "constraints; group cores are computed on its CNF (the formulations of the "
                         "sat: engines)")
    cnf = to_cnf(f, encoding)
    groups = list(f.groups)
    # the CNF holds each group's clauses consecutively, in group order (Cnf compiles group by group)
    by_group: dict[str, list[list[int]]] = {}
    at = 0
    for g in groups:
        n = cnf.group_stats.get(g, {}).get("clauses", 0)
        by_group[g] = cnf.clauses[at:at + n]
        at += n
    assert at == len(cnf.clauses)
    sel = {g: cnf.id((SEL, g)) for g in groups}
    clauses = [c + [-sel[g]] for g in groups for c in by_group[g]]
    out: dict[str, Any] = {"groups": groups, "calls": 0, "vars": cnf.pool.top,
                           "clauses": len(clauses), "encoding": encoding, "solver": solver,
                           "group_clauses": {g: len(by_group[g]) for g in groups}}
    t0 = time.perf_counter()
    with _sat.new_solver(solver, clauses) as s:
        def unsat_core(cands: list[str]) -> list[str] | None | bool:
            """The groups of a core among `cands` (UNSAT), False (SAT), None (limit)."""
            out["calls"] += 1
            res = _sat.solve_limited(s, ctx, [sel[g] for g in cands])
            if res is None:
                return None
            if res:
                return False
            core = set(s.get_core() or [sel[g] for g in cands])
            return [g for g in cands if sel[g] in core]

        first = unsat_core(groups)
        if first is None:
            return {**out, "status": "UNKNOWN", "core": groups, "reason": "time limit before the "
                    "first answer"}
        if first is False:
            model = s.get_model()
            return {**out, "status": "FEASIBLE", "core": [], "model": model, "cnf": cnf}
        cands = first
        necessary: list[str] = []
        i = 0
        while i < len(cands):
            g = cands[i]
            if g in necessary:
                i += 1
                continue
            rest = [h for h in cands if h != g]
            r = unsat_core(rest)
            if r is None:
                return {**out, "status": "UNKNOWN", "core": cands, "necessary": necessary,
                        "reason": f"time limit while testing group '{g}': the {len(cands)} groups "
                                  "left are infeasible together but not shown minimal",
                        "seconds": round(time.perf_counter() - t0, 4)}
            if r is False:
                necessary.append(g)
                i += 1
            else:
                cands = [h for h in cands if h in r or h in necessary]
                i = 0
        out["shrink_seconds"] = round(time.perf_counter() - t0, 4)
    return {**out, "status": "INFEASIBLE", "core": [g for g in groups if g in cands],
            "dropped": [g for g in groups if g not in cands]}


def recheck(f: Formulation, core: list[str], ctx: Context, log: ProofLog, solver: str,
            encoding: str) -> dict[str, Any]:
    """The core's groups alone, in a fresh solver: UNSAT (proof-logged with `log`), and each group
    necessary: without it, SAT with a model that satisfies every clause."""
    sub = Formulation(f.name, f.source, {g: f.groups[g] for g in core}, f.ints, f.projection)
    cnf = to_cnf(sub, encoding)
    out: dict[str, Any] = {"core_vars": cnf.pool.top, "core_clauses": len(cnf.clauses)}
    with log.solver(cnf.clauses) as s:
        res = _sat.solve_limited(s, ctx)
        if res is False:
            log.unsat(s, cnf.clauses, "the groups " + ", ".join(f"'{g}'" for g in core)
                      + " alone are infeasible", cnf.pool.top)
    out["core_recheck"] = {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[res]
    witnesses = {}
    for g in core:
        part = to_cnf(sub.without(g), encoding)
        with _sat.new_solver(solver, part.clauses) as s2:
            r = _sat.solve_limited(s2, ctx)
            if r:
                bad = violated(part.clauses, s2.get_model())
                witnesses[g] = "SAT (model checked)" if bad is None else f"SAT, but the model violates clause {bad}"
            else:
                witnesses[g] = "UNSAT" if r is False else "UNKNOWN"
    out["without_each"] = witnesses
    return out


def core_engine(decision: Decision, solver: str = "cadical195", encoding: str = "seqcounter"
                ) -> Callable[[Any, Task, Context], Outcome]:
    """An engine (instance, task, ctx) -> Outcome for the runner: the group core of `decision`'s
    formulation. INFEASIBLE with the core in stats['core'] (and, with ctx.options['certify'],
    the proof of the re-check for the runner to check); FEASIBLE with the decoded solution when
    the decision call is feasible (no core: the runner checks the solution)."""
    def run(inst: Any, task: Task, ctx: Context) -> Outcome:
        f = decision.formulation
        log = ProofLog(ctx, solver, f"core-{getattr(inst, 'name', 'instance')}")
        params = {"sat_solver": solver, "encoding": encoding, "bound": decision.bound_text}
        r = group_core(f, ctx, solver, encoding)
        stats = {k: v for k, v in r.items() if k not in ("model", "cnf")}
        stats["group_sizes"] = {g: len(cs) for g, cs in f.groups.items()}
        if r["status"] == "FEASIBLE":
            cnf = r["cnf"]
            sol = decision.decode(cnf.keys_true(r["model"], f.projection))
            return Outcome(Status.FEASIBLE, solutions=(sol,), stats=stats, params=params,
                           reason=f"{decision.bound_text} is feasible: there is no core")
        if r["status"] == "UNKNOWN":
            return Outcome(Status.UNKNOWN, stats=stats, params=params, reason=r.get("reason"))
        stats.update(recheck(f, r["core"], ctx, log, solver, encoding))
        problems = [g for g, w in stats["without_each"].items() if not w.startswith("SAT (")]
        if stats["core_recheck"] != "UNSAT" or problems:
            why = (f"the core re-check answered {stats['core_recheck']}" if stats["core_recheck"] != "UNSAT"
                   else "without " + ", ".join(f"'{g}': {stats['without_each'][g]}" for g in problems))
            st = Status.UNKNOWN if "UNKNOWN" in (stats["core_recheck"], *stats["without_each"].values()) \
                else Status.ERROR
            return Outcome(st, stats=stats, params=params, reason=f"re-check: {why}")
        cert = log.certificate(f"{decision.bound_text} is infeasible: the groups "
                               + ", ".join(f"'{g}'" for g in r["core"]) + " alone admit no solution",
                               f"the CNF of the {f.name} formulation's groups states those rules "
                               f"(cardinality constraints in the {encoding} encoding)")
        return Outcome(Status.INFEASIBLE, stats=stats, params=params, certificate=cert)
    return run


# ---- the families' own backends for the decision engine (ablation) -------------------------------
class SatModel:
    """A formulation's CNF in a python-sat solver (blocking clauses added incrementally)."""

    def __init__(self, f: Formulation, solver: str, encoding: str):
        self.cnf = to_cnf(f, encoding)
        self.s = _sat.new_solver(solver, self.cnf.clauses)
        self.st: dict[str, Any] = {}
        self.proj = [(k, self.cnf.id(k)) for k in f.projection]
        self.blocks = 0

    def solve(self, ctx: Context) -> Answer:
        res = _sat.solve_limited(self.s, ctx)
        _sat.add_stats(self.st, self.s, self.cnf.pool.top, len(self.cnf.clauses) + self.blocks)
        if res is None:
            return Answer(Status.UNKNOWN, reason="time limit")
        if not res:
            return Answer(Status.INFEASIBLE)
        return Answer(Status.OPTIMAL, self.cnf.keys_true(self.s.get_model(), (k for k, _ in self.proj)))

    def block(self, true: set) -> None:
        self.s.add_clause([v if p else -v for (k, p), (_, v) in zip(no_good(true, (k for k, _ in self.proj)), self.proj)])
        self.blocks += 1

    def stats(self) -> dict[str, Any]:
        return dict(self.st)


class CpsatModel:
    """A formulation in CP-SAT (pinned parameters; blocking clauses added between calls)."""

    def __init__(self, f: Formulation, objective: tuple | None, params: dict):
        self.cp = to_cpsat(f)
        self.params = params
        self.objective = objective
        if objective is not None:
            sense, terms, offset = objective
            expr = sum(c * self.cp.var(k) for c, k in terms) + offset
            (self.cp.model.minimize if sense == "min" else self.cp.model.maximize)(expr)
        self.totals = {"conflicts": 0, "branches": 0, "solver_calls": 0}

    def solve(self, ctx: Context) -> Answer:
        st, solver = _cpsat.solve(self.cp.model, self.params, ctx)
        self.totals["conflicts"] += solver.num_conflicts
        self.totals["branches"] += solver.num_branches
        self.totals["solver_calls"] += 1
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            true = {k for k in self.cp.formulation.projection if solver.value(self.cp.vars[k])}
            value = solver.objective_value if self.objective is not None else None
            return Answer(st if self.objective is not None else Status.OPTIMAL, true, value)
        return Answer(st, reason="time limit" if st is Status.UNKNOWN else None)

    def block(self, true: set) -> None:
        keys = self.cp.formulation.projection
        self.cp.model.add_bool_or([self.cp.lit(k, p) for k, p in no_good(true, keys)])

    def stats(self) -> dict[str, Any]:
        return {**_cpsat.model_size(self.cp.model), **self.totals}


def family_backend(kind: str, options: dict[str, Any]) -> Backend:
    """The decision engine's backend for a configuration of kind sat | cpsat (its solver options);
    mip, maxsat, cpmpy: theirs."""
    if kind == "sat":
        solver, enc = options.get("solver", "cadical195"), options.get("encoding", "seqcounter")
        return Backend(f"python-sat {solver}", lambda f, obj: SatModel(f, solver, enc),
                       {"sat_solver": solver, "encoding": enc}, objective=False)
    if kind == "cpsat":
        p = _cpsat.params(options)
        return Backend("CP-SAT", lambda f, obj: CpsatModel(f, obj, p), p, objective=False)
    if kind == "mip":
        from .mip import backend
        return backend(options)
    if kind == "maxsat":
        from .maxsat import backend
        return backend(options)
    if kind == "cpmpy":
        from .cpmpy_bridge import backend
        return backend(options)
    raise InputError(f"lab ablate: no decision backend for engines of kind '{kind}' (sat, cpsat, "
                     "mip, maxsat, cpmpy)")


def ablation_engine(kind: str, drop: tuple[str, ...]) -> Callable[[Any, Task, Context], Outcome]:
    """An engine running the configuration's formulation hook (ctx.options['formulation']) on
    the `kind` backend, every decision call without the groups `drop`."""
    from .paradigm import run as drive

    def run(inst: Any, task: Task, ctx: Context) -> Outcome:
        out = drive(inst, task, ctx, family_backend(kind, ctx.options), drop=drop)
        return out
    return run


__all__ = ["group_core", "recheck", "core_engine", "ablation_engine", "family_backend",
           "SatModel", "CpsatModel"]
