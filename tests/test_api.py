"""The public Python API and the user-engine contract: results are checked whatever an engine
does, bad input raises InputError, and no worker outlives the tool."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import helpers

import puzzlesat as ps
from puzzlesat.engine import Outcome, Status, Task

HOPPERS_7 = [[0, 3, 6], [12, 9, 6], [10, 8, 6]]  # a prefix only: not a solution


def cli(*args, cwd=None, **kw):
    return helpers.cli(*args, cwd=cwd, timeout=300, **kw)  # a fork; with env= a subprocess


# ---- loading -----------------------------------------------------------------------------------

def test_load_name_path_and_text(tmp_path):
    text = 'kind = "sliding"\nrows = 2\ncols = 3\nstart = [1, 2, 3, 4, 0, 5]\n'
    f = tmp_path / "p.toml"
    f.write_text(text)
    a, b, c = ps.load(text), ps.load(str(f)), ps.load(f)
    assert a.start == b.start == c.start == (1, 2, 3, 4, 0, 5)
    assert ps.solve(a).objective == 1  # one move: tile 5 left
    assert ps.load("sliding/8-hardest").to_json()["kind"] == "sliding"


@pytest.mark.parametrize("spec, message", [
    ("peg/nope", "unknown instance 'peg/nope'"),
    ('kind = "peg"\nboard = "nowhere"\n', "board"),
    ("kind = 3\nx = 1", "kind"),
    ("no/such/file.toml", "no such file"),
])
def test_bad_input_raises_input_error_and_prints_nothing(spec, message, capsys):
    with pytest.raises(ps.InputError) as e:
        ps.load(spec)
    assert message in str(e.value)
    assert capsys.readouterr() == ("", "")


def test_bad_options_and_limits_raise():
    inst = ps.load("peg/hoppers")
    with pytest.raises(ps.InputError, match="unknown option 'encodng'"):
        ps.solve(inst, "sat", encodng="totalizer")
    with pytest.raises(ps.InputError, match="choose one of"):
        ps.solve(inst, "sat[encoding=nope]")
    for bad in (float("nan"), float("inf"), -1, 0):
        with pytest.raises(ps.InputError, match="time limit"):
            ps.solve(inst, time_limit=bad)
    with pytest.raises(ps.InputError, match="unknown engine"):
        ps.compare(inst, ["native", "nosuch"])


# ---- solve, compare, engines --------------------------------------------------------------------

def test_solve_and_compare_with_configurations():
    inst = ps.load("peg/hoppers-first06")
    r = ps.solve(inst, "sat:time[encoding=totalizer]", "count")
    assert (r.status, r.objective, r.count, r.checked) == (Status.OPTIMAL, 7, 18, 18)
    assert r.params["encoding"] == "totalizer" and r.to_json()["config"] == "sat:time[encoding=totalizer]"
    c = ps.compare(inst, ["native", "a=sat[encoding=seqcounter]", "b=sat[encoding=totalizer]"], "count")
    assert c.verdict is ps.Verdict.AGREE
    assert [(row["config"], row["count"]) for row in c.table()] == [("native:auto", 18), ("a", 18), ("b", 18)]
    assert json.loads(json.dumps(c.to_json()))["verdict"] == "AGREE"


def test_default_task_is_one_the_family_has():
    r = ps.solve(ps.load("pentomino/3x20"))
    assert (r.task, r.status, r.count) == (Task.COUNT, Status.OPTIMAL, 8)
    p = cli("solve", "pentomino/3x20", "--json", "--max-solutions", "0")
    assert p.returncode == 0 and json.loads(p.stdout)["count"] == 8


def test_engines_lists_options_with_defaults():
    rows = {e.name: e for e in ps.engines("sliding")}
    assert rows["native:ida"].aliases == ("native",)
    assert "pdb" in rows["native:ida"].options and "optimize" in rows["sat:time"].tasks


# ---- user engines: every way they can go wrong is reported, never a crash -----------------------

def _returns(outcome):
    return lambda inst, task, ctx: outcome


@pytest.mark.parametrize("fn, status, reason", [
    (_returns(Outcome(Status.FEASIBLE, solutions=({"jumps": HOPPERS_7},))), Status.ERROR, "fails the checker"),
    (_returns(Outcome(Status.OPTIMAL, 7, solutions=())), Status.ERROR, "without a solution"),
    (_returns({"status": "OPTIMAL"}), Status.ERROR, "not an Outcome"),
    (_returns(Outcome("MAYBE")), Status.ERROR, "status 'MAYBE'"),
    (lambda inst, task, ctx: 1 / 0, Status.ERROR, "ZeroDivisionError"),
    (lambda inst, task, ctx: time.sleep(60), Status.UNKNOWN, "hard time limit"),
    (lambda inst, task, ctx: os.kill(os.getpid(), signal.SIGKILL), Status.UNKNOWN, "SIGKILL (not by puzzlesat)"),
    (lambda inst, task, ctx: bytearray(4 << 30), Status.UNKNOWN, "memory"),
])
def test_user_engine_failures_are_results(fn, status, reason):
    r = ps.solve(ps.load("peg/hoppers"), fn, time_limit=1.0, memory_limit_mb=1024)
    assert r.status is status and reason in (r.reason or ""), (r.status, r.reason)


def test_user_engine_lying_about_a_count():
    def lies(inst, task, ctx):
        sols = [s for s in ps.solve(inst, "native", "count").solutions][:5]
        return Outcome(Status.OPTIMAL, 7, 6, tuple(sols))
    r = ps.solve(ps.load("peg/hoppers-first06"), lies, "count")
    assert r.status is Status.ERROR and "claims count 6 but returned 5" in r.reason


def test_registered_engine_in_json_form_is_cross_validated():
    def native_as_json(inst, task, ctx):
        r = ps.solve(inst, "native", task)
        return Outcome(r.status, r.objective, r.count, tuple(s.to_json() if hasattr(s, "to_json") else
                                                             {"jumps": [list(j) for j in s]} for s in r.solutions))
    ps.register_engine("peg", "test:json", native_as_json, tasks=["optimize", "count"], options={"depth": 3})
    try:
        c = ps.compare(ps.load("peg/hoppers-first06"), ["native", "cpsat", "test:json"], "count")
        assert c.verdict is ps.Verdict.AGREE and [r.count for r in c.results] == [18, 18, 18]
        assert ps.solve(ps.load("peg/hoppers"), "test:json", depth=5).params["depth"] == 5
        assert any(e.name == "test:json" and e.user for e in ps.engines("peg"))
        with pytest.raises(ps.InputError, match="does not do task 'feasible'"):
            ps.solve(ps.load("peg/hoppers"), "test:json", "feasible")
    finally:
        ps.unregister_engine("peg", "test:json")


ENGINE_FILE = '''
from puzzlesat.engine import Outcome, Status

def run(inst, task, ctx):
    """Wraps the native search; answers in the JSON form."""
    import puzzlesat as ps
    r = ps.solve(inst, "native", task)
    return Outcome(r.status, r.objective, r.count,
                   tuple({"jumps": [list(j) for j in s]} for s in r.solutions))

def wrong(inst, task, ctx):
    return Outcome(Status.OPTIMAL, 1, solutions=({"jumps": [[0, 3, 6]]},))
'''


def test_engine_from_a_file_on_the_command_line(tmp_path):
    (tmp_path / "my_model.py").write_text(ENGINE_FILE)
    p = cli("compare", "peg/hoppers", "--engines", "native,my_model.py:run", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["verdict"] == "AGREE" and [r["objective"] for r in d["results"]] == [7, 7]
    p = cli("compare", "peg/hoppers", "--engines", "native,my_model.py:wrong", cwd=tmp_path)
    assert p.returncode == 1 and "DISAGREE" in p.stdout
    p = cli("solve", "peg/hoppers", "-e", "my_model.py:missing", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.startswith("puzzlesat: error:") and "Traceback" not in p.stderr
    p = cli("solve", "peg/hoppers", "-e", "nofile.py:run", cwd=tmp_path)
    assert p.returncode == 2 and "engine file not found" in p.stderr
    (tmp_path / "my_model").write_text(ENGINE_FILE)  # a path without .py: no module spec
    p = cli("solve", "peg/hoppers", "-e", "./my_model:run", cwd=tmp_path)
    assert p.returncode == 2 and "not a Python module" in p.stderr and "Traceback" not in p.stderr


def test_entry_point_plugin(tmp_path):
    site = tmp_path / "site"
    (site / "myplug-0.1.dist-info").mkdir(parents=True)
    (site / "myplug-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: myplug\nVersion: 0.1\n")
    (site / "myplug-0.1.dist-info" / "entry_points.txt").write_text(
        "[puzzlesat.engines]\nmyplug = myplug:ENGINES\n")
    (site / "myplug.py").write_text(ENGINE_FILE + textwrap.dedent('''
        import puzzlesat
        ENGINES = [puzzlesat.UserEngine("peg", "plug:native", run, ("optimize",))]
        '''))
    env = {**os.environ, "PYTHONPATH": str(site)}
    p = cli("compare", "peg/hoppers", "--engines", "native,plug:native", "--json", env=env)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["verdict"] == "AGREE"


# ---- no stray processes; interrupts print what finished ------------------------------------------

HANG = '''
import time
def hang(inst, task, ctx):
    open("started", "w").close()
    while True:
        time.sleep(0.1)
'''


def _children_of_group(pgid: int) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.getpgid(int(pid)) == pgid:
                    out.append(int(pid))
            except ProcessLookupError:
                pass
    return out


def _worker_pids(parent: int) -> list[int]:
    kids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                        kids.append(int(pid))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def _start_and_wait_for_worker(args, tmp_path):
    (tmp_path / "hang.py").write_text(HANG)
    # as from a terminal: a test run started in the background (a CI job) inherits SIGINT ignored,
    # and Python keeps an ignored SIGINT ignored; Ctrl-C reaches a foreground tool
    p = subprocess.Popen([sys.executable, "-m", "puzzlesat", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for _ in range(300):
        kids = _worker_pids(p.pid)
        if kids:
            return p, kids
        time.sleep(0.1)
    p.kill()
    raise AssertionError("no worker started")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_the_tool(sig, tmp_path):
    p, kids = _start_and_wait_for_worker(["solve", "peg/hoppers", "-e", "hang.py:hang"], tmp_path)
    time.sleep(0.5)
    p.send_signal(sig)
    p.wait(30)
    for _ in range(50):
        if not any(os.path.exists(f"/proc/{k}") and _state(k) != "Z" for k in kids):
            break
        time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{k}") and _state(k) != "Z" for k in kids), "worker outlived puzzlesat"
    if sig == signal.SIGTERM:
        assert p.returncode == 143 and "interrupted" in p.stderr.read()


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_ctrl_c_prints_finished_results_and_exits_130(tmp_path):
    p, _ = _start_and_wait_for_worker(["compare", "peg/hoppers", "--engines", "native,hang.py:hang",
                                       "--json"], tmp_path)
    for _ in range(600):  # native finishes first; then the hanging engine starts
        if (tmp_path / "started").exists():
            break
        time.sleep(0.1)
    assert (tmp_path / "started").exists()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    d = json.loads(out)
    assert d["interrupted"] is True and d["results"][0]["objective"] == 7
    assert "1 of 2 engines" in err
