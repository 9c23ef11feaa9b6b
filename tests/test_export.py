"""Model export and statistics: an exported CNF solved by an independent solver gives our engine's
answer on the same bound, its model decodes (through the .map.json alone) to a solution the checker
accepts; statistics per group add up to the totals; bad input is one line, exit 2, no file.

Facts: hoppers (13 holes, one peg left in the centre) needs 7 moves (SPEC.md, peg: hoppers, proved
by native:iddfs in tests/test_peg.py), so "moves <= 6" is UNSAT and "moves <= 7" SAT.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from puzzlesat.core.config import parse
from puzzlesat.compare.export import export, model_stats
from puzzlesat.families.instances import load_instance
from puzzlesat.compare.runner import solve
from puzzlesat.puzzles import peg


def run(*args: str) -> subprocess.CompletedProcess:
    import helpers
    return helpers.cli(*args, timeout=300)  # a fork of this process


def independent_solve(path: str) -> tuple[bool, list[int]]:
    """SAT?, model of a DIMACS file: the Debian cadical binary when installed, else python-sat's
    glucose4 (our peg engine runs cadical195)."""
    if shutil.which("cadical"):
        out = subprocess.run(["cadical", "-q", path], capture_output=True, text=True, timeout=300)
        assert out.returncode in (10, 20), out.stderr
        lits = [int(x) for ln in out.stdout.splitlines() if ln.startswith("v ")
                for x in ln[2:].split() if x != "0"]
        return out.returncode == 10, lits
    cnf = CNF(from_file=path)
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
        return s.solve(), (s.get_model() or [])


def decode_peg_from_map(map_path: str, model: list[int], inst) -> tuple:
    """The jump sequence from the true ['j', t, l] variables, read through the sidecar only."""
    meta = json.load(open(map_path))
    true = {int(v) for v in model if v > 0}
    steps = sorted((key[1], key[2]) for n, key in meta["variables"].items()
                   if key[0] == "j" and int(n) in true)
    assert [t for t, _ in steps] == list(range(inst.jumps_needed))
    return tuple(inst.board.lines[l] for _, l in steps)


@pytest.mark.parametrize("k, sat", [(6, False), (7, True)])
def test_hoppers_dimacs_independent_solver_agrees(tmp_path, k, sat):
    fam, inst = load_instance("peg/hoppers")
    path = str(tmp_path / f"h{k}.cnf")
    summary = export(fam, inst, parse("sat:time[encoding=totalizer]"), "dimacs", path, bound=k)
    assert summary["bound_text"] == f"moves <= {k}"
    text = open(path).read()
    assert "c configuration sat:time[encoding=totalizer]" in text and f"c bound moves <= {k}" in text
    assert "c instance peg/hoppers" in text and "c puzzlesat " in text
    p_line = next(ln for ln in text.splitlines() if ln.startswith("p cnf"))
    assert int(p_line.split()[3]) == summary["clauses"] == sum(
        1 for ln in text.splitlines() if ln and ln[0] not in "cp")
    res, model = independent_solve(path)
    assert res is sat
    if sat:
        seq = decode_peg_from_map(path + ".map.json", model, inst)
        assert peg.check(inst, seq) <= k  # the checker accepts it, within the bound
    # our engine on the same bound: the optimum is 7, so the bound is feasible iff k >= 7
    r = solve(fam, inst, "sat:time", "optimize", options={"encoding": "totalizer"})
    assert r.objective == 7 and (r.objective <= k) is sat


def test_cpsat_txt_export_solves_to_the_same_answers(tmp_path):
    from ortools.sat.python import cp_model
    fam, inst = load_instance("peg/hoppers")
    for k, want in ((6, cp_model.INFEASIBLE), (7, cp_model.OPTIMAL)):
        path = str(tmp_path / f"h{k}.txt")
        export(fam, inst, parse("cpsat"), "cpsat-txt", path, bound=k)
        m = cp_model.CpModel()
        m.Proto().parse_text_format(open(path).read())
        s = cp_model.CpSolver()
        s.parameters.num_workers = 1
        s.parameters.linearization_level = 0
        assert s.solve(m) == want
        if want == cp_model.OPTIMAL:
            meta = json.load(open(path + ".map.json"))
            sol = s.response_proto.solution
            model = [int(n) + 1 if sol[int(n)] else -(int(n) + 1) for n in meta["variables"]]
            shifted = {"variables": {str(int(n) + 1): key for n, key in meta["variables"].items()}}
            mp = tmp_path / "shifted.json"
            mp.write_text(json.dumps(shifted))
            assert peg.check(inst, decode_peg_from_map(str(mp), model, inst)) == 7


def test_lp_and_mps_of_a_linear_model_read_back(tmp_path):
    from ortools.linear_solver.python import model_builder as mb
    fam, inst = load_instance("peg/hoppers")
    st = model_stats(fam, inst, parse("cpsat[invariants=false]"))
    path = str(tmp_path / "h.mps")
    export(fam, inst, parse("cpsat[invariants=false]"), "mps", path)
    m = mb.Model()
    assert m.import_from_mps_file(path)
    assert m.num_variables == st["vars"] and m.num_constraints == st["constraints"]
    # OR-tools' LP reader rejects comment lines, so the LP file is checked by its rows
    export(fam, inst, parse("cpsat[invariants=false]"), "lp", str(tmp_path / "h.lp"))
    rows = [ln for ln in open(tmp_path / "h.lp") if ln.lstrip().startswith("C") and ":" in ln]
    assert len(rows) == st["constraints"]


def test_wcnf_and_opb_carry_the_same_clauses(tmp_path):
    fam, inst = load_instance("peg/hoppers")
    cfg = parse("sat")
    export(fam, inst, cfg, "dimacs", str(tmp_path / "h.cnf"))
    export(fam, inst, cfg, "wcnf", str(tmp_path / "h.wcnf"))
    export(fam, inst, cfg, "opb", str(tmp_path / "h.opb"))
    hard = CNF(from_file=str(tmp_path / "h.cnf")).clauses
    wlines = [ln.split() for ln in open(tmp_path / "h.wcnf") if ln[0] not in "cp"]
    top = int(next(ln for ln in open(tmp_path / "h.wcnf") if ln.startswith("p wcnf")).split()[4])
    assert [list(map(int, w[1:-1])) for w in wlines if int(w[0]) == top] == hard
    soft = [w for w in wlines if int(w[0]) != top]
    assert len(soft) == inst.jumps_needed - 1  # one per new-move variable m[1..J-1]
    opb = [ln for ln in open(tmp_path / "h.opb") if ln[0] not in "*" and not ln.startswith("min:")]
    assert len(opb) == len(hard)


@pytest.mark.parametrize("config", ["sat", "sat:time[encoding=totalizer]", "sat[encoding=cardnetwrk]",
                                    "sat[invariants=false,encoding=kmtotalizer]", "cpsat"])
@pytest.mark.parametrize("name", ["peg/hoppers", "peg/triangle21"])
def test_stats_groups_add_up(name, config):
    fam, inst = load_instance(name)
    s = model_stats(fam, inst, parse(config))
    g = s["groups"].values()
    unit = "clauses" if s["format"] == "cnf" else "constraints"
    assert sum(x[unit] for x in g) == s[unit] > 0
    assert sum(x["literals"] for x in g) == s["literals"]
    if s["format"] == "cnf":
        assert s["keyed_vars"] + sum(x["aux_vars"] for x in g) == s["vars"]
    assert "move counting" in s["groups"] and "frame axioms" in s["groups"]
    assert ("invariants" in s["groups"]) == (name == "peg/triangle21" and "invariants=false" not in config)


def test_stats_cli_json_matches_the_exported_file(tmp_path):
    out = run("stats", "peg/hoppers", "-e", "sat[encoding=seqcounter]", "--bound", "9", "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    path = tmp_path / "h.cnf"
    assert run("export", "peg/hoppers", "-e", "sat[encoding=seqcounter]", "--bound", "9",
               "--format", "dimacs", "-o", str(path)).returncode == 0
    p = next(ln for ln in open(path) if ln.startswith("p cnf")).split()
    assert (int(p[2]), int(p[3])) == (s["vars"], s["clauses"])


@pytest.mark.parametrize("args, words", [
    (["-e", "sat", "--format", "xyz"], "unknown export format"),
    (["-e", "sat", "--format", "lp"], "writes dimacs, wcnf, opb"),
    (["-e", "cpsat", "--format", "dimacs"], "writes cpsat-txt"),
    (["-e", "native", "--format", "dimacs"], "not a CP-SAT or SAT model"),
])
def test_export_bad_input(tmp_path, args, words):
    out_file = tmp_path / "m.out"
    r = run("export", "peg/hoppers", *args, "-o", str(out_file))
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert os.listdir(tmp_path) == []


def test_export_lp_of_a_nonlinear_model_and_missing_directory(tmp_path):
    r = run("export", "peg/triangle21", "-e", "cpsat", "--format", "lp", "-o", str(tmp_path / "t.lp"))
    assert r.returncode == 2 and "not linear" in r.stderr and "invariants" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("export", "peg/hoppers", "-e", "sat", "--format", "dimacs", "-o", str(tmp_path / "no" / "h.cnf"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    assert os.listdir(tmp_path) == []
    (tmp_path / "file").write_text("mine\n")   # a file where the folder should be: said so
    r = run("export", "peg/hoppers", "-e", "sat", "--format", "dimacs", "-o", str(tmp_path / "file" / "h.cnf"))
    assert r.returncode == 2 and r.stderr == (f"puzzlesat: error: {tmp_path / 'file' / 'h.cnf'}: cannot "
                                              f"write the export: '{tmp_path / 'file'}' is not a folder\n")
    assert os.listdir(tmp_path) == ["file"]
