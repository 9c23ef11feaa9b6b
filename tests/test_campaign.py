"""Campaigns: same answers as each job alone, resumable and idempotent, crash-safe under SIGKILL,
hard time and memory limits on the job's process group, one-line input errors, report/plot/export."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from puzzlesat.families.instances import load_instance
from puzzlesat.compare.runner import solve
import helpers
from helpers import boards, rows, spec

CONFIGS = {"native": ("native", {}), "cpsat": ("cpsat", {}), "tot": ("sat:time", {"encoding": "totalizer"})}


def cli(*args: str, cwd=None, timeout=600) -> subprocess.CompletedProcess:
    return helpers.cli(*args, cwd=cwd, timeout=timeout)  # a fork of this process








def stored(db: Path) -> int:
    """Jobs stored so far (0 while the store is being created)."""
    try:
        return len(rows(db)) if db.exists() else 0
    except sqlite3.Error:
        return 0


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes() if p.exists() else b"<missing>")
    return h.hexdigest()


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A 2-worker local campaign: 4 small instances x 3 configurations, task count."""
    d = tmp_path_factory.mktemp("grid")
    boards(d / "boards", 4)
    sp = spec(d, 'name = "grid"\ninstances = ["boards/*.toml"]\ntask = "count"\ntime_limit = 60\n'
                 '[configs]\nnative = "native"\ncpsat = "cpsat"\ntot = "sat:time[encoding=totalizer]"\n')
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(d / "grid.db"))
    assert p.returncode == 0, p.stderr
    return d, sp, d / "grid.db"


def test_campaign_gives_the_answers_of_each_job_alone(grid):
    d, _, db = grid
    got = {(Path(r["instance"]).name, r["config"]): r for r in rows(db)}
    assert len(got) == 12
    for f in sorted((d / "boards").glob("*.toml")):
        fam, inst = load_instance(str(f))
        for cname, (engine, opts) in CONFIGS.items():
            alone = solve(fam, inst, engine, "count", time_limit=60, options=opts, isolate=False)
            r = got[(f.name, cname)]
            assert (r["status"], r["objective"], r["count"]) == (str(alone.status), alone.objective, alone.count)
            assert r["solutions_checked"] == alone.checked == alone.count
            assert r["termination"] == "done" and r["engine"] == alone.engine
            assert json.loads(r["options"]) == {k: v for k, v in alone.params.items()
                                                if k in json.loads(r["options"])}


def test_second_run_executes_nothing(grid):
    d, sp, db = grid
    before = rows(db)
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(db))
    assert p.returncode == 0, p.stderr
    assert "12 already stored, 0 to run" in p.stderr
    assert rows(db) == before


def test_report_json_and_table(grid):
    _, _, db = grid
    p = cli("campaign", "report", "--store", str(db), "--json")
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert set(rep["configs"]) == set(CONFIGS)
    for c in rep["configs"].values():
        assert (c["jobs"], c["solved"], c["unknown"], c["errors"]) == (4, 4, 0, 0)
        assert c["par2"] > 0 and c["median_seconds"] > 0
    assert len(rep["instances"]) == 4 and {i["verdict"] for i in rep["instances"]} == {"AGREE"}
    p = cli("campaign", "report", "--store", str(db))
    assert p.returncode == 0 and "PAR-2" in p.stdout and "verdicts: AGREE 4, INCOMPLETE 0, DISAGREE 0" in p.stdout


def test_report_disagree_first_and_exit_1(grid, tmp_path):
    _, _, db = grid
    bad = tmp_path / "bad.db"
    src = sqlite3.connect(db)
    src.backup(dst := sqlite3.connect(bad))
    src.close()
    inst = dst.execute("SELECT instance FROM runs ORDER BY instance DESC LIMIT 1").fetchone()[0]
    dst.execute("UPDATE runs SET count = count + 1 WHERE instance = ? AND config = 'tot'", (inst,))
    dst.commit()
    dst.close()
    p = cli("campaign", "report", "--store", str(bad), "--json")
    assert p.returncode == 1
    first = json.loads(p.stdout)["instances"][0]
    assert (first["instance"], first["verdict"]) == (inst, "DISAGREE")
    assert "counts differ" in first["reasons"][0]
    p = cli("campaign", "report", "--store", str(bad))
    assert p.returncode == 1 and p.stdout.startswith(f"DISAGREE {inst}: counts differ")


def test_plots_and_export(grid, tmp_path):
    _, _, db = grid
    for kind, out, magic in (("cactus", "c.png", b"\x89PNG"), ("scatter", "s.svg", b"<?xml")):
        p = cli("campaign", "plot", "--store", str(db), "--kind", kind, "-o", str(tmp_path / out))
        assert p.returncode == 0, p.stderr
        assert (tmp_path / out).read_bytes().startswith(magic)
    p = cli("campaign", "plot", "--store", str(db), "--kind", "scatter", "--x", "nope", "-o", str(tmp_path / "x.png"))
    assert p.returncode == 2 and "no configuration 'nope'" in p.stderr
    p = cli("campaign", "export", "--store", str(db), "--format", "csv")
    lines = p.stdout.strip().splitlines()
    assert p.returncode == 0 and len(lines) == 13 and lines[0].startswith("key,campaign,instance,")
    p = cli("campaign", "export", "--store", str(db), "--format", "json")
    assert p.returncode == 0 and len(json.loads(p.stdout)) == 12
    p = cli("campaign", "status", "--store", str(db))
    assert p.returncode == 0 and "12 of 12 planned jobs stored" in p.stdout


@pytest.mark.parametrize("args", [("plot", "--kind", "cactus", "-o", "{missing}/c.png"),
                                  ("plot", "--kind", "scatter", "-o", "{missing}/s.svg"),
                                  ("export", "--format", "csv", "-o", "{missing}/runs.csv"),
                                  ("export", "--format", "json", "-o", "{missing}/runs.json")],
                         ids=["cactus", "scatter", "csv", "json"])
def test_plot_and_export_into_a_missing_folder_is_one_line_exit_2(grid, tmp_path, args):
    _, _, db = grid
    missing = tmp_path / "no" / "such"
    p = cli("campaign", args[0], "--store", str(db), *(a.format(missing=missing) for a in args[1:]))
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "does not exist" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("body, message", [
    ('name = "x"\ninstances = ["peg/hoppers"]\ntime_limt = 5\n[configs]\na = "native"\n',
     "campaign.toml:3: time_limt: unknown key"),
    ('name = "x"\ninstances = ["peg/hoppers"]\n[configs]\na = "nativ"\n',
     "campaign.toml:4: configs.a: a=nativ: unknown engine 'nativ' for peg"),
    ('name = "x"\ninstances = ["peg/hoppers"]\n[configs]\na = "sat[encodingg=totalizer]"\n',
     "unknown option 'encodingg' for engine sat:time"),
    ('name = "x"\ninstances = ["peg/hoppers"]\n[configs]\na = "sat[encoding=totaliser]"\n',
     "option encoding='totaliser' of engine sat:time: choose one of"),
    ('name = "x"\ninstances = ["peg/hoppers", "nothing/*.toml"]\n[configs]\na = "native"\n',
     "campaign.toml:2: instances: 'nothing/*.toml': the glob matches no instance"),
    ('name = "x"\ninstances = ["peg/nope*"]\n[configs]\na = "native"\n', "the glob matches no instance"),
])
def test_bad_spec_is_one_line_exit_2_and_no_store(tmp_path, body, message):
    sp = spec(tmp_path, body)
    p = cli("campaign", "run", str(sp), "--store", str(tmp_path / "s.db"))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert not (tmp_path / "s.db").exists()


def test_store_of_another_campaign_and_silent_scheduler_leave_the_store_untouched(tmp_path):
    sp = spec(tmp_path, 'name = "one"\ninstances = ["peg/hoppers"]\n[configs]\na = "native"\n')
    db = tmp_path / "s.db"
    assert cli("campaign", "run", str(sp), "--store", str(db)).returncode == 0
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    before = digest(*files)
    other = spec(tmp_path, 'name = "two"\ninstances = ["peg/hoppers"]\n[configs]\na = "native"\n', "two.toml")
    p = cli("campaign", "run", str(other), "--store", str(db))
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "holds campaign 'one', not 'two'" in p.stderr
    import socket
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = cli("campaign", "run", str(sp), "--store", str(db), "--executor", "dask",
            "--scheduler", f"tcp://127.0.0.1:{port}")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert f"Dask scheduler tcp://127.0.0.1:{port} does not answer" in p.stderr
    assert digest(*files) == before


def _job_processes_of(pid: int) -> list[int]:
    """Live job processes whose supervisor was process `pid`."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"PUZZLESAT_JOB_PARENT={pid}".encode() in env:
            out.append(int(d.name))
    return out


def test_sigkill_of_the_campaign_keeps_a_consistent_store_and_resume_completes(tmp_path):
    boards(tmp_path / "boards", 6, seed=5)
    sp = spec(tmp_path, 'name = "kill"\ninstances = ["boards/*.toml"]\ntask = "count"\ntime_limit = 60\n'
                        '[configs]\ncpsat = "cpsat"\n')
    db = tmp_path / "k.db"
    proc = subprocess.Popen([sys.executable, "-m", "puzzlesat", "campaign", "run", str(sp), "--jobs", "2",
                             "--store", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and stored(db) < 3:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    kept = {r["key"]: r for r in rows(db)}
    assert 3 <= len(kept) < 6
    assert all(r["termination"] == "done" and r["status"] == "OPTIMAL" for r in kept.values())
    time.sleep(1.0)
    assert _job_processes_of(proc.pid) == []  # the running jobs died with their supervisor
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(db))
    assert p.returncode == 0, p.stderr
    assert f"{len(kept)} already stored, {6 - len(kept)} to run" in p.stderr
    after = rows(db)
    assert len(after) == len({r["key"] for r in after}) == 6
    assert all(kept[r["key"]] == r for r in after if r["key"] in kept)


def test_memory_limit_is_recorded_as_memory(tmp_path):
    # maze native with tt_bits=27 allocates a 1 GiB table: over a 512 MB RLIMIT_AS, fine under 4 GB.
    # (a job stopped at its time limit is recorded as "time": test_outer_limit_kills_the_whole_process_group)
    a = spec(tmp_path, 'name = "mem"\ninstances = ["maze/sample1"]\ntime_limit = 20\nmemory_limit_mb = 512\n'
                       '[configs]\nbig = "native[tt_bits=27]"\n', "a.toml")
    b = spec(tmp_path, 'name = "mem"\ninstances = ["maze/sample1"]\ntime_limit = 20\nmemory_limit_mb = 4096\n'
                       '[configs]\nbig = "native[tt_bits=27]"\n', "b.toml")
    for s in (a, b):
        p = cli("campaign", "run", str(s), "--store", str(tmp_path / "m.db"))
        assert p.returncode == 0, p.stderr
    small, large = sorted(rows(tmp_path / "m.db"), key=lambda r: r["memory_limit_mb"])
    assert (small["status"], small["termination"]) == ("UNKNOWN", "memory")
    assert "ran out of memory" in small["reason"] and "memory_limit_mb=512" in small["reason"]
    assert (large["status"], large["objective"], large["termination"]) == ("OPTIMAL", 36, "done")


def test_outer_limit_kills_the_whole_process_group(monkeypatch):
    """At the supervisor's own limit the job dies with everything it started (the engine worker)."""
    from puzzlesat.compare.campaign import execute as ex
    from puzzlesat.compare.campaign.spec import Job, content_hash
    fam, inst = load_instance("peg/english33")
    job = Job("k" * 32, "t", "peg/english33", content_hash(fam, inst), "peg", "sat", "sat", "sat:time",
              json.dumps({}), "optimize", 0, None, 30.0, 4096, True, fam.to_toml(inst))
    seen = []
    real_wait = ex._wait

    def at_limit_once_the_engine_runs(proc, hard, cancel):
        deadline = time.monotonic() + 30
        while not ex.descendants(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # the job process has forked its engine worker
        seen.append([proc.pid, *ex.descendants(proc.pid)])
        return real_wait(proc, time.monotonic(), cancel)  # the outer limit passes now
    monkeypatch.setattr(ex, "_wait", at_limit_once_the_engine_runs)
    rec = ex.execute(job.payload())
    assert (rec["status"], rec["termination"]) == ("UNKNOWN", "time")
    assert "job process group killed" in rec["reason"]
    assert len(seen[0]) >= 2
    assert _alive(seen[0]) == []  # nothing the job started is left


def _alive(pids: list[int], wait: float = 5.0) -> list[int]:
    """The processes of `pids` that still run (not zombies), after waiting up to `wait` s."""
    deadline = time.monotonic() + wait
    while True:
        live = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            except OSError:
                continue
            if state != "Z":
                live.append(pid)
        if not live or time.monotonic() > deadline:
            return live
        time.sleep(0.1)


def test_ctrl_c_kills_running_jobs_and_keeps_a_consistent_store(tmp_path):
    boards(tmp_path / "boards", 8, seed=9)
    sp = spec(tmp_path, 'name = "int"\ninstances = ["boards/*.toml"]\ntask = "count"\ntime_limit = 60\n'
                        '[configs]\ncpsat = "cpsat"\n')
    db = tmp_path / "i.db"
    proc = subprocess.Popen([sys.executable, "-m", "puzzlesat", "campaign", "run", str(sp), "--jobs", "2",
                             "--store", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and stored(db) < 1:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)  # what Ctrl-C sends to the campaign (its jobs have their own groups)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted: running jobs killed" in err, err
    assert _job_processes_of(proc.pid) == []
    kept = rows(db)
    assert 1 <= len(kept) < 8 and all(r["termination"] == "done" for r in kept)
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(db))
    assert p.returncode == 0 and len(rows(db)) == 8


SLOW_ENGINE = """
import time
from puzzlesat.engine import Outcome, Status

ANSWERS = {answers!r}  # instance name -> (moves, solution in JSON form), solved beforehand


def run(inst, task, ctx):
    \"\"\"Answers right but ignores its time limit: returns in the grace period, after the limit.\"\"\"
    time.sleep(max(0.0, ctx.start + ctx.time_limit + 0.4 - time.monotonic()))
    moves, sol = ANSWERS[inst.name]
    return Outcome(Status.OPTIMAL, objective=moves, solutions=(sol,))
"""


def test_a_job_past_its_time_limit_is_stored_with_its_time_and_counts_as_unsolved(tmp_path):
    """A right answer after the limit (into the grace period): stored with its real seconds and
    over_limit = 1, unsolved in the report (PAR-2 = 2 x limit) and off the cactus plot; a store
    from before the column reads the same (computed from seconds and time_limit)."""
    from puzzlesat.compare.campaign.report import per_instance_times, report
    from puzzlesat.compare.campaign.store import Store
    answers = {}
    for f in boards(tmp_path / "boards", 2, seed=3):
        fam, inst = load_instance(str(f))
        r = solve(fam, inst, "native", "optimize", isolate=False)
        answers[inst.name] = (r.objective, fam.solution_json(inst, r.solutions[0]))
    (tmp_path / "slow.py").write_text(SLOW_ENGINE.format(answers=answers))
    sp = spec(tmp_path, 'name = "late"\ninstances = ["boards/*.toml"]\ntime_limit = 3\n'
                        f'[configs]\nnative = "native"\nslow = "{tmp_path / "slow.py"}:run"\n')
    db = tmp_path / "late.db"
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(db), "--allow-code")
    assert p.returncode == 0, p.stderr
    got = {(r["instance"], r["config"]): r for r in rows(db)}
    for (inst, cfg), r in got.items():
        assert (r["status"], r["termination"]) == ("OPTIMAL", "done"), r["reason"]
        assert r["objective"] == got[(inst, "native")]["objective"]
        assert r["over_limit"] == (cfg == "slow") == (r["seconds"] > 3.0)
    rep = json.loads(cli("campaign", "report", "--store", str(db), "--json").stdout)
    slow, native = rep["configs"]["slow"], rep["configs"]["native"]
    assert (slow["solved"], slow["unknown"], slow["over_limit"], slow["par2"]) == (0, 2, 2, 6.0)
    assert slow["median_seconds"] is None
    assert (native["solved"], native["over_limit"]) == (2, 0) and native["par2"] < 3.0
    assert {i["verdict"] for i in rep["instances"]} == {"AGREE"}  # the late answers are right
    text = cli("campaign", "report", "--store", str(db)).stdout
    assert text.count("over limit") >= 2
    times = per_instance_times(rows(db))
    assert all(t == float("inf") for t in times["slow"].values())
    # a store from before the column: the readers compute it, a run adds and fills it
    old = tmp_path / "old.db"
    src = sqlite3.connect(db)
    src.backup(dst := sqlite3.connect(old))
    src.close()
    dst.execute("ALTER TABLE runs DROP COLUMN over_limit")
    dst.commit()
    dst.close()
    store = Store.open_read(old)
    assert report(store.rows(), store.meta())["configs"] == rep["configs"]
    store.close()
    p = cli("campaign", "run", str(sp), "--store", str(old), "--allow-code")
    assert p.returncode == 0 and "4 already stored, 0 to run" in p.stderr, p.stderr
    assert {(r["config"], r["over_limit"]) for r in rows(old)} == {("native", 0), ("slow", 1)}


def test_a_spec_without_task_gives_each_family_its_first_task_and_says_so(tmp_path):
    """The default task is each family's first, as in solve/compare/lab (count for tilings):
    pentomino/3x20 has 8 tilings, hoppers needs 7 moves (SPEC.md); a task a family lacks is an
    error naming `task`."""
    from puzzlesat.compare.campaign.spec import load_spec
    sp = spec(tmp_path, 'name = "mixed"\ninstances = ["peg/hoppers", "pentomino/3x20"]\ntime_limit = 60\n'
                        '[configs]\nnative = "native"\n')
    s = load_spec(sp)
    assert s.task is None and s.tasks() == {"peg": "optimize", "pentomino": "count"}
    assert {(j.family, j.task) for j in s.jobs()} == {("peg", "optimize"), ("pentomino", "count")}
    db = tmp_path / "mixed.db"
    p = cli("campaign", "run", str(sp), "--store", str(db))
    assert p.returncode == 0, p.stderr
    assert "task peg=optimize, pentomino=count (no task in the spec: each family's first)" in p.stderr
    got = {r["family"]: (r["task"], r["status"], r["objective"], r["count"]) for r in rows(db)}
    assert got == {"peg": ("optimize", "OPTIMAL", 7, None), "pentomino": ("count", "OPTIMAL", None, 8)}
    rep = json.loads(cli("campaign", "report", "--store", str(db), "--json").stdout)
    assert rep["task"] == "peg=optimize, pentomino=count (no task in the spec: each family's first)"
    assert "each family's first" in cli("campaign", "report", "--store", str(db)).stdout
    one = spec(tmp_path, 'name = "tiles"\ninstances = ["pentomino/3x20"]\n[configs]\nnative = "native"\n',
               "one.toml")
    assert [j.task for j in load_spec(one).jobs()] == ["count"]
    bad = spec(tmp_path, 'name = "x"\ninstances = ["pentomino/3x20"]\ntask = "optimize"\n'
                         '[configs]\nnative = "native"\n', "bad.toml")
    p = cli("campaign", "run", str(bad), "--store", str(tmp_path / "bad.db"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "bad.toml:3: task: 'optimize' is not one of pentomino's tasks (count, feasible, unique)" in p.stderr
    split = spec(tmp_path, 'name = "x"\ninstances = ["peg/hoppers"]\nsplit = 2\n'
                           '[configs]\nnative = "native"\n', "split.toml")
    p = cli("campaign", "run", str(split), "--store", str(tmp_path / "split.db"))
    assert p.returncode == 2 and "needs task = \"count\" (no `task` given: optimize" in p.stderr
