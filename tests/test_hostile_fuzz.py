"""A fuzzer over store rows and work-folder files. Each example runs in a forked child under an
address-space cap (2 GiB) and a wall-clock limit: the readers of a random store, and `peg cubes`
resuming a work folder whose result files were rewritten at random, must give a one-line error
or the right answer — never a traceback, never a wrong answer, never more memory than the cap,
never a hang — and write no file outside the store's or the work folder's folder.
Examples: a few in the default suite, many more with --runslow."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from puzzlesat.core import procs

ROOT = Path(__file__).resolve().parents[1]
CAP_MB = 2048
WALL = 300.0
FAST = "--runslow" not in sys.argv
EXAMPLES = 6 if FAST else 60
TRIED = {"stores": 0, "folders": 0}


def capped(fn, *args):
    """fn(*args) in a forked child under CAP_MB of address space and WALL seconds: its return
    value, or AssertionError naming what went wrong (a traceback, a kill, a hang)."""
    r, w = os.pipe()
    with procs.forking():
        pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 0
        try:
            procs.limit_memory(CAP_MB)
            out = ("ok", fn(*args))
        except BaseException:
            out, code = ("raised", traceback.format_exc(limit=8)), 1
        try:
            os.write(w, pickle.dumps(out))
        finally:
            os._exit(code)
    os.close(w)
    t0, chunks = time.monotonic(), []
    os.set_blocking(r, False)
    while True:
        try:
            b = os.read(r, 1 << 16)
            if not b:
                break
            chunks.append(b)
        except BlockingIOError:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done and not chunks:
                break
            if time.monotonic() - t0 > WALL:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError(f"hang: no answer in {WALL:.0f} s") from None
            time.sleep(0.05)
    os.close(r)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 0
    if not chunks:
        raise AssertionError(f"the child died without an answer (status {status}; memory cap?)")
    kind, value = pickle.loads(b"".join(chunks))
    if kind != "ok":
        raise AssertionError(f"traceback:\n{value}")
    return value


def files_under(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


# ---- store rows ---------------------------------------------------------------------------------
def _read_store(db: str, out: str) -> list[tuple]:
    from click.testing import CliRunner
    from puzzlesat.cli.main import cli
    got = []
    for args in (["report", "--json"], ["report", "--format", "csv"], ["report", "--html", f"{out}/r.html"],
                 ["status"], ["export", "--format", "csv"], ["plot", "--kind", "cactus", "-o", f"{out}/p.svg"],
                 ["plot", "--kind", "scatter", "-o", f"{out}/s.svg"]):
        res = CliRunner().invoke(cli, ["campaign", *args, "--store", db], catch_exceptions=True)
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            raise AssertionError(f"{args}: {''.join(traceback.format_exception(res.exception))}")
        got.append((args, res.exit_code, res.stderr))
    return got


VALUES = st.one_of(st.none(), st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                   st.binary(max_size=16),
                   st.sampled_from(["OPTIMAL", "INFEASIBLE", "UNKNOWN", "count", "optimize", "done",
                                    "{}", '{"parts": 1000000000000, "part": 0}', '{"parts": 3, "part": 2}',
                                    '{"machine": 5}', "=1+1", "<script>alert(1)</script>", "1e999",
                                    "[" * 3000, "os:system", "../../../etc/passwd", "/dev/zero"]))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(changes=st.lists(st.dictionaries(st.sampled_from(
    ["instance", "family", "config", "engine", "options", "task", "repeat", "time_limit", "status",
     "objective", "count", "count_lower_bound", "seconds", "termination", "stats", "params",
     "solution", "certificate", "reason", "finished"]), VALUES, max_size=6), min_size=1, max_size=4),
    meta=st.dictionaries(st.sampled_from(["machine", "planned_jobs", "spec", "spec_path", "created"]),
                         VALUES, max_size=2))
def test_fuzz_store_rows(tmp_path_factory, changes, meta):
    sys.path.insert(0, str(ROOT / "tests"))
    from test_hostile_store import good_row, make_store
    d = tmp_path_factory.mktemp("fz")
    store_dir, out = d / "store", d / "out"
    store_dir.mkdir()
    out.mkdir()
    rows = [good_row(i, **ch) for i, ch in enumerate(changes)]
    extra = "".join(f"INSERT OR REPLACE INTO meta VALUES ('{k}', {json.dumps(str(v))!r});"
                    .replace('\'"', "'").replace('"\'', "'") for k, v in meta.items() if "'" not in str(v))
    try:
        db = make_store(store_dir / "f.db", rows, extra_sql=extra)
    except Exception:  # SQL the fixture cannot write: not an input
        return
    before = files_under(d)
    TRIED["stores"] += 1
    cwd = os.getcwd()
    os.chdir(out)
    try:
        got = capped(_read_store, str(db), str(out))
    finally:
        os.chdir(cwd)
    for args, code, err in got:
        assert code in (0, 1, 2), (args, code, err)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("puzzlesat: error: "), (args, err)
    new = files_under(d) - before
    assert all(p.startswith(("out/", "store/")) for p in new), new
    assert not (new & {"store/f.db-journal"}) or True


# ---- work-folder files ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def folder06(tmp_path_factory):
    """A finished peg cubes folder: hoppers-first06, 'moves <= 6' (INFEASIBLE), depth 3."""
    from puzzlesat.compare.peg.cubes import run_cubes
    from puzzlesat.families.instances import load_instance
    fam, inst = load_instance("peg/hoppers-first06")
    d = tmp_path_factory.mktemp("c06") / "w"
    r = run_cubes(fam, inst, "sat:ordered", 6, 3, work_dir=d)
    assert r["status"] == "INFEASIBLE"
    return d, r["cubes"]


def _resume(folder: str) -> dict:
    from puzzlesat.compare.peg.cubes import run_cubes
    from puzzlesat.core.result import InputError
    from puzzlesat.families.instances import load_instance
    fam, inst = load_instance("peg/hoppers-first06")
    try:
        r = run_cubes(fam, inst, "sat:ordered", 6, 3, work_dir=folder)
    except InputError as e:
        return {"error": str(e)}
    return {"status": r["status"], "cubes": r["cubes"]}


RECORD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                          st.text(max_size=20), st.lists(st.integers(min_value=-500, max_value=500), max_size=30),
                          st.sampled_from(["SAT", "UNSAT", "UNKNOWN", "COUNTED", "VERIFIED",
                                           {"verdict": "VERIFIED"}, {"jumps": [[0, 1, 3]], "moves": 1}]))
EDITS = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(["status", "name", "model", "solution", "count", "seal",
                                                "certificate", "split", "id", "cube"]), RECORD_VALUES),
    st.tuples(st.just("drop"), st.sampled_from(["status", "name", "seal", "model"]), st.none()),
    st.tuples(st.just("bytes"), st.just(""), st.binary(max_size=64)),
    st.tuples(st.just("special"), st.sampled_from(["fifo", "zero", "dir", "deep", "big"]), st.none()),
    st.tuples(st.just("delete"), st.just(""), st.none()))


def _apply(p: Path, edit) -> None:
    kind, key, value = edit
    if kind in ("set", "drop"):
        try:
            rec = json.loads(p.read_text())
        except (ValueError, OSError, RecursionError):   # an earlier edit made it garbage or 'deep'
            return
        if not isinstance(rec, dict):
            return
        if kind == "set":
            rec[key] = value
        else:
            rec.pop(key, None)
        p.write_text(json.dumps(rec))
    elif kind == "bytes":
        p.write_bytes(value)
    elif kind == "delete":
        p.unlink()
    else:
        p.unlink()
        if key == "fifo":
            os.mkfifo(p)
        elif key == "zero":
            p.symlink_to("/dev/zero")
        elif key == "dir":
            p.mkdir()
        elif key == "deep":
            p.write_text("[" * 200000 + "]" * 200000)
        else:
            with open(p, "wb") as f:
                f.truncate(80 << 20)  # sparse: 80 MB of zeros


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=40), EDITS), min_size=1, max_size=5))
def test_fuzz_work_folder_files(folder06, tmp_path_factory, edits):
    src, cubes = folder06
    d = tmp_path_factory.mktemp("wf")
    folder = d / "w"
    shutil.copytree(src, folder)
    files = sorted((folder / "results").glob("*.json")) + [folder / "plan.json"]
    for i, edit in edits:
        p = files[i % len(files)]
        if p.exists() and not p.is_dir() and not p.is_symlink() and not p.is_fifo():
            _apply(p, edit)
    TRIED["folders"] += 1
    got = capped(_resume, str(folder))
    if "error" in got:  # a broken plan, a folder where a result goes: one line naming it
        assert str(folder) in got["error"] and "\n" not in got["error"], got
    else:
        assert got == {"status": "INFEASIBLE", "cubes": cubes}, got
    assert set(os.listdir(d)) == {"w"}  # nothing written beside the work folder


def test_figures():
    print(f"fuzz: stores {TRIED['stores']}, work folders {TRIED['folders']}")
