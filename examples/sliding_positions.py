"""Sliding-tile puzzles with one integer per tile and step (the cell it is in), in CP-SAT.

Formulation ("tile position per step" rather than the built-in tile-in-cell Booleans):
  pos[t][k]  the cell of tile k after t moves (k = 0 is the blank), all different at every t;
  mv[t][k]   tile k is the one moved at step t (exactly one per step).
mv[t][k] -> tile k sits next to the blank (a domain constraint under "blank in cell c"), then it
and the blank swap cells. Explanatory frame axiom: a tile that is not the one moved keeps its cell
(not mv[t][k] -> pos[t+1][k] == pos[t][k]). No tile moves twice in a row (that would undo a move;
no shortest solution does it, so counts are unchanged). The shortest length is the first feasible
horizon, raised by 2 (a move changes the Manhattan sum by one) from the Manhattan bound; counting
enumerates projected on the mv literals, which are the solution itself.
"""
from ortools.sat.python import cp_model

from puzzlesat.engine import Outcome, Status, Task, CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve
from puzzlesat.puzzles.sliding import infeasible_reason, manhattan, neighbours


def model(inst, T):
    """(CpModel, mv[t][k]) for plans of exactly T moves."""
    m, n = cp_model.CpModel(), inst.cells
    pos = [[m.new_int_var(0, n - 1, f"pos{t},{k}") for k in range(n)] for t in range(T + 1)]
    mv = [[m.new_bool_var(f"mv{t},{k}") for k in range(n)] for t in range(T)]
    for c in range(n):
        m.add(pos[0][inst.start[c]] == c)
        m.add(pos[T][inst.goal[c]] == c)
    for t in range(T + 1):
        m.add_all_different(pos[t])
    for t in range(T):
        m.add(mv[t][0] == 0)
        m.add_exactly_one(mv[t])
        blank_at = [m.new_bool_var("") for _ in range(n)]
        m.add_exactly_one(blank_at)
        for c in range(n):
            m.add(pos[t][0] == c).only_enforce_if(blank_at[c])
        for k in range(1, n):
            for c in range(n):
                near = cp_model.Domain.FromValues(neighbours(inst.rows, inst.cols, c))
                m.add_linear_expression_in_domain(pos[t][k], near).only_enforce_if([mv[t][k], blank_at[c]])
            m.add(pos[t + 1][k] == pos[t][0]).only_enforce_if(mv[t][k])
            m.add(pos[t + 1][0] == pos[t][k]).only_enforce_if(mv[t][k])
            m.add(pos[t + 1][k] == pos[t][k]).only_enforce_if(~mv[t][k])   # explanatory frame
            if t + 1 < T:
                m.add_implication(mv[t][k], ~mv[t + 1][k])                  # no immediate undo
    return m, mv


def run(inst, task, ctx):
    """Shortest solution / every shortest solution / any solution, by ascending horizons."""
    why = infeasible_reason(inst)
    if why is not None:
        return Outcome(Status.INFEASIBLE, reason=why)
    stats = {"horizons": [], "params": {"cpsat": CPSAT_DEFAULTS}}
    T = manhattan(inst)
    if T == 0:
        return Outcome(Status.OPTIMAL, 0, 1, ({"moves": []},), stats)
    while True:
        m, mv = model(inst, T)
        flat = [(t, k, v) for t, row in enumerate(mv) for k, v in enumerate(row)]

        def decode(vals, flat=flat):  # the moves whose variables are true, in step order
            return {"moves": [k for (_, k, _), b in zip(flat, vals) if b]}
        st, solver = cpsat_solve(m, ctx)
        stats["horizons"].append({"moves": T, "status": str(st)})
        if st in (Status.UNKNOWN, Status.ERROR):
            return Outcome(st, stats=stats, reason=f"{st} at horizon {T}")
        if st is Status.INFEASIBLE:
            T += 2
            continue
        sol = decode([solver.boolean_value(v) for _, _, v in flat])
        ctx.found(sol)
        if task is not Task.COUNT:
            return Outcome(Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL, T, None,
                           (sol,), stats)
        st, projs = cpsat_enumerate(m, [v for _, _, v in flat], ctx)
        sols = tuple(decode(pr) for pr in projs)
        if st is Status.OPTIMAL:
            return Outcome(Status.OPTIMAL, T, len(sols), sols, stats)
        return Outcome(Status.UNKNOWN, T, None, sols, stats, reason="enumeration stopped by the limit")


run.TASKS = ("optimize", "count", "feasible")
