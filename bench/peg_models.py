"""Peg formulations at the frontier: triangle21 = 12 and lower bounds on the English central game.

Run: python bench/peg_models.py [--instances triangle21,english33] [--formulations time,resource]
                                [--budget S] [--per-call S] [--start K] [--backend cpsat|sat]
                                [--search auto|fixed] [--no-presolve]
For each instance and formulation (models/peg/time_indexed.py, resource.py, merson.py,
ordered.py), CP-SAT with the engines' pinned parameters (one worker, linearization_level 0,
seed 0) — or with `--backend sat` cadical195 on the CNF (seqcounter), a fresh solver per call —
answers the decision calls
"moves <= K" in ascending K from the corner lower bound: each UNSAT proves the optimum exceeds K
(a lower bound proved by the model alone), the first SAT call is the optimum (its solution is
replayed by the checker). `--start K` begins at K instead (an UNSAT "moves <= K" proves every
smaller bound too). `--search fixed` makes every CP-SAT call a depth-first search in time order
(FIXED_SEARCH over the jump literals, as the engines' `search=fixed`), `--no-presolve` sets
cp_model_presolve off (`presolve=false`). Stops at the budget; prints per call the status, wall and CPU seconds of the
process (the figure to compare on a shared machine) and conflicts. Nothing from a native search
is fed in. Formulations: time, resource, merson and ordered (Merson families "all", the engines'
default), merson-best and ordered-best (one family).
"""
from __future__ import annotations

import argparse
import time

from puzzlesat.models import _cpsat
from puzzlesat.models.peg import merson, ordered, resource, time_indexed
from puzzlesat.models import _sat
from puzzlesat.models.peg.cpsat import PegCpModel, _solve, search_params
from puzzlesat.models.peg.sat import PegCnf
from puzzlesat.core.result import Context, Status
from puzzlesat.puzzles.peg import catalogue, check, start_lower_bound

BUILDERS = {"time": time_indexed.build, "resource": resource.build,
            "merson": lambda inst, inv: merson.build(inst, inv, families="all"),
            "ordered": lambda inst, inv: ordered.build(inst, inv, families="all"),
            "merson-best": lambda inst, inv: merson.build(inst, inv, families="best"),
            "ordered-best": lambda inst, inv: ordered.build(inst, inv, families="best")}
PARAMS = {"workers": 1, "linearization_level": 0, "seed": 0}


class SatCalls:
    """The CNF of a formulation with CP-SAT's call interface for `ascend` (cadical195, seqcounter)."""

    def __init__(self, inst, builder):
        self.pc = PegCnf(inst, "seqcounter", True, builder)
        self.model = self.pc
        self.sol = None

    def call(self, k: int, ctx: Context):
        with _sat.new_solver("cadical195", self.pc.clauses + self.pc.bounded(k)) as s:
            res = _sat.solve_limited(s, ctx)
            conflicts = s.accum_stats().get("conflicts", 0)
            if res:
                m = s.get_model()
                self.sol = self.pc.decode({v for v in self.pc.jump_ids if m[v - 1] > 0})
        st = {True: Status.OPTIMAL, False: Status.INFEASIBLE, None: Status.UNKNOWN}[res]
        return st, conflicts, self.sol


class CpCalls:
    def __init__(self, inst, builder, search: str = "auto", presolve: bool = True):
        self.pm = PegCpModel(inst, True, builder, search)
        self.model = self.pm.model
        self.params = search_params({**PARAMS, "search": search, "presolve": presolve})

    def call(self, k: int, ctx: Context):
        st, solver = _solve(self.pm.bounded(k), self.params, ctx)
        sol = self.pm.decode(solver) if st in (Status.OPTIMAL, Status.FEASIBLE) else None
        return st, solver.num_conflicts, sol


def ascend(name: str, formulation: str, budget: float, per_call: float, start: int | None,
           backend: str = "cpsat", search: str = "auto", presolve: bool = True) -> None:
    inst = catalogue()[name]()
    t0, c0 = time.perf_counter(), time.process_time()
    calls = (CpCalls(inst, BUILDERS[formulation], search, presolve) if backend == "cpsat"
             else SatCalls(inst, BUILDERS[formulation]))
    build = time.perf_counter() - t0
    size = ("{vars} vars, {constraints} cons".format(**_cpsat.model_size(calls.model))
            if backend == "cpsat" else f"{calls.pc.pool.top} vars, {len(calls.pc.clauses)} clauses")
    k = start_lower_bound(inst) if start is None else start
    proved = start_lower_bound(inst)  # optimum >= proved
    how = backend if backend == "sat" else f"cpsat {calls.params}"
    print(f"{name} {formulation} [{how}]: built in {build:.1f} s ({size}); "
          f"corner lower bound {start_lower_bound(inst)}, first call moves <= {k}")
    while time.perf_counter() - t0 < budget:
        left = budget - (time.perf_counter() - t0)
        ctx = Context(PARAMS, min(per_call, left))
        c1, w1 = time.process_time(), time.perf_counter()
        st, conflicts, sol = calls.call(k, ctx)
        print(f"  moves <= {k}: {st} {time.perf_counter() - w1:.1f} s wall, "
              f"{time.process_time() - c1:.1f} s CPU, {conflicts} conflicts", flush=True)
        if st is Status.INFEASIBLE:
            proved = k + 1
            k += 1
        elif st in (Status.OPTIMAL, Status.FEASIBLE):
            print(f"  optimum {check(inst, sol)} moves (checked), proved in "
                  f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU")
            return
        else:
            break
    print(f"  best lower bound proved: optimum >= {proved} ({time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default="triangle21,english33")
    ap.add_argument("--formulations", default="time,resource")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per instance and formulation")
    ap.add_argument("--per-call", type=float, default=600.0, help="seconds per decision call")
    ap.add_argument("--start", type=int, default=None, help="first bound K (default: the corner bound)")
    ap.add_argument("--backend", choices=("cpsat", "sat"), default="cpsat")
    ap.add_argument("--search", choices=("auto", "fixed"), default="auto",
                    help="CP-SAT: default search, or depth-first in time order")
    ap.add_argument("--no-presolve", action="store_true", help="CP-SAT: cp_model_presolve off")
    a = ap.parse_args()
    for name in a.instances.split(","):
        for f in a.formulations.split(","):
            ascend(name, f, a.budget, a.per_call, a.start, a.backend, a.search, not a.no_presolve)


if __name__ == "__main__":
    main()
