"""Configurations side by side (`compare --engines CONFIGS`, `puzzlesat lab`): every run checked,
one verdict per instance, the best marked only among agreeing finished runs.

Facts: hoppers needs 7 moves; hoppers with first jump 0->6 has 18 optimal sequences (SPEC.md, peg;
the crossval doctest and tests/test_peg.py).
"""
from __future__ import annotations

import json
import stat
import subprocess

from puzzlesat.core.config import parse_many
from puzzlesat.families.instances import load_instance
from puzzlesat.compare.crossval import compare
from puzzlesat.compare.lab import lab_instance


def run(*args: str) -> subprocess.CompletedProcess:
    import helpers
    return helpers.cli(*args, timeout=300)  # a fork of this process


def test_compare_same_engine_two_encodings_counts_agree():
    fam, inst = load_instance("peg/hoppers-first06")
    cfgs = parse_many("seq=sat[encoding=seqcounter],tot=sat[encoding=totalizer],native")
    c = compare(fam, inst, cfgs, "count")
    assert c.verdict.value == "AGREE" and [r.count for r in c.results] == [18, 18, 18]
    assert [r.params["encoding"] for r in c.results[:2]] == ["seqcounter", "totalizer"]
    j = c.to_json(fam, inst)
    assert [(r["config"], r["engine"]) for r in j["results"]] == [
        ("seq", "sat:time"), ("tot", "sat:time"), ("native:auto", "native:auto")]


def test_compare_cli_accepts_configurations():
    r = run("compare", "peg/hoppers-first06", "--engines", "sat[encoding=seqcounter],sat[encoding=cardnetwrk]",
            "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [x["config"] for x in d["results"]] == ["sat[encoding=seqcounter]", "sat[encoding=cardnetwrk]"]
    assert {x["objective"] for x in d["results"]} == {7} and d["verdict"] == "AGREE"
    bad = run("compare", "peg/hoppers", "--engines", "sat[encoding=nosuch]")
    assert bad.returncode == 2 and "encoding" in bad.stderr


def test_lab_repeats_and_marks_one_best():
    fam, inst = load_instance("peg/hoppers-first06")
    rep = lab_instance(fam, inst, parse_many("a=sat[solver=cadical195],b=sat[solver=glucose4]"),
                       "optimize", repeat=2)
    assert rep["verdict"] == "AGREE"
    assert [c["runs"] for c in rep["configs"]] == [2, 2]
    assert sum(c["best"] for c in rep["configs"]) == 1
    assert all(c["objective"] == 7 and c["vars"] and c["clauses"] and c["conflicts"] is not None
               for c in rep["configs"])
    assert all(r["checked"] == 1 for runs in rep["runs"].values() for r in runs)


def test_lab_with_a_lying_solver_disagrees_and_marks_no_best(tmp_path):
    fake = tmp_path / "liar"
    fake.write_text("#!/bin/sh\necho 's SATISFIABLE'\necho 'v 1 2 3 0'\nexit 10\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    fam, inst = load_instance("peg/hoppers-first06")
    rep = lab_instance(fam, inst, parse_many(f"sat,liar=ext:dimacs[cmd={fake}]"), "optimize")
    assert rep["verdict"] == "DISAGREE" and not any(c["best"] for c in rep["configs"])
    assert rep["configs"][1]["status"] == "ERROR"
    assert any("liar" in r and "violates" in r for r in rep["reasons"])


def test_lab_cli_json_and_bad_input():
    r = run("lab", "peg/hoppers-first06", "--configs", "sat,cpsat", "--seeds", "1,2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [c["runs"] for c in d["configs"]] == [2, 2]
    assert [x["seed"] for x in d["runs"]["cpsat"]] == [1, 2]  # cpsat has a seed option, sat has none
    assert [x["params"]["cpsat"]["random_seed"] for x in d["runs"]["cpsat"]] == [1, 2]
    bad = run("lab", "peg/hoppers", "--configs", "sat[solver=nosuch]")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    bad = run("lab", "peg/hoppers", "--configs", "sat,sat")
    assert bad.returncode == 2 and "used twice" in bad.stderr


def test_compare_refuses_a_non_incremental_counting_config_before_any_run():
    r = run("compare", "peg/hoppers-first06", "--engines", "native,k=sat[solver=kissat404]",
            "--task", "count", "--json")
    assert r.returncode == 2 and "not incremental" in r.stderr and r.stdout == ""
