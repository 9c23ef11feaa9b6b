"""Calculation maze as a circuit in the line graph (arc-use and successor literals), in CP-SAT.

Formulation: every grid edge gives two arcs (one per direction); the walk is a path through arcs.
  skip[a]      arc a is not used (its self-loop in the circuit), at most one arc per edge used;
  nxt[a, b]    arc b follows arc a (head(a) = tail(b), another edge); first[a] / last[a] join a
               depot: the walk's first arc leaves the start, its last arc enters the goal.
AddCircuit on (depot + arcs) is the flow (in-degree = out-degree = 1 for used arcs) with subtour
elimination, so the used arcs form one trail. The score is indexed by arc, not by time:
  sc[a] = op_a(sc[prev]) under nxt[prev, a] (op_a(start score) under first[a]), sc[a] = 0 if skipped;
the objective is sc of the last arc. Counting fixes the optimum and enumerates projected on the
circuit literals (they are the walk). Scores must fit 64 bits; a bound decides that first.
"""
from ortools.sat.python import cp_model

from puzzlesat.engine import Outcome, Status, Task, CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve
from puzzlesat.puzzles.maze import op_apply

TASKS = ("optimize", "count", "feasible")
LIMIT = 1 << 60


def model(inst, optimum=None, maximise=False):
    """(CpModel, arcs, circuit literals [(from, to, lit)], score bound) for walks of `inst`."""
    walked = inst.walked
    done = {frozenset(p) for p in zip(walked, walked[1:])}
    s0 = 1
    for p in zip(walked, walked[1:]):
        s0 = op_apply(inst.ops[inst.edges.index(tuple(sorted(p)))], s0)
    arcs = [(u, v, e) for e, (a, b) in enumerate(inst.edges) if frozenset((a, b)) not in done
            for u, v in ((a, b), (b, a))]
    bound = abs(s0) + sum(k for c, k in inst.ops if c != "*")
    for c, k in inst.ops:
        bound *= max(k, 1) if c == "*" else 1
    m, lits = cp_model.CpModel(), []
    sc = [m.new_int_var(-min(bound, LIMIT), min(bound, LIMIT), f"sc{i}") for i in range(len(arcs))]
    F = m.new_int_var(-min(bound, LIMIT), min(bound, LIMIT), "F")

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
    if optimum is not None:
        m.add(F == optimum)
    if maximise:
        m.maximize(F)
    return m, arcs, lits, bound


def run(inst, task, ctx):
    """Best score / every best walk / any walk."""
    m, arcs, lits, bound = model(inst, maximise=task is not Task.FEASIBLE)
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
    st, solver = cpsat_solve(m, ctx)
    if st not in (Status.OPTIMAL, Status.FEASIBLE):
        return Outcome(st, stats=stats)
    sol = decode([solver.boolean_value(x) for _, _, x in lits])
    ctx.found(sol)
    best = int(solver.objective_value) if task is not Task.FEASIBLE else None
    if task is not Task.COUNT or st is not Status.OPTIMAL:
        return Outcome(Status.FEASIBLE if task is Task.FEASIBLE else st, best, None, (sol,), stats)
    m, arcs, lits, _ = model(inst, optimum=best)
    st, projs = cpsat_enumerate(m, [x for _, _, x in lits], ctx)
    sols = tuple(decode(pr) for pr in projs)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, best, len(sols), sols, stats)
    return Outcome(Status.UNKNOWN, best, None, sols, stats, reason="enumeration stopped by the limit")


run.TASKS = TASKS
