"""Writing files so that a failure never leaves one half-written; a file's SHA-256."""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from .result import InputError


def writable(path: str | Path, what: str = "file") -> Path:
    """`path` as a Path whose folder exists (checked before any work); InputError otherwise."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write the {what}: " + (f"{str(parent)!r} is not a folder"
                         if parent.exists() else f"folder {str(parent)!r} does not exist"), file=p)
    if p.is_dir():
        raise InputError(f"cannot write the {what}: it is a folder", file=p)
    return p


def make_folder(path: str | Path, what: str = "work folder") -> Path:
    """`path` as a Path to a folder that exists, made with its parents if missing; InputError
    naming the path when it cannot be (a file in the way, no permission, a read-only disk)."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:   # FileExistsError too: exist_ok does not cover a file at `path`
        where = e.filename if e.filename and str(e.filename) != str(p) else None
        raise InputError(f"cannot make the {what}" + (f": {where} is in the way or cannot be made"
                                                       if where else "") + f" ({e.strerror or e})",
                         file=p) from None
    return p


def usable_folder(path: str | Path, what: str = "work folder") -> Path:
    """`path` as a Path that is a writable folder or can be made one (checked before any work,
    nothing made); InputError naming the path otherwise."""
    p = Path(path)
    q = p
    while not q.exists() and not q.is_symlink() and q != q.parent:
        q = q.parent
    if q.is_symlink() and not q.exists():
        raise InputError(f"cannot make the {what}: {q} is a broken link", file=p)
    if q.exists() and not q.is_dir():
        raise InputError(f"cannot make the {what}: " + ("it is a file" if q == p else f"{q} is a file"),
                         file=p)
    if q.exists() and not os.access(q, os.W_OK | os.X_OK):
        raise InputError(f"cannot {'write in' if q == p else 'make'} the {what}: "
                         f"{'it' if q == p else q} is not writable", file=p)
    return p


def write_atomic(path: str | Path, data: Any, what: str = "file", suffix: str = ".tmp") -> Path:
    """Write `data` (text, bytes, or a function that writes a given path) to `path` through a
    temporary file in the same folder renamed into place, so `path` is complete or untouched;
    a missing folder or an OS error is an InputError. `suffix`: the temporary file's ending (for
    writers that choose the format by it)."""
    p = writable(path, what)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=suffix, dir=p.parent if str(p.parent) else ".")
    except OSError as e:
        raise InputError(f"cannot write the {what} ({e.strerror})", file=p) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if not callable(data):
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
        if callable(data):
            data(tmp)
        os.chmod(tmp, 0o666 & ~umask())  # as open() would make it (mkstemp's are 0600)
        os.replace(tmp, p)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write the {what} ({e.strerror})", file=p) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def umask() -> int:
    """This process's umask (read from /proc where it can be, so no thread sees it changed)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    m = os.umask(0o022)
    os.umask(m)
    return m


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes (read in 16 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            h.update(block)
    return h.hexdigest()
