"""Calculation maze as a circuit over the line graph (arc-use and successor literals), in CP-SAT.

Every grid edge gives two arcs; a walk is a path through arcs closed by a depot. AddCircuit over
(depot + arcs), with the self-loop skip[a] = "arc a unused", is the flow (in = out = 1 on used
arcs) plus subtour elimination; at most one arc per edge is used. Literal (a, b): arc b follows
arc a; (depot, a): the walk starts with a (at the start); (a, depot): it ends with a (at the goal).
The score is indexed by arc, not by time: sc[b] = op_b(sc[a]) under (a, b), 0 if b is unused.
Counting fixes the optimum and enumerates projected on the circuit literals (they are the walk).
Scores must fit CP-SAT's 64-bit integers: a bound checks that first (UNKNOWN otherwise).
"""
import math

from ortools.sat.python import cp_model

from puzzlesat.engine import Outcome, Status, Task, CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve
from puzzlesat.puzzles.maze import op_apply

LIMIT = 1 << 60


def model(inst):
    """(CpModel, arcs, circuit literals [(from, to, lit)], final score F, score bound)."""
    walked, s0 = inst.walked, 1
    done = [tuple(sorted(p)) for p in zip(walked, walked[1:])]
    for e in done:
        s0 = op_apply(inst.ops[inst.edges.index(e)], s0)
    arcs = [(u, v, e) for e, (a, b) in enumerate(inst.edges) if (a, b) not in done
            for u, v in ((a, b), (b, a))]
    bound = (abs(s0) + sum(k for c, k in inst.ops if c != "*")) * math.prod(
        max(k, 1) for c, k in inst.ops if c == "*")   # |s + k| <= |s| + k, |s * k| <= |s| * k
    B, m, lits = min(bound, LIMIT), cp_model.CpModel(), []
    sc = [m.new_int_var(-B, B, f"sc{i}") for i in range(len(arcs))]
    F = m.new_int_var(-B, B, "F")

    def lit(i, j):  # circuit node 0 = depot, arc i = node i + 1
        x = m.new_bool_var(f"{i}>{j}")
        lits.append((i, j, x))
        return x
    skip = [lit(i + 1, i + 1) for i in range(len(arcs))]
    for i, (u, v, e) in enumerate(arcs):
        m.add(sc[i] == 0).only_enforce_if(skip[i])
        if i % 2:  # arcs 2q and 2q+1 are the two directions of one edge: at most one is used
            m.add_bool_or([skip[i - 1], skip[i]])
        if u == walked[-1]:
            m.add(sc[i] == op_apply(inst.ops[e], s0)).only_enforce_if(lit(0, i + 1))
        if v == inst.goal:
            m.add(F == sc[i]).only_enforce_if(lit(i + 1, 0))
        for j, (u2, _, e2) in enumerate(arcs):
            if u2 == v and e2 != e:
                c, k = inst.ops[e2]
                m.add(sc[j] == (sc[i] + k if c == "+" else sc[i] - k if c == "-" else k * sc[i])
                      ).only_enforce_if(lit(i + 1, j + 1))
    if walked[-1] == inst.goal:  # the empty walk
        m.add(F == s0).only_enforce_if(lit(0, 0))
    m.add_circuit(lits)
    return m, arcs, lits, F, bound


def run(inst, task, ctx):
    """Best score / every best walk / any walk."""
    m, arcs, lits, F, bound = model(inst)
    stats = {"params": {"cpsat": CPSAT_DEFAULTS}, "score_bound": bound}
    if bound >= LIMIT:
        return Outcome(Status.UNKNOWN, stats=stats, reason="scores may exceed CP-SAT's 64-bit integers")

    def decode(vals):
        nxt = {i: j for (i, j, _), b in zip(lits, vals) if b and i != j}
        walk, i = list(inst.walked), nxt.get(0, 0)
        while i:
            walk.append(arcs[i - 1][1])
            i = nxt[i]
        return {"walk": walk}
    if task is not Task.FEASIBLE:
        m.maximize(F)
    st, solver = cpsat_solve(m, ctx)
    if st not in (Status.OPTIMAL, Status.FEASIBLE):
        return Outcome(st, stats=stats)
    sol = decode([solver.boolean_value(x) for _, _, x in lits])
    ctx.found(sol)
    best = solver.value(F)
    if task is not Task.COUNT or st is not Status.OPTIMAL:
        return Outcome(Status.FEASIBLE if task is Task.FEASIBLE else st, best, None, (sol,), stats)
    m, arcs, lits, F, _ = model(inst)
    m.add(F == best)
    st, projs = cpsat_enumerate(m, [x for _, _, x in lits], ctx)
    sols = tuple(decode(pr) for pr in projs)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, best, len(sols), sols, stats)
    return Outcome(Status.UNKNOWN, best, None, sols, stats, reason="enumeration stopped by the limit")


run.TASKS = ("optimize", "count", "feasible")
