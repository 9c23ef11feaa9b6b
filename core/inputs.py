"""Reading a user's input: TOML files and text with the place of every error.

    read_bytes  the one bounded reader: a regular file (symlinks resolved first; a FIFO, device,
                socket or folder refused by name), at most the limit plus one byte read
    read_text   the same, decoded as UTF-8
    bounded_glob  the files a glob matches, looking at a bounded number of directory entries
    parse_toml  TOML text, or InputError with the file and line (nesting, huge integers too)
    load_toml   a TOML file (read_text + parse_toml)
    Source      where an instance came from (name, path, text), so a parser can point at a line
    require     a key of a TOML table checked against its type, or InputError naming the field
    Instance    base of every family's instance dataclass (`to_json()`)
"""
from __future__ import annotations

import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Any

from .limits import MAX_GLOB, MAX_GLOB_VISITS, MAX_INPUT_BYTES, too_big
from .result import CheckError, InputError


class Instance:
    """Base of every family's instance dataclass: `to_json()` gives its kind and summary (the
    `KIND` and `describe` of the puzzle module that defines the instance's class)."""

    def to_json(self) -> dict[str, Any]:
        """{"kind", "name", ...}: the family's `describe(instance)`, JSON-able."""
        mod = sys.modules[type(self).__module__]
        return {"kind": mod.KIND, **mod.describe(self)}


KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISDIR, "a directory"))


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str], what: str = "file") -> int:
    """A read-only descriptor of the regular file at `path` (symlinks resolved first; opened
    without blocking, so a FIFO cannot hang the reader, and checked again once open); InputError
    naming the path and what it is otherwise (a FIFO, a device, a socket, a folder, missing)."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the {what} ({getattr(e, 'strerror', None) or e})", file=path) from None
    kind = _kind(st.st_mode)
    if kind is not None:
        raise InputError(f"is {kind}, not a regular file: refused", file=path)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        raise InputError(f"cannot read the {what} ({e.strerror})", file=path) from None
    kind = _kind(os.fstat(fd).st_mode)
    if kind is not None:  # replaced between the check and the open
        os.close(fd)
        raise InputError(f"is {kind}, not a regular file: refused", file=path)
    return fd


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES, what: str = "file") -> bytes:
    """The bytes of the regular file at `path` (`open_regular`), at most `limit`: a file with
    more is refused after reading `limit` + 1 bytes (whatever its size claims)."""
    fd = open_regular(path, what)
    try:
        with os.fdopen(fd, "rb", closefd=True) as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"cannot read the {what} ({e.strerror})", file=path) from None
    if len(data) > limit:
        raise InputError(f"file size: more than the limit of {limit:,} bytes (README, Limits)",
                         file=path)
    return data


def read_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES, what: str = "file") -> str:
    """`read_bytes` decoded as UTF-8 (InputError naming the file otherwise)."""
    try:
        return read_bytes(path, limit, what).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not a UTF-8 text file (byte {e.start})", file=path) from None


GLOB_MAGIC = re.compile(r"[*?[]")


def bounded_glob(pattern: str, max_matches: int = MAX_GLOB, max_visits: int = MAX_GLOB_VISITS
                 ) -> list[str]:
    """The paths `pattern` matches (glob syntax, `**` any number of folders; names starting with
    a dot only when the pattern's part does; symlinked folders are not descended by `**`), sorted;
    InputError past `max_matches` paths or once `max_visits` directory entries were looked at
    (a pattern like /usr/**/*.x would walk the disk)."""
    import fnmatch
    drive, rest = os.path.splitdrive(pattern)
    root = drive + (os.sep if rest.startswith(os.sep) else "")
    parts = [p for p in rest.split(os.sep) if p]
    seen = [0]
    found: list[str] = []

    def visit(n: int = 1) -> None:
        seen[0] += n
        if seen[0] > max_visits:
            raise InputError(f"the glob {pattern!r} looks at more than {max_visits:,} directory "
                             "entries (README, Limits): give a narrower pattern")

    def entries(d: str) -> Iterator[os.DirEntry[str]]:
        try:
            with os.scandir(d or ".") as it:
                for e in it:
                    visit()
                    yield e
        except OSError:
            return

    def add(path: str) -> None:
        found.append(path)
        if len(found) > max_matches:
            raise InputError(f"the glob {pattern!r} matches more than {max_matches:,} files "
                             "(README, Limits)")

    def walk(d: str, i: int) -> None:
        if i == len(parts):
            add(d)
            return
        part = parts[i]
        if part == "**":
            walk(d, i + 1)  # zero folders
            for e in entries(d):
                if not e.name.startswith(".") and e.is_dir(follow_symlinks=False):
                    walk(os.path.join(d, e.name), i)
            return
        if not GLOB_MAGIC.search(part):
            nxt = os.path.join(d, part) if d else part
            visit()
            if os.path.lexists(nxt):
                walk(nxt, i + 1)
            return
        for e in entries(d):
            if e.name.startswith(".") and not part.startswith("."):
                continue
            if fnmatch.fnmatchcase(e.name, part):
                if i + 1 < len(parts) and not e.is_dir():
                    continue
                walk(os.path.join(d, e.name) if d else e.name, i + 1)

    walk(root, 0)
    return sorted(dict.fromkeys(found))


def parse_toml(text: str, file: Any = None) -> dict[str, Any]:
    """TOML text as a dict; InputError naming `file` and the line of a syntax error, and for
    what tomllib cannot take (nesting too deep, an integer of more digits than Python converts)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line = int(m.group(1)) if m else (max(1, len(text.splitlines())) if "end of document" in str(e)
                                          else None)
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(e)) or "malformed TOML"
        raise InputError(f"malformed TOML: {msg}", file=file, line=line) from None
    except RecursionError:
        raise InputError("malformed TOML: arrays or tables nested too deeply", file=file) from None
    except (ValueError, OverflowError) as e:  # e.g. an integer past the 4,300-digit conversion limit
        raise InputError(f"malformed TOML: {' '.join(str(e).split())[:160]}", file=file) from None


def load_toml(path: str | Path, text: str | None = None) -> dict[str, Any]:
    """Parse a TOML file (`read_text`, unless its `text` is given); a missing or special file
    or bad syntax raises InputError with file and line."""
    path = Path(path)
    return parse_toml(read_text(path) if text is None else text, path)


def check_size(path: Path) -> None:
    """InputError when `path` is not a regular file or is larger than MAX_INPUT_BYTES (checked
    before reading; `read_bytes` bounds what is read whatever the size says)."""
    os.close(open_regular(path))
    try:
        n = path.stat().st_size
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", file=path) from None
    if n > MAX_INPUT_BYTES:
        raise InputError(too_big("file size", n, MAX_INPUT_BYTES, " bytes"), file=path)


def key_line(text: str | None, key: str) -> int | None:
    """The 1-based line of the first `key =` assignment in TOML text, for error messages."""
    if text is None:
        return None
    pat = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i, ln in enumerate(text.splitlines(), 1):
        if pat.match(ln):
            return i
    return None


@dataclass(frozen=True)
class Source:
    """Where an instance came from, so that parsers can point at the bad line."""

    name: str                 # catalogue name or file path as the user gave it (FILE#LINE: a
                              # collection's line)
    path: Path | None = None  # the file, when there is one
    text: str | None = None   # its text, for locating keys
    line: int | None = None   # the line of a collection file the instance is on

    def error(self, message: str, field: str | None = None, line: int | None = None) -> InputError:
        """An InputError located at `field`'s line of this source (when it can be found), or at
        the collection line the source is."""
        if line is None and field is not None:
            line = key_line(self.text, field.split(".")[-1].split("[")[0])
        if line is None:
            line = self.line
        return InputError(message, file=self.path or self.name, line=line, field=field)


def require(data: dict[str, Any], key: str, types: type | tuple[type, ...], src: Source, *, default: Any = ...) -> Any:
    """`data[key]` checked against `types`; a missing or mistyped key raises src.error."""
    if key not in data:
        if default is ...:
            raise src.error(f"missing required key '{key}'", field=key, line=None)
        return default
    v = data[key]
    if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise src.error(f"expected {_tname(types)}, got a boolean", field=key)
    if not isinstance(v, types):
        raise src.error(f"expected {_tname(types)}, got {type(v).__name__}", field=key)
    return v


def int_list(data: dict[str, Any], key: str, src: Source, *,
             default: tuple[int, ...] | EllipsisType = ...) -> tuple[int, ...]:
    """A list of integers under `key` (InputError otherwise)."""
    v = require(data, key, list, src, default=default)
    if v is default and isinstance(default, tuple):
        return default
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise src.error("expected a list of integers", field=key)
    return tuple(v)


def _tname(types: type | tuple[type, ...]) -> str:
    ts = types if isinstance(types, tuple) else (types,)
    names = {int: "an integer", str: "a string", list: "a list", dict: "a table", bool: "a boolean"}
    return " or ".join(names.get(t, t.__name__) for t in ts)


def json_ints(xs: Any, what: str) -> tuple[int, ...]:
    """A JSON list of integers as a tuple (for solution_from_json); CheckError otherwise."""
    if not isinstance(xs, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                    for x in xs):
        raise CheckError(f"{what}: expected a list of integers, got {xs!r}"[:300])
    return tuple(xs)
