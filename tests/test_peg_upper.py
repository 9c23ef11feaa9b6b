"""Short peg solutions on boards of up to 128 holes (issue 39 item 1): the beam with exact end games
against the known minima of the small triangles, the upper-bound campaign resuming from its work
folder (a damaged record set aside and found again), record files replayed by the checker (a forged
one rejected with the reason), window and seeded-model improvements, and the layer estimate
refusing a search that does not fit."""
from __future__ import annotations

import json
import os
import stat

import pytest

from puzzlesat.compare.peg.upper import Plan, run, solvable_pairs
from puzzlesat.core.result import InputError
from puzzlesat.native_search.peg.problems import problem_instance
from puzzlesat.native_search.peg.table import solve_table
from puzzlesat.native_search.peg.wide import Weights, beam
from puzzlesat.puzzles.peg import board, check


def _cli(*args, timeout=600):
    import helpers
    return helpers.cli("peg", *args, timeout=timeout)  # a fork of this process


def test_boards_beyond_64_holes():
    """triangle11..14 load (66..105 holes, 6 symmetries; triangle15 stays the 15-hole board,
    triangle(15) is refused: its name would be the same); the bitboard engines refuse a board
    beyond 64 holes before they run."""
    from puzzlesat.compare.runner import solve
    from puzzlesat.families.registry import family
    for name, n in (("triangle11", 11), ("triangle12", 12), ("triangle(14)", 14)):
        b = board(name)
        assert b.n == n * (n + 1) // 2 and len(b.symmetries) == 6
    assert board("triangle15").n == 15
    for bad in ("triangle16", "triangle(15)"):
        with pytest.raises(InputError):
            board(bad)
    inst = problem_instance(board("triangle11"), 0, 0)
    for engine in ("native:bfs", "native:iddfs", "native"):
        with pytest.raises(InputError, match="64-bit word"):
            solve(family("peg"), inst, engine, "optimize", time_limit=5, isolate=False)


@pytest.mark.parametrize("side", [5, 6])
def test_beam_against_exact_minima(side):
    """Every solution the beam finds replays; none beats the exact minimum of its problem (the
    table method, equal to a brute force on these boards), and the least over all is A127500's
    (9 and 9) — the beam reaches it."""
    b = board(f"triangle{side}")
    pairs = [p for p, _ in solvable_pairs(b)]
    exact = solve_table(b, pairs)
    got = {}
    for v in sorted({v for v, _ in pairs}):
        for f, sol in beam(b, v, width=2000).items():
            k = check(problem_instance(b, v, f), sol)
            key = min((g[v], g[f]) for g in b.symmetries)
            got[key] = min(got.get(key, k), k)
    assert got and all(got[p] >= exact[p].moves for p in got)
    assert min(got.values()) == 9


def test_upper_bound_cli_triangle7_least_is_a127500(tmp_path):
    """`peg problems triangle7 --upper-bound`: every one of the 27 problems the position classes
    allow gets a replayed solution, the least is 12 (A127500, proved by the layer search)."""
    out = _cli("problems", "triangle7", "--upper-bound", "--width", "2000",
               "--weights", "p8i16r8m16", "--phases", "beam", "--work-dir", str(tmp_path / "w"),
               "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["board"] == "triangle7" and rec["least"]["moves"] == 12
    assert len(rec["problems"]) == 27
    b = board("triangle7")
    for p in rec["problems"]:
        sol = tuple(tuple(j) for j in p["solution"])
        assert check(problem_instance(b, *p["pair"]), sol) == p["moves"]
    # the records replay through `peg records`; a second run reads the folder (nothing to do)
    path = tmp_path / "t7.json"
    path.write_text(out.stdout)
    ok = _cli("records", str(path))
    assert ok.returncode == 0 and "27 of 27 records replayed" in ok.stdout, ok.stdout
    again = _cli("problems", "triangle7", "--upper-bound", "--width", "2000", "--weights",
                 "p8i16r8m16", "--phases", "beam", "--work-dir", str(tmp_path / "w"))
    assert again.returncode == 0 and "27 stored solutions replayed" in again.stderr
    assert "beam vacate" not in again.stderr.split("replayed by the checker")[-1]


def test_forged_records_are_rejected(tmp_path):
    """A record claiming fewer moves than its solution has, a solution with an illegal jump, and a
    wrong `least` each fail `peg records` (exit 1, the reason printed); a file that is not a
    record file is bad input (exit 2)."""
    b = board("triangle6")
    sol = beam(b, 3, width=500)
    f, jumps = min(sol.items(), key=lambda kv: len(kv[1]))
    k = check(problem_instance(b, 3, f), jumps)
    good = {"board": "triangle6", "problems": [{"pair": [3, f], "moves": k,
                                                "solution": [list(j) for j in jumps]}],
            "least": {"moves": k, "pair": [3, f]}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(good))
    assert _cli("records", str(path)).returncode == 0
    forged = json.loads(json.dumps(good))
    forged["problems"][0]["moves"] = k - 1
    forged["least"]["moves"] = k - 1
    path.write_text(json.dumps(forged))
    out = _cli("records", str(path))
    assert out.returncode == 1 and f"the checker counts {k} moves, the record {k - 1}" in out.stdout
    illegal = json.loads(json.dumps(good))
    illegal["problems"][0]["solution"][0] = [0, 1, 3]   # hole 3 is the empty one: 0 -> 3 is fine,
    illegal["problems"][0]["solution"][1] = [0, 1, 3]   # but not twice
    path.write_text(json.dumps(illegal))
    out = _cli("records", str(path))
    assert out.returncode == 1 and "needs pegs in" in out.stdout
    wrong_least = json.loads(json.dumps(good))
    wrong_least["least"] = {"moves": k + 1, "pair": [3, f]}
    path.write_text(json.dumps(wrong_least))
    assert _cli("records", str(path)).returncode == 1
    for garbage in ("{not json", "[" * 200_000 + "]" * 200_000):   # the second: past the parser's depth
        path.write_text(garbage)
        out = _cli("records", str(path))
        assert out.returncode == 2 and "not JSON" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    fifo = tmp_path / "fifo.json"   # read like every input: never blocks on a FIFO, nor reads a
    os.mkfifo(fifo)                 # device without end (both hung or filled memory before)
    for special, what in ((fifo, "FIFO"), ("/dev/zero", "character device")):
        out = _cli("records", str(special))
        assert out.returncode == 2 and out.stderr == (f"puzzlesat: error: {special}: is a {what}"
                                                      f"{' (named pipe)' if what == 'FIFO' else ''}"
                                                      ", not a regular file: refused\n"), out.stderr


def test_shipped_records_replay():
    """The records shipped with puzzlesat (puzzles/data/peg/records) all replay."""
    out = _cli("records", "--json")
    assert out.returncode == 0, out.stdout
    files = json.loads(out.stdout)
    assert {f["board"] for f in files} >= {"triangle11", "triangle12"}
    assert all(f["ok"] and f["records"] > 0 for f in files)
    # the new bounds (issue 39): below A127500's published upper bounds a(11) <= 28, a(12) <= 29,
    # never below Bell's lower bounds 19 and 21 (a replayed solution under them would be a bug)
    least = {f["board"]: f["least"]["moves"] for f in files}
    assert 19 <= least["triangle11"] <= 27 and 21 <= least["triangle12"] <= 28


def test_campaign_resumes_and_redoes_a_damaged_record(tmp_path):
    """A damaged record is set aside (.bad) and the task that found it runs again, finding it
    back; a record for another board's folder is refused."""
    b = board("triangle6")
    plan = Plan(widths=(500,), weights=("p8i16r8m16",))
    first = run(b, plan, work_dir=str(tmp_path), phases=("beam",))
    assert first.best
    pair, rec = sorted(first.best.items())[0]
    path = tmp_path / "best" / f"{pair[0]}-{pair[1]}.json"
    data = json.loads(path.read_text())
    data["solution"] = data["solution"][1:]         # no longer a game from that start
    path.write_text(json.dumps(data))
    said: list[str] = []
    again = run(b, plan, work_dir=str(tmp_path), phases=("beam",), progress=said.append)
    assert (tmp_path / "best" / f"{pair[0]}-{pair[1]}.json.bad").exists()
    assert any("set aside" in s for s in said) and any("runs again" in s for s in said)
    assert again.best[pair].moves == rec.moves
    with pytest.raises(InputError, match="holds the campaign of 'triangle6'"):
        run(board("triangle5"), plan, work_dir=str(tmp_path), phases=())


def test_windows_and_seeded_models_improve_a_poor_solution():
    """The window searches make a 12-move triangle6 solution shorter; the seeded model decisions
    (CP-SAT hints, SAT phases) make a poor beam solution of triangle5 (a beam three positions
    wide) shorter; every result replays."""
    from puzzlesat.models.peg.hint import descend
    from puzzlesat.native_search.peg.window import improve
    b = board("triangle6")
    slow = ((5, 2, 0), (14, 9, 5), (18, 13, 9), (9, 5, 2), (0, 2, 5), (7, 8, 9), (9, 5, 2),
            (2, 4, 7), (6, 7, 8), (16, 17, 18), (18, 12, 7), (3, 7, 12), (8, 12, 17), (20, 19, 18),
            (18, 17, 16), (15, 16, 17), (17, 11, 6), (10, 6, 3), (3, 1, 0))
    inst = problem_instance(b, 0, 0)
    assert check(inst, improve(b, 0, slow, lengths=(6,))) < check(inst, slow) == 12
    b = board("triangle5")
    poor = beam(b, 1, width=3, weights=Weights(8, 16, 8, 16))[5]
    inst = problem_instance(b, 1, 5)
    assert check(inst, poor) == 11
    for backend in ("cpsat", "sat"):
        best, calls = descend(inst, poor, backend, time_limit=120, per_call=60)
        assert check(inst, best) == 10 and [c["result"] for c in calls] == ["FEASIBLE", "INFEASIBLE"]


def test_estimate_refuses_what_does_not_fit_and_counts_what_its_search_holds(tmp_path,
                                                                              monkeypatch):
    """The layer estimate of `--least` (forward to K - 1, backward to 1) probes in the search's
    own folder, also with no backward depth given (it used to probe a folder of its own): after
    triangle7 K = 11 was refuted, the estimate reads it back there, measured whole. With a 1 KiB
    disk limit the search is refused (exit 1) with the figures. Every byte that folder holds
    (layers, range files of an unfinished layer; not what a link points to) counts as disk the
    search may use: with no free space at all the search still resumes and refutes K = 11 again."""
    import types

    from puzzlesat.native_search.peg import estimate as est
    from puzzlesat.native_search.peg.table import least_by_bound
    b, w = board("triangle7"), str(tmp_path)
    r = least_by_bound(b, max_moves=11, work_dir=w, fit_check=False)  # sides of its choice
    assert r.moves is None and r.lower == 12
    for f in tmp_path.glob("peg-least-refuted-*"):  # K = 11 is searched again below
        f.unlink()
    (folder,) = [p for p in tmp_path.glob("peg-least-*") if p.is_dir()]
    e = est.estimate_least(b, 11, None, w, keep_free=0)
    assert [p for p in tmp_path.glob("peg-least-*") if p.is_dir()] == [folder]
    assert e.complete and e.forward[:2] == [7, 11] and e.backward == [7, 7471] and e.fits
    assert "backward depth 1" in e.note
    with pytest.raises(est.WontFit) as refused:
        least_by_bound(b, max_moves=11, work_dir=w, disk_limit=1 << 10, keep_free=0)
    assert not refused.value.estimate.fits and "does NOT fit" in str(refused.value)
    out = _cli("problems", "triangle7", "--least", "--max-moves", "11", "--disk-limit-mb", "0",
               "--work-dir", w)
    assert out.returncode == 1 and "refused" in out.stderr and "does NOT fit" in out.stderr
    (folder / "part-f099").mkdir()
    (folder / "part-f099" / "00000").write_bytes(bytes(4096))  # an unfinished layer's range file
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "big").write_bytes(bytes(1 << 16))
    (folder / "link").symlink_to(tmp_path / "elsewhere")
    held = sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(folder) for f in fs
               if stat.S_ISREG(os.lstat(os.path.join(d, f)).st_mode))
    usage = est.shutil.disk_usage(tmp_path)
    monkeypatch.setattr(est, "shutil", types.SimpleNamespace(
        disk_usage=lambda p: usage._replace(free=0)))            # no free space: held bytes only
    assert est.estimate_least(b, 11, None, w, keep_free=0).disk_allowed == held
    again = least_by_bound(b, max_moves=11, work_dir=w, keep_free=0)
    assert again.moves is None and again.lower == 12 and again.stats["layers_resumed"] > 0


def test_estimate_projects_triangle9_from_its_first_layers(tmp_path):
    """Probed to a layer of 10,000 positions, the low and high projections of triangle9's K = 15
    layers bracket the measured depth-14 layer (938,227,475; docs/peg.md); a second estimate
    reading the probed layers back from the work folder projects the same CPU (the noted build
    time, not the read's)."""
    from puzzlesat.native_search.peg.estimate import T9_K15, estimate_least
    e = estimate_least(board("triangle9"), 15, probe=10_000, memory=1 << 30,
                       work_dir=str(tmp_path))
    assert e.forward == list(T9_K15[:len(e.forward)]) and not e.complete
    assert len(e.low) == 15 - len(e.forward) and e.low[-1] < T9_K15[-1] < e.high[-1]
    again = estimate_least(board("triangle9"), 15, probe=10_000, memory=1 << 30,
                           work_dir=str(tmp_path))
    assert again.forward == e.forward and again.low == e.low and e.cpu_low > 0
    assert again.cpu_low == pytest.approx(e.cpu_low, rel=1e-3)


def test_wide_kernels_run_as_plain_python(no_jit):
    """The wide kernels (beam, end games, layers) also run with numba's JIT off."""
    out = no_jit("""
        from puzzlesat.native_search.peg.wide import beam, layer_sizes
        from puzzlesat.puzzles.peg import board
        found = beam(board("triangle5"), 3, width=50)
        print(min(len(s) for s in found.values()) > 0, layer_sizes(board("triangle5"), 10**6, 3)[0])
    """)
    assert out.split("\n")[0] == "True [4, 5, 14, 58]"
