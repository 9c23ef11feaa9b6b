"""The results store: one SQLite file (WAL), a `runs` table with one row per job, a `meta` table.

Each finished job is one INSERT committed at once, so killing the campaign (SIGKILL included)
loses at most the jobs that were running. Only the campaign's client process writes.

A store is data from whoever wrote it: readers open it read-only with SQLite's `trusted_schema`
off (no function with side effects runs from a view or trigger), require `runs` and `meta` to be
tables, and check every row before anything uses it (`check_row`: each column's type, the
allowed words of status/task/termination, JSON columns parsed within a size limit as the objects
a job writes); a row that breaks them is one InputError naming the store, the row and the
column. Nothing named in a store is imported, nothing in it is unpickled: names are shown as text.
"""
from __future__ import annotations

import json
import math
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.machine import machine
from ...core.result import InputError

SCHEMA_VERSION = "1"
# (column, SQL type, meaning) — the README's schema table is this list.
COLUMNS = (
    ("key", "TEXT PRIMARY KEY", "job identity: sha256 of instance (label, content hash), config, engine, "
                                "resolved options, task, repeat, seed, limits, precheck"),
    ("campaign", "TEXT", "campaign name"),
    ("instance", "TEXT", "instance label (catalogue name or path as the spec gives it)"),
    ("instance_hash", "TEXT", "sha256 of the instance content (name excluded)"),
    ("family", "TEXT", "puzzle family"),
    ("config", "TEXT", "configuration name"),
    ("config_spec", "TEXT", "configuration, canonical: engine[key=value,...]"),
    ("engine", "TEXT", "engine registry name (aliases resolved)"),
    ("options", "TEXT", "JSON: every engine option with its value, defaults included"),
    ("task", "TEXT", "optimize | count | feasible"),
    ("repeat", "INTEGER", "repeat index (0-based)"),
    ("seed", "INTEGER", "seed given to the engine's `seed` option (NULL: none)"),
    ("time_limit", "REAL", "seconds per job"),
    ("memory_limit_mb", "INTEGER", "RLIMIT_AS per job process, MB"),
    ("precheck", "INTEGER", "1 if the invariant prechecks ran"),
    ("user_code", "TEXT", "code not shipped with puzzlesat that the job ran, allowed by "
                          "--allow-code (a command, a Python file or module, a plug-in; NULL: none)"),
    ("status", "TEXT", "OPTIMAL | FEASIBLE | INFEASIBLE | UNKNOWN | ERROR (a limit gives UNKNOWN)"),
    ("objective", "INTEGER", "objective of the checked solutions (NULL: none)"),
    ("count", "INTEGER", "exact count (task count, status OPTIMAL; else NULL)"),
    ("count_lower_bound", "INTEGER", "distinct checked solutions of a count cut short"),
    ("solutions_checked", "INTEGER", "solutions that went through the family's checker"),
    ("seconds", "REAL", "the runner's wall seconds (as `solve` reports); the kill time if killed"),
    ("over_limit", "INTEGER", "1 if the job ended after its time limit (seconds > time_limit: a "
                              "solver that ignores interrupts ran into the grace period); such a "
                              "job counts as unsolved in reports, whatever its status"),
    ("wall_seconds", "REAL", "wall seconds of the whole job process (start-up and checking included)"),
    ("cpu_seconds", "REAL", "CPU seconds (user + system) of the job process and its engine worker"),
    ("peak_memory_mb", "REAL", "peak resident memory (max over the job's processes), MB"),
    ("termination", "TEXT", "done | time | memory | killed | error"),
    ("reason", "TEXT", "why (engine reason, error, limit)"),
    ("stats", "TEXT", "JSON: solver statistics (nodes, model size, engine/cpu seconds, ...)"),
    ("params", "TEXT", "JSON: every pinned parameter of the run (the result's params)"),
    ("solution", "TEXT", "JSON: the first solution the checker passed (NULL: none)"),
    ("certificate", "TEXT", "JSON: the checked certificate of a job run with certify=true "
                            "(verdict, reason, claim, proofs; NULL: not asked)"),
    ("exit_code", "INTEGER", "exit code of the job process (negative: signal)"),
    ("version", "TEXT", "puzzlesat version that ran the job"),
    ("host", "TEXT", "host name of the machine that ran the job"),
    ("worker", "TEXT", "Dask worker address (NULL: local executor)"),
    ("started", "TEXT", "UTC start, ISO 8601"),
    ("finished", "TEXT", "UTC end, ISO 8601"),
)
NAMES = tuple(c for c, _, _ in COLUMNS)

MAX_TEXT = 64 * 1024            # characters in a text column (a reason, a name, a spec)
MAX_JSON = 4 * 1024 * 1024      # characters in a JSON column (stats, params, options, solution)
STATUSES = ("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "ERROR")
TASKS = ("optimize", "count", "feasible")
TERMINATIONS = ("done", "time", "memory", "killed", "error")
# columns every row must have (a job lost with its Dask workers leaves the measurements NULL)
OPTIONAL_TEXT = ("certified",)  # columns a store may carry beyond COLUMNS (the report shows them)
REQUIRED = ("key", "campaign", "instance", "instance_hash", "family", "config", "config_spec",
            "engine", "options", "task", "repeat", "time_limit", "memory_limit_mb", "precheck",
            "status", "termination")
JSON_OBJECTS = ("options", "stats", "params", "certificate")
WORDS = {"status": STATUSES, "task": TASKS, "termination": TERMINATIONS}


def check_row(row: dict[str, Any], where: str, path: Path | str) -> dict[str, Any]:
    """`row` (a `runs` row as a dict) unchanged if every column holds what a job writes, else
    InputError naming the store, the row (`where`) and the column. Unknown columns are dropped
    (but the optional text columns of OPTIONAL_TEXT, kept when present and text); missing ones
    read as NULL."""
    out = {c: row.get(c) for c in NAMES}
    for col in OPTIONAL_TEXT:
        v = row.get(col)
        if col in row and (v is None or (isinstance(v, str) and len(v) <= MAX_TEXT)):
            out[col] = v

    def bad(col: str, what: str) -> InputError:
        v = out.get(col)
        shown = repr(v if not isinstance(v, (str, bytes)) or len(v) <= 60 else v[:60] + "...")
        return InputError(f"{where}: column {col} holds {shown}: {what} (not a store puzzlesat "
                          "wrote, or edited by hand)", file=path)
    for col, sql, _ in COLUMNS:
        v = out[col]
        if v is None:
            if col in REQUIRED:
                raise bad(col, "NULL where a value is required")
            continue
        if "TEXT" in sql:
            if not isinstance(v, str):
                raise bad(col, f"a {type(v).__name__}, expected text")
            limit = MAX_JSON if col in (*JSON_OBJECTS, "solution") else MAX_TEXT
            if len(v) > limit:
                raise bad(col, f"{len(v)} characters, more than the {limit} allowed")
            if col in WORDS and v not in WORDS[col]:
                raise bad(col, "expected one of " + ", ".join(WORDS[col]))
            if col in (*JSON_OBJECTS, "solution"):
                try:
                    parsed = json.loads(v)
                except (ValueError, RecursionError):
                    raise bad(col, "not valid JSON") from None
                if col in JSON_OBJECTS and not isinstance(parsed, dict):
                    raise bad(col, "expected a JSON object")
                if col == "options":
                    for k in ("parts", "part"):
                        x = parsed.get(k)
                        if x is not None and (not isinstance(x, int) or isinstance(x, bool) or x < 0):
                            raise bad(col, f"option {k} must be a non-negative integer")
        elif sql == "INTEGER":
            if not isinstance(v, int) or isinstance(v, bool):
                raise bad(col, f"a {type(v).__name__}, expected an integer")
        elif sql == "REAL":
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                raise bad(col, "expected a finite non-negative number")
    if out["time_limit"] <= 0:
        raise bad("time_limit", "expected a positive number of seconds")
    if out["termination"] != "killed" and out["seconds"] is None:
        raise bad("seconds", "NULL for a job that ran (termination is not 'killed')")
    if out["status"] == "OPTIMAL" and out["task"] == "count" and out["count"] is None:
        raise bad("count", "NULL for an OPTIMAL count")
    return out


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30)
    con.row_factory = sqlite3.Row
    con.execute("PRAGMA trusted_schema=OFF")
    return con


def _ro_uri(path: Path) -> str:
    """A read-only URI for `path`. Without a WAL file the database file holds everything: read it
    as immutable, which creates no -wal/-shm files beside it (a plain read-only open would)."""
    wal = Path(f"{path}-wal")
    flags = "mode=ro" if wal.exists() and wal.stat().st_size else "mode=ro&immutable=1"
    return f"file:{path}?{flags}"


def _read_meta(path: Path) -> dict[str, str]:
    """The meta table of an existing store, read-only; InputError if it is not a campaign store."""
    try:
        con = sqlite3.connect(_ro_uri(path), uri=True)
        try:
            con.execute("PRAGMA trusted_schema=OFF")
            tables = {r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'runs')")}
            if tables != {"meta", "runs"}:
                raise sqlite3.DatabaseError("no tables meta and runs")
            rows = con.execute("SELECT key, value FROM meta").fetchall()
            con.execute("SELECT key FROM runs LIMIT 1").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise InputError(f"not a puzzlesat campaign store ({e})", file=path) from None
    meta = {}
    for k, v in rows:
        if not isinstance(k, str) or not isinstance(v, (str, int, float, type(None))) or \
                isinstance(v, str) and len(v) > MAX_JSON:
            raise InputError(f"table meta: entry {str(k)[:60]!r} is not text of a sane size (not a "
                             "store puzzlesat wrote)", file=path)
        meta[k] = v if v is None or isinstance(v, str) else str(v)
    return meta


class Store:
    """A campaign's store; `open_for_run` checks the campaign name before anything is written."""

    def __init__(self, path: Path, con: sqlite3.Connection):
        self.path, self.con = path, con

    @classmethod
    def check(cls, path: str | Path, campaign: str) -> None:
        """InputError if `path` exists and is not this campaign's store (nothing is written)."""
        path = Path(path)
        if not path.exists():
            if not path.parent.exists():
                raise InputError("the store's folder does not exist", file=path)
            return
        meta = _read_meta(path)
        if meta.get("campaign") != campaign:
            raise InputError(f"this store holds campaign '{meta.get('campaign')}', not '{campaign}' "
                             "(give another --store)", file=path)

    @classmethod
    def open_for_run(cls, path: str | Path, campaign: str, spec_text: str) -> "Store":
        """The store at `path` for `campaign`, created if missing (after `check`)."""
        path = Path(path)
        cls.check(path, campaign)
        con = _connect(path)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")  # WAL: a committed job survives any process crash
        with con:
            con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            con.execute("CREATE TABLE IF NOT EXISTS runs (" + ", ".join(f"{c} {t}" for c, t, _ in COLUMNS) + ")")
            have = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
            for c, t, _ in COLUMNS:  # a store written by an earlier version: add the new columns
                if c not in have:
                    con.execute(f"ALTER TABLE runs ADD COLUMN {c} {t}")
            # rows stored before the over_limit column: computed from their seconds and limit
            con.execute("UPDATE runs SET over_limit = (seconds > time_limit) WHERE over_limit IS NULL "
                        "AND seconds IS NOT NULL AND time_limit IS NOT NULL")
            con.execute("CREATE INDEX IF NOT EXISTS runs_config ON runs (config)")
            con.execute("CREATE INDEX IF NOT EXISTS runs_instance ON runs (instance)")
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            for k, v in (("campaign", campaign), ("schema_version", SCHEMA_VERSION), ("created", now)):
                con.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (k, v))
            con.execute("INSERT OR REPLACE INTO meta VALUES ('spec', ?)", (spec_text,))
            # the machine of the latest run (platform, CPUs, solver versions): report footnotes
            con.execute("INSERT OR REPLACE INTO meta VALUES ('machine', ?)", (json.dumps(machine()),))
        return cls(path, con)

    @classmethod
    def open_read(cls, path: str | Path) -> "Store":
        """An existing store for reading (read-only, trusted_schema off); InputError if missing
        or not a campaign store."""
        path = Path(path)
        if not path.exists():
            raise InputError("no such store", file=path)
        _read_meta(path)
        try:
            con = sqlite3.connect(_ro_uri(path), uri=True, timeout=30)
            con.row_factory = sqlite3.Row
            con.execute("PRAGMA trusted_schema=OFF")
        except sqlite3.Error as e:
            raise InputError(f"cannot read the store ({e})", file=path) from None
        return cls(path, con)

    def meta(self) -> dict[str, str]:
        """The meta table, checked (`_read_meta`)."""
        return _read_meta(self.path)

    def set_meta(self, key: str, value: Any) -> None:
        with self.con:
            self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def finished_keys(self) -> set[str]:
        """Keys of stored jobs that need no re-run (everything but `killed`)."""
        return {r[0] for r in self.con.execute("SELECT key FROM runs WHERE termination != 'killed'")}

    def put(self, rec: dict[str, Any]) -> None:
        """Store one job's record (replacing a `killed` one), committed at once."""
        rec = {**rec, "over_limit": int(over_limit(rec))}
        vals = [int(rec[c]) if c == "precheck" else rec.get(c) for c in NAMES]
        with self.con:
            self.con.execute(f"INSERT OR REPLACE INTO runs ({', '.join(NAMES)}) VALUES "
                             f"({', '.join('?' * len(NAMES))})", vals)

    def rows(self) -> list[dict[str, Any]]:
        """Every record, ordered by instance, config, repeat, each checked (`check_row`);
        `over_limit` computed where a store of an earlier version has no such column or value."""
        try:
            cur = self.con.execute("SELECT rowid AS _rowid, * FROM runs")
            raw = [dict(r) for r in cur]
        except sqlite3.Error as e:
            raise InputError(f"cannot read table runs ({e})", file=self.path) from None
        out = [check_row(r, f"row {r.get('_rowid')}", self.path) for r in raw]
        out = [{**r, "over_limit": int(over_limit(r))} for r in out]
        out.sort(key=lambda r: (r["instance"], r["config"], r["repeat"]))
        return out

    def close(self) -> None:
        self.con.close()


def over_limit(row: dict[str, Any]) -> bool:
    """True when the job ended after its time limit: the stored flag, else (a row or store from
    before the column) its seconds against its time limit."""
    v = row.get("over_limit")
    if v is not None:
        return bool(v)
    s, t = row.get("seconds"), row.get("time_limit")
    return s is not None and t is not None and float(s) > float(t)


def loads(text: str | None) -> Any:
    """A JSON column's value ({} for NULL)."""
    return json.loads(text) if text else {}
