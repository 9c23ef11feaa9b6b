"""Work folders hold claims, not facts. A peg cubes folder whose result files were forged —
UNSAT for every cube of hoppers "moves <= 7" (the optimum is 7), a VERIFIED certificate with no
proof file, a SAT record whose 1-jump "solution" the checker never saw, a count of 10^9 — gives
the right answer: a SAT record is replayed by the checker on load, every other record counts only
with the seal of this user's puzzlesat (core/seal.py) or, with its proof kept, the proof verified
again in this run; else its cube is solved again. Peg layer files carry SHA-256 checksums in a
sealed manifest, verified when a search resumes: a changed, truncated or forged layer is built
again. Garbage, special files and oversized files in a work folder are redone, never a traceback."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import helpers
from puzzlesat.compare.peg.cubes import run_cubes
from puzzlesat.families.instances import load_instance

FAM = load_instance("peg/hoppers")[0]
TRIED = {"folders": 0}


def results(folder: Path) -> list[Path]:
    return sorted((folder / "results").glob("*.json"))


def forge(folder: Path, edit) -> None:
    """Rewrite every result file through edit(record) -> record (None: leave the file)."""
    TRIED["folders"] += 1
    for p in results(folder):
        rec = json.loads(p.read_text())
        new = edit(dict(rec))
        if new is not None:
            p.write_text(json.dumps(new))


@pytest.fixture(scope="module")
def hoppers7(tmp_path_factory):
    """A real work folder of hoppers 'moves <= 7' (FEASIBLE) and its answer."""
    _, inst = load_instance("peg/hoppers")
    d = tmp_path_factory.mktemp("h7")
    r = run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=d / "w")
    assert r["status"] == "FEASIBLE" and r["solution"]["moves"] <= 7
    return inst, d / "w"


def fresh_copy(src: Path, dst: Path) -> Path:
    import shutil
    shutil.copytree(src, dst)
    return dst


def unsat(rec):
    rec.update(status="UNSAT", solve_seconds=0.0)
    rec.pop("model", None)
    rec.pop("solution", None)
    return rec


def test_forged_unsat_records_never_make_an_infeasible(hoppers7, tmp_path):
    """The review's wrong answer: every cube and the cover forged UNSAT gave INFEASIBLE for a
    decision whose answer is yes (hoppers has 7-move solutions)."""
    inst, w = hoppers7
    folder = fresh_copy(w, tmp_path / "w")
    forge(folder, unsat)
    r = run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=folder)
    assert r["status"] == "FEASIBLE" and r["solution"]["moves"] <= 7, r


def test_forged_verified_certificates_are_never_printed_verified(tmp_path):
    """hoppers 'moves <= 7' with --certify: forged UNSAT records carrying a VERIFIED certificate
    and no proof file gave INFEASIBLE + 'certificate: VERIFIED'; now the cubes run again."""
    w = tmp_path / "w"
    p = helpers.cli("peg", "cubes", "peg/hoppers", "--bound", "6", "--depth", "2", "--certify",
                    "--work-dir", str(w), "--json", "-j", "1")
    assert p.returncode == 0, p.stderr
    real = json.loads(p.stdout)
    assert real["status"] == "INFEASIBLE" and real["certificate"]["verdict"] == "VERIFIED"
    # the plan of bound 7 in a fresh folder: forged records, every one 'VERIFIED'
    w7 = tmp_path / "w7"
    p = helpers.cli("peg", "cubes", "peg/hoppers", "--bound", "7", "--depth", "2", "--certify",
                    "--work-dir", str(w7), "--json", "-j", "1", "--time-limit", "1e-9")
    assert p.returncode == 1, p.stderr  # UNKNOWN: nothing ran, the plan is written
    (w7 / "results").mkdir(exist_ok=True)
    cert = {"verdict": "VERIFIED", "reason": None, "format": "drat", "lemmas": 1, "checker_seconds": 0.0,
            "stats": {"proof_bytes": 1}}
    plan = json.loads((w7 / "plan.json").read_text())
    for i in range(plan["cubes"]):
        (w7 / "results" / f"cube-{i:06d}.json").write_text(json.dumps(
            {"id": i, "name": f"cube-{i:06d}", "status": "UNSAT", "solve_seconds": 0.0, "certificate": cert}))
    (w7 / "results" / "cover.json").write_text(json.dumps(
        {"id": 0, "name": "cover", "status": "UNSAT", "solve_seconds": 0.0, "certificate": cert}))
    TRIED["folders"] += 1
    p = helpers.cli("peg", "cubes", "peg/hoppers", "--bound", "7", "--depth", "2", "--certify",
                    "--work-dir", str(w7), "--json", "-j", "1")
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["status"] == "FEASIBLE" and rep["solution"]["moves"] <= 7, rep
    assert "VERIFIED" not in p.stdout.replace('"verdict": "VERIFIED"', "") or \
        rep.get("certificate", {}).get("verdict") != "VERIFIED"


def test_a_forged_sat_record_is_replayed_on_load(hoppers7, tmp_path):
    """A SAT record with a 1-jump 'model' was reported FEASIBLE with a solution the checker
    never saw; on load it is replayed, refused, and its cube solved again."""
    inst, w = hoppers7
    folder = fresh_copy(w, tmp_path / "w")
    meta = json.loads((folder / "base.cnf.map.json").read_text())
    some_jump = next(int(n) for n, k in meta["variables"].items() if k[0] == "j")

    def one_jump(rec):
        if rec["name"] == "cover":
            return None
        rec.update(status="SAT", model=[some_jump], solution={"jumps": [[0, 1, 3]], "moves": 1})
        rec.pop("seal", None)
        return rec
    forge(folder, one_jump)
    r = run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=folder)
    assert r["status"] == "FEASIBLE" and r["solution"]["moves"] == 7 and len(r["solution"]["jumps"]) > 1
    from puzzlesat.puzzles.peg import check
    assert check(inst, tuple(tuple(j) for j in r["solution"]["jumps"])) <= 7


def test_a_real_solution_in_an_unsealed_record_is_kept_after_its_replay(hoppers7, tmp_path):
    inst, w = hoppers7
    folder = fresh_copy(w, tmp_path / "w")
    forge(folder, lambda rec: {k: v for k, v in rec.items() if k != "seal"})
    lines = []
    r = run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=folder, progress=lines.append)
    assert r["status"] == "FEASIBLE" and r["solution"]["moves"] <= 7


def damaged_and_resumed(tmp_path, damage):
    """hoppers-first06 "moves <= 6" refuted by cubes, `damage(result files)`, then resumed: the
    same INFEASIBLE answer from the same cubes (what was damaged is redone)."""
    _, inst = load_instance("peg/hoppers-first06")
    folder = tmp_path / "w"
    r1 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=folder)
    assert r1["status"] == "INFEASIBLE"
    damage(results(folder))
    TRIED["folders"] += 1
    r2 = run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=folder)
    assert r2["status"] == "INFEASIBLE" and r2["cubes"] == r1["cubes"]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"status": "UNSAT"}',
                                     b'{"name": 5, "status": ["x"]}', b"\x80\x04\x95pickle",
                                     b"{" * 100000 + b"}" * 100000, b'"' + b"a" * (17 << 20) + b'"'])
def test_garbage_result_files_are_redone(tmp_path, content):
    def overwrite(paths):
        for p in paths:
            p.write_bytes(content)
    damaged_and_resumed(tmp_path, overwrite)


def test_special_files_in_a_work_folder_are_refused_by_name_or_redone(tmp_path):
    def special(paths):
        paths[0].unlink()
        os.mkfifo(paths[0])  # a FIFO where a result was: read without blocking, redone
        paths[1].unlink()
        paths[1].symlink_to("/dev/zero")
    damaged_and_resumed(tmp_path, special)


def test_forged_counts_are_counted_again(tmp_path):
    _, inst = load_instance("peg/hoppers-first06")
    folder = tmp_path / "w"
    r1 = run_cubes(FAM, inst, "sat:ordered", 7, 3, count=True, work_dir=folder)
    assert r1["count"] == 18

    def inflate(rec):
        rec["count"] = 10 ** 9
        return rec
    forge(folder, inflate)
    r2 = run_cubes(FAM, inst, "sat:ordered", 7, 3, count=True, work_dir=folder)
    assert (r2["status"], r2["count"]) == ("OPTIMAL", 18)


def test_a_sealed_record_moved_into_another_plan_does_not_verify(tmp_path):
    """Records are sealed with their plan: the UNSAT records of 'moves <= 6' copied over the
    results of 'moves <= 7' (same cube names) are not this plan's, so they run again."""
    _, inst = load_instance("peg/hoppers")
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cubes(FAM, inst, "sat:ordered", 6, 2, work_dir=a)["status"] == "INFEASIBLE"
    assert run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=b)["status"] == "FEASIBLE"
    for p in results(b):
        p.unlink()
    for p in results(a):
        (b / "results" / p.name).write_bytes(p.read_bytes())
    TRIED["folders"] += 1
    r = run_cubes(FAM, inst, "sat:ordered", 7, 2, work_dir=b)
    assert r["status"] == "FEASIBLE"


def test_a_forged_plan_file_is_one_line(tmp_path):
    from puzzlesat.core.result import InputError
    _, inst = load_instance("peg/hoppers-first06")
    folder = tmp_path / "w"
    run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=folder)
    for content in (b"{oops", b"[]", b"{" * 100000):
        (folder / "plan.json").write_bytes(content)
        TRIED["folders"] += 1
        with pytest.raises(InputError, match="plan"):
            run_cubes(FAM, inst, "sat:ordered", 6, 3, work_dir=folder)


# ---- peg layers: checksums in a sealed manifest ------------------------------------------------
def _bfs(work: Path, **kw):
    from puzzlesat.compare.runner import solve
    fam, inst = load_instance("peg/hoppers")
    return solve(fam, inst, "native:bfs", "optimize", options={"work_dir": str(work)}, isolate=False, **kw)


def layer_files(work: Path) -> list[Path]:
    return sorted(p for p in work.rglob("*.u64"))


def test_layer_store_checksums_catch_a_changed_layer(tmp_path):
    """A finished layer changed on disk (one position dropped, one bit flipped, the file cut
    short) is not used when the search resumes: that layer and the later ones are built again."""
    from puzzlesat.native_search.peg.disk import Store
    key = {"test": "layers"}
    s = Store(tmp_path, key, memory=1 << 20)
    layers = {f"f{d}": np.unique(np.random.default_rng(d).integers(0, 1 << 40, 1000 + d, dtype=np.uint64))
              for d in range(4)}
    for name, a in layers.items():
        s.commit(name, a)
    s.close()
    folder = next(tmp_path.glob("peg-*"))
    f1 = folder / "f1.u64"
    data = np.fromfile(f1, dtype=np.uint64)
    data[3] ^= np.uint64(1)
    data.tofile(f1)
    (folder / "f2.u64").write_bytes((folder / "f2.u64").read_bytes()[:-8])
    TRIED["folders"] += 1
    s2 = Store(tmp_path, key, memory=1 << 20)
    assert np.array_equal(s2.saved("f0"), layers["f0"])
    assert s2.saved("f1") is None and s2.saved("f2") is None
    assert np.array_equal(s2.saved("f3"), layers["f3"])  # its checksum holds: kept
    assert s2.redone and "f1" in " ".join(s2.redone)


def test_layer_store_forged_manifest_is_not_trusted(tmp_path):
    """A manifest rewritten by hand (checksums recomputed over a forged layer) has no valid seal:
    every layer of it is built again."""
    import hashlib
    from puzzlesat.native_search.peg.disk import MANIFEST, Store
    key = {"test": "forged"}
    s = Store(tmp_path, key, memory=1 << 20)
    s.commit("f0", np.arange(10, dtype=np.uint64))
    s.close()
    folder = next(tmp_path.glob("peg-*"))
    forged = np.arange(5, dtype=np.uint64)
    forged.tofile(folder / "f0.u64")
    m = json.loads((folder / MANIFEST).read_text())
    m["layers"]["f0"] = {"size": 5, "sha256": hashlib.sha256(forged.tobytes()).hexdigest()}
    (folder / MANIFEST).write_text(json.dumps(m))
    TRIED["folders"] += 1
    s2 = Store(tmp_path, key, memory=1 << 20)
    assert s2.saved("f0") is None


@pytest.mark.parametrize("content", [b"{oops", b"[]", b'{"key": {}, "layers": {"f0": {"size": 1e30}}}',
                                     b"{" * 100000])
def test_layer_store_garbage_manifest_starts_again(tmp_path, content):
    from puzzlesat.native_search.peg.disk import MANIFEST, Store
    key = {"test": "garbage"}
    s = Store(tmp_path, key, memory=1 << 20)
    s.commit("f0", np.arange(10, dtype=np.uint64))
    s.close()
    folder = next(tmp_path.glob("peg-*"))
    (folder / MANIFEST).write_bytes(content)
    TRIED["folders"] += 1
    s2 = Store(tmp_path, key, memory=1 << 20)
    assert s2.saved("f0") is None


def test_a_search_resumes_from_checked_layers_with_the_same_answer(tmp_path):
    from puzzlesat.core.result import Status
    r1 = _bfs(tmp_path)
    assert (r1.status, r1.objective) == (Status.OPTIMAL, 7)
    files = layer_files(tmp_path)
    assert files
    for f in files[len(files) // 2:]:
        a = np.fromfile(f, dtype=np.uint64)
        if len(a) > 1:
            a[:-1].tofile(f)  # one position less: the checksum catches it
    TRIED["folders"] += 1
    r2 = _bfs(tmp_path)
    assert (r2.status, r2.objective) == (Status.OPTIMAL, 7)


def test_forged_peg_problem_answers_are_searched_again(tmp_path):
    """`peg problems --method bfs --work-dir W` records each settled problem in W/answers/: a
    forged 'impossible' for triangle5 0 -> 0 (10 moves), and a 9-move minimum for it backed by a
    real but longer solution, are searched again, not reported."""
    from puzzlesat.compare.peg.problems import answer_path, problems
    from puzzlesat.puzzles.peg import board
    b, w = board("triangle5"), tmp_path / "w"
    opts = {"options": {"prune": "merson", "work_dir": str(w)}}
    want = [(r.vacate, r.finish, r.min_moves) for r in problems(b, finish="same", method="bfs", **opts)]
    assert want[0] == (0, 0, 10)
    lie = answer_path(b, 0, 0, w)
    d = json.loads(lie.read_text())
    d.pop("seal")
    lie.write_text(json.dumps(dict(d, status="INFEASIBLE", min_moves=None, solution=None)))
    TRIED["folders"] += 1
    again = list(problems(b, finish="same", method="bfs", **opts))
    assert [(r.vacate, r.finish, r.min_moves) for r in again] == want
    assert "answer_recorded" not in again[0].stats


def test_the_seal_key_is_private_and_a_home_without_one_still_works(tmp_path, monkeypatch):
    import stat as st
    from puzzlesat.core import seal
    monkeypatch.setattr(seal, "_KEY", {})
    monkeypatch.setenv("PUZZLESAT_SEAL_KEY", str(tmp_path / "k" / "seal.key"))
    rec = seal.sign({"status": "UNSAT", "name": "cube-000001"}, "plan A")
    assert st.S_IMODE((tmp_path / "k" / "seal.key").stat().st_mode) == 0o600
    assert seal.verified(rec, "plan A") and not seal.verified(rec, "plan B")
    assert not seal.verified({**rec, "status": "SAT"}, "plan A") and not seal.verified([rec], "plan A")
    monkeypatch.setenv("PUZZLESAT_SEAL_KEY", "/proc/no-such-folder/seal.key")  # cannot be made
    other = seal.sign({"x": 1}, "c")
    assert seal.verified(other, "c") and not seal.verified(rec, "plan A")  # this process's key


def test_figures():
    print(f"hostile work folders tried: {TRIED['folders']}")


@pytest.mark.parametrize("args", [
    ["lab", "core", "sliding/8-easy", "-e", "sat", "--bound", "1"],
    ["peg", "cubes", "peg/hoppers", "--bound", "6", "--depth", "2"],
    ["peg", "games", "peg/hoppers"],
    ["peg", "problems", "hoppers", "--least"],
    ["peg", "problems", "hoppers", "--upper-bound"]])
@pytest.mark.parametrize("where", ["file", "file/sub", "file/a/b"])
def test_a_work_folder_that_cannot_be_made_is_one_line_before_any_work(args, where, tmp_path, capsys,
                                                                         monkeypatch):
    """A file where the folder or one of its parents should be: exit 2, one line naming it, and
    nothing made — found when the command starts, not as a traceback when the first result is kept."""
    import signal
    from puzzlesat.cli.main import main
    monkeypatch.setattr(signal, "signal", lambda *a: None)   # main's SIGTERM handler: not here
    TRIED["folders"] += 1
    (tmp_path / "file").write_text("mine\n")
    with pytest.raises(SystemExit) as e:
        main([*args, "--work-dir", str(tmp_path / where)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1, err
    assert f"{tmp_path / 'file'} is a file" in err or f"{tmp_path / 'file'}: cannot make the work folder: it is a file" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"] and (tmp_path / "file").read_text() == "mine\n"


def test_folders_and_record_files_that_cannot_be_made_are_input_errors(tmp_path):
    """The library's side of the same: make_folder (the runs' own folders: lab core, cubes, games,
    layers, upper bounds) and a record file under a file are InputError naming the path."""
    from puzzlesat.compare.peg.upper import write_records
    from puzzlesat.core.files import make_folder, usable_folder
    from puzzlesat.core.result import InputError
    from puzzlesat.models.why import CoreFolder
    (tmp_path / "file").write_text("mine\n")
    for call in (lambda: make_folder(tmp_path / "file" / "x"), lambda: make_folder(tmp_path / "file"),
                 lambda: usable_folder(tmp_path / "file" / "x" / "y"),
                 lambda: CoreFolder(str(tmp_path / "file" / "w"), {}),
                 lambda: write_records(tmp_path / "file" / "r.json", {"problems": []})):
        with pytest.raises(InputError, match="file"):
            call()
    assert make_folder(tmp_path / "a" / "b").is_dir() and usable_folder(tmp_path / "c" / "d")
    assert not (tmp_path / "c").exists()    # usable_folder checks, it makes nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "file"]


def test_upper_bound_save_to_a_missing_folder_fails_before_the_campaign(tmp_path, capsys, monkeypatch):
    import signal
    from puzzlesat.cli.main import main
    monkeypatch.setattr(signal, "signal", lambda *a: None)
    with pytest.raises(SystemExit) as e:
        main(["peg", "problems", "hoppers", "--upper-bound", "--save", str(tmp_path / "no" / "r.json")])
    cap = capsys.readouterr()
    assert e.value.code == 2 and cap.err.count("\n") == 1 and "does not exist" in cap.err, cap.err
    assert cap.out == ""   # no search ran: its progress would be on stderr, its table on stdout


def test_an_upper_bound_folder_with_special_files_is_set_aside_not_a_hang(tmp_path):
    """`peg problems --upper-bound --work-dir`: a stored solution that is a FIFO, a folder, bytes
    that are not UTF-8, or JSON of the wrong shape, and a task list that is a FIFO, are set aside
    (.bad) and their tasks run again; they used to hang the reader (FIFO) or raise a traceback."""
    from puzzlesat.compare.peg.upper import Plan, run
    from puzzlesat.core.result import InputError
    from puzzlesat.puzzles.peg import board
    TRIED["folders"] += 1
    b, plan = board("triangle5"), Plan(widths=(200,), weights=("p8i16r8m16",))
    first = run(b, plan, work_dir=str(tmp_path), phases=("beam",))
    best = tmp_path / "best"
    stored = sorted(best.glob("*.json"))
    assert len(stored) >= 5 and first.best
    for p in (stored[0], stored[1], tmp_path / "done.json"):
        os.unlink(p)
    os.mkfifo(stored[0])
    stored[1].mkdir()
    stored[2].write_bytes(b"\xff\xfe{")
    stored[3].write_text("[1, 2]")
    stored[4].write_text("[" * 200_000 + "]" * 200_000)   # past the JSON parser's depth
    os.mkfifo(tmp_path / "done.json")
    said: list[str] = []
    again = run(b, plan, work_dir=str(tmp_path), phases=("beam",), progress=said.append)
    assert {p.name for p in best.glob("*.bad")} == {p.name + ".bad" for p in stored[:5]}, said
    assert (tmp_path / "done.json.bad").exists() and (tmp_path / "done.json").is_file()
    assert sum("set aside" in s for s in said) == 6, said
    assert {p: r.moves for p, r in again.best.items()} == {p: r.moves for p, r in first.best.items()}
    os.mkfifo(tmp_path / "fifo")
    for name in ("fifo", "best"):   # the campaign file itself: one line naming it
        (tmp_path / "campaign.json").unlink()
        os.symlink(tmp_path / name, tmp_path / "campaign.json")
        with pytest.raises(InputError, match=r"campaign\.json: is a (FIFO|directory)"):
            run(b, plan, work_dir=str(tmp_path), phases=())


def test_a_problems_store_under_a_file_is_one_line_before_any_output(tmp_path, capsys, monkeypatch):
    """`peg problems --store` whose folder is a file: exit 2, one line, and no table header
    printed first (the store is checked before the first line of output)."""
    import signal
    from puzzlesat.cli.main import main
    monkeypatch.setattr(signal, "signal", lambda *a: None)
    (tmp_path / "file").write_text("mine\n")
    with pytest.raises(SystemExit) as e:
        main(["peg", "problems", "hoppers", "--store", str(tmp_path / "file" / "p.db")])
    cap = capsys.readouterr()
    assert e.value.code == 2 and cap.out == "", cap.out
    assert cap.err == f"puzzlesat: error: {tmp_path / 'file' / 'p.db'}: the store's folder is a file\n"
