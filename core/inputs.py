"""Reading a user's input: TOML files and text with the place of every error.

    Source      where an instance came from (name, path, text), so a parser can point at a line
    load_toml   a TOML file, or InputError with the file and line of the syntax error
    require     a key of a TOML table checked against its type, or InputError naming the field
    Instance    base of every family's instance dataclass (`to_json()`)
"""
from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .limits import MAX_INPUT_BYTES, too_big
from .result import CheckError, InputError


class Instance:
    """Base of every family's instance dataclass: `to_json()` gives its kind and summary (the
    `KIND` and `describe` of the puzzle module that defines the instance's class)."""

    def to_json(self) -> dict[str, Any]:
        """{"kind", "name", ...}: the family's `describe(instance)`, JSON-able."""
        mod = sys.modules[type(self).__module__]
        return {"kind": mod.KIND, **mod.describe(self)}


def load_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or bad syntax raises InputError with file and line."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, not a file", file=path)
    check_size(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", file=path) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", file=path) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line = int(m.group(1)) if m else (max(1, len(text.splitlines())) if "end of document" in str(e)
                                          else None)
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(e)) or "malformed TOML"
        raise InputError(f"malformed TOML: {msg}", file=path, line=line) from None


def check_size(path: Path) -> None:
    """InputError when the file at `path` is larger than MAX_INPUT_BYTES (checked before reading)."""
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


def require(data: dict, key: str, types: type | tuple, src: Source, *, default: Any = ...) -> Any:
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


def int_list(data: dict, key: str, src: Source, *, default: Any = ...) -> tuple[int, ...]:
    """A list of integers under `key` (InputError otherwise)."""
    v = require(data, key, list, src, default=default)
    if v is default and default is not ...:
        return v
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise src.error("expected a list of integers", field=key)
    return tuple(v)


def _tname(types: type | tuple) -> str:
    ts = types if isinstance(types, tuple) else (types,)
    names = {int: "an integer", str: "a string", list: "a list", dict: "a table", bool: "a boolean"}
    return " or ".join(names.get(t, t.__name__) for t in ts)


def json_ints(xs: Any, what: str) -> tuple[int, ...]:
    """A JSON list of integers as a tuple (for solution_from_json); CheckError otherwise."""
    if not isinstance(xs, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                    for x in xs):
        raise CheckError(f"{what}: expected a list of integers, got {xs!r}"[:300])
    return tuple(xs)
