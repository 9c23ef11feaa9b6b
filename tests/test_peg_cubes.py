"""Cube-and-conquer for peg decisions (models/peg/cubes.py, compare/peg/cubes.py): the
cubes cover the decision (their counts, weighted by orbit, sum to the whole count), refutations
are certified, a work folder resumes, jobs run alike inline, as processes and on Dask."""
from __future__ import annotations

import json
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat.compare.peg.cubes import run_cubes
from puzzlesat.core.result import CheckError, InputError
from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import family
from puzzlesat.models.peg import cubes as pc
from puzzlesat.puzzles import peg

from helpers import cli, tree
from oracles import peg_oracle
from strategies import peg_solvable

FAM = family("peg")

# (instance, bound, answer): INFEASIBLE, or FEASIBLE, or a count; provenance in the comment
DECISIONS = [
    ("peg/hoppers", 6, "INFEASIBLE"),        # optimum 7 (IPC pegsol hoppers; SPEC.md)
    ("peg/hoppers", 7, "FEASIBLE"),
    ("peg/hoppers-first06", 6, "INFEASIBLE"),
]
COUNTS = [
    ("peg/hoppers-first06", 7, 18),          # 18 optimal sequences (SPEC.md; native count)
]


def _weights(inst, depth):
    perms = pc.line_perms(inst)
    return [len(pc.orbit(perms, c)) for c in pc.cubes(inst, depth)]


@pytest.mark.parametrize("depth", [0, 1, 2, 3, 4])
def test_canonical_cubes_and_their_orbits_are_every_legal_prefix_once(depth):
    """Each legal prefix is in the orbit of exactly one canonical cube."""
    for name in ("peg/english33", "peg/hoppers", "peg/triangle15"):
        _, inst = load_instance(name)
        legal = list(pc.legal_prefixes(inst, depth))
        assert len(set(legal)) == len(legal)
        perms = pc.line_perms(inst)
        seen = [p for c in pc.cubes(inst, depth) for p in pc.orbit(perms, c)]
        assert sorted(seen) == sorted(legal), name


def test_english_cube_numbers():
    """The English central game's first jumps: 4 legal, all one orbit; 400 prefixes of 4 jumps in
    50 orbits (every prefix's orbit has 8 members or fewer)."""
    _, inst = load_instance("peg/english33")
    assert [len(pc.cubes(inst, d)) for d in range(5)] == [1, 1, 2, 8, 50]
    assert [sum(1 for _ in pc.legal_prefixes(inst, d)) for d in range(5)] == [1, 4, 12, 60, 400]


@pytest.mark.parametrize("name,bound,answer", DECISIONS + COUNTS)
@pytest.mark.parametrize("depth,symmetry", [(0, True), (3, False), (3, True)])
def test_registry(name, bound, answer, depth, symmetry):
    """Every decision and count of the registry, at several depths, with and without symmetry."""
    _, inst = load_instance(name)
    count = isinstance(answer, int)
    r = run_cubes(FAM, inst, "sat:ordered", bound, depth, symmetry=symmetry, count=count)
    if count:
        assert (r["status"], r["count"]) == ("OPTIMAL", answer)
        return
    assert r["status"] == answer
    assert r["cover"]["status"] == "UNSAT"
    if answer == "FEASIBLE":
        assert peg.check(inst, tuple(map(tuple, r["solution"]["jumps"]))) <= bound
    else:
        assert r["lower_bound"] == bound + 1 and r["refuted"] == r["cubes"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(peg_solvable(), st.integers(0, 3), st.booleans())
def test_cube_counts_sum_to_the_whole_count(inst, depth, symmetry):
    """Random solvable boards: the cubes' counts (weighted by orbit) at the optimum are the
    brute-force oracle's number of optimal sequences, and one move fewer is refuted."""
    best, n = peg_oracle(inst)
    depth = min(depth, inst.jumps_needed)
    r = run_cubes(FAM, inst, "sat:merson", best, depth, symmetry=symmetry, count=True)
    assert (r["status"], r["count"]) == ("OPTIMAL", n)
    if best >= 1:
        d = run_cubes(FAM, inst, "sat:ordered", best - 1, depth, symmetry=symmetry)
        assert d["status"] == "INFEASIBLE"


def test_certified_refutation_and_its_certificate():
    _, inst = load_instance("peg/hoppers")
    r = run_cubes(FAM, inst, "sat:ordered", 6, 2, certify=True)
    assert r["status"] == "INFEASIBLE"
    c = r["certificate"]
    assert c["verdict"] == "VERIFIED" and c["proofs"] == r["cubes"] + 1 and c["lemmas"] > 0
    assert r["cover"]["certificate"]["verdict"] == "VERIFIED"
    # the report's parameters are the jobs' settings, not the engine's defaults for them
    assert r["params"]["solver"] == "cadical195" and r["params"]["certify"] is True
    assert r["params"]["search"] == "auto" and r["params"]["prefix"] == 2


def test_cubes_that_miss_a_prefix_are_caught_by_the_cover(monkeypatch, tmp_path):
    """Keep only the cubes without a solution (by their counts): every cube is refuted, but the
    cover CNF has a model, so nothing is claimed."""
    _, inst = load_instance("peg/hoppers")
    r = run_cubes(FAM, inst, "sat:ordered", 7, 3, symmetry=False, count=True, work_dir=tmp_path)
    assert r["count"] > 0
    res = [json.loads(p.read_text()) for p in (tmp_path / "results").glob("cube-*.json")]
    empty = sorted(tuple(x["cube"]) for x in res if x["count"] == 0)
    assert 0 < len(empty) < r["cubes"]
    monkeypatch.setattr(pc, "cubes", lambda *a, **k: empty)
    with pytest.raises(CheckError, match="cover"):
        run_cubes(FAM, inst, "sat:ordered", 7, 3, symmetry=False)


def test_a_rejected_proof_is_an_error_never_infeasible(tmp_path):
    """An external 'solver' that answers UNSAT with an empty proof: REJECTED, status ERROR."""
    fake = tmp_path / "fake-solver"
    fake.write_text("#!/bin/sh\nfor a; do last=$a; done\n: > \"$last\"\nexit 20\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    _, inst = load_instance("peg/hoppers")
    r = run_cubes(FAM, inst, "sat:ordered", 6, 2, certify=True, solver=f"ext:{fake}")
    assert r["status"] == "ERROR" and r["certificate"]["verdict"] == "REJECTED"
    assert "not verified" in r["reason"]


def test_a_work_folder_resumes_and_goes_on_only_with_the_same_plan(tmp_path):
    """A work folder resumes the jobs without a result. Its plan goes on with other job settings
    only when asked (`switch`; never another decision), for the jobs without a result, each
    recording its solver and search; `split_depth` splits those cubes (with their cover jobs)
    before solving them. The folder's base CNF stays when this code writes the same formula with
    other comments (an earlier version's), and is refused when its clauses differ."""
    _, inst = load_instance("peg/hoppers-first06")
    res = tmp_path / "results"
    lines: list[str] = []
    r1 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path)
    assert r1["status"] == "INFEASIBLE"
    (res / "cube-000001.json").unlink()
    r = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, progress=lines.append)
    assert r["status"] == "INFEASIBLE" and r["cubes"] == r1["cubes"] and "switched_from" not in r
    assert "1 to run" in lines[0] and len(lines) == 2
    (res / "cube-000001.json").unlink()
    with pytest.raises(InputError, match="another plan.*differs in solver.*--switch"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, solver="glucose4")
    before = (tmp_path / "base.cnf").read_bytes()
    with pytest.raises(InputError, match="differs in base_sha256, bound, solver.; use a new folder$"):
        run_cubes(FAM, inst, "sat:ordered", 5, 3, work_dir=tmp_path, solver="glucose4", switch=True)
    assert (tmp_path / "base.cnf").read_bytes() == before  # a refused call leaves the folder be
    with pytest.raises(InputError, match="split_depth"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, split_depth=3)
    lines.clear()
    r2 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, solver="glucose4",
                   switch=True, split_depth=4, progress=lines.append)
    assert r2["status"] == "INFEASIBLE" and r2["switched_from"] == {
        "solver": "cadical195", "search": "auto", "split_after": None}
    assert r2["splits"] == 1 and r2["leaves"] == r1["leaves"] - 1 + len(
        pc.extensions(inst, tuple(r2_cube := json.loads((res / "cube-000001.json").read_text())["cube"])))
    split = json.loads((res / "cube-000001.json").read_text())
    assert split["split"] and "split to depth 4" in split["reason"] and len(r2_cube) == 3
    kids = [json.loads(p.read_text()) for p in res.glob("cube-000001.*.json")]
    assert len(kids) == len(pc.extensions(inst, tuple(r2_cube))) + 1  # and the split's cover
    assert {(k["solver"], k["status"]) for k in kids} == {("glucose4", "UNSAT")}
    assert r2["job_settings"] == {"cadical195 auto": r1["cubes"], "glucose4 auto": len(kids)}
    assert any("--switch" in line for line in lines)
    # the same formula with other comments (and the plan's SHA-256 of that file) stays in use
    base = tmp_path / "base.cnf"
    base.write_bytes(b"c written by an earlier version\n" + base.read_bytes())
    plan = json.loads((tmp_path / "plan.json").read_text())
    from puzzlesat.core.files import file_sha256
    plan["base_sha256"] = file_sha256(base)
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1))
    for p in res.glob("*.json"):  # (their seals bind them to the plan as it was)
        p.unlink()
    r3 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, solver="glucose4", switch=True)
    assert r3["status"] == "INFEASIBLE" and base.read_bytes().startswith(b"c written by")
    assert r3["base"]["sha256"] == plan["base_sha256"]
    lines_ = base.read_bytes().split(b"\n")
    drop = next(i for i, ln in enumerate(lines_) if ln and not ln.startswith((b"c", b"p")))
    base.write_bytes(b"\n".join(lines_[:drop] + lines_[drop + 1:]))  # one clause less
    plan["base_sha256"] = file_sha256(base)
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1))
    with pytest.raises(InputError, match="another plan .differs in base_sha256"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, solver="glucose4", switch=True)


def test_a_status_reads_the_folder_as_a_run_would_and_writes_nothing(tmp_path):
    """`status`: the jobs done and to run, the cubes answered, taken from the plan and the sealed
    records exactly as a run would take them (an unsealed record is set aside), with no job run
    and the folder untouched; a finished folder's status is its answer; a folder without a plan,
    no folder, and another decision are refused."""
    _, inst = load_instance("peg/hoppers-first06")
    w = tmp_path / "w"
    r1 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=w, certify=True, split_depth=4)
    assert r1["status"] == "INFEASIBLE" and r1["splits"] == r1["cubes"]
    before = tree(w)
    done = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=w, certify=True, status=True)
    assert (done["status"], done["lower_bound"], done["jobs_to_run"]) == ("INFEASIBLE", 7, 0)
    assert done["cubes_answered"] == done["cubes"] and done["certificate"]["verdict"] == "VERIFIED"
    res = w / "results"
    kids = sorted(p for p in res.glob("cube-000000.*.json") if "cover" not in p.name)
    kids[0].unlink()                                    # one leaf of the first cube to run again
    r = json.loads(kids[1].read_text())
    r.pop("seal")
    kids[1].write_text(json.dumps(r))                   # and one unsealed: set aside
    (w / "jobs" / "stray.cnf").write_text("p cnf 0 0\n")  # a run would tidy it; a status must not
    before = tree(w)
    lines: list[str] = []
    st = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=w, certify=True, status=True,
                   solver="glucose4", progress=lines.append)   # job settings: the folder's
    assert tree(w) == before
    assert (st["status"], st["status_only"], st["jobs_to_run"], st["set_aside"]) == ("UNKNOWN", True, 2, 1)
    assert st["cubes_answered"] == st["cubes"] - 1 and st["jobs_done"] == len(list(res.glob("*.json"))) - 1
    assert "2 to run" in st["reason"] and "set aside" in st["reason"] and "lower_bound" not in st
    assert st["job_settings"] == {"cadical195 auto": st["jobs_done"] - st["splits"]}
    assert any("no seal" in line for line in lines)
    r2 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=w, certify=True)  # the run does those 2
    assert r2["status"] == "INFEASIBLE" and not (w / "jobs" / "stray.cnf").exists()
    with pytest.raises(InputError, match="another plan .differs in base_sha256, bound.; use a new folder$"):
        run_cubes(FAM, inst, "sat:ordered", 5, 3, work_dir=w, certify=True, status=True)
    with pytest.raises(InputError, match="no plan.json"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path, status=True)
    with pytest.raises(InputError, match="nothing has run there"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=tmp_path / "none", status=True)
    assert not (tmp_path / "none").exists()
    with pytest.raises(InputError, match="work_dir"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, status=True)
    with pytest.raises(InputError, match="drop recheck"):
        run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=w, status=True, recheck=True)
    p = cli("peg", "cubes", "peg/hoppers-first06", "-e", "sat:ordered", "--bound", "6", "--depth",
            "3", "--certify", "--work-dir", str(w), "--status")
    assert p.returncode == 0 and "INFEASIBLE" in p.stdout and "0 to run" in p.stdout, p.stderr
    p = cli("peg", "cubes", "peg/hoppers-first06", "--bound", "6", "--status")
    assert p.returncode == 2 and "--work-dir" in p.stderr and "Traceback" not in p.stderr


def test_a_time_limit_gives_unknown_with_the_cubes_done():
    _, inst = load_instance("peg/hoppers-first06")
    r = run_cubes(FAM, inst, "sat:ordered", 6, 3, time_limit=1e-9)
    assert r["status"] == "UNKNOWN" and "time limit" in r["reason"]
    assert "lower_bound" not in r


def test_bad_requests_are_input_errors():
    _, inst = load_instance("peg/hoppers")
    with pytest.raises(InputError, match="depth"):
        run_cubes(FAM, inst, "sat:ordered", 6, 99)
    with pytest.raises(InputError, match="symmetric prefix"):
        run_cubes(FAM, inst, "sat:time", 6, 2)
    with pytest.raises(InputError, match="SAT formulation"):
        run_cubes(FAM, inst, "cpsat:ordered", 6, 2)
    with pytest.raises(InputError, match="not certified"):
        run_cubes(FAM, inst, "sat:ordered", 7, 2, count=True, certify=True)
    with pytest.raises(InputError, match="cannot log proofs"):
        run_cubes(FAM, inst, "sat:ordered", 6, 2, certify=True, solver="minisat22")


def test_cli_local_processes_and_exit_statuses(tmp_path):
    p = cli("peg", "cubes", "peg/hoppers", "--bound", "6", "--depth", "2", "-j", "2", "--certify",
            "--work-dir", str(tmp_path / "w"), "--json")
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert (rep["status"], rep["certificate"]["verdict"], rep["jobs"]) == ("INFEASIBLE", "VERIFIED", 2)
    p = cli("peg", "cubes", "peg/hoppers", "--bound", "6", "--depth", "2", "--certify", "--work-dir",
            str(tmp_path / "w"), "--solver", "glucose4", "--switch", "--split-depth", "3")
    assert p.returncode == 0 and "INFEASIBLE" in p.stdout, p.stderr
    assert "jobs by solver and search: cadical195 auto: 3" in p.stdout and "--switch" in p.stderr
    p = cli("peg", "cubes", "sliding/8-hardest", "--bound", "3")
    assert p.returncode == 2 and "peg instance" in p.stderr and "Traceback" not in p.stderr
    p = cli("peg", "cubes", "peg/hoppers", "--bound", "6", "--keep-proofs")
    assert p.returncode == 2 and "--keep-proofs" in p.stderr
    p = cli("peg", "cubes", "peg/hoppers", "--bound", "6", "--time-limit", "1e-9")
    assert p.returncode == 1 and "UNKNOWN" in p.stdout


def test_dask_local_cluster_gives_the_same_count():
    pytest.importorskip("distributed")
    from puzzlesat.compare.peg.layers import close_pool, pool_for
    _, inst = load_instance("peg/hoppers-first06")
    pool = pool_for("dask", 2, job="puzzlesat.models.peg.cubes:solve_cube")
    try:
        r = run_cubes(FAM, inst, "sat:ordered", 7, 3, count=True, pool=pool)
    finally:
        close_pool(pool)
    assert (r["status"], r["count"]) == ("OPTIMAL", 18)


def _pretend_short_cubes_time_out(monkeypatch, below: int):
    """solve_cube answers UNKNOWN (as at its time limit) for every cube shorter than `below`."""
    real = pc.solve_cube

    def solve(spec):
        if spec.get("time_limit") and spec["cube"] is not None and len(spec["cube"]) < below:
            return {"id": spec["id"], "name": spec["name"], "status": "UNKNOWN",
                    "solve_seconds": spec["time_limit"], "reason": "pretended"}
        return real(spec)
    monkeypatch.setattr(pc, "solve_cube", solve)


@pytest.mark.parametrize("count", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_split_cubes_keep_the_answer(monkeypatch, tmp_path, count):
    """Cubes shorter than 4 jumps 'time out' and are split down to 4 jumps: the same refutation
    (with a cover per split) and the same count; a second run with the folder runs nothing."""
    _pretend_short_cubes_time_out(monkeypatch, 4)
    _, inst = load_instance("peg/hoppers-first06")
    bound = 7 if count else 6
    r = run_cubes(FAM, inst, "sat:ordered", bound, 2, count=count, split_after=60, work_dir=tmp_path)
    assert r["splits"] > 0 and r["leaves"] > r["cubes"]
    if count:
        assert (r["status"], r["count"]) == ("OPTIMAL", 18)
    else:
        assert r["status"] == "INFEASIBLE" and r["refuted"] == r["leaves"]
        covers = [p for p in (tmp_path / "results").glob("*.cover.json")]
        assert len(covers) == r["splits"]
    lines = []
    again = run_cubes(FAM, inst, "sat:ordered", bound, 2, count=count, split_after=60,
                      work_dir=tmp_path, progress=lines.append)
    assert "0 to run" in lines[0] and again["status"] == r["status"]


def test_a_split_cube_whose_children_miss_a_jump_is_caught(monkeypatch):
    """A split that forgets one child with solutions: its own cover job has a model."""
    _pretend_short_cubes_time_out(monkeypatch, 3)
    _, inst = load_instance("peg/hoppers")
    real = pc.extensions
    monkeypatch.setattr(pc, "extensions", lambda inst, cube: real(inst, cube)[1:])
    with pytest.raises(CheckError, match="cover"):
        run_cubes(FAM, inst, "sat:ordered", 7, 2, symmetry=False, split_after=60)


def _php_11_10(folder):
    """Pigeonhole PHP(11, 10) as a DIMACS file in `folder` (the solvers take seconds to minutes)."""
    n = 10
    var = lambda p, h: p * n + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(n)] for p in range(n + 1)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(n) for p in range(n + 1) for q in range(p)]
    base = folder / "php.cnf"
    base.write_text(f"p cnf {(n + 1) * n} {len(clauses)}\n"
                    + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
    return base


def test_the_split_limit_counts_cpu_seconds_not_the_machine_s_load(tmp_path, monkeypatch):
    """A job's limit is CPU seconds of its process group: a job process that sleeps 1.5 s under a
    0.5 s limit (its CPU stays near 0) is not killed, and group_cpu_seconds sees a busy group's
    CPU grow."""
    import subprocess
    import sys
    import time
    from pathlib import Path
    from puzzlesat.core.procs import group_cpu_seconds
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        t0 = time.monotonic()
        while (group_cpu_seconds(busy.pid) or 0) < 0.2 and time.monotonic() < t0 + 120:
            time.sleep(0.05)
        assert group_cpu_seconds(busy.pid) >= 0.2
    finally:
        busy.kill()
        busy.wait()
    assert group_cpu_seconds(busy.pid) is None  # no such group any more
    spec = {"id": 0, "name": "job", "base": "unused", "extra": [], "solver": "cadical195",
            "certify": False, "folder": str(tmp_path), "projection": [], "time_limit": 0.5}
    monkeypatch.setattr(pc, "_solve", lambda s: (time.sleep(1.5),
                                                 {"id": 0, "name": "job", "status": "UNSAT"})[1])
    t0 = time.monotonic()
    r = pc.solve_cube(spec)
    assert r["status"] == "UNSAT" and time.monotonic() - t0 >= 1.5


@pytest.mark.parametrize("solver", ["cadical195", "cpsat"])
def test_a_job_past_its_time_limit_is_killed_and_unknown(tmp_path, solver):
    """Pigeonhole PHP(11, 10) takes the solvers seconds: at a 0.3 s limit the job is UNKNOWN and
    leaves no files (nor CP-SAT's scratch folder); with no limit a small one is UNSAT."""
    base = _php_11_10(tmp_path)
    spec = {"id": 0, "name": "job", "base": str(base), "extra": [], "solver": solver,
            "certify": True, "folder": str(tmp_path), "projection": [], "time_limit": 0.3}
    r = pc.solve_cube(spec)
    assert r["status"] == "UNKNOWN" and "time limit" in r["reason"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["php.cnf"]
    small = tmp_path / "php4.cnf"
    small.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    r = pc.solve_cube(dict(spec, base=str(small), time_limit=60))
    assert r["status"] == "UNSAT" and r["certificate"]["verdict"] == "VERIFIED"


def test_a_stopped_job_process_takes_its_solving_child_with_it(tmp_path):
    """A job with a time limit solves in a forked child in its own process group, out of reach
    of the kill that stops the job's process (its group): the child must die with that process,
    not solve on unseen (PHP(11, 10), CaDiCaL: minutes)."""
    import os
    import pickle
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path
    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs Linux /proc to find the child")
    base = _php_11_10(tmp_path)
    spec = {"id": 0, "name": "job", "base": str(base), "extra": [], "solver": "cadical195",
            "certify": False, "folder": str(tmp_path), "projection": [], "time_limit": 600}
    (tmp_path / "spec.pkl").write_bytes(pickle.dumps(spec))
    code = ("import pickle, sys\nfrom puzzlesat.models.peg.cubes import solve_cube\n"
            "solve_cube(pickle.load(open(sys.argv[1], 'rb')))\n")
    job = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "spec.pkl")],
                           start_new_session=True)

    def children(pid):
        return [int(c) for t in Path(f"/proc/{pid}/task").glob("*")
                for c in (t / "children").read_text().split()]

    def running(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    kids = []
    try:
        t0 = time.monotonic()
        while not kids and time.monotonic() < t0 + 120:
            time.sleep(0.1)
            kids = children(job.pid)
        assert kids, "the job forked no child"
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
        t0 = time.monotonic()
        while any(running(k) for k in kids) and time.monotonic() < t0 + 20:
            time.sleep(0.1)
        assert not any(running(k) for k in kids)
    finally:  # nothing of this test is left running, whatever happened
        for k in kids:
            if running(k):
                os.kill(k, signal.SIGKILL)
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()


@pytest.mark.parametrize("solver,search", [pytest.param("cpsat", "auto", marks=pytest.mark.slow),
                                           ("cpsat", "fixed"), ("glucose4", "auto")])
def test_other_proof_logging_solvers(solver, search):
    """CP-SAT's LRAT (its own search, or fixed: the jumps in time order) and Glucose's DRUP
    certify the cubes as CaDiCaL's DRAT does; uncertified, CP-SAT answers the same."""
    _, inst = load_instance("peg/hoppers")
    r = run_cubes(FAM, inst, "sat:ordered", 6, 2, certify=True, solver=solver, search=search)
    assert r["status"] == "INFEASIBLE" and r["certificate"]["verdict"] == "VERIFIED"
    assert r["certificate"]["format"] == ("lrat" if solver == "cpsat" else "drat")
    assert (r["params"]["solver"], r["params"]["search"], r["params"]["certify"]) == (solver, search, True)
    if solver == "cpsat":
        r = run_cubes(FAM, inst, "sat:ordered", 7, 3, solver=solver, search=search)
        assert r["status"] == "FEASIBLE" and r["solution"]["moves"] <= 7


def test_fixed_search_and_unknown_solvers_are_refused():
    _, inst = load_instance("peg/hoppers")
    with pytest.raises(InputError, match="--solver cpsat"):
        run_cubes(FAM, inst, "sat:ordered", 6, 2, search="fixed")
    with pytest.raises(InputError, match="unknown solver"):
        run_cubes(FAM, inst, "sat:ordered", 6, 2, solver="nosuch")
    with pytest.raises(InputError, match="python-sat"):
        run_cubes(FAM, inst, "sat:ordered", 7, 2, solver="cpsat", count=True)
