"""Peg formulations at the frontier: triangle21 = 12 and lower bounds on the English central game.

Run: python bench/peg_models.py [--instances triangle21,english33] [--formulations time,resource]
                                [--budget S] [--per-call S]
For each instance and formulation (models/peg_time.py, models/peg_resource.py), CP-SAT with the
engines' pinned parameters (one worker, linearization_level 0, seed 0) answers the decision calls
"moves <= K" in ascending K from the corner lower bound: each UNSAT proves the optimum exceeds K
(a lower bound proved by the model alone), the first SAT call is the optimum (its solution is
replayed by the checker). Stops at the budget; prints per call the status, seconds and conflicts.
Nothing from a native search is fed in. Wall-clock times on a shared machine.
"""
from __future__ import annotations

import argparse
import time

from puzzlesat.models import _cpsat, peg_merson, peg_ordered, peg_resource, peg_time
from puzzlesat.models.peg_cpsat import PegCpModel
from puzzlesat.puzzles.core import Context, Status
from puzzlesat.puzzles.peg import catalogue, check, start_lower_bound

BUILDERS = {"time": peg_time.build, "resource": peg_resource.build, "merson": peg_merson.build,
            "ordered": peg_ordered.build,
            "merson-all": lambda inst, inv: peg_merson.build(inst, inv, families="all"),
            "ordered-all": lambda inst, inv: peg_ordered.build(inst, inv, families="all")}
PARAMS = {"workers": 1, "linearization_level": 0, "seed": 0}


def ascend(name: str, formulation: str, budget: float, per_call: float) -> None:
    inst = catalogue()[name]()
    t0 = time.perf_counter()
    pm = PegCpModel(inst, True, BUILDERS[formulation])
    build = time.perf_counter() - t0
    k = start_lower_bound(inst)
    proved = k  # optimum >= proved
    print(f"{name} {formulation}: built in {build:.1f} s ({_cpsat.model_size(pm.model)}); "
          f"corner lower bound {k}")
    while time.perf_counter() - t0 < budget:
        left = budget - (time.perf_counter() - t0)
        ctx = Context(PARAMS, min(per_call, left))
        st, solver = _cpsat.solve(pm.bounded(k), _cpsat.params(PARAMS), ctx)
        print(f"  moves <= {k}: {st} {solver.wall_time:.1f} s, {solver.num_conflicts} conflicts",
              flush=True)
        if st is Status.INFEASIBLE:
            proved = k + 1
            k += 1
        elif st in (Status.OPTIMAL, Status.FEASIBLE):
            sol = pm.decode(solver)
            print(f"  optimum {check(inst, sol)} moves (checked), proved in "
                  f"{time.perf_counter() - t0:.1f} s")
            return
        else:
            break
    print(f"  best lower bound proved: optimum >= {proved} ({time.perf_counter() - t0:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default="triangle21,english33")
    ap.add_argument("--formulations", default="time,resource")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per instance and formulation")
    ap.add_argument("--per-call", type=float, default=600.0, help="seconds per decision call")
    a = ap.parse_args()
    for name in a.instances.split(","):
        for f in a.formulations.split(","):
            ascend(name, f, a.budget, a.per_call)


if __name__ == "__main__":
    main()
