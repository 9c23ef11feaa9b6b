"""Vocabulary shared by every puzzle family, every engine and the CLI.

Nothing here knows about solvers: statuses, tasks, the outcome an engine hands back, the input
error every parser raises, and a TOML loader that reports where a file is wrong.
"""
from __future__ import annotations

import enum
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class Status(str, enum.Enum):
    """How an engine's run ended. A limit never yields INFEASIBLE or OPTIMAL."""

    OPTIMAL = "OPTIMAL"        # proved best (or, for count: all solutions counted)
    FEASIBLE = "FEASIBLE"      # a checked solution, optimality not proved
    INFEASIBLE = "INFEASIBLE"  # proved: no solution
    UNKNOWN = "UNKNOWN"        # a limit was reached before anything was proved
    ERROR = "ERROR"            # the engine failed, or a solution failed the checker

    def __str__(self) -> str:
        return self.value


class Task(str, enum.Enum):
    """What is asked of an engine."""

    OPTIMIZE = "optimize"  # best objective, with one solution
    COUNT = "count"        # the number of optimal solutions (all solutions where nothing is optimised)
    FEASIBLE = "feasible"  # any one solution

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Outcome:
    """What an engine returns: solutions in the family's own solution type, unchecked.

    For COUNT, `solutions` holds every counted solution (the runner checks each one and that they
    are distinct), and `count` equals their number. `stats` carries engine figures (nodes, model
    size, layer sizes); `reason` says why (e.g. "parity" for an unsolvable sliding position).
    """

    status: Status
    objective: int | None = None
    count: int | None = None
    solutions: tuple = ()
    stats: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None


class InputError(Exception):
    """Bad input from a user: a message naming the file, line and field that is wrong."""

    def __init__(self, message: str, *, file: str | Path | None = None,
                 line: int | None = None, field: str | None = None):
        self.message, self.file, self.line, self.field = message, file, line, field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        if self.field is not None:
            where += f"{self.field}: "
        return where + self.message


class Instance:
    """Base of every family's instance dataclass: `to_json()` gives its kind and summary."""

    def to_json(self) -> dict[str, Any]:
        """{"kind", "name", ...}: the family's `describe(instance)`, JSON-able."""
        import importlib
        mod = importlib.import_module(type(self).__module__)
        return {"kind": mod.KIND, **mod.describe(self)}


class CheckError(Exception):
    """A solution broke the puzzle's rules (raised by the independent checkers)."""


def load_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or bad syntax raises InputError with file and line."""
    path = Path(path)
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


def writable(path: str | Path, what: str = "file") -> Path:
    """`path` as a Path whose folder exists (checked before any work); InputError otherwise."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write the {what}: folder {str(parent)!r} does not exist", file=p)
    if p.is_dir():
        raise InputError(f"cannot write the {what}: it is a folder", file=p)
    return p


def write_atomic(path: str | Path, data: Any, what: str = "file", suffix: str = ".tmp") -> Path:
    """Write `data` (text, bytes, or a function that writes a given path) to `path` through a
    temporary file in the same folder renamed into place, so `path` is complete or untouched;
    a missing folder or an OS error is an InputError. `suffix`: the temporary file's ending (for
    writers that choose the format by it)."""
    import os
    import tempfile
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
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write the {what} ({e.strerror})", file=p) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


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

    name: str                 # catalogue name or file path as the user gave it
    path: Path | None = None  # the file, when there is one
    text: str | None = None   # its text, for locating keys

    def error(self, message: str, field: str | None = None, line: int | None = None) -> InputError:
        """An InputError located at `field`'s line of this source (when it can be found)."""
        if line is None and field is not None:
            line = key_line(self.text, field.split(".")[-1].split("[")[0])
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


class Context:
    """What an engine gets besides the instance: validated options, limits and reporting hooks.

    `progress(**fields)` feeds the live display (depth, nodes, …); `found(solution)` streams a
    solution as soon as it exists, so that it survives if the run is killed at its hard limit.
    """

    def __init__(self, options: dict[str, Any] | None = None, time_limit: float | None = None,
                 progress=None, found=None):
        import time
        self.options = dict(options or {})
        self.time_limit = time_limit
        self.start = time.monotonic()
        self.deadline = None if time_limit is None else self.start + time_limit
        self._progress = progress
        self._found = found

    def remaining(self) -> float | None:
        """Seconds left before the time limit (None: no limit; never negative)."""
        import time
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        """True once the time limit has passed."""
        r = self.remaining()
        return r is not None and r <= 0.0

    def progress(self, **fields: Any) -> None:
        """Report search progress (shown live by the CLI; ignored elsewhere)."""
        if self._progress is not None:
            self._progress(fields)

    def found(self, solution: Any) -> None:
        """Report a solution as soon as it is found."""
        if self._found is not None:
            self._found(solution)
