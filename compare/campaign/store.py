"""The results store: one SQLite file (WAL), a `runs` table with one row per job, a `meta` table.

Each finished job is one INSERT committed at once, so killing the campaign (SIGKILL included)
loses at most the jobs that were running. Only the campaign's client process writes.
"""
from __future__ import annotations

import json
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
    ("exit_code", "INTEGER", "exit code of the job process (negative: signal)"),
    ("version", "TEXT", "puzzlesat version that ran the job"),
    ("host", "TEXT", "host name of the machine that ran the job"),
    ("worker", "TEXT", "Dask worker address (NULL: local executor)"),
    ("started", "TEXT", "UTC start, ISO 8601"),
    ("finished", "TEXT", "UTC end, ISO 8601"),
)
NAMES = tuple(c for c, _, _ in COLUMNS)


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30)
    con.row_factory = sqlite3.Row
    return con


def _read_meta(path: Path) -> dict[str, str]:
    """The meta table of an existing store, read-only; InputError if it is not a campaign store."""
    # Without a WAL file the database file holds everything: read it as immutable, which creates
    # no -wal/-shm files beside it (a plain read-only open would).
    wal = Path(f"{path}-wal")
    flags = "mode=ro" if wal.exists() and wal.stat().st_size else "mode=ro&immutable=1"
    try:
        con = sqlite3.connect(f"file:{path}?{flags}", uri=True)
        try:
            rows = con.execute("SELECT key, value FROM meta").fetchall()
            con.execute("SELECT key FROM runs LIMIT 1").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise InputError(f"not a puzzlesat campaign store ({e})", file=path) from None
    return dict(rows)


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
        """An existing store for reading; InputError if missing or not a campaign store."""
        path = Path(path)
        if not path.exists():
            raise InputError("no such store", file=path)
        _read_meta(path)
        return cls(path, _connect(path))

    def meta(self) -> dict[str, str]:
        return dict(self.con.execute("SELECT key, value FROM meta").fetchall())

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
        """Every record, ordered by instance, config, repeat (`over_limit` computed where a store
        of an earlier version has no such column or value)."""
        cur = self.con.execute("SELECT * FROM runs ORDER BY instance, config, repeat")
        return [{**(d := dict(r)), "over_limit": int(over_limit(d))} for r in cur]

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
