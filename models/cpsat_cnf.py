"""Certified `cpsat:*` answers: CP-SAT solves the engine's formulation in its CNF form and writes
LRAT for each refutation, which the runner checks with puzzlesat.certify.

CP-SAT writes LRAT only for models that are pure clauses (OR-tools 9.15, `output_lrat_proof`,
presolve off, one worker). A `cpsat:*` engine with `certify=True` therefore does not run its own
CpModel (linear constraints, integer variables): it takes the engine's formulation hook (the
Decision that `ext:dimacs` and `export` read), compiles each decision call to CNF
(`models.formulation.to_cnf`, cardinality constraints in the encoding of option `cnf_encoding`),
and gives CP-SAT exactly those clauses (`models.proofs.prove(solver="cpsat")`: BoolOr
constraints, its LRAT files in a private folder, converted to text LRAT against the CNF). A SAT
answer's model is checked against every clause before it is decoded; an UNSAT answer keeps its
CNF and LRAT in the run folder for the runner to check.

    OPTIMIZE / FEASIBLE   the decision calls of `models._ext._search` (descending from a found
                          solution, the bound below the best always called: its refutation is
                          the proof; or ascending from the formulation's lower bound)
    COUNT                 the optimum as above (families with an objective), then at the optimum
                          one CP-SAT call per solution, each adding a blocking clause over the
                          projection variables, until the call that answers UNSAT: its proof
                          refutes the CNF plus the N blocking clauses
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from typing import Any

from ..core.result import CertificateClaim, Context, Outcome, ProofArtifact, Status, Task
from ._ext import SAT, UNKNOWN, UNSAT, Decision, _search, call_hook, dimacs_text, violated
from .formulation import to_cnf


def route(hook: str, encoding: str, seed: int) -> str:
    """The params entry that says how the answer was computed."""
    return (f"CP-SAT on the CNF form of {hook} (cardinality encoding {encoding}): pure clauses, "
            f"presolve off, one worker, seed {seed}, LRAT output; the engine's CpModel was not used")


def run_certified(inst: Any, task: Task, ctx: Context, hook: str) -> Outcome:
    """The answer of a `cpsat:*` engine with certify=True: CP-SAT on the CNF of `hook`'s
    decision calls, one LRAT proof per refuted call (see the module docstring)."""
    from .proofs import prove
    opts = ctx.options
    enc, seed = opts.get("cnf_encoding", "seqcounter"), int(opts.get("seed", 0))
    params = {"certify_route": route(hook, enc, seed), "cnf_encoding": enc, "formulation": hook,
              "cpsat_cnf": {"num_workers": 1, "cp_model_presolve": False, "random_seed": seed,
                            "output_lrat_proof": True, "check_lrat_proof": True}}
    stats: dict[str, Any] = {"decisions": []}
    base = opts.get("proof_dir") or tempfile.gettempdir()
    folder = tempfile.mkdtemp(prefix=f"puzzlesat-proof-cpsat-{getattr(inst, 'name', 'run')}-", dir=base)
    proofs: list[dict] = []

    def call(clauses, cnf_like, what: str) -> tuple[str, list[int]]:
        """One CP-SAT call on `cnf_like` (clauses, pool.top), `what` its bound ('' for none)."""
        k = len(stats["decisions"]) + 1
        path, proof = os.path.join(folder, f"{k}.cnf"), os.path.join(folder, f"{k}.lrat")
        rem = ctx.remaining()
        if rem is not None and rem <= 0:
            return UNKNOWN, []
        with open(path, "w") as fh:
            fh.write(dimacs_text(cnf_like, [f"puzzlesat {getattr(inst, 'name', '?')}", what or "no bound"]))
        r = prove(path, proof, solver="cpsat", seed=seed, time_limit=rem)
        stats["decisions"].append({"bound": what, "result": r.status, "seconds": r.solve_seconds})
        ctx.progress(bound=what, result=r.status)
        if r.status == UNSAT:
            proofs.append({"claim": f"no solution {what}".strip(),
                           "cnf": path, "proof": proof,
                           "format": "lrat", "solver": "cpsat", "solve_seconds": r.solve_seconds,
                           "producer_check": r.producer_check})
            return UNSAT, []
        os.unlink(path)
        if r.status != SAT:
            return UNKNOWN, []
        bad = violated(clauses, r.model)
        if bad is not None:
            raise ValueError(f"CP-SAT claims SAT for {what}, but its model violates clause "
                             f"{bad + 1} of {len(clauses)}")
        return SAT, r.model

    def decide(bound: int | None, t: Task = task) -> tuple[str, Any, Decision]:
        d = call_hook(hook, inst, t, opts, bound)
        cnf = to_cnf(d.formulation, enc)
        stats.update(vars=cnf.pool.top, clauses=len(cnf.clauses))
        res, model = call(cnf.clauses, cnf, f"with {d.bound_text}" if d.bound is not None else "")
        if res != SAT:
            return res, None, d
        return SAT, d.decode(cnf.keys_true(model, d.formulation.projection)), d

    try:
        if task is Task.COUNT:
            out = _count(inst, ctx, hook, opts, enc, decide, call, stats)
        else:
            out = _search(task, ctx, decide, call_hook(hook, inst, task, opts, None), stats, True)
    except ValueError as e:
        out = Outcome(Status.ERROR, stats=stats, reason=str(e))
    claim = {Status.INFEASIBLE: "no solution",
             Status.OPTIMAL: (f"exactly {out.count} solution{'' if out.count == 1 else 's'}" + (f" with objective {out.objective}"
                              if out.objective is not None else "")) if task is Task.COUNT else
             f"optimum {out.objective}: the solution found, and no better one in the decision "
             "calls refuted"}.get(out.status, str(out.status))
    counted = task is Task.COUNT and out.status in (Status.OPTIMAL, Status.INFEASIBLE)
    cert = CertificateClaim(claim, tuple(ProofArtifact.from_json(p) for p in proofs),
                            f"the CNF of the {hook} formulation states the puzzle (cross-validated); "
                            "bounds below the formulation's lower bound rest on that bound",
                            None if folder is None else str(folder), (out.count or 0) if counted else None,
                            extra={"route": params["certify_route"]})
    if not proofs and out.status is Status.OPTIMAL and task is not Task.COUNT:
        cert = CertificateClaim.refusal(f"the optimum {out.objective} is the formulation's lower "
                                        "bound: no decision call was refuted (the bound is the argument)")
    return replace(out, params={**params, **(out.params or {})}, certificate=cert)


def _count(inst, ctx: Context, hook: str, opts: dict, enc: str, decide, call, stats) -> Outcome:
    """COUNT: the optimum by decision calls (no solution reported from them), then every
    solution at the optimum, then the refutation of the CNF with their blocking clauses."""
    d0 = call_hook(hook, inst, Task.COUNT, opts, None)
    objective = None
    if d0.bound is not None:  # a family with an objective: first its optimum
        quiet = ctx.sub(opts)
        quiet._found = None  # the optimisation's solutions are not the count's
        best = _search(Task.OPTIMIZE, quiet, lambda b: decide(b, Task.OPTIMIZE),
                       call_hook(hook, inst, Task.OPTIMIZE, opts, None), stats, True)
        if best.status is not Status.OPTIMAL:
            return replace(best, count=0 if best.status is Status.INFEASIBLE else None,
                           solutions=())
        objective = best.objective
    d = call_hook(hook, inst, Task.COUNT, opts, objective)
    cnf = to_cnf(d.formulation, enc)
    proj = cnf.projection_ids()
    clauses = list(cnf.clauses)
    sols = []
    what = f"with {d.bound_text} " if d.bound is not None else ""
    while True:
        blocked = _Cnf(clauses, cnf.pool.top)
        res, model = call(clauses, blocked, f"{what}beyond the {len(sols)} blocked (blocking "
                          f"clauses over the {len(proj)} projection variables, which define a solution)")
        if res == UNKNOWN:
            return Outcome(Status.UNKNOWN, objective, None, tuple(sols), stats, reason="time limit")
        if res == UNSAT:
            break
        sol = d.decode(cnf.keys_true(model, d.formulation.projection))
        sols.append(sol)
        ctx.found(sol)
        true = {v for v in model if v > 0}
        clauses.append([-v if v in true else v for v in proj])
    if not sols:
        return Outcome(Status.INFEASIBLE, None, 0, (), stats)
    return Outcome(Status.OPTIMAL, objective, len(sols), tuple(sols), stats)


class _Cnf:
    """Clauses and a variable count, in the shape dimacs_text reads."""

    def __init__(self, clauses, top: int):
        self.clauses = clauses
        self.pool = type("Pool", (), {"top": top})()
