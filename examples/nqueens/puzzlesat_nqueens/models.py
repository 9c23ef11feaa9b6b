"""Models: CP-SAT (an integer per row, AllDifferent on columns and diagonals — the classic
formulation, e.g. the OR-tools N-queens example) and SAT (a Boolean per cell with cardinality
constraints from PySAT). Counting enumerates projected on the variables that define a solution,
CP-SAT with one worker; both go through puzzlesat.engine's helpers."""
from __future__ import annotations

from puzzlesat import Context, Outcome, Status, Task
from puzzlesat.engine import (AtMostOne, Clause, Decision, ExactlyOne, Formulation, cpsat_enumerate,
                              cpsat_solve, sat_enumerate)

from .puzzle import Queens


def run_cpsat(inst: Queens, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:rows."""
    from ortools.sat.python import cp_model
    n = inst.n
    m = cp_model.CpModel()
    q = [m.new_int_var(0, n - 1, f"q{r}") for r in range(n)]
    m.add_all_different(q)
    m.add_all_different([q[r] + r for r in range(n)])
    m.add_all_different([q[r] - r for r in range(n)])
    for r, c in inst.fixed:
        m.add(q[r] == c)
    params = {"num_workers": 1 if task is Task.COUNT else ctx.options["workers"]}
    stats = {"vars": n, "constraints": len(m.proto.constraints)}
    if task is Task.FEASIBLE:
        st, solver = cpsat_solve(m, ctx, **params)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.FEASIBLE, solutions=(tuple(solver.value(v) for v in q),),
                           stats=stats, params={"cpsat": params})
        return Outcome(st, stats=stats, params={"cpsat": params})
    st, sols = cpsat_enumerate(m, q, ctx)
    return Outcome(st, count=len(sols) if st is Status.OPTIMAL else None, solutions=tuple(sols),
                   stats=stats, params={"cpsat": {"num_workers": 1, "enumerate_all_solutions": True}},
                   reason="time limit" if st is Status.UNKNOWN else None)


def decision(inst: Queens, task: Task, options: dict, bound: int | None = None) -> Decision:
    """Formulation hook of sat:cells (export, stats, ext:dimacs, count:frontier): one Boolean per
    cell, as data — exactly one queen per row, at most one per column and per diagonal, the fixed
    queens; the projection is every cell (a placement is its queens). No bound: no objective."""
    n = inst.n
    f = Formulation(f"queens {inst.name}", "n queens, one Boolean per cell (rows, columns, diagonals)")
    q = {(r, c): ("q", r, c) for r in range(n) for c in range(n)}
    f.add("one queen per row", *(ExactlyOne(tuple(q[r, c] for c in range(n))) for r in range(n)))
    f.add("at most one per column", *(AtMostOne(tuple(q[r, c] for r in range(n))) for c in range(n)))
    diagonals = []
    for d in range(-n + 1, n):
        diagonals.append(tuple(q[r, r - d] for r in range(n) if 0 <= r - d < n))
        diagonals.append(tuple(q[r, d + n - 1 - r] for r in range(n) if 0 <= d + n - 1 - r < n))
    f.add("at most one per diagonal", *(AtMostOne(k) for k in diagonals if len(k) > 1))
    if inst.fixed:
        f.add("fixed queens", *(Clause(((q[r, c], True),)) for r, c in inst.fixed))
    f.projection = tuple(q[r, c] for r in range(n) for c in range(n))

    def decode(true_keys: set) -> tuple[int, ...]:
        cols = {k[1]: k[2] for k in true_keys}
        return tuple(cols.get(r, -1) for r in range(n))
    return Decision(f, decode, None, "no bound", upper_complete=True)


def run_sat(inst: Queens, task: Task, ctx: Context) -> Outcome:
    """Engine sat:cells."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool
    n, enc = inst.n, getattr(EncType, ctx.options["encoding"])
    pool = IDPool()
    x = {(r, c): pool.id(("q", r, c)) for r in range(n) for c in range(n)}  # domain keys
    lines = [[x[r, c] for c in range(n)] for r in range(n)]                  # rows: exactly one
    amo = [[x[r, c] for r in range(n)] for c in range(n)]                    # columns
    for d in range(-n + 1, n):
        amo.append([x[r, r - d] for r in range(n) if 0 <= r - d < n])       # diagonals
        amo.append([x[r, d + n - 1 - r] for r in range(n) if 0 <= d + n - 1 - r < n])
    clauses: list[list[int]] = []
    for lits in lines:
        clauses += CardEnc.equals(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses
    for lits in amo:
        if len(lits) > 1:
            clauses += CardEnc.atmost(lits, 1, vpool=pool, encoding=enc).clauses
    clauses += [[x[r, c]] for r, c in inst.fixed]
    proj = sorted(x.values())
    decode = {v: k for k, v in x.items()}
    stats = {"vars": pool.top, "clauses": len(clauses)}
    params = {"sat": {"solver": ctx.options["solver"], "encoding": ctx.options["encoding"]}}
    sols = []
    try:
        for true in sat_enumerate(clauses, proj, ctx, ctx.options["solver"],
                                  limit=1 if task is Task.FEASIBLE else None):
            cols = dict(decode[v] for v in true)  # (row, col) of each queen
            sols.append(tuple(cols[r] for r in range(n)))
    except TimeoutError:
        return Outcome(Status.UNKNOWN, solutions=tuple(sols), stats=stats, params=params,
                       reason="time limit")
    if not sols:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, stats=stats,
                       params=params)
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE, solutions=(sols[0],), stats=stats, params=params)
    return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats, params=params)
