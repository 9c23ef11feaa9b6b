"""The peg CP-SAT engines' search options: strategy=ascend, search=fixed, presolve=false.

Facts: with every combination the engines give the brute-force optimum and count on random tiny and
solvable boards (test_peg's oracle); the published optima hold (hoppers 7 / 18 sequences with first
jump 0->6, triangle15 10, triangle21 12: M. Hiroi, SPEC §1) and the ascending calls prove every
bound below the optimum INFEASIBLE in order; the parameters are recorded.
"""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.core.result import InputError, Status
from puzzlesat.puzzles.peg import catalogue, start_lower_bound
from oracles import peg_oracle
from strategies import peg_solvable, peg_tiny


PEG = family("peg")
FAST = {"strategy": "ascend", "search": "fixed", "presolve": False}  # the documented triangle21 setting


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(peg_tiny(), peg_solvable()),
       st.sampled_from(["cpsat:time", "cpsat:resource", "cpsat:merson", "cpsat:ordered"]),
       st.sampled_from(["ascend", "descend"]), st.sampled_from(["auto", "fixed"]), st.booleans())
def test_search_options_agree_with_brute_force(inst, engine, strategy, search, presolve):
    best, count = peg_oracle(inst)
    opts = {"strategy": strategy, "search": search, "presolve": presolve}
    r = solve(PEG, inst, engine, "count", options=opts, time_limit=60, isolate=False, precheck=False)
    if best is None:
        assert r.status is Status.INFEASIBLE, r.reason
    else:
        assert (r.status, r.objective, r.count) == (Status.OPTIMAL, best, count), r.reason


def test_ascend_proves_each_bound_below_the_optimum():
    inst = catalogue()["triangle15"]()
    r = solve(PEG, inst, "cpsat:ordered", "optimize", options=FAST, isolate=False)
    assert (r.status, r.objective) == (Status.OPTIMAL, 10)
    calls = r.stats["decisions"]
    lb = start_lower_bound(inst)
    assert [c["moves_le"] for c in calls] == list(range(lb, 11))
    assert [c["status"] for c in calls] == ["INFEASIBLE"] * (10 - lb) + ["OPTIMAL"]
    assert r.stats["lower_bound"] == 10
    cp = r.params["cpsat"]
    assert (cp["search_branching"], cp["cp_model_presolve"], cp["num_workers"]) == ("FIXED_SEARCH", False, 1)
    d = solve(PEG, inst, "cpsat:ordered", "optimize", isolate=False)  # defaults unchanged
    assert d.params["cpsat"]["search_branching"] == "AUTOMATIC_SEARCH" and d.params["strategy"] == "descend"


def test_triangle21_model_proves_12():
    r = solve(PEG, catalogue()["triangle21"](), "cpsat:ordered", "optimize", options=FAST, isolate=False)
    assert (r.status, r.objective) == (Status.OPTIMAL, 12)
    assert [c["status"] for c in r.stats["decisions"]][-2:] == ["INFEASIBLE", "OPTIMAL"]


def test_hoppers_first_jump_count_is_18():
    c = solve(PEG, catalogue()["hoppers-first06"](), "cpsat:ordered", "count", options=FAST, isolate=False)
    assert (c.status, c.objective, c.count) == (Status.OPTIMAL, 7, 18)


def test_bad_search_option_is_refused():
    with pytest.raises(InputError, match="search"):
        solve(PEG, catalogue()["hoppers"](), "cpsat:merson", "optimize", options={"search": "dfs"},
              isolate=False)
