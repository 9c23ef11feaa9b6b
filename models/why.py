"""Why a decision call answers as it does: group cores and group ablation over a formulation's
named constraint groups (`puzzlesat lab core`, `puzzlesat lab ablate`, `Model.core()`).

Vocabulary:

    selector    one fresh Boolean per group; every clause of the group's CNF (its encoding's
                auxiliary clauses included) gets the selector's negation, so assuming the selector
                switches the whole group on and leaving it out switches the group off
    group core  a set of groups whose conjunction is INFEASIBLE. Found by deletion (Marques-Silva,
                "Minimal unsatisfiability: models, algorithms and applications", ISMVL 2010; groups
                as in Liffiton & Sakallah's group MUS) in ONE incremental solver (learnt clauses
                carry over): start from the solver's failed assumptions (its core over the
                selectors); for each group in turn, solve without it — UNSAT: drop it and shrink
                the candidates to the new failed-assumption core (clause-set refinement); SAT: it
                is necessary, and the model is kept as the witness. The result is minimal: each
                group left is necessary, because the set it was tested against contained the
                final set, and a subset of a satisfiable set is satisfiable.
    call limit  optional CPU seconds per deletion call (solved in slices of CHUNK conflicts, the
                limit checked between slices: cadical195 cannot be interrupted). A group whose call
                hits it is *undecided*: kept in the core (so the core stays infeasible) and
                reported as such — the core is then not claimed minimal, never wrongly so.
    re-check    what the answer rests on, checked apart from the search: the core's groups alone
                (the same clauses, no selectors) in a fresh solver must answer UNSAT — with
                `certify` that one solve logs a DRAT proof, checked by the runner with
                puzzlesat.certify (the search's own calls log nothing: a dropped group needs no
                proof, the final core's refutation covers every superset); and each necessary
                group's witness, the model found without it, must satisfy every clause of the
                core's other groups
    ablation    the decision engine (models/paradigm.py) on a backend of the configuration's kind,
                every decision call's formulation with one optional group left out
                (Formulation.optional: implied constraints, symmetry breaking, dominance)
"""
from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from ..core.result import Context, InputError, Outcome, Status, Task

from . import _cpsat, _sat
from ._ext import Decision, violated
from .formulation import Formulation, to_cnf, to_cpsat
from .paradigm import Answer, Backend, no_good
from .prooflog import ProofLog

SEL = "group selector"   # the domain key of a selector: (SEL, group name)
CHUNK = 20_000           # conflicts per slice of a budgeted call (~1-2 s of CDCL on the peg models)


def budgeted_solve(s: Any, ctx: Context, assumptions: Sequence[int], cpu_limit: float | None,
                   chunk: int = CHUNK) -> bool | None:
    """True/False, or None when `cpu_limit` CPU seconds of this call (None: no per-call limit) or
    the run's time limit passed first. Solved in slices of `chunk` conflicts (every python-sat
    solver here takes a conflict budget, cadical195 included, which cannot be interrupted), the
    limits checked before each slice; learnt clauses carry over from slice to slice."""
    t0 = time.process_time()
    while True:
        if ctx.expired() or (cpu_limit is not None and time.process_time() - t0 >= cpu_limit):
            return None
        try:
            s.conf_budget(chunk)
        except NotImplementedError:  # no budget (lingeling): one call, the run's limit stops it
            return _sat.solve_limited(s, ctx, assumptions)
        res = s.solve_limited(assumptions=list(assumptions))
        if res is not None:
            return res


def _conflicts(s: Any) -> int | None:
    try:
        return int((s.accum_stats() or {}).get("conflicts"))
    except Exception:
        return None


def group_core(f: Formulation, ctx: Context, solver: str = "cadical195",
               encoding: str = "seqcounter", call_limit: float | None = None,
               chunk: int = CHUNK) -> dict[str, Any]:
    """The group core of `f` (module doc): {'status': INFEASIBLE | FEASIBLE | UNKNOWN, 'core':
    [group...], 'necessary': [group...], 'undecided': [group...], 'witnesses': {group: model},
    'log': one entry per solver call, 'model' (FEASIBLE), 'by_group': the CNF's clauses by group}.
    INFEASIBLE: the core's groups together were answered UNSAT; each group in 'necessary' has a
    model of the core's other groups (in 'witnesses'); a group in 'undecided' hit `call_limit`
    (CPU seconds per call), so the core is minimal only when 'undecided' is empty. UNKNOWN: the
    run's time limit came first ('core': the smallest set answered UNSAT so far, if any)."""
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
    log: list[dict[str, Any]] = []
    out: dict[str, Any] = {"groups": groups, "vars": cnf.pool.top, "clauses": len(clauses),
                           "encoding": encoding, "solver": solver, "call_limit": call_limit,
                           "group_clauses": {g: len(by_group[g]) for g in groups},
                           "log": log, "by_group": by_group, "nvars": cnf.pool.top}
    t0 = time.process_time()
    with _sat.new_solver(solver, clauses) as s:
        def call(cands: list[str], without: str | None) -> list[str] | None | bool:
            """The groups of a core among `cands` (UNSAT), False (SAT), None (a limit)."""
            c0, k0 = time.process_time(), _conflicts(s)
            limit = None if without is None else call_limit
            res = budgeted_solve(s, ctx, [sel[g] for g in cands], limit, chunk)
            k1 = _conflicts(s)
            log.append({"without": without, "groups": len(cands),
                        "answer": {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[res],
                        "cpu_seconds": round(time.process_time() - c0, 3),
                        "conflicts": None if k0 is None or k1 is None else k1 - k0})
            ctx.progress(calls=len(log), last=log[-1])
            if res is None:
                return None
            if res:
                return False
            core = set(s.get_core() or [sel[g] for g in cands])
            return [g for g in cands if sel[g] in core]

        def done(status: str, **extra: Any) -> dict[str, Any]:
            return {**out, "status": status, "calls": len(log),
                    "search_cpu_seconds": round(time.process_time() - t0, 3), **extra}

        first = call(groups, None)
        if first is None:
            return done("UNKNOWN", core=[], reason="time limit before the first answer (all groups "
                        "together)")
        if first is False:
            return done("FEASIBLE", core=[], model=s.get_model(), cnf=cnf)
        cands = first
        necessary: list[str] = []
        undecided: list[str] = []
        witnesses: dict[str, list[int]] = {}
        i = 0
        while i < len(cands):
            g = cands[i]
            if g in necessary or g in undecided:
                i += 1
                continue
            if ctx.expired():
                break
            r = call([h for h in cands if h != g], g)
            if r is None:
                undecided.append(g)   # this group's call hit its limit: keep it, say so
                i += 1
            elif r is False:
                necessary.append(g)
                witnesses[g] = s.get_model()
                i += 1
            else:                     # still UNSAT without g: drop it, shrink to the new core
                cands = [h for h in cands if h in r or h in necessary or h in undecided]
                i = 0
        core = [g for g in groups if g in cands]
        untested = [g for g in core if g not in necessary and g not in undecided]
        if untested:   # the run's time limit: what is known so far, not a result
            return done("UNKNOWN", core=core, necessary=[g for g in core if g in necessary],
                        undecided=[g for g in core if g not in necessary],
                        dropped=[g for g in groups if g not in cands],
                        reason=f"time limit while testing group '{untested[0]}': the "
                               f"{len(core)} groups left answered UNSAT together, "
                               f"{len(necessary)} of them shown necessary so far")
    return done("INFEASIBLE", core=core, necessary=[g for g in core if g in necessary],
                undecided=[g for g in core if g in undecided],
                dropped=[g for g in groups if g not in cands], witnesses=witnesses)


def recheck(r: dict[str, Any], ctx: Context, log: ProofLog) -> dict[str, Any]:
    """What a core's claims rest on, checked apart from the search: the core's groups alone (the
    same clauses, no selectors) UNSAT in a fresh solver (proof-logged with `log`: with certify,
    its DRAT proof goes to the runner's check); each necessary group's witness, the model the
    search found without it, checked against every clause of the core's other groups."""
    core, by_group = r["core"], r["by_group"]
    clauses = [c for g in core for c in by_group[g]]
    out: dict[str, Any] = {"core_vars": len({abs(x) for c in clauses for x in c}),
                           "core_clauses": len(clauses)}
    c0 = time.process_time()
    with log.solver(clauses) as s:   # in slices, so the run's time limit stops it with a report
        res = budgeted_solve(s, ctx, [], None)
        if res is False:
            log.unsat(s, clauses, "the groups " + ", ".join(f"'{g}'" for g in core)
                      + " alone are infeasible", r["nvars"])
    out["core_recheck"] = {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[res]
    out["recheck_cpu_seconds"] = round(time.process_time() - c0, 3)
    witnesses = {}
    for g in core:
        if g not in r["witnesses"]:
            witnesses[g] = "UNKNOWN (call limit)"
            continue
        rest = [c for h in core if h != g for c in by_group[h]]
        bad = violated(rest, r["witnesses"][g])
        witnesses[g] = ("SAT (model checked)" if bad is None
                        else f"SAT, but the model violates clause {rest[bad]}")
    out["without_each"] = witnesses
    return out


def core_engine(decision: Decision, solver: str = "cadical195", encoding: str = "seqcounter",
                call_limit: float | None = None) -> Callable[[Any, Task, Context], Outcome]:
    """An engine (instance, task, ctx) -> Outcome for the runner: the group core of `decision`'s
    formulation. INFEASIBLE with the core in stats['core'] (and, with ctx.options['certify'],
    the proof of the re-check for the runner to check; stats['undecided'] non-empty: the core is
    not shown minimal); FEASIBLE with the decoded solution when the decision call is feasible (no
    core: the runner checks the solution); UNKNOWN at the run's time limit, with what is known."""
    def run(inst: Any, task: Task, ctx: Context) -> Outcome:
        f = decision.formulation
        log = ProofLog(ctx, solver, f"core-{getattr(inst, 'name', 'instance')}")
        params = {"sat_solver": solver, "encoding": encoding, "bound": decision.bound_text,
                  "call_limit_cpu_seconds": call_limit, "conflicts_per_slice": CHUNK}
        r = group_core(f, ctx, solver, encoding, call_limit)
        stats = {k: v for k, v in r.items() if k not in ("model", "cnf", "by_group", "witnesses")}
        stats["group_sizes"] = {g: len(cs) for g, cs in f.groups.items()}
        if r["status"] == "FEASIBLE":
            cnf = r["cnf"]
            sol = decision.decode(cnf.keys_true(r["model"], f.projection))
            return Outcome(Status.FEASIBLE, solutions=(sol,), stats=stats, params=params,
                           reason=f"{decision.bound_text} is feasible: there is no core")
        if r["status"] == "UNKNOWN":
            return Outcome(Status.UNKNOWN, stats=stats, params=params, reason=r.get("reason"))
        stats.update(recheck(r, ctx, log))
        problems = [g for g, w in stats["without_each"].items()
                    if g not in r["undecided"] and not w.startswith("SAT (")]
        if stats["core_recheck"] != "UNSAT" or problems:
            why = (f"the core re-check answered {stats['core_recheck']}" if stats["core_recheck"] != "UNSAT"
                   else "without " + ", ".join(f"'{g}': {stats['without_each'][g]}" for g in problems))
            st = Status.UNKNOWN if stats["core_recheck"] == "UNKNOWN" and not problems else Status.ERROR
            return Outcome(st, stats=stats, params=params, reason=f"re-check: {why}")
        stats["minimal"] = not r["undecided"]
        reason = None
        if r["undecided"]:
            reason = ("a core, not shown minimal: whether " + ", ".join(f"'{g}'" for g in r["undecided"])
                      + f" {'is' if len(r['undecided']) == 1 else 'are'} needed is unknown (the call "
                      f"without {'it' if len(r['undecided']) == 1 else 'each'} hit the limit of "
                      f"{call_limit:g} CPU seconds)")
        cert = log.certificate(f"{decision.bound_text} is infeasible: the groups "
                               + ", ".join(f"'{g}'" for g in r["core"]) + " alone admit no solution",
                               f"the CNF of the {f.name} formulation's groups states those rules "
                               f"(cardinality constraints in the {encoding} encoding)")
        return Outcome(Status.INFEASIBLE, stats=stats, params=params, certificate=cert, reason=reason)
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
