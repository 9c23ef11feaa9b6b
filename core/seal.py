"""Seals: what this user's puzzlesat wrote, told apart from what anyone else wrote.

A work folder (peg cube results, peg layer manifests) is read back as claims. A record that
carries a valid seal was written by puzzlesat for this user after its own checks (a solution
replayed by the checker, a proof verified by puzzlesat.certify, a layer written with its
SHA-256); a record without one — forged, copied from another machine or user, or written
before seals existed — is a claim: re-checked where that is cheap, else redone.

A seal is the HMAC-SHA256 of the record's canonical JSON and its `context` (e.g. the plan and
job it belongs to, so a sealed record moved into another plan or job no longer verifies), keyed
by 32 random bytes private to the user: created on first use with mode 0600 in the user's data
folder (platformdirs.user_data_dir("puzzlesat")/seal.key, the folder made 0700; the environment
variable PUZZLESAT_SEAL_KEY names another file; where it cannot be created, a key of this process
alone, so a later run checks or redoes everything). Whoever can read that file can forge seals: it
guards against folders that come from elsewhere, not against the user's own account. So a key
file that is not this user's, is readable or writable by its group or others, or sits in a folder
its group or others may write (they could swap it) is refused (InputError: chmod it, or remove it).

Provenance: a sealed record read back was verified by an *earlier* run; reports say so
(`provenance`: "this run" or "earlier run" with that run's date), and the work-folder commands'
`--recheck` ignores seals altogether (docs/peg.md, "Work folders").

    seal(record, context) -> str          the record's seal
    sign(record, context) -> dict         the record with its seal under "seal"
    verified(record, context) -> bool     whether record["seal"] is the seal of the rest of it
                                          (always False while rechecking)
    recheck_all()                         this process and its children take no seal on trust
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from .result import InputError

KEY_BYTES = 32
FIELD = "seal"
_KEY: dict[str, bytes] = {}


def key_path() -> Path:
    """Where this user's seal key lives."""
    env = os.environ.get("PUZZLESAT_SEAL_KEY")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("puzzlesat")) / "seal.key"


def key() -> bytes:
    """This user's key (created on first use, 0600); InputError if the file is not one."""
    path = key_path()
    got = _KEY.get(str(path))
    if got is not None:
        return got
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        fd = None
    except OSError:  # no writable data folder (a read-only home): a key for this process only,
        data = os.urandom(KEY_BYTES)  # so what it seals is checked again by a later process
        _KEY[str(path)] = data
        return data
    if fd is not None:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
    data = _read_private(path)
    if len(data) != KEY_BYTES:  # a key being written by another process right now: read again
        import time
        time.sleep(0.2)
        data = _read_private(path)
    if len(data) != KEY_BYTES:
        raise InputError(f"the seal key is {len(data)} bytes, not {KEY_BYTES} (remove it: a new "
                         "one is made, and records sealed with the old one are checked again)",
                         file=path)
    _KEY[str(path)] = data
    return data


def _read_private(path: Path) -> bytes:
    """The key file's bytes (at most KEY_BYTES + 1), once it is known to be private: a regular
    file of this user, no permission for its group or others, in a folder they cannot write."""
    import stat
    from .inputs import open_regular
    fd = open_regular(path, "seal key")
    try:
        st = os.fstat(fd)
        euid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
        if st.st_uid != euid:
            raise InputError(f"the seal key belongs to user {st.st_uid}, not to this user ({euid}): "
                             "refused (whoever can write it can forge sealed work folders); "
                             "remove it, a new one is made", file=path)
        if st.st_mode & 0o077:
            raise InputError(f"the seal key has mode {stat.S_IMODE(st.st_mode):04o}: its group or "
                             "others may read or write it, and whoever reads it can forge sealed "
                             f"work folders; refused: chmod 600 {path} (and check who read it)",
                             file=path)
        folder = os.stat(os.path.dirname(os.path.realpath(path)))
        if folder.st_mode & 0o022 or folder.st_uid not in (euid, 0):
            raise InputError(f"the seal key's folder has mode {stat.S_IMODE(folder.st_mode):04o} "
                             f"(owner {folder.st_uid}): others could replace the key; refused: "
                             "chmod 700 that folder", file=path)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            return f.read(KEY_BYTES + 1)
    finally:
        if fd >= 0:
            os.close(fd)


def _canon(record: dict[str, Any], context: str) -> bytes:
    body = {k: v for k, v in record.items() if k != FIELD}
    return json.dumps([context, body], sort_keys=True, separators=(",", ":"),
                      default=str, allow_nan=True).encode()


def seal(record: dict[str, Any], context: str) -> str:
    """The seal of `record` (its FIELD excluded) in `context`."""
    return hmac.new(key(), _canon(record, context), hashlib.sha256).hexdigest()


def sign(record: dict[str, Any], context: str) -> dict[str, Any]:
    """`record` with its seal under FIELD."""
    return {**{k: v for k, v in record.items() if k != FIELD}, FIELD: seal(record, context)}


RECHECK_ENV = "PUZZLESAT_RECHECK"   # set (not "" or "0"): no seal is taken on trust


def rechecking() -> bool:
    """Whether this process takes no earlier run's seal on trust (--recheck, PUZZLESAT_RECHECK)."""
    return os.environ.get(RECHECK_ENV, "") not in ("", "0")


def recheck_all() -> None:
    """From now on this process and the processes it starts take no seal on trust: every sealed
    record is a claim again (re-checked where that is cheap, else redone)."""
    os.environ[RECHECK_ENV] = "1"


def unsealed_why(what: str = "this work folder") -> str:
    """Why a record without a valid seal is not used, in words."""
    if rechecking():
        return "--recheck: no earlier run's record taken on trust"
    return f"no seal of this user's puzzlesat for {what} (a claim, not checked)"


def verified(record: Any, context: str) -> bool:
    """True when `record` is a dict whose FIELD is the seal of the rest of it in `context`
    (never while `rechecking()`)."""
    if rechecking() or not isinstance(record, dict) or not isinstance(record.get(FIELD), str):
        return False
    try:
        want = seal(record, context)
    except (TypeError, ValueError, RecursionError):
        return False
    # bytes: compare_digest refuses a str with non-ASCII characters (TypeError) — a forged
    # seal like '\x80' is simply not ours
    return hmac.compare_digest(want.encode(), record[FIELD].encode("utf-8", "surrogatepass"))


# ---- provenance: what this run verified, told apart from sealed records of earlier runs --------
THIS_RUN, EARLIER_RUN = "this run", "earlier run"
STAMP = "verified_at"   # a record's field: when (UTC, ISO 8601) its run checked it


def now() -> str:
    """This moment as the ISO 8601 UTC stamp a record carries under STAMP."""
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_of(record: dict[str, Any], path: Path | None = None) -> str:
    """When an earlier run verified a sealed `record`: its STAMP, else (records sealed before
    stamps) its file's modification time, else "unknown date"."""
    got = record.get(STAMP)
    if isinstance(got, str) and 0 < len(got) <= 40:
        return got
    if path is not None:
        try:
            import datetime
            t = os.stat(path).st_mtime
            return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ")
        except OSError:
            pass
    return "unknown date"


def provenance(this_run: int, earlier: list[str]) -> dict[str, Any]:
    """Where the verdicts behind an answer were verified: `this_run` records checked now and the
    stamps of the sealed records of earlier runs it rests on. verified_in is "this run" only when
    none came from an earlier run."""
    out: dict[str, Any] = {"verified_in": EARLIER_RUN if earlier else THIS_RUN,
                           "this_run": this_run, "earlier_runs": len(earlier)}
    if earlier:
        out["earlier_dates"] = [min(earlier), max(earlier)]
    return out


def verdict_text(verdict: str, prov: dict[str, Any] | None) -> str:
    """A verdict with where it was verified, e.g. 'VERIFIED' (all in this run) or 'VERIFIED
    (sealed record of an earlier run, 2026-11-27T21:40:00Z)'."""
    if not prov or prov.get("verified_in") != EARLIER_RUN:
        return verdict
    first, last = prov["earlier_dates"]
    when = first if first == last else f"{first} to {last}"
    n, m = prov["earlier_runs"], prov["this_run"]
    what = ("sealed record of an earlier run" if n == 1 else f"{n} sealed records of earlier runs")
    return f"{verdict} ({what}, {when}" + (f"; {m} verified in this run" if m else "") + ")"
