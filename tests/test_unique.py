"""Task unique: UNIQUE (the solution, and a complete search that found no other; certified with a
checked proof), MULTIPLE (two checked solutions that differ on the projection), INFEASIBLE,
UNKNOWN — for every family through its count engines, cross-validated, and never from a limit."""
from __future__ import annotations

import json
import time

import pytest

import puzzlesat as ps
from puzzlesat.core.result import Outcome, Status, Task

from helpers import cli

ONE_TILING = 'kind = "pentomino"\nname = "bar"\nsize = [5, 1]\npieces = "I"\n'  # one tiling
TWO_TILINGS = 'kind = "pentomino"\nname = "sq"\nsize = [2, 2]\n[pieces.D]\nshape = "##"\ncount = 2\n'
TWO = [{"placements": [["D", [[0, 0], [0, 1]]], ["D", [[1, 0], [1, 1]]]]},  # its two tilings
       {"placements": [["D", [[0, 0], [1, 0]]], ["D", [[0, 1], [1, 1]]]]}]


def _distinct(r) -> int:
    fam = ps.family_of(r.inst)
    return len({fam.solution_key(r.inst, s) for s in r.solutions})


def test_every_family_offers_unique_through_its_count_engines():
    for fam in (ps.family_of(ps.load(n)) for n in ("peg/hoppers", "pentomino/3x20",
                                                    "sliding/8-easy", "maze/sample1")):
        assert Task.UNIQUE in fam.tasks, fam.name
        for e in fam.engines:
            # a counter lists no solutions: it cannot show the one, or the two
            assert (Task.UNIQUE in e.tasks) == (Task.COUNT in e.tasks and not e.counter), (fam.name, e.name)
    # ext:dimacs does not count: no unique either
    assert Task.UNIQUE not in ps.family_of(ps.load("peg/hoppers")).engine("ext:dimacs").tasks


@pytest.mark.parametrize("engine", ["native", "cpsat", "sat"])
def test_a_tiling_with_two_solutions_is_multiple_with_two_checked_witnesses(engine):
    inst = ps.load(TWO_TILINGS)
    r = ps.solve(inst, engine, "unique", time_limit=60)
    assert (r.status, r.answer, r.unique, r.count) == (Status.OPTIMAL, "MULTIPLE", False, None)
    assert len(r.solutions) == 2 and _distinct(r) == 2 and r.checked == 2
    assert r.stats["count_lower_bound"] == 2
    for s in r.solutions:
        ps.check(inst, s)


def test_up_to_symmetry_the_two_bars_are_one_orbit_unique():
    inst = ps.load(TWO_TILINGS)  # the two tilings are one orbit (a quarter turn)
    c = ps.compare(inst, ["native", "cpsat", "sat"], "unique", up_to_symmetry=True, time_limit=60)
    assert c.verdict.value == "AGREE", c.reasons
    assert [r.answer for r in c.results] == ["UNIQUE"] * 3


def test_unique_is_certified_by_a_checked_proof(tmp_path):
    inst = ps.load(ONE_TILING)
    r = ps.solve(inst, "sat", "unique", certify=True, proof_dir=str(tmp_path), time_limit=60)
    assert (r.answer, r.count, len(r.solutions)) == ("UNIQUE", 1, 1)
    assert r.certificate["verdict"] == "VERIFIED", r.certificate
    # the proof is of the CNF with the one solution blocked
    assert "beyond the 1 blocked" in r.certificate["proofs"][0]["claim"]
    assert r.certificate["claim"].startswith("unique: ")


def test_sliding_unique_optimum_certified_and_cross_validated():
    c = ps.compare(ps.load("sliding/8-easy"), ["native", "cpsat", "sat"], "unique", time_limit=60,
                   certify=True)
    assert c.verdict.value == "AGREE", c.reasons
    assert {(r.answer, r.objective) for r in c.results} == {("UNIQUE", 2)}
    assert "sat:time" in c.certified and "cpsat:time" in c.certified


def test_optimisation_family_multiple_means_several_optimal_solutions():
    r = ps.solve(ps.load("peg/hoppers"), "native", "unique", time_limit=60)
    assert (r.answer, r.objective) == ("MULTIPLE", 7)
    assert r.stats["count"] == 72  # the full count of optimal solutions decided it
    fam = ps.family_of(r.inst)
    assert [fam.check(r.inst, s) for s in r.solutions] == [7, 7] and _distinct(r) == 2


def test_infeasible_is_infeasible_with_count_zero():
    r = ps.solve(ps.load("sliding/8-unsolvable"), "sat", "unique")
    assert (r.status, r.answer, r.count) == (Status.INFEASIBLE, "INFEASIBLE", 0)


# ---- engines that lie or stop ---------------------------------------------------------------------
def test_a_count_engine_is_stopped_at_its_second_solution():
    inst, h = ps.load(TWO_TILINGS), TWO

    def streams_then_hangs(inst, task, ctx):
        assert task is Task.COUNT  # unique is asked of it as a count
        for s in h:
            ctx.found(s)
        time.sleep(120)  # never reached: the watch stops it at the second solution
        return Outcome(Status.OPTIMAL, count=2, solutions=tuple(h))
    t0 = time.monotonic()
    r = ps.solve(inst, streams_then_hangs, "unique", time_limit=60)
    assert time.monotonic() - t0 < 30
    assert (r.answer, r.checked) == ("MULTIPLE", 2)


def test_two_checked_solutions_before_a_limit_prove_multiple_but_not_unique():
    inst, h = ps.load(TWO_TILINGS), TWO
    ps.register_engine("pentomino", "test:limit2", lambda i, t, c: Outcome(Status.UNKNOWN, solutions=tuple(h)),
                       tasks=["unique"])
    ps.register_engine("pentomino", "test:limit1", lambda i, t, c: Outcome(Status.UNKNOWN, solutions=(h[0],)),
                       tasks=["unique"])
    ps.register_engine("pentomino", "test:claims-one", lambda i, t, c: Outcome(Status.OPTIMAL, count=1,
                       solutions=tuple(h)), tasks=["unique"])
    ps.register_engine("pentomino", "test:same-twice", lambda i, t, c: Outcome(Status.OPTIMAL,
                       solutions=(h[0], h[0])), tasks=["unique"])
    ps.register_engine("pentomino", "test:says-unique", lambda i, t, c: Outcome(Status.OPTIMAL,
                       solutions=(h[1],)), tasks=["unique"])
    try:
        r = ps.solve(inst, "test:limit2", "unique")
        assert (r.status, r.answer) == (Status.OPTIMAL, "MULTIPLE")  # proved by its witnesses
        r = ps.solve(inst, "test:limit1", "unique")
        assert (r.status, r.answer, r.count) == (Status.FEASIBLE, "UNKNOWN", None)
        assert ps.solve(inst, "test:claims-one", "unique").status is Status.ERROR
        assert ps.solve(inst, "test:same-twice", "unique").status is Status.ERROR
        # a false UNIQUE is caught by cross-validation: the other engines' solutions refute it
        c = ps.compare(inst, ["native", "test:says-unique"], "unique")
        assert c.verdict.value == "DISAGREE", c.reasons
        assert any("answers differ" in x for x in c.reasons)
        c = ps.compare(inst, ["test:says-unique", "test:limit1"], "unique")
        assert c.verdict.value == "DISAGREE" and "different ones" in " ".join(c.reasons)
    finally:
        for n in ("limit2", "limit1", "claims-one", "same-twice", "says-unique"):
            ps.unregister_engine("pentomino", f"test:{n}")


def test_optimisation_two_solutions_without_a_proved_optimum_are_not_multiple():
    inst = ps.load("peg/hoppers")
    r = ps.solve(inst, "native", "unique", time_limit=60)
    two = tuple(ps.family_of(inst).solution_json(inst, s) for s in r.solutions)
    ps.register_engine("peg", "test:cut", lambda i, t, c: Outcome(Status.UNKNOWN, solutions=two),
                       tasks=["unique"])
    try:
        r = ps.solve(inst, "test:cut", "unique")
        assert (r.status, r.answer, r.objective) == (Status.FEASIBLE, "UNKNOWN", 7)
    finally:
        ps.unregister_engine("peg", "test:cut")


def test_cli_unique_json_and_table():
    p = cli("solve", "sliding/8-easy", "-e", "sat", "--task", "unique", "--json")
    d = json.loads(p.stdout)
    assert p.returncode == 0, p.stderr
    assert (d["task"], d["status"], d["answer"], d["count"]) == ("unique", "OPTIMAL", "UNIQUE", 1)
    p = cli("compare", "pentomino/3x20", "--task", "unique", "--engines", "native,sat")
    assert p.returncode == 0 and "MULTIPLE" in p.stdout and "AGREE" in p.stdout, p.stdout
