"""Models: one Boolean per cell (pressed or not) and one parity constraint per light: the presses
in its neighbourhood (itself and its orthogonal neighbours) number odd iff it starts lit — the
GF(2) system A x = b (Anderson & Feil, Math. Magazine 71 (1998) 300-303) as constraints.

- CP-SAT (`cpsat:xor`): the parity constraints as native XOR constraints (`AddBoolXOr`),
  minimise the number of presses; count: enumerate (one worker, projected on the presses) with
  presses <= the proved optimum.
- SAT (`sat:xor`): each parity constraint in CNF by the *cutting* encoding: an XOR over more
  than `xor_cut` literals is cut into pieces of at most `xor_cut` literals chained by auxiliary
  parity variables (a = XOR of the first xor_cut - 1 literals; then XOR(a, rest) = parity,
  recursively), each piece encoded directly by the 2^(len-1) clauses that forbid its
  wrong-parity assignments. xor_cut = 3 is the Tseitin chain; 5 encodes every Lights Out
  neighbourhood (at most 5 cells) directly. Linear in the XOR length for a fixed cut, the
  encoding CryptoMiniSat uses to put long XORs into CNF. presses <= K by a PySAT cardinality
  encoding (`encoding`); the optimum by decision calls descending from the best solution
  found or ascending from the lower bound ceil(lights / 5) (a press toggles at most 5 lights);
  count: enumeration with blocking clauses over the press variables at K = the optimum.

Auxiliary variables are determined by the presses, so projected counts are exact. Shares no code
with the native search or the checker. The solvers are imported with the module, so an engine's
own clock measures the solving only (as for puzzlesat's built-in models).
"""
from __future__ import annotations

from itertools import product

from ortools.sat.python import cp_model
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from puzzlesat import Context, Outcome, Status, Task
from puzzlesat.engine import CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve, sat_enumerate, sat_solve

from .puzzle import Cell, LightsOut, Presses


def neighbourhood(inst: LightsOut, cell: Cell) -> list[Cell]:
    """The cells whose press toggles `cell`: itself and its orthogonal neighbours on the board."""
    r, c = divmod(cell, inst.cols)
    return [rr * inst.cols + cc for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < inst.rows and 0 <= cc < inst.cols]


def lower_bound(inst: LightsOut) -> int:
    """A proved lower bound on the presses: each press toggles at most 5 lights."""
    return -(-len(inst.on) // 5)


# ---- CP-SAT ------------------------------------------------------------------------------------
def cpsat_model(inst: LightsOut, bound: int | None = None, minimize: bool = False):
    """(CpModel, press variables): one AddBoolXOr per light, presses <= bound when given."""
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"press_{i // inst.cols}_{i % inst.cols}") for i in range(inst.rows * inst.cols)]
    lit = set(inst.on)
    for i in range(len(x)):
        nb = [x[j] for j in neighbourhood(inst, i)]
        if i not in lit:  # even parity: XOR(~a, b, ...) = true  <=>  XOR(a, b, ...) = false
            nb[0] = ~nb[0]
        m.add_bool_xor(nb)
    if bound is not None:
        m.add(sum(x) <= bound)
    if minimize:
        m.minimize(sum(x))
    return m, x


def run_cpsat(inst: LightsOut, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:xor."""
    o = ctx.options
    params = {**CPSAT_DEFAULTS, "num_workers": o["workers"], "random_seed": o["seed"],
              "linearization_level": o["linearization_level"]}
    m, x = cpsat_model(inst, minimize=task is not Task.FEASIBLE)
    stats = {"vars": len(m.proto.variables), "constraints": len(m.proto.constraints)}
    rec = {"cpsat": params}
    st, solver = cpsat_solve(m, ctx, **params)
    stats.update(branches=solver.num_branches, conflicts=solver.num_conflicts)
    sol = (tuple(i for i, v in enumerate(x) if solver.value(v)),) if st in (Status.OPTIMAL, Status.FEASIBLE) else ()
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE if sol else st, solutions=sol, stats=stats, params=rec)
    cut_short = "time limit" if st in (Status.FEASIBLE, Status.UNKNOWN) else None
    if task is Task.OPTIMIZE:
        return Outcome(st, objective=len(sol[0]) if sol else None, solutions=sol, stats=stats,
                       params=rec, reason=cut_short)
    if st is Status.INFEASIBLE:
        return Outcome(st, count=0, stats=stats, params=rec)
    if st is not Status.OPTIMAL:  # no proved optimum: nothing counted (a solution may not be minimum)
        return Outcome(Status.UNKNOWN if cut_short else st, stats=stats, params=rec,
                       reason=cut_short or "CP-SAT did not solve the model")
    best = len(sol[0])
    m2, x2 = cpsat_model(inst, bound=best)
    enum = {"linearization_level": params["linearization_level"], "random_seed": params["random_seed"]}
    st2, vals = cpsat_enumerate(m2, x2, ctx, **enum)
    rec["cpsat_count"] = {**enum, "num_workers": 1, "enumerate_all_solutions": True}
    sols = tuple(sorted(tuple(i for i, v in enumerate(t) if v) for t in vals))
    stats["count_constraints"] = len(m2.proto.constraints)
    return Outcome(st2, objective=best, count=len(sols) if st2 is Status.OPTIMAL else None,
                   solutions=sols, stats=stats, params=rec,
                   reason="time limit" if st2 is Status.UNKNOWN else None)


# ---- SAT ---------------------------------------------------------------------------------------
def xor_clauses(lits: list[int], parity: int, new_var, cut: int) -> list[list[int]]:
    """CNF for XOR(lits) == parity by the cutting encoding: pieces of at most `cut` (>= 3)
    literals chained by auxiliaries from `new_var()`, each encoded directly."""
    if cut < 3:
        raise ValueError(f"xor cut {cut}: pieces need at least 3 literals (two and the link)")
    lits = list(lits)
    out: list[list[int]] = []
    while len(lits) > cut:
        a = new_var()
        out += _direct(lits[:cut - 1] + [a], 0)  # a = XOR(first cut - 1 literals)
        lits = [a] + lits[cut - 1:]
    return out + _direct(lits, parity)


def _direct(lits: list[int], parity: int) -> list[list[int]]:
    """The 2^(len-1) clauses forbidding each assignment of `lits` whose XOR is not `parity`."""
    out = []
    for bits in product((0, 1), repeat=len(lits)):
        if sum(bits) % 2 != parity:
            out.append([-l if b else l for l, b in zip(lits, bits)])
    return out


def cnf(inst: LightsOut, cut: int) -> tuple[list[list[int]], list[int], int]:
    """(clauses, press variables 1..m*n, the largest variable): the parity constraints only."""
    n = inst.rows * inst.cols
    x = list(range(1, n + 1))
    top = [n]

    def new_var() -> int:
        top[0] += 1
        return top[0]

    lit = set(inst.on)
    clauses: list[list[int]] = []
    for i in range(n):
        clauses += xor_clauses([x[j] for j in neighbourhood(inst, i)], int(i in lit), new_var, cut)
    return clauses, x, top[0]


def at_most(x: list[int], k: int, top: int, encoding: str) -> tuple[list[list[int]], int]:
    """(clauses for sum(x) <= k in PySAT encoding `encoding`, auxiliaries above `top`; the new top)."""
    if k >= len(x):
        return [], top
    if k <= 0:
        return [[-v] for v in x] if k == 0 else [[]], top
    pool = IDPool(start_from=top + 1)
    enc = CardEnc.atmost(lits=x, bound=k, vpool=pool, encoding=getattr(EncType, encoding))
    return enc.clauses, max(top, pool.top)


def run_sat(inst: LightsOut, task: Task, ctx: Context) -> Outcome:
    """Engine sat:xor."""
    o = ctx.options
    solver, encoding, cut, search = o["solver"], o["encoding"], o["xor_cut"], o["search"]
    base, x, top = cnf(inst, cut)
    rec = {"sat": {"solver": solver, "encoding": encoding, "xor_cut": cut, "search": search}}
    stats = {"vars": top, "clauses": len(base), "xor_clauses": len(base), "solver_calls": 0}

    def call(k: int | None):
        """(True, presses) / (False, None) / (None, None) at the time limit, for presses <= k."""
        card, vtop = ([], top) if k is None else at_most(x, k, top, encoding)
        stats["solver_calls"] += 1
        stats["vars"], stats["clauses"] = vtop, len(base) + len(card)  # the last call's formula
        res, model = sat_solve(base + card, ctx, solver)
        if not res:
            return res, None
        return True, tuple(v - 1 for v in x if model[v - 1] > 0)

    res, best = call(None)
    if res is None:
        return Outcome(Status.UNKNOWN, stats=stats, params=rec, reason="time limit")
    if res is False:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, stats=stats,
                       params=rec, reason="the parity constraints are unsatisfiable")
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE, solutions=(best,), stats=stats, params=rec)
    if task is Task.OPTIMIZE:
        ctx.found(best)
    lb = lower_bound(inst)
    stats["lower_bound"] = lb
    if search == "descending":
        while len(best) > lb:
            res, sol = call(len(best) - 1)
            if res is None:
                return _cut_short(task, best, stats, rec)
            if res is False:
                break
            best = sol
            if task is Task.OPTIMIZE:
                ctx.found(best)
    else:
        for k in range(lb, len(best)):
            res, sol = call(k)
            if res is None:
                return _cut_short(task, best, stats, rec)
            if res:
                best = sol
                break
    opt = len(best)
    if task is Task.OPTIMIZE:
        return Outcome(Status.OPTIMAL, objective=opt, solutions=(best,), stats=stats, params=rec)
    card, vtop = at_most(x, opt, top, encoding)
    stats["vars"], stats["clauses"] = vtop, len(base) + len(card)
    sols: list[Presses] = []
    try:
        for true in sat_enumerate(base + card, x, ctx, solver):
            s = tuple(sorted(v - 1 for v in true))
            ctx.found(s)
            sols.append(s)
    except TimeoutError:
        return Outcome(Status.UNKNOWN, objective=opt, solutions=tuple(sols), stats=stats,
                       params=rec, reason="time limit")
    return Outcome(Status.OPTIMAL, objective=opt, count=len(sols), solutions=tuple(sorted(sols)),
                   stats=stats, params=rec)


def _cut_short(task: Task, best: Presses, stats: dict, rec: dict) -> Outcome:
    """The time limit stopped the bound search: the best solution (optimize), nothing (count)."""
    return Outcome(Status.UNKNOWN, solutions=(best,) if task is Task.OPTIMIZE else (), stats=stats,
                   params=rec, reason="time limit")
