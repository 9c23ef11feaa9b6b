"""Instances by name: `family/name` from a family's catalogue, a path to a TOML (or other) file,
a collection file (one instance a line), or `FILE#LINE`, the instance on one line of a collection.

Which family reads a file: a TOML file's `kind`; another file's suffix (a family's SUFFIXES, one
instance a file, or COLLECTIONS, one instance a line). A kind or suffix that two families read is
ambiguous (the registry reports it at discovery): such a file is read only with `family=` (the
command line's `--family NAME`), which also settles any other file.

The instances of a collection are named `FILE#LINE` (the file as given, the line counted from
1): that name loads the one instance again, and a campaign job carries it as its source.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..core.family import Family
from ..core.inputs import Source, load_toml, parse_toml, read_text
from ..core.limits import MAX_INPUT_BYTES, too_big
from ..core.result import InputError, PluginError
from .registry import ambiguous, families, family, family_of_kind, route


Admit = Callable[[Family], None]  # called with the family before any of its code runs


@dataclass(frozen=True)
class Loaded:
    """One instance as the loader read it: its family, the instance, and `ref`, the name that
    loads it again (a catalogue name, a file, `FILE#LINE` for a collection's line)."""

    family: Family
    instance: Any
    ref: str


def _admitted(fam: Family, admit: Admit | None) -> Family:
    if admit is not None:
        admit(fam)
    return fam


def _family(name: str | None) -> Family | None:
    return None if name is None else family(name)


@contextmanager
def _reading(file: str | Path, line: int | None = None):
    """A reader's InputError (or a plug-in reader's PluginError) that names no file gets the file
    and line being read: a plug-in may raise `InputError("...")` without them."""
    try:
        yield
    except InputError as e:
        if e.file is not None:
            raise
        if isinstance(e, PluginError):
            raise PluginError(e.message, plugin=e.plugin, file=file, line=line, field=e.field) from None
        raise InputError(e.message, file=file, line=line, field=e.field) from None


def load_instance(spec: str, admit: Admit | None = None, family: str | None = None
                  ) -> tuple[Family, Any]:
    """(family, instance) for a catalogue name such as 'peg/hoppers', a file path, or
    `FILE#LINE` (one line of a collection). `admit(fam)` (optional) may refuse the family
    (InputError) before its catalogue or loader runs; `family` names the family that reads a
    file (needed when its kind or suffix is ambiguous). A collection file of several instances
    is refused here (name one line, or use `load_instances`)."""
    got = load_instances(spec, admit, family)
    if len(got) != 1:
        raise InputError(f"a collection of {len(got)} instances: name one as {spec}#LINE "
                         f"(e.g. {got[0].ref}), or give the file where collections are read "
                         "(solve, compare, campaign; API: puzzlesat.load_all)", file=spec)
    return got[0].family, got[0].instance


def load_instances(spec: str, admit: Admit | None = None, family: str | None = None) -> list[Loaded]:
    """Every instance `spec` names: the instances of a collection file (one a line, in file
    order), else the one instance of a catalogue name, file or `FILE#LINE`."""
    fam = _family(family)
    path = Path(spec)
    if path.is_dir():
        raise InputError("is a directory, not an instance file (a catalogue name is family/name, "
                         "see `puzzlesat list`)", file=spec)
    ref = _line_ref(spec)
    if ref is not None:
        return load_collection(Path(ref[0]), admit, fam, only=ref[1], given=ref[0])
    if path.suffix and (path.exists() or "/" not in spec or path.suffix.lower() in _suffixes()):
        return load_collection(path, admit, fam, given=spec)
    if "/" in spec:
        fam_name, _, short = spec.partition("/")
        if fam_name in families():
            if fam is not None and fam.name != fam_name:
                raise InputError(f"'{spec}' is an instance of family {fam_name}, not {fam.name}")
            f = _admitted(families()[fam_name], admit)
            cat = f.catalogue()
            if short not in cat:
                raise InputError(f"unknown instance '{spec}'; `puzzlesat list {fam_name}` shows "
                                 f"the {len(cat)} built-in ones")
            return [Loaded(f, cat[short](), spec)]
    if path.exists():
        return load_collection(path, admit, fam, given=spec)
    raise InputError(f"unknown instance '{spec}': not a catalogue name (family/name, see "
                     "`puzzlesat list`) and no such file")


def _line_ref(spec: str) -> tuple[str, int] | None:
    """(file, line) for `FILE#LINE` naming an existing file (a file really called so wins)."""
    m = re.fullmatch(r"(.+)#(\d+)", spec)
    if m is None or Path(spec).exists() or not Path(m.group(1)).is_file():
        return None
    return m.group(1), int(m.group(2))


def _suffixes() -> set[str]:
    out = {".toml"}
    for f in families().values():
        out |= {s.lower() for s in (*f.suffixes, *f.collections)}
    return out


def load_text(text: str, name: str = "<text>", admit: Admit | None = None,
              family: str | None = None) -> tuple[Family, Any]:
    """Parse an instance from TOML text (errors name `name` and the line); `family` reads it
    when its kind is ambiguous (or absent)."""
    if len(text) > MAX_INPUT_BYTES:
        raise InputError(too_big("TOML text", len(text), MAX_INPUT_BYTES, " characters"), file=name)
    src = Source(name=name, path=None, text=text)
    data = parse_toml(text, name)
    return _from_data(data, src, admit, _family(family))


def _from_data(data: dict, src: Source, admit: Admit | None = None,
               fam: Family | None = None) -> tuple[Family, Any]:
    kind = data.get("kind")
    if fam is not None:
        if kind is not None and kind != fam.kind:
            raise src.error(f"kind '{kind}' is not family {fam.name}'s (its kind is '{fam.kind}')",
                            field="kind")
    elif not isinstance(kind, str):
        raise src.error("missing or non-string 'kind' (one of: "
                        + ", ".join(f.kind for f in families().values()) + ")", field="kind")
    else:
        try:
            fam = family_of_kind(kind)
        except InputError as e:
            raise src.error(e.message, field="kind") from None
    _admitted(fam, admit)
    with _reading(src.path or src.name, src.line):
        return fam, fam.from_toml(data, src)


def load_file(path: Path, admit: Admit | None = None, family: str | None = None) -> tuple[Family, Any]:
    """Parse an instance file: TOML with a `kind`, or a family's own format by suffix."""
    got = load_collection(Path(path), admit, _family(family), given=str(path))
    if len(got) != 1:
        raise InputError(f"a collection of {len(got)} instances: name one as {path}#LINE", file=path)
    return got[0].family, got[0].instance


def _read(path: Path) -> str:
    return read_text(path)  # the one bounded reader: regular files only, within the limit


def load_collection(path: Path, admit: Admit | None = None, fam: Family | None = None, *,
                    only: int | None = None, given: str | None = None) -> list[Loaded]:
    """The instances of a file: one for a TOML file or a family's single-instance format, one per
    line (blank lines and lines the family reads as none skipped) for a collection format;
    `only`: just the one on that line. `fam` reads the file (else its kind or suffix decides)."""
    given = given or str(path)
    if not path.exists():
        raise InputError("no such file", file=path)
    if path.is_dir():
        raise InputError("is a directory, not an instance file", file=path)
    suffix = path.suffix.lower()
    if suffix == ".toml":
        if only is not None:
            raise InputError(f"a TOML file holds one instance: #{only} names a line of a "
                             "collection file", file=path)
        text = read_text(path)  # read once: what is parsed is what errors point into
        data = load_toml(path, text)
        src = Source(name=given, path=path, text=text)
        f, inst = _from_data(data, src, admit, fam)
        return [Loaded(f, inst, given)]
    if fam is None:
        names = route("suffix", suffix)
        if len(names) > 1:
            raise InputError(ambiguous("suffix", suffix, names), file=path)
        if not names:
            raise InputError(f"unknown file type '{suffix}' (expected .toml"
                             + "".join(f", {s}" for s in sorted(_suffixes() - {'.toml'})) + ")",
                             file=path)
        fam = families()[names[0]]
    reads = {s.lower(): s for s in fam.suffixes}
    lines = {s.lower(): s for s in fam.collections}
    if suffix not in reads and suffix not in lines:
        raise InputError(f"family {fam.name} reads no {suffix} files (it reads .toml"
                         + "".join(f", {s}" for s in sorted({*reads, *lines})) + ")", file=path)
    text = _read(path)
    _admitted(fam, admit)
    if suffix in reads:
        if only is not None:
            raise InputError(f"a {suffix} file holds one instance: #{only} names a line of a "
                             "collection file", file=path)
        with _reading(path):
            return [Loaded(fam, fam.read_file(reads[suffix], path, text), given)]
    out = []
    rows = text.splitlines()
    if only is not None and not 1 <= only <= len(rows):
        raise InputError(f"no line {only} (the file has {len(rows)} lines)", file=path)
    for i, line in enumerate(rows, 1):
        if (only is not None and i != only) or (only is None and not line.strip()):
            continue
        src = Source(name=f"{given}#{i}", path=path, text=None, line=i)
        with _reading(path, i):
            inst = fam.read_line(lines[suffix], line, src)
        if inst is not None:
            out.append(Loaded(fam, inst, f"{given}#{i}"))
        elif only is not None:
            raise InputError("this line holds no instance", file=path, line=i)
    if not out:
        raise InputError("the collection holds no instance", file=path)
    return out
