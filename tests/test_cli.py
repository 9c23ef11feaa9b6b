"""The CLI contract: JSON fields, verdicts and exit statuses, one-line errors for bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import cli


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return cli(*args, cwd=cwd)  # a fork of this process (tests/helpers.py)


def run_process(*args: str) -> subprocess.CompletedProcess:
    """A real `python -m puzzlesat` (the start-up path itself)."""
    return subprocess.run([sys.executable, "-m", "puzzlesat", *args], capture_output=True, text=True,
                          timeout=600)


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


@pytest.mark.parametrize("bad", ["nan", "inf", "-1", "abc"])  # 0 and none: no limit
def test_time_limit_must_be_positive_and_finite(bad):
    p = run("solve", "peg/hoppers", "--time-limit", bad)
    assert p.returncode == 2 and "time-limit" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("cmd", [("peg", "cubes", "peg/hoppers", "--bound", "6", "--depth", "2"),
                                 ("peg", "problems", "triangle4", "--method", "bfs")])
def test_peg_commands_read_time_limits_like_solve(cmd):
    """0 lifts the limit (as for solve); nan, inf and negatives are refused with exit status 2."""
    p = run(*cmd, "--time-limit", "0", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d.get("status") == "INFEASIBLE" or d.get("minimum") == 5  # A127500(4)
    for bad in ("inf", "-1"):
        p = run(*cmd, "--time-limit", bad)
        assert p.returncode == 2 and "time-limit" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("family, args", [("maze", ["--rows", "3", "--cols", "3"]),
                                          ("sliding", ["-r", "3", "-c", "3"])])
def test_generate_into_a_missing_folder_is_one_line(family, args, tmp_path):
    out = tmp_path / "no" / "such" / "x.toml"
    p = run("generate", family, *args, "-o", str(out))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "does not exist" in p.stderr, p.stderr
    assert not out.parent.exists()


# ---- daily use ------------------------------------------------------------------------------------
def test_version_and_one_error_format(tmp_path):
    import puzzlesat
    p = run_process("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"puzzlesat {puzzlesat.__version__}"
    p = run_process("solve")
    assert p.returncode == 2 and p.stderr.startswith("puzzlesat: error: Missing argument") and \
        "Traceback" not in p.stderr, p.stderr
    cases = [(("solve",), "Missing argument 'INSTANCE'"),                          # click's usage error
             (("solve", "peg/hoppers", "--time-limit", "-3"), "'-3' is not a positive"),
             (("nosuchcommand",), "No such command 'nosuchcommand'"),
             (("solve", str(tmp_path)), "is a directory"),
             (("compare", "peg/hoppers", "--engines", ""), "none given"),
             (("explore", "1x3"), "at least 2"),
             (("export", "peg/hoppers", "-e", "sat", "--bound", "-3", "--format", "dimacs", "-o",
               str(tmp_path / "x.cnf")), "expected an objective bound of 0 or more"),
             (("lab", "core", "peg/hoppers", "-e", "sat", "--bound", "-5"),   # answered 'INFEASIBLE'
              "--bound -5: expected an objective bound of 0 or more"),
             (("stats", "peg/hoppers", "-e", "sat", "--bound", "-2"), "expected an objective bound")]
    for args, words in cases:
        p = run(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.startswith("puzzlesat: error: ") and p.stderr.count("\n") == 1, (args, p.stderr)
        assert words in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)
    assert not (tmp_path / "x.cnf").exists()


def test_bound_below_the_lower_bound_is_written_with_a_note(tmp_path):
    p = run("export", "peg/hoppers", "-e", "sat", "--bound", "2", "--format", "dimacs", "-o",
            str(tmp_path / "h.cnf"))
    assert p.returncode == 0 and "below the proved lower bound 4" in p.stderr, p.stderr


def test_default_time_limit_is_recorded_and_none_lifts_it():
    d = json.loads(run("solve", "peg/ipc-p01", "--json").stdout)
    assert d["params"]["time_limit"] == 60.0
    d = json.loads(run("solve", "peg/ipc-p01", "--json", "--time-limit", "none").stdout)
    assert d["params"]["time_limit"] is None and d["status"] == "OPTIMAL"


def test_engine_names_print_as_written_not_as_emoji(tmp_path):
    (tmp_path / "buggy.py").write_text("def boom(inst, task, ctx):\n    raise RuntimeError('x')\n")
    p = run("solve", "peg/ipc-p01", "-e", str(tmp_path / "buggy.py") + ":boom", cwd=tmp_path)
    assert p.returncode == 1 and "buggy.py:boom" in p.stdout and "💥" not in p.stdout


def test_a_memory_limit_too_small_to_start_is_unknown_memory():
    # a real process: a fork of the test worker starts with the worker's (larger) address space
    p = run_process("solve", "peg/english33", "-e", "native:bfs", "--exhaust", "--memory-limit", "300", "--json")
    d = json.loads(p.stdout)
    assert (d["status"], d["reason"].split(":")[0]) == ("UNKNOWN", "memory"), d["reason"]


def test_compare_jobs_runs_engines_side_by_side_with_the_same_verdict():
    p = run("compare", "peg/hoppers-first06", "--task", "count", "--jobs", "3", "--json",
            "--max-solutions", "0")
    d = json.loads(p.stdout)
    assert d["verdict"] == "AGREE" and [r["count"] for r in d["results"]] == [18, 18, 18]
    assert [r["engine"] for r in d["results"]] == ["native:auto", "cpsat:time", "sat:time"]


def test_engines_verbose_lists_allowed_values():
    d = json.loads(run("engines", "sliding", "--json").stdout)
    ida = next(e for e in d if e["name"] == "native:ida")
    assert ida["allowed"]["heuristic"] == "auto | linear | manhattan"
    assert "allowed values" in run("engines", "peg", "--verbose").stdout


def test_compare_refuses_an_identity_option_an_engine_does_not_declare(tmp_path):
    """A user engine without `up_to_symmetry` would count every tiling while the others count
    orbits (a false DISAGREE): refused before anything runs, naming the engine; solve refuses too."""
    (tmp_path / "mine.py").write_text("def run(inst, task, ctx):\n    raise RuntimeError('never run')\n")
    eng = str(tmp_path / "mine.py") + ":run"
    for args in (("compare", "pentomino/3x20", "--engines", f"native,{eng}"),
                 ("solve", "pentomino/3x20", "-e", eng)):
        p = run(*args, "--up-to-symmetry", cwd=tmp_path)
        assert p.returncode == 2 and "up_to_symmetry" in p.stderr, p.stderr
    p = run("compare", "pentomino/3x20", "--engines", f"native,{eng}", cwd=tmp_path)
    assert "never run" in p.stdout or p.returncode == 1   # without the option it does run


@pytest.mark.parametrize("signal_name, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_an_interrupt_in_any_command_is_one_line_and_its_exit_status(monkeypatch, capsys,
                                                                     signal_name, code):
    """SIGTERM (or Ctrl-C) in a command that does not report what it finished itself (e.g. a
    long `peg problems --least` writing a layer): one line, 143 (130), no traceback."""
    import importlib
    m = importlib.import_module("puzzlesat.cli.main")

    def interrupted():
        raise m.Terminated() if signal_name == "SIGTERM" else KeyboardInterrupt()
    monkeypatch.setattr(m, "_add_generators", interrupted)
    with pytest.raises(SystemExit) as e:
        m.main(["list"])
    err = capsys.readouterr().err
    assert e.value.code == code and err == "puzzlesat: interrupted\n"
