"""Instances by name: `family/name` from a family's catalogue, or a path to a TOML (or other) file."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.family import Family
from ..core.inputs import Source, load_toml
from ..core.result import InputError
from .registry import families, family, family_of_kind


def load_instance(spec: str) -> tuple[Family, Any]:
    """(family, instance) for a catalogue name such as 'peg/hoppers' or a file path."""
    path = Path(spec)
    if path.is_dir():
        raise InputError("is a directory, not an instance file (a catalogue name is family/name, "
                         "see `puzzlesat list`)", file=spec)
    if path.suffix and (path.exists() or "/" not in spec or path.suffix.lower() in _suffixes()):
        return load_file(path)
    if "/" in spec:
        fam_name, _, short = spec.partition("/")
        if fam_name in families():
            fam = family(fam_name)
            cat = fam.catalogue()
            if short not in cat:
                raise InputError(f"unknown instance '{spec}'; `puzzlesat list {fam_name}` shows "
                                 f"the {len(cat)} built-in ones")
            return fam, cat[short]()
    if path.exists():
        return load_file(path)
    raise InputError(f"unknown instance '{spec}': not a catalogue name (family/name, see "
                     "`puzzlesat list`) and no such file")


def _suffixes() -> set[str]:
    out = {".toml"}
    for f in families().values():
        out |= set(f.suffixes)
    return out


def load_text(text: str, name: str = "<text>") -> tuple[Family, Any]:
    """Parse an instance from TOML text (errors name `name` and the line)."""
    import tomllib
    src = Source(name=name, path=None, text=text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"malformed TOML: {e}", file=name) from None
    return _from_data(data, src)


def _from_data(data: dict, src: Source) -> tuple[Family, Any]:
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise src.error("missing or non-string 'kind' (one of: "
                        + ", ".join(f.kind for f in families().values()) + ")", field="kind")
    try:
        fam = family_of_kind(kind)
    except InputError as e:
        raise src.error(e.message, field="kind") from None
    return fam, fam.from_toml(data, src)


def load_file(path: Path) -> tuple[Family, Any]:
    """Parse an instance file: TOML with a `kind`, or a family's own format by suffix."""
    if not path.exists():
        raise InputError("no such file", file=path)
    if path.is_dir():
        raise InputError("is a directory, not an instance file", file=path)
    suffix = path.suffix.lower()
    if suffix == ".toml":
        data = load_toml(path)
        src = Source(name=str(path), path=path, text=path.read_text(encoding="utf-8"))
        return _from_data(data, src)
    for fam in families().values():
        parser = fam.suffixes.get(suffix)
        if parser is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise InputError(f"cannot read file ({e})", file=path) from None
            return fam, parser(path, text)
    raise InputError(f"unknown file type '{suffix}' (expected .toml"
                     + "".join(f", {s}" for s in sorted(_suffixes() - {'.toml'})) + ")", file=path)
