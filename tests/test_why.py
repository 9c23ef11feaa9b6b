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

from helpers import tree

CORE_P01 = ["start and finish", "jump preconditions", "jump effects", "frame axioms", "jump end",
            "move starts", "move counting"]


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
    jump per step are not needed for that, every other group is (each re-checked). (Another
    minimal core exists, found with order='largest': without jump preconditions and effects.)"""
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    r = m.core(time_limit=120, certify=True, proof_dir=str(tmp_path))
    assert r.status.value == "INFEASIBLE", r.reason
    assert r.stats["core"] == CORE_P01
    assert r.stats["core_recheck"] == "UNSAT"
    assert set(r.stats["without_each"].values()) == {"SAT (model checked)"}
    assert r.stats["necessary"] == r.stats["core"] and r.stats["minimal"] is True
    assert r.stats["undecided"] == [] and set(r.stats["dropped"]) == {"one jump per step", "invariants"}
    log = r.stats["log"]   # no all-groups call: the re-check of the core is the decision
    assert all(e["without"] is not None and e["groups"] < 9 for e in log)
    assert len(log) == r.stats["calls"] and {e["answer"] for e in log} == {"SAT", "UNSAT"}
    assert {e["without"] for e in log if e["answer"] == "SAT" and isinstance(e["without"], str)
            } == set(r.stats["core"])   # each necessary group: its own call, a witness
    assert {e["without"] for e in log if e["answer"] == "UNSAT"} == {"one jump per step", "invariants"}
    assert [e["without"] for e in log][:2] == [    # tried together first, then halves
        ["start and finish", "one jump per step", "jump preconditions", "jump effects", "frame axioms"],
        ["start and finish", "one jump per step", "jump preconditions"]]
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
    assert st["core"] == st["groups"] and st["core_recheck"] == "UNSAT"
    assert set(st["without_each"].values()) == {"UNKNOWN (call limit)"}
    assert {e["answer"] for e in st["log"]} == {"UNKNOWN"}
    # each group once: no group is tried again against the same set
    assert sorted(e["without"] for e in st["log"] if isinstance(e["without"], str)) == sorted(st["groups"])
    assert "not shown minimal" in r.reason and "ran out of its CPU limit: 'start and finish' 0 s" in r.reason
    # the command line names the options that try the undecided groups again, and they work
    import shlex
    from puzzlesat.cli.lab import within_hint
    args = [sys.executable, "-m", "puzzlesat", "lab", "core", "peg/ipc-p01", "-e", "sat:time",
            "--bound", "2"]
    p = subprocess.run([*args, "--call-limit", "1e-9"], capture_output=True, text=True)
    assert p.returncode == 0 and "yes (undecided)" in p.stdout, p.stderr
    hint = p.stderr.strip().splitlines()[-1]
    assert hint == within_hint(st, 1e-9, None) and hint.endswith("--call-limit 2e-09")
    words = shlex.split(hint.split("the same command with ", 1)[1])
    assert words[0] == "--within" and words[1].split(",") == st["core"]
    p = subprocess.run([*args, *words[:2]], capture_output=True, text=True)   # no call limit now
    assert p.returncode == 0 and "undecided" not in p.stdout + p.stderr, p.stderr
    assert p.stdout.count("│ yes ") == len(CORE_P01)
    odd = within_hint({"core": ["a, b", "c"], "undecided": ["c"]}, None, "/w d")
    assert shlex.split(odd.split("with ", 1)[1])[:4] == ["--within", "a, b", "--within", "c"]
    assert "a longer --call-limit (--work-dir '/w d' keeps" in odd
    assert within_hint({"core": ["a"], "undecided": []}, 5.0, None) is None
    with pytest.raises(ps.InputError, match="call limit"):
        m.core(call_limit=0)
    with pytest.raises(ps.InputError, match="order 'smallest'"):
        m.core(order="smallest")


def test_cpsat_answers_the_deletion_calls_with_pinned_parameters_and_a_cpu_limit():
    """-e cpsat:…: CP-SAT (one worker, pinned) decides the deletion calls (no failed-assumption
    core, so another minimal core than sat's here: both are single groups false alone); its
    witnesses satisfy the formulation's constraints; a CPU call limit stops CP-SAT too."""
    from puzzlesat.core.result import Context
    from puzzlesat.models.why import CpsatCalls, unmet
    r = ps.model(ps.load("sliding/8-easy"), "cpsat:time", bound=1).core(time_limit=60)
    assert r.status.value == "INFEASIBLE" and r.stats["core"] == ["empty horizon"] and r.stats["minimal"]
    assert r.params["core_backend"] == "cpsat" and r.params["cpsat_parameters"]["num_workers"] == 1
    assert r.stats["core_recheck"] == "UNSAT" and len(r.stats["log"]) == 2
    f = ps.model(ps.load("peg/ipc-p01"), "cpsat:time", bound=2).formulation
    rest = [g for g in f.groups if g != "start and finish"]
    c = CpsatCalls(f, {"num_workers": 1, "random_seed": 0})(rest, None, Context())
    assert c.answer == "SAT" and unmet([x for g in rest for x in f.groups[g]], c.witness) is None
    assert unmet(f.groups["start and finish"], c.witness) is not None
    f = ps.model(ps.load("peg/triangle21"), "cpsat:time", bound=11).formulation  # 15 s CPU to refute
    c = CpsatCalls(f, {"num_workers": 1, "random_seed": 0})(list(f.groups), 1e-9, Context())
    assert c.answer == "UNKNOWN" and c.cpu_seconds < 10


def test_cpsat_core_follows_the_engines_fixed_search_and_rechecks_with_lrat(tmp_path):
    """search=fixed / presolve=false of a cpsat: configuration reach lab core's CP-SAT calls
    (recorded; FIXED_SEARCH over the decision's search order, true first: the first model in
    that order), and --solver cpsat re-checks the core on CP-SAT with the same order, its LRAT
    checked by puzzlesat.certify."""
    from puzzlesat.core.result import Context
    from puzzlesat.models.why import CpsatCalls
    f = Formulation("t")
    f.add("one", ExactlyOne(("a", "b", "c")))
    fixed = {"num_workers": 1, "random_seed": 0, "search_branching": "FIXED_SEARCH",
             "cp_model_presolve": False}   # (presolve alone answers a model this small)
    for order in (("a", "b", "c"), ("c", "b", "a"), ("b", "c", "a")):
        assert CpsatCalls(f, fixed, order)(["one"], None, Context()).witness == {order[0]}
    with pytest.raises(ps.InputError, match="search order"):
        CpsatCalls(f, fixed)
    m = ps.model(ps.load("peg/ipc-p01"), "cpsat:time[search=fixed,presolve=false]", bound=2)
    assert m.decision.search_order == m.formulation.projection
    r = m.core(time_limit=120, certify=True, proof_dir=str(tmp_path), solver="cpsat")
    assert r.status.value == "INFEASIBLE" and r.stats["minimal"], r.reason
    p = r.params["cpsat_parameters"]
    assert (p["search_branching"], p["cp_model_presolve"], p["num_workers"]) == ("FIXED_SEARCH", False, 1)
    assert p["decision_strategy"].startswith(f"{len(m.decision.search_order)} keys")
    assert r.stats["recheck_solver"]["search_branching"] == "FIXED_SEARCH"
    assert r.stats["core_recheck"] == "UNSAT" and set(r.stats["without_each"].values()) == {"SAT (model checked)"}
    (proof,) = r.certificate["proofs"]
    assert (r.certificate["verdict"], proof["format"], proof["solver"]) == ("VERIFIED", "lrat", "cpsat")
    from puzzlesat.compare.why import core_cpsat_params
    auto = core_cpsat_params({"search": "auto"}, m.decision, "cpsat:time")
    assert auto["search_branching"] == "AUTOMATIC_SEARCH" and "cp_model_presolve" not in auto
    with pytest.raises(ps.InputError, match="cpsat: configuration"):
        ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2).core(solver="cpsat")


def test_a_witness_probe_finds_the_models_the_fixed_search_misses(tmp_path):
    """With search=fixed each deletion call first runs CP-SAT's automatic search for a few CPU
    seconds. triangle21 <= 11 without its start and finish, its bound and its redundant groups
    has models that the fixed depth-first search does not reach (measured: none after 600 CPU s,
    836,201 conflicts); the probe finds one, checked against every constraint of the call's
    groups. The probe is part of the search's parameters, so a folder made without it is refused
    with the way to go on with it."""
    from puzzlesat.compare.why import WITNESS_PROBE, core_cpsat_params
    from puzzlesat.core.result import Context
    from puzzlesat.models.why import PROBE, CpsatCalls, unmet
    m = ps.model(ps.load("peg/triangle21"), "cpsat:ordered[search=fixed,presolve=false]", bound=11)
    f, order = m.formulation, m.decision.search_order
    keep = ["one jump per step", "jump preconditions", "jump effects", "frame axioms", "jump end",
            "move starts"]
    params = core_cpsat_params(m.options, m.decision, "t")
    assert params[PROBE] == WITNESS_PROBE and params["search_branching"] == "FIXED_SEARCH"
    calls = CpsatCalls(f, params, order)
    assert calls.params[PROBE] == WITNESS_PROBE and PROBE not in calls.p   # recorded, not CP-SAT's
    c = calls(keep, 60, Context())
    assert c.answer == "SAT" and unmet([x for g in keep for x in f.groups[g]], c.witness) is None
    bare = CpsatCalls(f, core_cpsat_params(m.options, m.decision, "t", 0), order)
    assert PROBE not in bare.params and bare(keep, 3, Context()).answer == "UNKNOWN"
    # a folder made without the probe: refused, naming --witness-probe 0
    p01 = ps.model(ps.load("peg/ipc-p01"), "cpsat:time[search=fixed,presolve=false]", bound=2)
    w = str(tmp_path / "w")
    r = p01.core(time_limit=120, work_dir=w, witness_probe=0)
    assert r.status.value == "INFEASIBLE" and r.stats["minimal"] and PROBE not in r.params["cpsat_parameters"]
    with pytest.raises(ps.InputError, match="--witness-probe 0 goes on"):
        p01.core(time_limit=120, work_dir=w)
    again = p01.core(time_limit=120, work_dir=w, witness_probe=0)
    assert again.stats["work_dir"]["reused_calls"] == again.stats["calls"]
    head = tmp_path / "w" / "core.json"   # a core.json whose made_for is not an object: refused
    head.write_text(json.dumps({"fingerprint": "x", "made_for": ["garbage"]}))
    with pytest.raises(ps.InputError, match="another core search"):
        p01.core(time_limit=120, work_dir=w)
    with pytest.raises(ps.InputError, match="search=fixed"):
        ps.model(ps.load("peg/ipc-p01"), "cpsat:time[search=auto]", bound=2).core(witness_probe=5)
    with pytest.raises(ps.InputError, match="witness probe"):
        ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2).core(witness_probe=5)
    with pytest.raises(ps.InputError, match="0 or more"):
        p01.core(witness_probe=-1)


def test_a_work_dir_keeps_every_call_and_redoes_a_damaged_one(tmp_path):
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    w = str(tmp_path / "w")
    r = m.core(time_limit=120, work_dir=w)
    n = r.stats["calls"]
    fresh = n - r.stats["work_dir"]["reused_calls"]   # a call met twice in one run: solved once
    assert len(list((tmp_path / "w" / "calls").iterdir())) == fresh and fresh < n
    again = m.core(time_limit=120, work_dir=w)   # nothing solved again, the same answer
    assert again.stats["core"] == CORE_P01 and again.stats["minimal"]
    assert again.stats["work_dir"]["reused_calls"] == n and all(e.get("reused") for e in again.stats["log"])
    recs = sorted((tmp_path / "w" / "calls").iterdir())
    sat = next(p for p in recs if json.loads(p.read_text())["answer"] == "SAT")
    unsat = next(p for p in recs if json.loads(p.read_text())["answer"] == "UNSAT")
    rec = json.loads(sat.read_text())
    rec["witness"] = []            # a witness that violates its groups: checked on read, redone
    sat.write_text(json.dumps(rec))
    rec = json.loads(unsat.read_text())
    rec["cpu_seconds"] = 0.5       # the seal no longer matches: redone
    unsat.write_text(json.dumps(rec))
    third = m.core(time_limit=120, work_dir=w)
    assert third.stats["core"] == CORE_P01
    redone = third.stats["work_dir"]["redone_records"]
    assert len(redone) == 2 and any("violates" in x for x in redone) and any("seal" in x for x in redone)
    assert third.stats["work_dir"]["reused_calls"] == n - 2
    with pytest.raises(ps.InputError, match="another core search"):
        ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=1).core(time_limit=120, work_dir=w)


def test_a_status_replays_the_search_over_the_records_and_names_the_next_call(tmp_path):
    """core_status: the search replayed over the folder's records alone (validated as a run
    validates them) up to the first call without one — which is the call the next run makes
    first; RECHECK once every call is recorded; no solver call, nothing written."""
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    w = tmp_path / "w"
    r = m.core(time_limit=120, work_dir=str(w))
    before = tree(w)
    st = m.core_status(str(w))
    assert (st["status"], st["core"], st["necessary"], st["undecided"]) == ("RECHECK", CORE_P01, CORE_P01, [])
    assert st["dropped"] == r.stats["dropped"] and st["calls"] == r.stats["calls"]
    assert all(e.get("reused") for e in st["log"]) and tree(w) == before and "the run's re-check" in st["reason"]
    recs = {p: json.loads(p.read_text()) for p in (w / "calls").iterdir()}
    gone = next(p for p, rec in recs.items() if rec["answer"] == "SAT" and len(rec["groups"]) == 8)
    gone.unlink()                          # one necessary group's call: to be made again
    before = tree(w)
    st = m.core_status(str(w))
    assert st["status"] == "RUNNING" and tree(w) == before
    nxt = st["next_call"]
    assert nxt["groups"] == 8 and len(nxt["without"]) == 1 and nxt["without"][0] not in recs[gone]["groups"]
    assert st["calls"] < r.stats["calls"] and nxt["without"][0] not in st["necessary"]
    again = m.core(time_limit=120, work_dir=str(w))   # the run's first new call is the one named
    first_new = next(e for e in again.stats["log"] if not e.get("reused"))
    assert first_new["without"] == nxt["without"][0] and again.stats["core"] == CORE_P01
    rec = json.loads(gone.read_text())
    rec["witness"] = []                    # damaged: the status says the run would redo it
    gone.write_text(json.dumps(rec))
    st = m.core_status(str(w))
    assert st["status"] == "RUNNING" and len(st["work_dir"]["redone_records"]) == 1
    with pytest.raises(ps.InputError, match="another core search"):
        ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=1).core_status(str(w))
    with pytest.raises(ps.InputError, match="no core.json"):
        m.core_status(str(tmp_path / "none"))
    assert not (tmp_path / "none").exists()
    p = subprocess.run([sys.executable, "-m", "puzzlesat", "lab", "core", "peg/ipc-p01", "-e", "sat:time",
                        "--bound", "2", "--work-dir", str(w), "--status"], capture_output=True, text=True)
    assert p.returncode == 0 and "RUNNING" in p.stdout, p.stderr
    assert f"next call: without '{nxt['without'][0]}' (8 groups stay)" in p.stdout
    assert "1 record the run would redo" in p.stdout
    p = subprocess.run([sys.executable, "-m", "puzzlesat", "lab", "core", "peg/ipc-p01", "-e", "sat:time",
                        "--bound", "2", "--status"], capture_output=True, text=True)
    assert p.returncode == 2 and "--work-dir" in p.stderr and "Traceback" not in p.stderr


def test_within_searches_only_the_given_groups_and_shares_the_work_folder(tmp_path):
    """within: the search starts from a set known infeasible (here the p01 core plus the
    invariants) instead of the whole formulation; the minimal core it finds is a minimal core of
    the formulation (minimality is about the core's own subsets), the groups left out are
    reported apart from those dropped, and the folder of a full search serves it."""
    m = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2)
    w = str(tmp_path / "w")
    full = m.core(time_limit=120, work_dir=w)
    assert full.stats["core"] == CORE_P01 and "left_out" not in full.stats
    r = m.core(time_limit=120, work_dir=w, within=[*CORE_P01, "invariants"])
    assert r.status.value == "INFEASIBLE", r.reason
    assert r.stats["core"] == CORE_P01 and r.stats["minimal"] and r.stats["necessary"] == CORE_P01
    assert r.stats["left_out"] == ["one jump per step"] and r.stats["dropped"] == ["invariants"]
    assert r.params["within"] == [*CORE_P01[:6], "invariants", CORE_P01[6]]
    assert all(e["groups"] <= 8 for e in r.stats["log"])   # never a call with a group left out
    assert r.stats["work_dir"]["reused_calls"] >= 1          # the full search's records serve
    fresh = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2).core(time_limit=120, within=CORE_P01)
    assert fresh.stats["core"] == CORE_P01 and fresh.stats["dropped"] == [] and fresh.stats["minimal"]
    assert fresh.certificate is None and fresh.stats["core_recheck"] == "UNSAT"
    # a set that is not infeasible: no core among it, and the decision call is not answered
    sat = m.core(time_limit=120, within=["frame axioms", "jump end"])
    assert sat.status.value == "UNKNOWN" and sat.stats["core_recheck"] == "SAT"
    assert "admit a solution" in sat.reason and "'invariants'" in sat.reason
    assert not sat.solutions
    with pytest.raises(ps.InputError, match="no group 'nope' in .*'jump end'"):
        m.core(within=["jump end", "nope"])
    with pytest.raises(ps.InputError, match="no group given"):
        m.core(within=[])
    one = m.core(time_limit=120, within="jump end")   # a str names one group
    assert one.stats["left_out"] == [g for g in m.formulation.groups if g != "jump end"]
    args = [sys.executable, "-m", "puzzlesat", "lab", "core", "peg/ipc-p01", "-e", "sat:time",
            "--bound", "2", "--work-dir", w, "--within", ",".join(CORE_P01[:4]),
            "--within", ",".join(CORE_P01[4:])]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 0 and "no (left out: within)" in p.stdout, p.stderr
    assert p.stdout.count("no (left out: within)") == 2 and "INFEASIBLE" in p.stdout
    p = subprocess.run([*args, "--status"], capture_output=True, text=True)
    assert p.returncode == 0 and "RECHECK" in p.stdout, p.stderr
    assert "left out (--within), not tried: one jump per step, invariants" in p.stdout
    p = subprocess.run([*args[:-2], "--within", "jump end,nope"], capture_output=True, text=True)
    assert p.returncode == 2 and "no group 'nope'" in p.stderr and "Traceback" not in p.stderr


def test_an_undecided_group_is_tried_again_against_the_final_core(monkeypatch):
    """triangle21 <= 11 showed it: 'start and finish' was undecided against 8 groups (600 s) and
    is necessary against the final 7 (0.1 s). Here its call against 8 groups hits the limit."""
    from puzzlesat.models import why
    real = why.SatCalls.__call__

    def slow(self, cands, limit, ctx):
        if len(cands) == 8 and "start and finish" not in cands:
            return why.Call("UNKNOWN", 0.0, 0)
        return real(self, cands, limit, ctx)
    monkeypatch.setattr(why.SatCalls, "__call__", slow)
    r = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2).core(time_limit=120, call_limit=60)
    st = r.stats
    assert r.status.value == "INFEASIBLE" and st["core"] == CORE_P01 and st["minimal"], r.reason
    assert [(e["groups"], e["answer"]) for e in st["log"] if e["without"] == "start and finish"] == [
        (8, "UNKNOWN"), (6, "SAT")]


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
    r = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=3).core(time_limit=120)
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


def test_lab_core_and_ablate_commands(tmp_path, capsys, monkeypatch):
    run = lambda *a: subprocess.run([sys.executable, "-m", "puzzlesat", "lab", *a],  # noqa: E731
                                    capture_output=True, text=True)
    p = run("core", "sliding/8-easy", "-e", "sat", "--bound", "1", "--order", "largest",
            "--work-dir", str(tmp_path / "w"), "--json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)   # the largest groups first: another single-group core
    assert rec["status"] == "INFEASIBLE" and rec["stats"]["core"] == ["one move per step"]
    assert rec["params"]["order"] == "largest" and (tmp_path / "w" / "core.json").is_file()
    said = p.stderr.splitlines()   # progress on stderr, also with --json: a line per call's start and end
    assert len(said) == 2 * len(rec["stats"]["log"]) + 1, p.stderr
    three = "'one tile per cell', 'one cell per tile', 'frame axioms'"   # failed assumptions: 1 left
    assert said[0].endswith(f"call 1: without {three} (3 groups stay) …"), p.stderr
    assert said[1].endswith(f"call 1: without {three}: UNSAT: dropped (0.0 CPU s, 0 conflicts)"), p.stderr
    assert said[-1].endswith("re-check: the core's 1 group alone, a fresh cadical195 solve"), p.stderr
    import signal
    from puzzlesat.cli.main import main
    monkeypatch.setattr(signal, "signal", lambda *a: None)   # main's SIGTERM handler: not here
    for args, said in ((("ablate", "maze/sample1", "-e", "cpsat:time"), "marks no optional group"),
                       (("ablate", "peg/hoppers", "-e", "native"), "no formulation hook"),
                       (("core", "maze/sample1", "-e", "cpsat:time", "--bound", "37"), "no CNF"),
                       (("core", "sliding/8-easy", "-e", "sat", "--bound", "1", "--call-limit", "0"),
                        "--call-limit"),
                       (("core", "peg/ipc-p01", "-e", "sat", "--bound", "2", "--solver", "cpsat"),
                        "cpsat: configuration"),
                       (("core", "peg/ipc-p01", "-e", "cpsat:time[search=fixed]", "--bound", "2",
                         "--solver", "minisat22", "--certify"), "cadical195, glucose4, lingeling, cpsat")):
        with pytest.raises(SystemExit) as e:   # in this process: the same one-line error, exit 2
            main(["lab", *args])
        err = capsys.readouterr().err
        assert e.value.code == 2 and said in err and err.count("\n") == 1, err


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


def test_core_reports_each_call_as_it_starts_and_ends():
    """Model.core(progress=…): a 'testing' report before each call solved (not one kept in the work
    folder), its log entry as 'last' after it, then the re-check of the core — what `lab core`
    prints on stderr during a run of hours."""
    seen: list[dict] = []
    r = ps.model(ps.load("peg/ipc-p01"), "sat:time", bound=2).core(time_limit=120, progress=seen.append)
    assert r.status.value == "INFEASIBLE" and r.stats["core"] == CORE_P01
    log = r.stats["log"]
    assert [f["last"] for f in seen if "last" in f] == log
    starts = [f for f in seen if "testing" in f]
    assert len(starts) == len(log) and all(not e.get("reused") for e in log)
    for s, e in zip(starts, log):   # each start names the call its end reports
        assert s["testing"] == ([e["without"]] if isinstance(e["without"], str) else e["without"])
        assert s["groups"] == e["groups"]
    assert seen[-1] == {"recheck": CORE_P01, "solver": "cadical195", "certify": False}


def test_a_bound_below_zero_is_refused_before_any_hook():
    """`moves <= -5` used to get a 'core' (any group with the move count is infeasible); every
    formulation hook, a plug-in's too, now gets only whole bounds of 0 or more (numpy's too)."""
    import numpy as np
    inst = ps.load("peg/hoppers")
    for bad in (-1, True, 2.5, "3"):
        with pytest.raises(ps.InputError, match="expected an objective bound of 0 or more"):
            ps.model(inst, "sat:time", bound=bad)
    assert ps.model(inst, "sat:time", bound=np.int64(0)).decision.bound_text == "moves <= 0"


def test_a_work_folder_nested_past_the_json_parser_is_redone_or_refused(tmp_path):
    """JSON nested deeper than the parser goes (a RecursionError, not a ValueError): a call record
    like that is redone, a core.json like that is one InputError — never a traceback."""
    w = str(tmp_path / "w")
    m = ps.model(ps.load("sliding/8-easy"), "sat:time", bound=1)
    first = m.core(time_limit=120, work_dir=w)
    deep = "[" * 200_000 + "]" * 200_000
    rec = sorted((tmp_path / "w" / "calls").iterdir())[0]
    rec.write_text(deep)
    again = m.core(time_limit=120, work_dir=w)
    assert again.stats["core"] == first.stats["core"] and again.status.value == "INFEASIBLE"
    assert [r.split(":")[0] for r in again.stats["work_dir"]["redone_records"]] == [rec.name]
    (tmp_path / "w" / "core.json").write_text(deep)
    with pytest.raises(ps.InputError, match="not a lab core work folder"):
        m.core(time_limit=120, work_dir=w)
