"""Why over named groups (models/why.py, compare/why.py): group cores re-checked and certified,
ablation of the groups the formulations mark optional, the `lab core` / `lab ablate` commands."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import puzzlesat as ps
from puzzlesat.compare.why import ablate
from puzzlesat.families.registry import family
from puzzlesat.models.formulation import Clause, ExactlyOne, Formulation


def test_marks_and_without():
    f = Formulation("t")
    f.add("a", ExactlyOne((1, 2)))
    f.add("b", Clause(((1, True),)))
    f.mark("b", "implied")
    g = f.without("b", "no such group")
    assert list(g.groups) == ["a"] and g.optional == {"b": "implied"} and list(f.groups) == ["a", "b"]
    with pytest.raises(ValueError, match="role"):
        f.mark("a", "nice to have")


def test_the_formulations_mark_their_optional_groups():
    peg = ps.model(ps.load("peg/hoppers"), "sat:ordered", bound=7).formulation.optional
    assert peg == {"symmetric prefix": "symmetry breaking", "commuting order": "symmetry breaking",
                   "resource bounds": "implied"}   # hoppers has no position-class invariant
    assert ps.model(ps.load("peg/english33"), "sat", bound=18).formulation.optional == {
        "invariants": "implied"}
    assert ps.model(ps.load("peg/hoppers"), "sat:resource", bound=7).formulation.optional[
        "resource bounds"] == "implied"
    sl = ps.model(ps.load("sliding/8-hardest"), "sat", bound=31).formulation.optional
    assert sl == {"no undo": "dominance", "manhattan bound": "implied"}
    til = ps.model(ps.load("pentomino/6x10"), "sat", "count", up_to_symmetry=True).formulation.optional
    assert til == {"symmetry breaking": "symmetry breaking"}


def test_core_of_an_infeasible_bound_is_minimal_rechecked_and_certified(tmp_path):
    """IPC p01 (optimum 3): moves <= 2 is infeasible; the implied invariants and exactly-one
    jump per step are not needed for that, every other group is (each re-checked)."""
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    r = m.core(time_limit=120, certify=True, proof_dir=str(tmp_path))
    assert r.status.value == "INFEASIBLE", r.reason
    assert r.stats["core"] == ["start and finish", "jump preconditions", "jump effects",
                               "frame axioms", "jump end", "move starts", "move counting"]
    assert r.stats["core_recheck"] == "UNSAT"
    assert set(r.stats["without_each"].values()) == {"SAT (model checked)"}
    assert r.stats["necessary"] == r.stats["core"] and r.stats["minimal"] is True
    assert r.stats["undecided"] == [] and set(r.stats["dropped"]) == {"one jump per step", "invariants"}
    log = r.stats["log"]   # the first call has every group, then one call per group left out
    assert (log[0]["without"], log[0]["groups"], log[0]["answer"]) == (None, 9, "UNSAT")
    assert len(log) == r.stats["calls"] and {e["answer"] for e in log[1:]} <= {"SAT", "UNSAT"}
    assert [e["without"] for e in log if e["answer"] == "SAT"] == r.stats["core"]
    assert len(r.certificate["proofs"]) == 1     # only the final core's refutation is proved
    assert r.certificate["verdict"] == "VERIFIED", r.certificate
    assert "alone admit no solution" in r.certificate["claim"]


def test_a_call_that_hits_its_limit_leaves_its_group_undecided_never_claimed():
    """A deletion call stopped by the call limit decides nothing: the group stays in the core,
    undecided, the core is re-checked infeasible and is not called minimal."""
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    r = m.core(time_limit=120, call_limit=1e-9)
    assert r.status.value == "INFEASIBLE", r.reason
    st = r.stats
    assert st["minimal"] is False and st["necessary"] == [] and st["undecided"] == st["core"]
    assert set(st["core"]) >= {"start and finish", "jump preconditions", "jump effects",
                               "frame axioms", "jump end", "move starts", "move counting"}
    assert st["core_recheck"] == "UNSAT"
    assert set(st["without_each"].values()) == {"UNKNOWN (call limit)"}
    assert {e["answer"] for e in st["log"][1:]} == {"UNKNOWN"}
    assert "not shown minimal" in r.reason
    with pytest.raises(ps.InputError, match="call limit"):
        m.core(call_limit=0)


def test_budgeted_solve_slices_and_stops():
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver
    from puzzlesat.core.result import Context
    from puzzlesat.models.why import budgeted_solve
    with Solver(name="cadical195", bootstrap_with=PHP(5).clauses) as s:
        assert budgeted_solve(s, Context(), [], None, chunk=5) is False
        assert s.accum_stats()["conflicts"] > 5    # more than one slice
    with Solver(name="cadical195", bootstrap_with=PHP(5).clauses) as s:
        assert budgeted_solve(s, Context(time_limit=0.0), [], None) is None
        assert budgeted_solve(s, Context(), [], 1e-9) is None


def test_a_feasible_call_has_no_core_but_a_checked_solution():
    r = ps.model(ps.load("peg/ipc-p01"), "cpsat:time", bound=3).core(time_limit=120)
    assert (r.status.value, r.checked, r.objective) == ("FEASIBLE", 1, 3)


def test_ablation_variants_agree_and_name_the_roles():
    fam = family("sliding")
    rep = ablate(fam, ps.load("sliding/8-easy"), "sat:time", repeat=1, time_limit=60)
    assert rep["verdict"] == "AGREE", rep["reasons"]
    assert [c["config"] for c in rep["configs"]] == [
        "sat:all groups", "sat:without manhattan bound", "sat:without no undo",
        "sat:without all optional"]
    assert {c["objective"] for c in rep["configs"]} == {2}
    assert rep["roles"] == {"manhattan bound": "implied", "no undo": "dominance"}
    assert all(c["clauses"] for c in rep["configs"])
    assert rep["configs"][0]["conflicts"] is not None


def test_lab_core_and_ablate_commands():
    run = lambda *a: subprocess.run([sys.executable, "-m", "puzzlesat", "lab", *a],  # noqa: E731
                                    capture_output=True, text=True)
    p = run("core", "sliding/8-easy", "-e", "sat", "--bound", "1", "--json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["status"] == "INFEASIBLE" and rec["stats"]["core"] == ["one tile per cell"]
    p = run("ablate", "maze/sample1", "-e", "cpsat:time")
    assert p.returncode == 2 and "marks no optional group" in p.stderr, p.stderr
    p = run("ablate", "peg/hoppers", "-e", "native")
    assert p.returncode == 2 and "no formulation hook" in p.stderr, p.stderr
    p = run("core", "maze/sample1", "-e", "cpsat:time", "--bound", "37")
    assert p.returncode == 2 and "no CNF" in p.stderr, p.stderr
    p = run("core", "sliding/8-easy", "-e", "sat", "--bound", "1", "--call-limit", "0")
    assert p.returncode == 2 and "--call-limit" in p.stderr, p.stderr


def test_tiling_search_ablates_its_symmetry_breaking():
    """Looking for one tiling with up_to_symmetry: the breaking clauses keep a tiling of every
    orbit, so they are optional for feasibility (not for an orbit count) and uncertified only."""
    inst = ps.load("pentomino/3x20")
    m = ps.model(inst, "sat", "feasible", up_to_symmetry=True)
    assert m.formulation.optional == {"symmetry breaking": "symmetry breaking"}
    assert ps.model(inst, "sat", "feasible").formulation.optional == {}
    assert ps.model(inst, "sat", "feasible", up_to_symmetry=True,
                    certify=True).formulation.optional == {}
    for engine in ("sat", "cpsat"):
        r = ps.solve(inst, engine, "feasible", up_to_symmetry=True)
        assert r.status.value == "FEASIBLE" and r.checked == 1, (engine, r.reason)
        assert r.params["symmetry_breaking_applied"] is True, engine
    rep = ablate(family("pentomino"), inst, "sat:cover", task="feasible", repeat=1, time_limit=120,
                 options={"up_to_symmetry": True})
    assert rep["verdict"] == "AGREE", rep["reasons"]
    assert [c["config"] for c in rep["configs"]] == ["sat:all groups", "sat:without symmetry breaking"]
    assert rep["roles"] == {"symmetry breaking": "symmetry breaking"}
