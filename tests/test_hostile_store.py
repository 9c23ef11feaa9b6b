"""Reading never executes: a results store crafted by someone else (module paths where names go,
oversized JSON, wrong types, SQL in strings, NULLs, markup, views and triggers) is refused with
one line or shown as text by every reader — `campaign report/status/plot/export` and `peg
problems --store` — and nothing named in it is imported (a module that would write a marker file
on import sits on sys.path the whole time)."""
from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from puzzlesat.cli.main import cli
from puzzlesat.compare.campaign.store import COLUMNS, NAMES

MARKER_MODULE = "puzzlesat_hostile_marker"
READERS = (["report", "--json"], ["report"], ["status"], ["export", "--format", "csv"],
           ["export", "--format", "json"])
TRIED = {"stores": 0}   # hostile stores read in this module (the report's figure)


@pytest.fixture(scope="module")
def marker(tmp_path_factory):
    """A module on sys.path whose import writes a marker file: proof that nothing imported it."""
    d = tmp_path_factory.mktemp("marker")
    mark = d / "IMPORTED"
    (d / f"{MARKER_MODULE}.py").write_text(
        f"open({str(mark)!r}, 'w').write('imported')\ndef run(*a):\n    open({str(mark)!r}, 'w')\n")
    sys.path.insert(0, str(d))
    yield mark
    sys.path.remove(str(d))
    assert not mark.exists(), "a reader imported a module named in a store"
    assert MARKER_MODULE not in sys.modules


def good_row(i: int = 0, **changes) -> dict:
    """A record as a finished job writes it (sliding, native, count)."""
    row = {"key": f"{i:032x}", "campaign": "c", "instance": f"s{i}", "instance_hash": "ab" * 32,
           "family": "sliding", "config": "native", "config_spec": "native", "engine": "native:ida",
           "options": "{}", "task": "count", "repeat": 0, "seed": None, "time_limit": 60.0,
           "memory_limit_mb": 4096, "precheck": 1, "user_code": None, "status": "OPTIMAL",
           "objective": 4, "count": 1, "count_lower_bound": None, "solutions_checked": 1,
           "seconds": 0.5, "wall_seconds": 1.0, "cpu_seconds": 0.9, "peak_memory_mb": 50.0,
           "termination": "done", "reason": None, "stats": "{}", "params": "{}",
           "solution": '{"moves": []}', "exit_code": 0, "version": "0.3.0", "host": "h",
           "worker": None, "started": "2026-01-01T00:00:00", "finished": "2026-01-01T00:00:01"}
    row.update(changes)
    return row


def make_store(path: Path, rows: list[dict], extra_sql: str = "", typed: bool = False) -> Path:
    """A store with these rows, written with plain SQL (no type affinity: what a hand holds;
    `typed`: the column types puzzlesat declares, so that a writer accepts its schema)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("CREATE TABLE runs (" + ", ".join(f"{c} {t}" if typed else c for c, t, _ in COLUMNS) + ")")
    con.executemany("INSERT INTO meta VALUES (?, ?)", [("campaign", "c"), ("schema_version", "1")])
    for r in rows:
        con.execute(f"INSERT INTO runs ({', '.join(NAMES)}) VALUES ({', '.join('?' * len(NAMES))})",
                    [r.get(c) for c in NAMES])
    if extra_sql:
        con.executescript(extra_sql)
    con.commit()
    con.close()
    return path


def read_all(db: Path, tmp: Path) -> list[tuple[list[str], int, str]]:
    """Every reader on `db`, in this process: (args, exit code, stderr); a traceback fails."""
    TRIED["stores"] += 1
    out = []
    runner = CliRunner()
    for args in (*READERS, ["plot", "--kind", "cactus", "-o", str(tmp / "p.svg")]):
        res = runner.invoke(cli, ["campaign", *args, "--store", str(db)], catch_exceptions=True)
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            import traceback
            raise AssertionError(f"{args}: {''.join(traceback.format_exception(res.exception))}")
        err = res.stderr if hasattr(res, "stderr") else ""
        out.append((args, res.exit_code, err))
    return out


def assert_refused_or_shown(results, refused_with: str | None = None) -> None:
    for args, code, err in results:
        if refused_with is None:
            assert code in (0, 1), (args, code, err)  # shown (1: DISAGREE in report)
        else:
            assert code == 2, (args, code)
            assert err.count("\n") == 1 and refused_with in err, (args, err)


HOSTILE = {
    # names that look like code are only text: shown, never imported
    "module paths": (dict(family=f"{MARKER_MODULE}", engine=f"{MARKER_MODULE}:run",
                          config=f"{MARKER_MODULE}:run", config_spec="__import__('os').system('x')",
                          instance="../../etc/passwd"), None),
    "SQL in strings": (dict(instance="x'); DROP TABLE runs; --", reason="'; DELETE FROM meta; --",
                            config="a\"; DROP TABLE meta; --"), None),
    "markup in strings": (dict(config="[bold red]x[/]", instance="[link=file:///etc]y[/link]",
                               config_spec="$\\frac{a}{b}$", finished="[blink]z"), None),
    "oversized JSON": (dict(stats=json.dumps({"x": "a" * (5 * 1024 * 1024)})), "column stats"),
    "deep JSON": (dict(params="[" * 100000 + "]" * 100000), "column params"),
    "JSON not an object": (dict(options="[1, 2]"), "column options"),
    "bad JSON": (dict(stats="{not json"), "column stats"),
    "wrong type: seconds text": (dict(seconds="fast"), "column seconds"),
    "wrong type: repeat real": (dict(repeat=1.5), "column repeat"),
    "wrong type: status number": (dict(status=3), "column status"),
    "unknown status": (dict(status="PWNED"), "column status"),
    "unknown task": (dict(task="exec"), "column task"),
    "unknown termination": (dict(termination="import os"), "column termination"),
    "NULL status": (dict(status=None), "column status"),
    "NULL options": (dict(options=None), "column options"),
    "NULL key": (dict(key=None), "column key"),
    "NULL seconds of a job that ran": (dict(seconds=None), "column seconds"),
    "NULL count of an OPTIMAL count": (dict(count=None), "column count"),
    "negative time": (dict(time_limit=-1.0), "column time_limit"),
    "infinite seconds": (dict(seconds=float("inf")), "column seconds"),
    "blob where text goes": (dict(config=b"\x80\x04\x95pickle"), "column config"),
    "long blob where text goes": (dict(engine=b"\x80\x04\x95" * 40), "column engine"),
    "split part not an integer": (dict(options='{"parts": 2, "part": "x"}'), "column options"),
    "huge integer": (dict(count=2 ** 62, objective=-(2 ** 62)), None),
    # the review's 23 GB: every report built set(range(parts)) for parts = 10^12
    "parts 10^12": (dict(options='{"parts": 1000000000000, "part": 0}'), "column options"),
    "parts 10^9, one part stored": (dict(options='{"parts": 1000000000, "part": 3}'), None),
    "part beyond parts": (dict(options='{"parts": 2, "part": 5}'), "column options"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_row_is_refused_in_one_line_or_shown_as_text(case, tmp_path, marker):
    changes, refused = HOSTILE[case]
    db = make_store(tmp_path / "h.db", [good_row(0), good_row(1, **changes)])
    assert_refused_or_shown(read_all(db, tmp_path), refused)
    assert not marker.exists()


@pytest.mark.parametrize("sql, refused", [
    ("DROP TABLE runs; CREATE VIEW runs AS SELECT * FROM meta;", "not a puzzlesat campaign store"),
    ("DROP TABLE meta;", "not a puzzlesat campaign store"),
    ("INSERT INTO meta VALUES ('spec', x'" + "80" * 100 + "');", "table meta: entry 'spec'"),
    ("CREATE TRIGGER t AFTER INSERT ON meta BEGIN DELETE FROM runs; END;", None),
    ("CREATE TABLE extra (x); INSERT INTO meta VALUES ('spec', '[configs]\nx = \"ext:dimacs[cmd=rm -rf /]\"');",
     None),
])
def test_hostile_schema(sql, refused, tmp_path, marker):
    db = make_store(tmp_path / "h.db", [good_row(0)], sql)
    before = db.read_bytes()
    assert_refused_or_shown(read_all(db, tmp_path), refused)
    assert db.read_bytes() == before  # readers never write


def test_not_a_database_at_all(tmp_path, marker):
    db = tmp_path / "x.db"
    db.write_bytes(b"\x80\x04\x95" + b"\x00" * 100)  # a pickle's header: never unpickled
    assert_refused_or_shown(read_all(db, tmp_path), "not a puzzlesat campaign store")


# ---- random rows: every column any SQLite value ------------------------------------------------
SQL_VALUES = st.one_of(st.none(), st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1),
                       st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
                       st.binary(max_size=20),
                       st.sampled_from(["OPTIMAL", "UNKNOWN", "count", "optimize", "done", "killed",
                                        "{}", "[]", '{"parts": 2, "part": 1}', "null", "1e999",
                                        f"{MARKER_MODULE}:run", "os:system"]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.dictionaries(st.sampled_from(NAMES), SQL_VALUES, max_size=8), min_size=1, max_size=3))
def test_random_rows_never_crash_a_reader(tmp_path_factory, marker, changes):
    tmp = tmp_path_factory.mktemp("r")
    rows = [good_row(i, **ch) for i, ch in enumerate(changes)]
    for args, code, err in read_all(make_store(tmp / "r.db", rows), tmp):
        assert code in (0, 1, 2), (args, code)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("puzzlesat: error: "), err


# ---- peg problems --store reads a hostile store ------------------------------------------------
def test_peg_problems_store_with_hostile_rows(tmp_path, marker):
    """The problems of triangle5 with every job 'stored' by a hand: a tampered solution, a wrong
    minimum and a forged status give ERROR rows or one line; nothing runs, nothing is imported."""
    from puzzlesat.compare.peg.problems import problem_jobs, run_problems
    from puzzlesat.core.result import InputError, Status
    from puzzlesat.native_search.peg.problems import orbit_pairs
    from puzzlesat.puzzles.peg import board

    class NoRun:
        name = "none"

        def run(self, payloads):
            assert payloads == [], "a stored job ran again"
            return iter(())
    b = board("triangle5")
    pairs = orbit_pairs(b, "all", "all")[:4]
    jobs = problem_jobs(b, pairs, 60.0, 1024)
    base = [good_row(i, key=j["key"], campaign=f"peg-problems-{b.name}", family="peg",
                     instance=j["instance"], task="optimize", engine="native:bfs", config="bfs",
                     time_limit=60.0, memory_limit_mb=1024)
            for i, j in enumerate(jobs)]
    forged = [dict(base[0], status="OPTIMAL", objective=3, solution='{"jumps": [[0, 1, 3]]}'),
              dict(base[1], status="OPTIMAL", objective=1, solution=json.dumps({"jumps": "x" * 100})),
              dict(base[2], status="OPTIMAL", objective=2, solution=f'"{MARKER_MODULE}:run"'),
              dict(base[3], status="INFEASIBLE", objective=None, solution=None, reason="[red]")]
    untyped = make_store(tmp_path / "u.db", forged)  # not a schema puzzlesat writes: never written
    con = sqlite3.connect(untyped)
    con.execute("UPDATE meta SET value = ? WHERE key = 'campaign'", (f"peg-problems-{b.name}",))
    con.commit()
    con.close()
    before = untyped.read_bytes()
    with pytest.raises(InputError, match="schema is not one puzzlesat writes"):
        list(run_problems(b, pairs, untyped, NoRun(), 60.0, 1024))
    assert untyped.read_bytes() == before
    db = make_store(tmp_path / "p.db", forged, typed=True)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = ? WHERE key = 'campaign'", (f"peg-problems-{b.name}",))
    con.commit()
    con.close()
    TRIED["stores"] += 1
    got = list(run_problems(b, pairs, db, NoRun(), 60.0, 1024))
    assert [p.status for p in got[:3]] == [Status.ERROR] * 3  # no forged minimum passes the checker
    assert all("stored solution" in p.proof or "fails" in str(p.proof) for p in got[:3])
    bad = make_store(tmp_path / "q.db", [dict(forged[0], status="PWNED"), *forged[1:]], typed=True)
    con = sqlite3.connect(bad)
    con.execute("UPDATE meta SET value = ? WHERE key = 'campaign'", (f"peg-problems-{b.name}",))
    con.commit()
    con.close()
    TRIED["stores"] += 1
    with pytest.raises(InputError, match="column status"):
        list(run_problems(b, pairs, bad, NoRun(), 60.0, 1024))


def test_a_part_counted_twice_with_two_counts_is_an_error_not_a_sum():
    from puzzlesat.compare.campaign.report import merge_parts
    base = dict(task="count", status="OPTIMAL", termination="done")
    rs = [good_row(0, options='{"parts": 2, "part": 0}', count=5, **base),
          good_row(1, options='{"parts": 2, "part": 0}', count=6, instance="s0", **base),
          good_row(2, options='{"parts": 2, "part": 1}', count=1, instance="s0", **base)]
    merged, _ = merge_parts(rs)
    assert len(merged) == 1 and merged[0]["status"] == "ERROR" and merged[0]["count"] is None
    assert "part 0 was counted twice" in merged[0]["reason"]
    rs[1]["count"] = 5  # the same count twice: one part, counted once
    merged, _ = merge_parts(rs)
    assert (merged[0]["status"], merged[0]["count"]) == ("OPTIMAL", 6)


def test_figures():
    """The count of hostile stores this module reads (printed for the report)."""
    print(f"hostile stores read: {TRIED['stores']}")
