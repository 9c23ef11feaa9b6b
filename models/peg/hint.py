"""Peg solitaire: shorter solutions from a known one, by model decisions seeded with it.

`descend(inst, known)`: decision calls "moves <= K" over a peg formulation (default peg:ordered
with one Merson family, as `cpsat:ordered[families=best]` / `sat:ordered` build it), K from the
known solution's moves - 1 down, each call seeded with the best solution so far — CP-SAT: every
jump literal j[t][l] hinted (`AddHint`); SAT: the jump variables' phases set (python-sat
`set_phases`, glucose4 by default: it can be interrupted at the time limit, CaDiCaL cannot). The
known solution breaks the new bound by one move, so the hint is a start the solver repairs, not a
solution. A feasible call gives a shorter solution (decoded, handed on; the caller replays it with
the checker); INFEASIBLE proves the bound for the formulation (moves >= K + 1); the time limit ends
the descent with what was found. One worker, seed 0, pinned and returned with each call.

>>> from puzzlesat.puzzles.peg import catalogue, check
>>> inst = catalogue()["hoppers"]()
>>> known = ((10, 8, 6), (0, 5, 10), (7, 6, 5), (10, 5, 0), (0, 3, 6), (4, 6, 8), (2, 1, 0),
...          (12, 11, 10), (10, 8, 6), (9, 6, 3), (0, 3, 6))
>>> check(inst, known)
9
>>> best, calls = descend(inst, known, time_limit=60)
>>> check(inst, best), [c["result"] for c in calls]
(7, ['FEASIBLE', 'INFEASIBLE'])
"""
from __future__ import annotations

import time
from typing import Any, Callable

from ...core.result import Context
from ...puzzles.peg import PegInstance, Solution, moves, start_lower_bound

BACKENDS = ("cpsat", "sat")


def _builder(formulation: str):
    from .merson import build as merson
    from .ordered import build as ordered
    from .time_indexed import build as plain
    return {"ordered": lambda inst, inv: ordered(inst, inv, families="best"),
            "merson": lambda inst, inv: merson(inst, inv, families="best"),
            "time": plain}[formulation]


def _cpsat_call(pm, k: int, known: Solution, seconds: float | None, params: dict):
    """One CP-SAT call moves <= k with every jump literal hinted from `known`: (status, solution)."""
    from .cpsat import _solve
    model = pm.bounded(k)
    index = {l: i for i, l in enumerate(pm.tm.inst.board.lines)}
    chosen = {(t, index[j]) for t, j in enumerate(known)}
    for key in pm.tm.jump_vars:
        model.add_hint(model.get_bool_var_from_proto_index(pm.vars[key].index),
                       (key[1], key[2]) in chosen)
    st, solver = _solve(model, params, Context(time_limit=seconds))
    found = st.value in ("OPTIMAL", "FEASIBLE")  # a decision call: OPTIMAL means a solution
    sol = pm.decode(solver) if found else None
    return "FEASIBLE" if found else st.value, sol, {"conflicts": solver.num_conflicts, "seconds": round(solver.wall_time, 3)}


def _sat_call(pc, k: int, known: Solution, seconds: float | None, solver_name: str):
    """One SAT call moves <= k with the jump variables' phases from `known`: (result, solution)."""
    from .. import _sat
    index = {l: i for i, l in enumerate(pc.tm.inst.board.lines)}
    chosen = {(t, index[j]) for t, j in enumerate(known)}
    phases = [v if (key[1], key[2]) in chosen else -v for key, v in zip(pc.tm.jump_vars, pc.jump_ids)]
    t0 = time.process_time()
    with _sat.new_solver(solver_name, pc.clauses + pc.bounded(k)) as s:
        s.set_phases(phases)
        res = _sat.solve_limited(s, Context(time_limit=seconds))
        st = {True: "FEASIBLE", False: "INFEASIBLE", None: "UNKNOWN"}[res]
        sol = pc.decode(set(_sat.true_in(s.get_model(), pc.jump_ids))) if res else None
        conflicts = s.accum_stats().get("conflicts", 0)
    return st, sol, {"conflicts": conflicts, "seconds": round(time.process_time() - t0, 3)}


def descend(inst: PegInstance, known: Solution, backend: str = "cpsat", formulation: str = "ordered",
            time_limit: float | None = None, per_call: float | None = None,
            search: str = "auto", solver: str = "glucose4",
            on_better: Callable[[Solution], None] | None = None) -> tuple[Solution, list[dict[str, Any]]]:
    """The shortest solution found by descending decisions from `known` (see the module
    docstring) and the calls (`moves_le`, `result`, conflicts, seconds, parameters); `time_limit`
    for all calls, `per_call` for each; `on_better` gets every shorter solution at once."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: one of {', '.join(BACKENDS)}")
    t0 = time.monotonic()
    build = _builder(formulation)
    if backend == "cpsat":
        from .cpsat import PegCpModel, search_params
        model: Any = PegCpModel(inst, True, build, search)
        params = search_params({"search": search})
    else:
        from .sat import PegCnf
        model = PegCnf(inst, "seqcounter", True, build)
        params = {"sat_solver": solver, "encoding": "seqcounter"}
    best = tuple(known)
    calls: list[dict[str, Any]] = []
    k = moves(best) - 1
    while k >= start_lower_bound(inst):
        left = None if time_limit is None else time_limit - (time.monotonic() - t0)
        if left is not None and left <= 0:
            break
        seconds = left if per_call is None else (per_call if left is None else min(left, per_call))
        if backend == "cpsat":
            st, sol, fig = _cpsat_call(model, k, best, seconds, params)
        else:
            st, sol, fig = _sat_call(model, k, best, seconds, solver)
        calls.append({"moves_le": k, "result": st, **fig, "backend": backend,
                      "formulation": f"peg:{formulation}", "params": params})
        if sol is None:
            break
        best = sol
        if on_better is not None:
            on_better(best)
        k = moves(best) - 1
    return best, calls
