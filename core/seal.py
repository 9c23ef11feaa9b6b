"""Seals: what this user's puzzlesat wrote, told apart from what anyone else wrote.

A work folder (peg cube results, peg layer manifests) is read back as claims. A record that
carries a valid seal was written by puzzlesat for this user after its own checks (a solution
replayed by the checker, a proof verified by puzzlesat.certify, a layer written with its
SHA-256); a record without one — forged, copied from another machine or user, or written
before seals existed — is a claim: re-checked where that is cheap, else redone.

A seal is the HMAC-SHA256 of the record's canonical JSON and its `context` (e.g. the plan and
job it belongs to, so a sealed record moved into another plan or job no longer verifies), keyed
by 32 random bytes private to the user: created on first use with mode 0600 in the user's data
folder (platformdirs.user_data_dir("puzzlesat")/seal.key; the environment variable
PUZZLESAT_SEAL_KEY names another file; where it cannot be created, a key of this process alone,
so a later run checks or redoes everything). Whoever can read that file can forge seals: it guards
against folders that come from elsewhere, not against the user's own account.

    seal(record, context) -> str          the record's seal
    sign(record, context) -> dict         the record with its seal under "seal"
    verified(record, context) -> bool     whether record["seal"] is the seal of the rest of it
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
    from .inputs import read_bytes
    data = read_bytes(path, KEY_BYTES, "seal key")
    if len(data) != KEY_BYTES:  # a key being written by another process right now: read again
        import time
        time.sleep(0.2)
        data = read_bytes(path, KEY_BYTES, "seal key")
    if len(data) != KEY_BYTES:
        raise InputError(f"the seal key is {len(data)} bytes, not {KEY_BYTES} (remove it: a new "
                         "one is made, and records sealed with the old one are checked again)",
                         file=path)
    _KEY[str(path)] = data
    return data


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


def verified(record: Any, context: str) -> bool:
    """True when `record` is a dict whose FIELD is the seal of the rest of it in `context`."""
    if not isinstance(record, dict) or not isinstance(record.get(FIELD), str):
        return False
    try:
        want = seal(record, context)
    except (TypeError, ValueError, RecursionError):
        return False
    return hmac.compare_digest(want, record[FIELD])
