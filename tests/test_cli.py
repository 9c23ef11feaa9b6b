"""The CLI contract: JSON fields, verdicts and exit statuses, one-line errors for bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "puzzlesat", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def test_solve_json_contract():
    p = run("solve", "peg/hoppers", "--engine", "native", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("instance", "engine", "task", "status", "objective", "count", "solutions", "seconds", "params"):
        assert key in d
    assert (d["status"], d["objective"], d["task"]) == ("OPTIMAL", 7, "optimize")
    sol = d["solutions"][0]
    assert sol["moves"] == 7 and all(len(j) == 3 for j in sol["jumps"])


def test_compare_json_agree():
    p = run("compare", "peg/hoppers-first06", "--task", "count", "--json", "--max-solutions", "0")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["verdict"] == "AGREE"
    assert [(r["engine"], r["count"]) for r in d["results"]] == [
        ("native:auto", 18), ("cpsat:time", 18), ("sat:time", 18)]


def test_human_output_has_table_and_verdict():
    p = run("compare", "peg/ipc-p01", "--engines", "native,sat")
    assert p.returncode == 0 and "verdict: AGREE" in p.stdout and "native:auto" in p.stdout


BAD_TOML = {
    "malformed": ('kind = "peg"\nboard = [1,\n', ":2"),
    "unknown board": ('kind = "peg"\nboard = "hexagon"\nempty = [0]\n', "board"),
    "hole out of range": ('kind = "peg"\nboard = "hoppers"\nempty = [13]\n', ":3: empty"),
    "finish by peg count": ('kind = "peg"\nboard = "hoppers"\nempty = [1,2,3,4,5,6,7,8,9,10,11]\n'
                            'finish = [0, 1, 2]\n', "finish"),
    "unknown kind": ('kind = "chess"\n', "kind"),
    "missing kind": ('board = "hoppers"\n', "kind"),
    "unknown key": ('kind = "peg"\nboard = "hoppers"\nempty = [6]\nfnish = [6]\n', "fnish"),
}


@pytest.mark.parametrize("case", sorted(BAD_TOML))
def test_bad_toml_is_one_line_and_exit_2(tmp_path, case):
    text, where = BAD_TOML[case]
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = run("solve", str(f))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert str(f) in p.stderr and where in p.stderr


@pytest.mark.parametrize("args,needle", [
    (("solve", "peg/nope"), "unknown instance"),
    (("solve", "peg/hoppers", "--engine", "cpsat:fancy"), "unknown engine"),
    (("solve", "peg/hoppers", "--engine", "sat", "-o", "encoding=magic"), "encoding"),
    (("solve", "peg/hoppers", "-o", "nope=1"), "unknown option"),
    (("compare", "peg/hoppers", "-o", "nope=1"), "nope"),
    (("solve", "/no/such/file.toml"), "no such file"),
    (("solve", "peg/hoppers", "--task", "sideways"), "sideways"),
])
def test_bad_arguments_exit_2(args, needle):
    p = run(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and needle in p.stderr


def test_list_and_show():
    p = run("list", "peg", "--json")
    names = {r["instance"] for r in json.loads(p.stdout)}
    assert {"peg/hoppers", "peg/triangle21", "peg/english33", "peg/ipc-p01", "peg/ipc-p20"} <= names
    p = run("show", "peg/triangle21")
    assert p.returncode == 0 and "holes: 21" in p.stdout


def test_engines_table_keeps_brackets_and_whole_words():
    """Rich markup once ate '[t]' and '[t-1]' in descriptions (x[t][e], s[t] = m*s[t-1] + c)."""
    p = run("engines", "maze")
    assert p.returncode == 0 and "x[t][e]" in p.stdout and "s[t-1]" in p.stdout


@pytest.mark.parametrize("bad", ["nan", "inf", "-1", "0", "abc"])
def test_time_limit_must_be_positive_and_finite(bad):
    p = run("solve", "peg/hoppers", "--time-limit", bad)
    assert p.returncode == 2 and "time-limit" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("family, args", [("maze", ["--rows", "3", "--cols", "3"]),
                                          ("sliding", ["-r", "3", "-c", "3"])])
def test_generate_into_a_missing_folder_is_one_line(family, args, tmp_path):
    out = tmp_path / "no" / "such" / "x.toml"
    p = run("generate", family, *args, "-o", str(out))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "does not exist" in p.stderr, p.stderr
    assert not out.parent.exists()
