"""Peg solitaire with one step per *move* (a chain of jumps by one peg), in CP-SAT.

Formulation: K moves, each with L = J - K + 1 jump slots (J = jumps needed); slot (k, s) is
  x[k,s,l]  jump line l is made in slot s of move k (at most one per slot; slot 0 always used,
            used slots first), p[k,s,h] the pegs before the slot, pos[k,s] the moving peg's hole.
A jump in slot s > 0 starts where slot s-1 ended (one peg per move); an unused slot keeps pos, so
pos[k,L-1] is where move k ends and move k+1 must start elsewhere (moves are maximal): a jump
sequence has exactly one assignment of the x, so counting projected on x is exact. The minimum is
the first feasible K, ascending from the corner bound.
"""
from ortools.sat.python import cp_model

from puzzlesat.engine import Outcome, Status, Task, CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve
from puzzlesat.puzzles.peg import start_lower_bound


def model(inst, K):
    """(CpModel, x[k][s][l]) for exactly K maximal moves."""
    b, J, m = inst.board, inst.jumps_needed, cp_model.CpModel()
    lines, n, L = b.lines, b.n, J - K + 1
    p = [[m.new_bool_var("") for _ in range(n)] for _ in range(K * L + 1)]
    x = [[[m.new_bool_var("") for _ in lines] for _ in range(L)] for _ in range(K)]
    pos = [[m.new_int_var(0, n - 1, "") for _ in range(L)] for _ in range(K)]
    for h in range(n):
        m.add(p[0][h] == (h in inst.start))
        if inst.finish is not None:
            m.add(p[-1][h] == (h in inst.finish))
    m.add(sum(v for xk in x for xs in xk for v in xs) == J)  # J jumps: one peg left if no finish
    for t, (k, s) in enumerate((k, s) for k in range(K) for s in range(L)):  # slot t = k L + s
        m.add(sum(x[k][s]) == 1) if s == 0 else m.add(sum(x[k][s]) <= sum(x[k][s - 1]))  # used first
        for l, (a, o, c) in enumerate(lines):
            xl = x[k][s][l]
            m.add_bool_and([p[t][a], p[t][o], ~p[t][c], ~p[t + 1][a], ~p[t + 1][o], p[t + 1][c]]
                           ).only_enforce_if(xl)
            m.add(pos[k][s] == c).only_enforce_if(xl)
            if s > 0 or k > 0:   # continue the chain / start away from where the last move ended
                prev = pos[k][s - 1] if s > 0 else pos[k - 1][L - 1]
                m.add(prev == a if s > 0 else prev != a).only_enforce_if(xl)
        if s > 0:  # an unused slot: the peg stays
            m.add(pos[k][s] == pos[k][s - 1]).only_enforce_if([~v for v in x[k][s]])
        for h in range(n):  # frame: a hole changes only by a jump in this slot that touches it
            touch = [x[k][s][l] for l, ln in enumerate(lines) if h in ln]
            m.add(p[t + 1][h] == p[t][h]).only_enforce_if([~v for v in touch])
    if inst.first_jump is not None:
        m.add_bool_or([x[0][0][l] for l, (a, _, c) in enumerate(lines) if (a, c) == inst.first_jump])
    m.add_decision_strategy([v for xk in x for xs in xk for v in xs], cp_model.CHOOSE_FIRST,
                            cp_model.SELECT_MAX_VALUE)   # jumps in slot order
    return m, x


def run(inst, task, ctx):
    """Minimum moves / every minimum-move jump sequence / any solution, one move per step."""
    lines, J = inst.board.lines, inst.jumps_needed
    if J == 0:
        ok = inst.finish in (None, inst.start)
        return Outcome(Status.OPTIMAL, 0, 1, ((),)) if ok else Outcome(Status.INFEASIBLE)
    params = {"search_branching": cp_model.FIXED_SEARCH}   # measured: K=9 on triangle15 34 s, not >60
    stats = {"calls": [], "params": {"cpsat": {**CPSAT_DEFAULTS, "search_branching": "FIXED_SEARCH"}}}
    for K in range(max(1, start_lower_bound(inst)), J + 1):   # ascending: the first hit is minimal
        m, x = model(inst, K)
        flat = [(v, l) for xk in x for xs in xk for l, v in enumerate(xs)]  # slot order

        def decode(vals, flat=flat):  # the jumps whose variables are true, in slot order
            return {"jumps": [list(lines[l]) for (_, l), b in zip(flat, vals) if b]}
        st, solver = cpsat_solve(m, ctx, **params)
        stats["calls"].append({"moves_eq": K, "status": str(st)})
        if st in (Status.UNKNOWN, Status.ERROR):
            return Outcome(st, stats=stats, reason=f"{st} while trying {K} moves")
        if st is Status.INFEASIBLE:
            continue
        sol = decode([solver.boolean_value(v) for v, _ in flat])
        ctx.found(sol)
        if task is not Task.COUNT:
            return Outcome(Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL, K, None,
                           (sol,), stats)
        st, projs = cpsat_enumerate(m, [v for v, _ in flat], ctx, **params)
        sols = tuple(decode(pr) for pr in projs)
        if st is Status.OPTIMAL:
            return Outcome(Status.OPTIMAL, K, len(sols), sols, stats)
        return Outcome(Status.UNKNOWN, K, None, sols, stats, reason="enumeration stopped by the limit")
    return Outcome(Status.INFEASIBLE, stats=stats)


run.TASKS = ("optimize", "count", "feasible")
