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
    assert r.certificate["verdict"] == "VERIFIED", r.certificate
    assert "alone admit no solution" in r.certificate["claim"]


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
