"""peg:resource (time model + corner resource count): never cuts a solution — with and without
the resource constraints the same optimum and the same count, on random small boards."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.models.peg import resource
from puzzlesat.core.result import Status
from puzzlesat.puzzles.peg import catalogue
from strategies import peg_small

PEG = family("peg")




@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(peg_small())
def test_resource_constraints_never_cut_a_solution(inst):
    for plain, res in (("cpsat:time", "cpsat:resource"), ("sat:time", "sat:resource")):
        a = solve(PEG, inst, plain, "count", isolate=False, precheck=False)
        b = solve(PEG, inst, res, "count", isolate=False, precheck=False)
        assert a.status in (Status.OPTIMAL, Status.INFEASIBLE)
        assert (a.status, a.objective, a.count) == (b.status, b.objective, b.count)


def test_resource_formulation_shape_and_spec_optimum():
    inst = catalogue()["hoppers"]()
    rm = resource.build(inst)
    assert rm.f.name == "peg:resource" and "corner resource" in rm.f.groups
    assert len(rm.bounds(7)) == 1 + sum(1 for qs in rm.corner_keys if qs)
    for eng in ("cpsat:resource", "sat:resource"):
        r = solve(PEG, catalogue()["hoppers-first06"](), eng, "count", isolate=False)
        assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 7, 18)  # SPEC §1, Hiroi
