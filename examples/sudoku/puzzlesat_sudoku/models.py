"""Models of Sudoku.

- `cpsat:cells`: one integer 1..9 per cell, AddAllDifferent on each of the 27 units, the givens
  fixed — the classic CP formulation (e.g. the OR-tools Sudoku example).
- `sat:cells`: the formulation as data (`puzzlesat.engine.Formulation`): a Boolean per cell and
  digit, keys ("x", cell, digit); exactly one digit per cell and exactly one cell per digit in
  each row, column and box (the "extended encoding" of Lynce & Ouaknine, "Sudoku as a SAT
  problem", AIMATH 2006), the givens as unit clauses; compiled to CNF by `to_cnf` with the
  `encoding` chosen. Its formulation hook (`formulation`) gives `puzzlesat export`, `stats`,
  `ext:dimacs` and `puzzlesat.model` the same model.

Counting enumerates projected on the variables that define a solution (CP-SAT with one worker;
SAT with blocking clauses over the cell-digit keys), through puzzlesat.engine's helpers.
"""
from __future__ import annotations

from puzzlesat import Context, Outcome, Status, Task
from puzzlesat.engine import (Clause, Decision, ExactlyOne, Formulation, cpsat_enumerate, cpsat_solve,
                              sat_enumerate, to_cnf)

from .puzzle import Sudoku

ROWS = [tuple(9 * r + c for c in range(9)) for r in range(9)]
COLS = [tuple(9 * r + c for r in range(9)) for c in range(9)]
BOXES = [tuple(9 * (3 * (b // 3) + i) + 3 * (b % 3) + j for i in range(3) for j in range(3))
         for b in range(9)]
DIGITS = range(1, 10)


def run_cpsat(inst: Sudoku, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:cells."""
    from ortools.sat.python import cp_model
    m = cp_model.CpModel()
    x = [m.new_int_var(1, 9, f"x{c}") for c in range(81)]
    for unit in ROWS + COLS + BOXES:
        m.add_all_different([x[c] for c in unit])
    for c, d in enumerate(inst.givens):
        if d:
            m.add(x[c] == d)
    stats = {"vars": 81, "constraints": len(m.proto.constraints)}
    if task is Task.FEASIBLE:
        params = {"num_workers": ctx.options["workers"]}
        st, solver = cpsat_solve(m, ctx, **params)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.FEASIBLE, solutions=(tuple(solver.value(v) for v in x),),
                           stats=stats, params={"cpsat": params})
        return Outcome(st, stats=stats, params={"cpsat": params},
                       reason="time limit" if st is Status.UNKNOWN else None)
    st, sols = cpsat_enumerate(m, x, ctx, stats=stats)
    return Outcome(st, count=len(sols) if st is Status.OPTIMAL else 0 if st is Status.INFEASIBLE else None,
                   solutions=tuple(sols), stats=stats,
                   params={"cpsat": {"num_workers": 1, "enumerate_all_solutions": True}},
                   reason="time limit" if st is Status.UNKNOWN else None)


def formulation(inst: Sudoku, task: Task, options: dict, bound: int | None) -> Decision:
    """The formulation hook of sat:cells: the whole puzzle is one decision call (no bound)."""
    f = Formulation("sudoku cells x digits", "Lynce & Ouaknine 2006, extended encoding")
    x = {(c, d): ("x", c, d) for c in range(81) for d in DIGITS}
    f.add("one digit per cell", *(ExactlyOne(tuple(x[c, d] for d in DIGITS)) for c in range(81)))
    for name, units in (("row", ROWS), ("column", COLS), ("box", BOXES)):
        f.add(f"each digit once per {name}",
              *(ExactlyOne(tuple(x[c, d] for c in unit)) for unit in units for d in DIGITS))
    f.add("givens", *(Clause(((x[c, d], True),)) for c, d in enumerate(inst.givens) if d))
    f.projection = tuple(x.values())

    def decode(true: set) -> tuple[int, ...]:
        grid = [0] * 81
        for _, c, d in true:
            grid[c] = d
        return tuple(grid)
    return Decision(f, decode, None, "every cell filled")


def run_sat(inst: Sudoku, task: Task, ctx: Context) -> Outcome:
    """Engine sat:cells."""
    opts = ctx.options
    d = formulation(inst, task, opts, None)
    cnf = to_cnf(d.formulation, opts["encoding"])
    stats = {"vars": cnf.pool.top, "clauses": len(cnf.clauses)}
    params = {"sat": {"solver": opts["solver"], "encoding": opts["encoding"]}}
    keys = {cnf.id(k): k for k in d.formulation.projection}
    sols = []
    try:
        for true in sat_enumerate(cnf.clauses, sorted(keys), ctx, opts["solver"],
                                  limit=1 if task is Task.FEASIBLE else None, stats=stats):
            s = d.decode({keys[v] for v in true})
            ctx.found(s)
            sols.append(s)
    except TimeoutError:
        return Outcome(Status.UNKNOWN, solutions=tuple(sols), stats=stats, params=params,
                       reason="time limit")
    if not sols:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, stats=stats,
                       params=params)
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE, solutions=(sols[0],), stats=stats, params=params)
    return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats, params=params)
