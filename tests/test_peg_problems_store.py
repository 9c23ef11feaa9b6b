"""`peg problems --store`: the problems of a board as campaign jobs in a SQLite store — the same
table as the shared-layer method and the brute force, resumed from the store, every stored solution
replayed by the checker, bad combinations rejected, old stores gaining the `solution` column."""
from __future__ import annotations

import json
import sqlite3

from puzzlesat.compare.campaign.store import COLUMNS, Store
from puzzlesat.puzzles.peg import board
from oracles import brute_table



def _cli(*args, timeout=600):
    import helpers
    return helpers.cli("peg", "problems", *args, timeout=timeout)  # a fork of this process


def test_store_table_equals_brute_force_and_resumes(tmp_path):
    db = tmp_path / "t5.db"
    out = _cli("triangle5", "--store", str(db), "--jobs", "2", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    b = board("triangle5")
    want = brute_table(b)
    assert len(got["problems"]) == 42 and got["complete"] and got["minimum"] == 9
    for p in got["problems"]:
        assert p["min_moves"] == want[(p["vacate"], p["finish"])], p
        if p["min_moves"] is not None:  # the stored solution, replayed here too
            assert len(p["solution"]) > 0 and p["status"] == "OPTIMAL"
    rows = Store.open_read(db).rows()
    assert len(rows) == 42 and all(r["termination"] == "done" for r in rows)
    assert sum(r["solution"] is not None for r in rows) == 12
    # a second run runs nothing: the rows are the stored ones (same start times)
    again = _cli("triangle5", "--store", str(db))
    assert again.returncode == 0 and "42 problems, 42 already stored, 0 to run" in again.stderr
    assert [r["started"] for r in Store.open_read(db).rows()] == [r["started"] for r in rows]
    assert "minimum: 9" in again.stdout


def test_store_a_tampered_solution_is_an_error(tmp_path):
    db = tmp_path / "t4.db"
    assert _cli("triangle4", "--store", str(db)).returncode == 0
    con = sqlite3.connect(db)
    key, sol = con.execute("SELECT key, solution FROM runs WHERE solution IS NOT NULL").fetchone()
    sol = json.loads(sol)  # the solution's JSON form, {"jumps": [[a, b, c], ...], ...}
    sol["jumps"] = sol["jumps"][:-1]
    with con:
        con.execute("UPDATE runs SET solution = ? WHERE key = ?", (json.dumps(sol), key))
    con.close()
    out = _cli("triangle4", "--store", str(db), "--json")
    assert out.returncode == 0, out.stderr
    errs = [p for p in json.loads(out.stdout)["problems"] if p["status"] == "ERROR"]
    assert len(errs) == 1 and errs[0]["min_moves"] is None


def test_store_bad_combinations_exit_2(tmp_path):
    db = tmp_path / "x.db"
    for args in (["--store", str(db), "--method", "table"], ["--store", str(db), "--least"],
                 ["--jobs", "2"], ["--executor", "dask"]):
        out = _cli("triangle4", *args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, args
        assert "--store" in out.stderr
    assert not db.exists()
    other = tmp_path / "other.db"  # a store of another campaign is refused, untouched
    Store.open_for_run(other, "something-else", "").close()
    before = other.read_bytes()
    out = _cli("triangle4", "--store", str(other))
    assert out.returncode == 2 and "something-else" in out.stderr
    assert other.read_bytes() == before


def test_an_older_store_gains_the_solution_column(tmp_path):
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    with con:
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        con.execute("INSERT INTO meta VALUES ('campaign', 'old'), ('schema_version', '1')")
        con.execute("CREATE TABLE runs (" + ", ".join(f"{c} {t}" for c, t, _ in COLUMNS
                                                      if c != "solution") + ")")
    con.close()
    s = Store.open_for_run(db, "old", "")
    cols = {r[1] for r in s.con.execute("PRAGMA table_info(runs)")}
    s.close()
    assert "solution" in cols
