"""Peg items of issue 17: solver stats read after solving, AMO-only encodings refused before
running, a required first jump when no jump is needed, the default native engine."""
from __future__ import annotations


import pytest
from click.testing import CliRunner
from pysat.solvers import Solver

from puzzlesat.cli import cli
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.models.peg import sat
from puzzlesat.core.result import CheckError, InputError, Status
from puzzlesat.puzzles.peg import PegInstance, catalogue, check, infeasible_reason

PEG = family("peg")
CAT = catalogue()


def test_sat_conflicts_are_the_solvers_own():
    inst = CAT["hoppers"]()
    r = solve(PEG, inst, "sat:time", isolate=False)
    calls = r.stats["decisions"]
    assert r.objective == 7 and calls[-1]["result"] == "UNSAT" and calls[-1]["moves_le"] == 6
    assert r.stats["conflicts"] == sum(c["conflicts"] for c in calls) > 0
    # the same last call (moves <= 6) replayed straight in python-sat: the same conflicts
    pc = sat.build(inst, **PEG.engine("sat:time").resolve_options({}))
    with Solver(name="cadical195", bootstrap_with=pc.clauses + pc.bounded(6)) as s:
        assert s.solve() is False
        assert s.accum_stats()["conflicts"] == calls[-1]["conflicts"]


def test_cpsat_conflicts_are_totals_over_calls():
    r = solve(PEG, CAT["hoppers"](), "cpsat:time", isolate=False)
    calls = r.stats["decisions"]
    assert r.stats["conflicts"] == sum(c["conflicts"] for c in calls)
    assert r.stats["branches"] == sum(c["branches"] for c in calls) > 0


@pytest.mark.parametrize("enc", ["pairwise", "ladder", "bitwise"])
def test_amo_only_encodings_refused_before_running(enc):
    for cmd in (["solve", "peg/hoppers", "-e", "sat", "-o", f"encoding={enc}"],
                ["compare", "peg/hoppers", "--engines", "native,sat", "-o", f"sat.encoding={enc}"]):
        r = CliRunner().invoke(cli, cmd)
        assert r.exit_code == 2 and "at-most-one only" in r.output, r.output
    with pytest.raises(InputError):
        sat.validate(CAT["hoppers"](), {"encoding": enc})


ENGINES = ("native", "native:iddfs", "native:bfs", "cpsat:time", "sat:time")


@pytest.mark.parametrize("first", [(1, 6), (6, 0)])  # possible, impossible from the start
def test_first_jump_when_no_jump_is_needed_is_infeasible(first):
    """Decided (docs/peg.md): a required first jump on an instance that needs no jump makes it
    INFEASIBLE, whether that jump is possible from the start or not."""
    h = CAT["hoppers"]()
    inst = PegInstance("none-needed", h.board, h.start, h.start, first)
    assert infeasible_reason(inst)
    with pytest.raises(CheckError):
        check(inst, ())
    for eng in ENGINES:
        for precheck in (True, False):
            r = solve(PEG, inst, eng, precheck=precheck, isolate=False)
            assert r.status is Status.INFEASIBLE and not r.solutions, (eng, precheck)
    free = PegInstance("none-needed", h.board, h.start, h.start)
    for eng in ENGINES:
        r = solve(PEG, free, eng, isolate=False)
        assert (r.status, r.objective) == (Status.OPTIMAL, 0)


def test_default_native_engine():
    assert PEG.engine("native").name == "native:auto"
    r = solve(PEG, CAT["hoppers"](), "native", isolate=False)
    assert (r.objective, r.stats["engine"]) == (7, "native:bfs")
    r = solve(PEG, CAT["hoppers-first06"](), "native", "count", isolate=False)
    assert (r.objective, r.count, r.stats["engine"]) == (7, 18, "native:iddfs")  # SPEC §1
