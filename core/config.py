"""Configurations: an engine plus options, optionally named, written as one string.

Grammar (whitespace around tokens is ignored):

    config  := [NAME "="] ENGINE ["[" [KEY "=" VALUE ("," KEY "=" VALUE)*] "]"]
    NAME    := a letter or "_", then letters, digits, "_", "-", "."
    ENGINE  := letters, digits, "_", "-", ":", ".", "/"  e.g. native, sat:time, cpsat:segments,
               my_model.py:run (a user engine file), my_pkg.models:run
    KEY     := letters, digits, "_"
    VALUE   := any text without "," "[" "]" "="        e.g. totalizer, 2, true

    >>> c = parse("tot=sat:time[solver=glucose4, encoding=totalizer]")
    >>> c.name, c.engine, c.opts
    ('tot', 'sat:time', {'encoding': 'totalizer', 'solver': 'glucose4'})
    >>> str(c)
    'tot=sat:time[encoding=totalizer,solver=glucose4]'
    >>> str(parse("native")), parse("native").name
    ('native', 'native')

A list of configurations may also be read from a file (`--configs @FILE`, `parse_file`): one per
line or several per line separated by commas, `#` starting a comment, blank lines ignored; each
configuration keeps its line, so that the code-by-opt-in policy (compare/plan.py) can name it.

Values stay strings here; the engine's registry options convert and validate them
(`Engine.resolve_options`), so a Config can be parsed before its puzzle family is known.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .limits import MAX_CONFIGS
from .result import InputError

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
ENGINE = re.compile(r"[A-Za-z0-9_\-:./~]+")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
VALUE = re.compile(r"[^,\[\]=]+")


@dataclass(frozen=True)
class Config:
    """A named engine with options; `options` is sorted by key so equal configs compare equal."""

    name: str
    engine: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def opts(self) -> dict[str, str]:
        """The options as a dict (key -> value string)."""
        return dict(self.options)

    @property
    def spec(self) -> str:
        """The canonical form without the name: `engine[k=v,...]` (keys sorted)."""
        if not self.options:
            return self.engine
        return self.engine + "[" + ",".join(f"{k}={v}" for k, v in self.options) + "]"

    def __str__(self) -> str:
        """The canonical form: `name=engine[k=v,...]`, or just the spec when the name is the spec."""
        return self.spec if self.name == self.spec else f"{self.name}={self.spec}"


def parse(text: str, name: str | None = None) -> Config:
    """The Config written in `text`; `name` (e.g. a TOML key) names it unless `text` does. InputError."""
    if not isinstance(text, str):
        raise InputError(f"configuration {text!r}: expected a string such as 'sat:time[encoding=totalizer]'")
    s = text.strip()
    head, bracket, rest = s.partition("[")
    given, eq, engine = head.partition("=")
    if not eq:
        given, engine = "", head
    given, engine = given.strip(), engine.strip()
    if eq and not NAME.fullmatch(given):
        raise InputError(f"configuration '{text}': bad name '{given}' (a letter or _, then letters, "
                         "digits, _ - .)")
    if not ENGINE.fullmatch(engine):
        raise InputError(f"configuration '{text}': bad engine name '{engine}' "
                         "(e.g. native, sat:time, cpsat:segments)")
    options: dict[str, str] = {}
    if bracket:
        if not rest.endswith("]") or "[" in rest or "]" in rest[:-1]:
            raise InputError(f"configuration '{text}': options must be one [key=value,...] at the end")
        body = rest[:-1].strip()
        for item in body.split(",") if body else ():
            key, eq2, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq2 or not KEY.fullmatch(key) or not VALUE.fullmatch(value):
                raise InputError(f"configuration '{text}': option '{item.strip()}' is not key=value")
            if key in options:
                raise InputError(f"configuration '{text}': option '{key}' given twice")
            options[key] = value
    cfg = Config("", engine, tuple(sorted(options.items())))
    if name is not None and given and given != name:
        raise InputError(f"configuration '{text}' is named '{given}' but given as '{name}'")
    final = given or name or cfg.spec
    if name is not None and not given and not NAME.fullmatch(name):
        raise InputError(f"configuration name '{name}': a letter or _, then letters, digits, _ - .")
    return Config(final, engine, cfg.options)


def parse_pairs(pairs: "Iterable[str]") -> dict[str, str]:
    """`-o key=value` options as a dict (values stay strings; the engines convert them).

    >>> parse_pairs(["encoding=totalizer", "sat.solver = glucose4"])
    {'encoding': 'totalizer', 'sat.solver': 'glucose4'}
    """
    opts: dict[str, str] = {}
    for p in pairs:
        if "=" not in p:
            raise InputError(f"option '{p}': expected key=value (e.g. -o encoding=totalizer)")
        k, _, v = p.partition("=")
        opts[k.strip()] = v.strip()
    return opts


def parse_many(text: str) -> list[Config]:
    """Configs separated by commas outside brackets: 'native,tot=sat:time[encoding=totalizer,solver=glucose4]'.

    Names must be distinct (an unnamed config is named by its spec).
    """
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    out = [parse(p) for p in parts if p.strip()]
    if not out:
        raise InputError(f"configurations '{text}': none given")
    seen: set[str] = set()
    for c in out:
        if c.name in seen:
            raise InputError(f"configurations '{text}': name '{c.name}' used twice")
        seen.add(c.name)
    return out


MAX_CONFIG_FILE_BYTES = 1 << 20   # a configuration list file larger than this is refused


def parse_file(path: str) -> list[tuple[Config, int]]:
    """The configurations in the file at `path` with their 1-based lines (`--configs @FILE`):
    one per line or comma separated, `#` comments; InputError naming the file and line."""
    from .inputs import read_text
    text = read_text(path, MAX_CONFIG_FILE_BYTES, "configuration list")  # regular files only
    out: list[tuple[Config, int]] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            cfgs = parse_many(body)
        except InputError as e:
            raise InputError(e.message, file=path, line=i) from None
        for c in cfgs:
            if c.name in seen:
                raise InputError(f"configuration name '{c.name}' used twice (first on line "
                                 f"{seen[c.name]})", file=path, line=i)
            seen[c.name] = i
            out.append((c, i))
        if len(out) > MAX_CONFIGS:
            raise InputError(f"more than {MAX_CONFIGS} configurations", file=path, line=i)
    if not out:
        raise InputError("no configuration in the file (one per line or comma separated; # comments)",
                         file=path)
    return out
