"""The results store: one SQLite file (WAL), a `runs` table with one row per job, a `meta` table.

Each finished job is one INSERT committed at once, so killing the campaign (SIGKILL included)
loses at most the jobs that were running. Only the campaign's client process writes.

A store is data from whoever wrote it: readers open it read-only with SQLite's `trusted_schema`
off (no function with side effects runs from a view or trigger), require `runs` and `meta` to be
tables, and check every row before anything uses it (`check_row`: each column's type and range,
the allowed words of status/task/termination, JSON columns parsed within a size limit as the
objects a job writes, a split's part and parts within the jobs a campaign can have), and the meta
table the same way (`check_meta`); a row that breaks them is one InputError naming the store, the
row and the column. Nothing named in a store is imported, nothing in it is unpickled: names are
shown as text.

Writing (`open_for_run`) needs more: the store's schema must be exactly one puzzlesat wrote
(`schema_problems`: the tables meta and runs with our columns and types — a store of an earlier
version may lack newer columns, which are added — our two indexes, and nothing else: no trigger,
view, other table, constraint, default or foreign key; the meta table's `schema_version` one we
know), checked inside the first write transaction; otherwise one InputError and nothing is
written. One writer at a time: a run holds an exclusive lock on `STORE.lock` beside the store
(flock; it stays as an empty marker file) and a second run on the same store is refused, saying
which process holds it. Paths are given to SQLite as escaped `file:` URIs (`uri_of`), so a store
named `a%62.db`, `run#1.db` or `x?.db` is that file for every reader and writer.
"""
from __future__ import annotations

import json
import math
import os
import re
import socket
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ...core.limits import MAX_JOBS, MAX_SECONDS
from ...core.machine import machine
from ...core.result import InputError

SCHEMA_VERSION = "1"
KNOWN_VERSIONS = ("1",)   # schema versions this code reads and writes (0.1 to 0.4 all wrote "1")
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
    ("task", "TEXT", "optimize | count | feasible | unique"),
    ("repeat", "INTEGER", "repeat index (0-based)"),
    ("seed", "INTEGER", "seed given to the engine's `seed` option (NULL: none)"),
    ("time_limit", "REAL", "seconds per job"),
    ("memory_limit_mb", "INTEGER", "RLIMIT_AS per job process, MB"),
    ("precheck", "INTEGER", "1 if the invariant prechecks ran"),
    ("user_code", "TEXT", "code not shipped with puzzlesat that the job ran, allowed by "
                          "--allow-code (a command, a Python file or module, a plug-in; NULL: none)"),
    ("status", "TEXT", "OPTIMAL | FEASIBLE | INFEASIBLE | UNKNOWN | ERROR (a limit gives UNKNOWN)"),
    ("objective", "INTEGER", "objective of the checked solutions (NULL: none)"),
    ("count", "INTEGER", "exact count (task count, status OPTIMAL; task unique: 1 when UNIQUE, "
                         "0 when INFEASIBLE; else NULL)"),
    ("count_lower_bound", "INTEGER", "distinct checked solutions of a count cut short"),
    ("solutions_checked", "INTEGER", "solutions that went through the family's checker"),
    ("seconds", "REAL", "engine seconds: the engine's own work (Result.seconds; start-up and "
                        "checking apart); the job's wall if its process was killed. Stores by 0.3: "
                        "the runner's wall seconds, start-up included (startup_seconds NULL)"),
    ("startup_seconds", "REAL", "the engine worker's start-up: fork, imports, kernel loading "
                                "(NULL: a store by 0.3, or no worker ran)"),
    ("check_seconds", "REAL", "the runner's checking of the solutions and claims after the engine"),
    ("over_limit", "INTEGER", "1 if the job's engine ended after its time limit (its call, JIT "
                              "included, took longer: a solver that ignores interrupts ran into "
                              "the grace period); such a job counts as unsolved in reports, "
                              "whatever its status"),
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
TASKS = ("optimize", "count", "feasible", "unique")
TERMINATIONS = ("done", "time", "memory", "killed", "error")
# columns every row must have (a job lost with its Dask workers leaves the measurements NULL)
OPTIONAL_TEXT = ("certified",)  # columns a store may carry beyond COLUMNS (the report shows them)
REQUIRED = ("key", "campaign", "instance", "instance_hash", "family", "config", "config_spec",
            "engine", "options", "task", "repeat", "time_limit", "memory_limit_mb", "precheck",
            "status", "termination")
JSON_OBJECTS = ("options", "stats", "params", "certificate")
WORDS = {"status": STATUSES, "task": TASKS, "termination": TERMINATIONS}
INT64 = (-2 ** 63, 2 ** 63 - 1)   # what an INTEGER column holds
MAX_REAL = 1e12                   # seconds, MB: far beyond any job (a time limit is <= 1e9 s)
MAX_PARTS = 10 * MAX_JOBS ** 2    # parts of a split count: bounded so nothing sized by it can
                                  # exhaust memory (reports never build anything of that size)
META_TEXT = ("campaign", "schema_version", "created", "spec", "task", "spec_path")
META_JSON = ("machine",)          # meta entries holding a JSON object
META_INT = ("planned_jobs",)      # meta entries holding a non-negative integer


def check_row(row: dict[str, Any], where: str, path: Path | str) -> dict[str, Any]:
    """`row` (a `runs` row as a dict) unchanged if every column holds what a job writes, else
    InputError naming the store, the row (`where`) and the column. Unknown columns are dropped
    (but the optional text columns of OPTIONAL_TEXT, kept when present and text); missing ones
    read as NULL."""
    out: dict[str, Any] = {c: row.get(c) for c in NAMES}
    for col in OPTIONAL_TEXT:
        v = row.get(col)
        if col in row and (v is None or (isinstance(v, str) and len(v) <= MAX_TEXT)):
            out[col] = v

    def bad(col: str, what: str) -> InputError:
        return InputError(f"{where}: column {col} holds {_shown(out.get(col))}: {what} (not a "
                          "store puzzlesat wrote, or edited by hand)", file=path)
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
                        if x is not None and (not isinstance(x, int) or isinstance(x, bool) or x < 0
                                              or x > MAX_PARTS):
                            raise bad(col, f"option {k} must be an integer from 0 to {MAX_PARTS:,}")
                    parts, part = parsed.get("parts"), parsed.get("part")
                    if (parts is None) != (part is None) or parts is not None and not part < parts:
                        raise bad(col, "options parts and part: expected both, with 0 <= part < parts")
        elif sql == "INTEGER":
            if not isinstance(v, int) or isinstance(v, bool):
                raise bad(col, f"a {type(v).__name__}, expected an integer")
        elif sql == "REAL":
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0 \
                    or v > MAX_REAL:
                raise bad(col, f"expected a finite number from 0 to {MAX_REAL:.0e}")
    if not 0 < out["time_limit"] <= MAX_SECONDS:
        raise bad("time_limit", f"expected a positive number of seconds, at most {MAX_SECONDS:.0e}")
    for col in ("repeat", "solutions_checked", "memory_limit_mb"):
        if out[col] is not None and out[col] < 0:
            raise bad(col, "expected a non-negative integer")
    if out["termination"] != "killed" and out["seconds"] is None:
        raise bad("seconds", "NULL for a job that ran (termination is not 'killed')")
    if out["status"] == "OPTIMAL" and out["task"] == "count" and out["count"] is None:
        raise bad("count", "NULL for an OPTIMAL count")
    return out


def uri_of(path: str | Path, flags: str = "") -> str:
    """`path` as an SQLite `file:` URI, every character that means something in a URI (`%`, `#`,
    `?`) escaped, so the URI names exactly that file; `flags` the query (e.g. mode=ro)."""
    text = quote(os.path.abspath(path), safe="/")
    return f"file:{text}" + (f"?{flags}" if flags else "")


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(uri_of(path), uri=True, timeout=30)
    con.row_factory = sqlite3.Row
    con.execute("PRAGMA trusted_schema=OFF")
    return con


def _ro_uri(path: Path) -> str:
    """A read-only URI for `path`. Without a WAL file the database file holds everything: read it
    as immutable, which creates no -wal/-shm files beside it (a plain read-only open would)."""
    wal = Path(f"{path}-wal")
    flags = "mode=ro" if wal.exists() and wal.stat().st_size else "mode=ro&immutable=1"
    return uri_of(path, flags)


# ---- the schema a writer accepts ---------------------------------------------------------------
META_SQL = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)"
INDEXES = {"runs_config": "CREATE INDEX runs_config ON runs (config)",
           "runs_instance": "CREATE INDEX runs_instance ON runs (instance)"}
AUTO_INDEXES = ("sqlite_autoindex_meta_1", "sqlite_autoindex_runs_1")


def _norm(sql: str | None) -> str:
    return " ".join((sql or "").replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()).lower()


def _column_defs(sql: str) -> list[str] | None:
    """The column definitions of `CREATE TABLE runs (...)` as written (None: not that shape:
    something after the closing parenthesis, such as WITHOUT ROWID or STRICT)."""
    m = re.fullmatch(r"\s*CREATE\s+TABLE\s+runs\s*\((.*)\)\s*", sql, re.S | re.I)
    if m is None:
        return None
    body = m.group(1)
    if "(" in body or ")" in body:  # CHECK (...), REFERENCES t(x), DEFAULT (...), GENERATED ...
        return None
    return [" ".join(d.split()) for d in body.split(",")]


def schema_problems(con: sqlite3.Connection) -> list[str]:
    """Why the database on `con` is not a store puzzlesat wrote ([] if it is one): exactly the
    tables meta and runs (runs: columns of ours, each with our type — a store of an earlier
    version may lack the newer ones; the optional `certified` — no
    constraint, default, collation or foreign key), our indexes, no trigger, no view, nothing
    else; a known schema_version in meta."""
    problems = []
    entries = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    for typ, name, _tbl, sql in entries:
        if typ == "table" and name == "meta":
            if _norm(sql) != _norm(META_SQL):
                problems.append(f"table meta is not ours ({' '.join(str(sql).split())[:80]})")
        elif typ == "table" and name == "runs":
            defs = _column_defs(sql or "")
            known = {c: t for c, t, _ in COLUMNS} | {c: "TEXT" for c in OPTIONAL_TEXT}
            if defs is None:
                problems.append("table runs carries constraints or options puzzlesat never writes")
                continue
            seen = []
            for d in defs:
                col, _, typ_ = d.partition(" ")
                if col not in known or col in seen:
                    problems.append(f"table runs: column {d[:60]!r} is not one puzzlesat writes")
                elif _norm(typ_) != _norm(known[col]) and not (col in OPTIONAL_TEXT and not typ_):
                    problems.append(f"table runs: column {col} is declared {typ_[:40]!r}, "
                                    f"puzzlesat writes {known[col]!r}")
                seen.append(col)
            if "key" not in seen:
                problems.append("table runs has no key column")
        elif typ == "index" and (name in AUTO_INDEXES and sql is None
                                 or name in INDEXES and _norm(sql) == _norm(INDEXES[name])):
            continue
        else:
            problems.append(f"{typ} {name!r} is not part of a puzzlesat store"
                            + (" (a store must not run SQL of its own when written)"
                               if typ in ("trigger", "view") else ""))
    names = {(t, n) for t, n, _, _ in entries}
    for t in ("meta", "runs"):
        if ("table", t) not in names:
            problems.append(f"no table {t}")
    if con.execute("PRAGMA foreign_key_list(runs)").fetchall() if ("table", "runs") in names else []:
        problems.append("table runs has foreign keys")
    if ("table", "meta") in names and not problems:
        ver = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
        v = ver[0][0] if ver else None
        if v not in KNOWN_VERSIONS:
            problems.append(f"schema_version {str(v)[:20]!r} is not one this version writes "
                            f"({', '.join(KNOWN_VERSIONS)})")
    return problems


def _shown(v: Any) -> str:
    """A stored value as an error message shows it: its repr, text and BLOBs cut at 60."""
    if isinstance(v, str) and len(v) > 60:
        return repr(v[:60] + "...")
    if isinstance(v, bytes) and len(v) > 60:  # a BLOB where text goes
        return repr(v[:60] + b"...")
    return repr(v)


def check_meta(meta: dict[str, Any], path: Path | str) -> dict[str, str]:
    """The meta table's entries checked: known keys hold text of a sane size, `machine` a JSON
    object, `planned_jobs` a non-negative integer; InputError naming the entry otherwise (other
    keys are kept as text)."""
    out = {}

    def bad(k: Any, v: Any, what: str) -> InputError:
        return InputError(f"table meta: entry {str(k)[:60]!r} holds {_shown(v)}: {what} (not a "
                          "store puzzlesat wrote, or edited by hand)", file=path)
    for k, v in meta.items():
        if not isinstance(k, str) or len(k) > 200:
            raise InputError(f"table meta: key {str(k)[:60]!r} is not a short text", file=path)
        if v is None:
            continue
        if not isinstance(v, (str, int, float)) or isinstance(v, str) and len(v) > MAX_JSON:
            raise bad(k, v, "not text of a sane size")
        v = str(v)
        if k in META_JSON:
            try:
                parsed = json.loads(v)
            except (ValueError, RecursionError):
                raise bad(k, v, "not valid JSON") from None
            if not isinstance(parsed, dict):
                raise bad(k, v, "expected a JSON object")
        if k in META_INT and not re.fullmatch(r"\d{1,15}", v):
            raise bad(k, v, "expected a non-negative integer")
        if k in META_TEXT and len(v) > (MAX_JSON if k == "spec" else MAX_TEXT):
            raise bad(k, v, "too long")
        out[k] = v
    return out


def _read_meta(path: Path) -> dict[str, str]:
    """The meta table of an existing store, read-only and checked (`check_meta`); InputError if
    it is not a campaign store."""
    try:
        con = sqlite3.connect(_ro_uri(path), uri=True)
        try:
            con.execute("PRAGMA trusted_schema=OFF")
            tables = {r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'runs')")}
            if tables != {"meta", "runs"}:
                raise sqlite3.DatabaseError("no tables meta and runs")
            rows = con.execute("SELECT key, value FROM meta LIMIT 1001").fetchall()
            con.execute("SELECT key FROM runs LIMIT 1").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise InputError(f"not a puzzlesat campaign store ({e})", file=path) from None
    if len(rows) > 1000:
        raise InputError("table meta holds more than 1,000 entries (not a store puzzlesat wrote)",
                         file=path)
    for k, _ in rows:
        if not isinstance(k, str):
            raise InputError(f"table meta: key {str(k)[:60]!r} is not text (not a store puzzlesat "
                             "wrote)", file=path)
    return check_meta(dict(rows), path)


def _ro_schema_problems(path: Path) -> list[str]:
    """`schema_problems` of the store at `path`, read-only (InputError if it is no database)."""
    try:
        con = sqlite3.connect(_ro_uri(path), uri=True)
        try:
            con.execute("PRAGMA trusted_schema=OFF")
            return schema_problems(con)
        finally:
            con.close()
    except sqlite3.Error as e:
        raise InputError(f"not a puzzlesat campaign store ({e})", file=path) from None


class StoreLock:
    """The one writer of a store: an exclusive flock on `STORE.lock` beside it, held until
    `release` (or the process ends). A lock already held is refused, naming its holder."""

    def __init__(self, path: Path):
        import fcntl
        self.path = Path(f"{path}.lock")
        try:
            self.fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
                                          | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError as e:
            raise InputError(f"cannot create the store's lock file {self.path.name} ({e.strerror})",
                             file=path) from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self.fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(self.fd)
            self.fd = None
            raise InputError(f"another run is writing this store ({' '.join(holder.split())}): wait "
                             "for it to end, or give another --store (one writer per store)",
                             file=path) from None
        os.ftruncate(self.fd, 0)
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        os.pwrite(self.fd, f"pid {os.getpid()} on {socket.gethostname()} since {now}".encode(), 0)

    def release(self) -> None:
        """Give the store up (the lock file stays, empty)."""
        if self.fd is not None:
            import fcntl
            try:
                os.ftruncate(self.fd, 0)
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None


class Store:
    """A campaign's store; `open_for_run` checks the campaign name before anything is written."""

    def __init__(self, path: Path, con: sqlite3.Connection, lock: StoreLock | None = None):
        self.path, self.con, self.lock = path, con, lock

    @classmethod
    def check(cls, path: str | Path, campaign: str) -> None:
        """InputError if `path` exists and is not this campaign's store (nothing is written)."""
        path = Path(path)
        if not path.exists():
            if not path.parent.is_dir():
                raise InputError("the store's folder " + ("is a file" if path.parent.exists()
                                                          else "does not exist"), file=path)
            return
        if not path.is_file():
            raise InputError("not a puzzlesat campaign store (not a regular file)", file=path)
        meta = _read_meta(path)
        if meta.get("campaign") != campaign:
            raise InputError(f"this store holds campaign '{meta.get('campaign')}', not '{campaign}' "
                             "(give another --store)", file=path)
        problems = _ro_schema_problems(path)
        if problems:
            raise InputError("not written to: its schema is not one puzzlesat writes: "
                             + "; ".join(problems[:3]), file=path)

    @classmethod
    def open_for_run(cls, path: str | Path, campaign: str, spec_text: str) -> "Store":
        """The store at `path` for `campaign`, created if missing (after `check`), locked for
        this writer (`StoreLock`) and its schema checked again inside the first write
        transaction; InputError (nothing written) otherwise."""
        path = Path(path)
        if not (path.is_file() and path.stat().st_size == 0):  # empty: a writer creating it right
            cls.check(path, campaign)                          # now (checked under the lock)
        lock = StoreLock(path)
        con = None
        try:
            cls.check(path, campaign)  # again, now that no other writer can change it
            con = _connect(path)
            existed = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
            with con:
                con.execute("BEGIN IMMEDIATE")  # the schema checked and migrated in one transaction
                if existed:
                    problems = schema_problems(con)
                    if problems:
                        raise InputError("not written to: its schema is not one puzzlesat writes: "
                                         + "; ".join(problems[:3]), file=path)
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
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")  # WAL: a committed job survives any process crash
        except BaseException:
            if con is not None:
                con.close()
            lock.release()
            raise
        return cls(path, con, lock)

    @classmethod
    def open_read(cls, path: str | Path) -> "Store":
        """An existing store for reading (read-only, trusted_schema off); InputError if missing
        or not a campaign store."""
        path = Path(path)
        if not path.exists():
            raise InputError("no such store", file=path)
        if not path.is_file():
            raise InputError("not a puzzlesat campaign store (not a regular file)", file=path)
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
        """Store one job's record (replacing a `killed` one), committed at once. A number no
        INTEGER column can hold (beyond 64 bits) is not stored as a number: the record becomes
        ERROR with the value in its reason (the store never holds a rounded answer)."""
        rec = {**rec, "over_limit": int(over_limit(rec))}
        vals = [int(rec[c]) if c == "precheck" else rec.get(c) for c in NAMES]
        wide = [(c, v) for c, v in zip(NAMES, vals) if isinstance(v, int) and not isinstance(v, bool)
                and not INT64[0] <= v <= INT64[1]]
        if wide:
            rec = {**rec, **{c: None for c, _ in wide}, "status": "ERROR", "termination": "error",
                   "reason": "; ".join(f"{c} = {v} does not fit the store's 64-bit integers"
                                       for c, v in wide)[:MAX_TEXT]}
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
        if self.lock is not None:
            self.lock.release()
            self.lock = None


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
