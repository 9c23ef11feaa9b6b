"""The ext:dimacs engine and the bundled solvers: an external DIMACS solver's answer is checked
clause by clause and then by the family checker; a lying, crashing or babbling solver is ERROR,
never an answer; every python-sat solver works, a non-incremental one is refused for counting.

Fact: hoppers needs 7 moves (SPEC.md, peg).
"""
from __future__ import annotations

import shutil
import stat
import subprocess

import pytest

from puzzlesat.families.instances import load_instance
from puzzlesat.families.options import SAT_SOLVERS
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.models import _sat
from puzzlesat.models._ext import parse_output
from puzzlesat.core.result import InputError, Status


def run(*args: str) -> subprocess.CompletedProcess:
    import helpers
    return helpers.cli(*args, timeout=300)  # a fork of this process


def script(tmp_path, name: str, body: str) -> str:
    p = tmp_path / name
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_every_family_with_a_sat_hook_gets_ext_dimacs():
    for fam_name in ("peg", "pentomino", "sliding", "maze"):
        fam = family(fam_name)
        hooked = any(e.formulation and e.name.startswith("sat") for e in fam.engines)
        assert ("ext:dimacs" in fam.engine_names()) == hooked
    assert "ext:dimacs" in family("peg").engine_names()


@pytest.mark.skipif(shutil.which("cadical") is None,
                    reason="the Debian 'cadical' package is not installed (apt-get install cadical)")
@pytest.mark.parametrize("task, status", [("optimize", Status.OPTIMAL), ("feasible", Status.FEASIBLE)])
def test_ext_cadical_on_hoppers(task, status):
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "ext:dimacs", task, options={"cmd": "cadical -q"}, time_limit=120)
    assert r.status is status and r.checked == 1
    if task == "optimize":
        assert r.objective == 7
        assert [d["result"] for d in r.stats["decisions"]][-1] == "UNSAT"  # moves <= 6


@pytest.mark.skipif(shutil.which("minisat") is None,
                    reason="the Debian 'minisat' package is not installed (apt-get install minisat)")
def test_ext_minisat_result_file_on_hoppers():
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "ext:dimacs", "optimize", options={"cmd": "minisat -verb=0 {cnf} {model}"},
              time_limit=120)
    assert r.status is Status.OPTIMAL and r.objective == 7


@pytest.mark.parametrize("body, words", [
    ("echo 's SATISFIABLE'; echo 'v 1 2 3 4 5 6 7 8 9 10 0'; exit 10\n", "violates clause"),
    ("echo 'all good, trust me'; exit 10\n", "no status line"),
    ("echo 's SATISFIABLE'; exit 10\n", "without a model"),
    ("echo 's SATISFIABLE'; echo 'v 1 x 0'; exit 10\n", "not an integer"),
    ("kill -SEGV $$\n", "signal"),
    ("echo 's UNSATISFIABLE'; exit 10\n", "exits with 10"),
    ("echo 'c crashing'; exit 3\n", "no status line"),
])
def test_ext_lying_or_broken_solver_is_an_error(tmp_path, body, words):
    fake = script(tmp_path, "fake-solver", body)
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "ext:dimacs", "feasible", options={"cmd": fake}, time_limit=60)
    assert r.status is Status.ERROR and not r.solutions
    assert words in r.reason


def test_ext_time_limit_is_unknown(tmp_path):
    fake = script(tmp_path, "slow-solver", "sleep 60\n")
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "ext:dimacs", "feasible", options={"cmd": fake}, time_limit=1)
    assert r.status is Status.UNKNOWN


def test_ext_command_not_found_or_not_executable(tmp_path):
    r = run("solve", "peg/hoppers", "-e", "ext:dimacs", "-o", "cmd=no-such-sat-solver -q")
    assert r.returncode == 2 and "not found on PATH" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    p = tmp_path / "solver.sh"
    p.write_text("#!/bin/sh\necho s UNSATISFIABLE\n")
    r = run("solve", "peg/hoppers", "-e", "ext:dimacs", "-o", f"cmd={p}")
    assert r.returncode == 2 and "not executable" in r.stderr
    fam, inst = load_instance("peg/hoppers")
    with pytest.raises(InputError):
        solve(fam, inst, "ext:dimacs", "optimize", options={"cmd": str(tmp_path / "missing")})


def test_parse_output_formats():
    assert parse_output("c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n") == ("SAT", [1, -2, 3])
    assert parse_output("s UNSATISFIABLE\n") == ("UNSAT", [])
    assert parse_output("SAT\n1 -2 3 0\n") == ("SAT", [1, -2, 3])  # MiniSat's result file
    assert parse_output("UNSAT\n") == ("UNSAT", [])
    for bad in ("", "s MAYBE\n", "s SATISFIABLE\ns UNSATISFIABLE\n", "s SATISFIABLE\nv 1 0 2\n"):
        with pytest.raises(ValueError):
            parse_output(bad)


def test_solver_list_is_what_python_sat_ships():
    from pysat.solvers import SolverNames
    assert SAT_SOLVERS == _sat.SOLVERS
    assert {"kissat404", "cadical300", "cadical195", "lingeling"} <= set(SAT_SOLVERS)
    assert set(SAT_SOLVERS) <= {n for n in vars(SolverNames) if not n.startswith("_")}


@pytest.mark.parametrize("solver", ["kissat404", "cadical300", "lingeling", "glucose42", "mergesat3"])
def test_every_solver_finds_the_hoppers_optimum(solver):
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "sat:time", "optimize", options={"solver": solver}, time_limit=120)
    assert r.status is Status.OPTIMAL and r.objective == 7


def test_counting_with_a_non_incremental_solver_is_refused():
    fam, inst = load_instance("peg/hoppers-first06")
    with pytest.raises(InputError, match="not incremental"):
        solve(fam, inst, "sat:time", "count", options={"solver": "kissat404"})
    r = run("solve", "peg/hoppers-first06", "-e", "sat", "--task", "count", "-o", "solver=kissat404")
    assert r.returncode == 2 and "not incremental" in r.stderr
    s = _sat.new_solver("kissat404", [[1, 2]])
    assert s.solve()
    with pytest.raises(InputError):
        s.add_clause([-1])  # kissat would abort the process here
    with pytest.raises(InputError):
        s.solve()
    s.delete()
    with _sat.new_solver("kissat404", [[1]]) as s2, pytest.raises(InputError):
        s2.solve(assumptions=[-1])  # kissat ignores assumptions: a wrong SAT without the guard
