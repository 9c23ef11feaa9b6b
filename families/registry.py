"""Which families exist and which engines each has: the built-in tables, plug-ins, user engines.

Families are found, never listed: every module of this package that defines `FAMILY` (the
built-in tables: peg, pentomino, sliding, maze), every entry point of the `puzzlesat.families`
group of installed plug-ins (each loads a `Family`), and every family given to
`register_family` at run time. Each is checked against the contract (`core.family.check_family`)
when it joins; a bad one is refused with what it lacks.

Engines: a family's own table, plus the user engines registered for it — `register_engine(...)`
in Python, the `puzzlesat.engines` entry-point group, or a spec `path/to/file.py:function` /
`package.module:function` wherever an engine name is accepted. A family whose `sat…` engine has
a formulation hook also gets `ext:dimacs` (its decision CNF solved by an external program).
Listing families and engines imports no solver: run functions are 'module:function' strings.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable

from ..core import family as contract
from ..core.family import Engine, Family, Option, UserEngine, check_family
from ..core.result import InputError, Task
from .options import cmd_option

EXT_ENGINE = "ext:dimacs"

_FAMILIES: dict[str, Family] | None = None     # every family by name, ext:dimacs added
_RUNTIME: dict[str, Family] = {}                # register_family
_USER: dict[str, dict[str, Engine]] = {}        # register_engine, by family
_ENGINE_ENTRY_POINTS_LOADED = False


# ---- families ---------------------------------------------------------------------------------
def _builtin() -> list[Family]:
    """The FAMILY of every module in this package (the built-in engine tables)."""
    pkg = importlib.import_module(__package__)
    out = []
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if m.name.startswith("_") or m.name in ("registry", "options", "instances"):
            continue
        fam = getattr(importlib.import_module(f"{__package__}.{m.name}"), "FAMILY", None)
        if isinstance(fam, Family):
            out.append(fam)
    return out


def _plugins() -> list[Family]:
    """The families of the `puzzlesat.families` entry-point group (installed plug-ins)."""
    from importlib.metadata import entry_points
    out = []
    for ep in entry_points(group="puzzlesat.families"):
        try:
            obj = ep.load()
        except Exception as e:
            raise InputError(f"plug-in family '{ep.name}' ({ep.value}) failed to load: "
                             f"{type(e).__name__}: {e}") from None
        fam = obj() if callable(obj) and not isinstance(obj, Family) else obj
        if not isinstance(fam, Family):
            raise InputError(f"plug-in family '{ep.name}' ({ep.value}) must give a puzzlesat.Family")
        out.append(replace(fam, user=True))
    return out


def families() -> dict[str, Family]:
    """Every family by name: built-in, plug-in, registered at run time."""
    global _FAMILIES
    if _FAMILIES is None:
        found: dict[str, Family] = {}
        for fam in (*_builtin(), *_plugins(), *_RUNTIME.values()):
            problems = check_family(fam)
            if problems:
                raise InputError("; ".join(problems))
            if fam.name in found and fam.name not in _RUNTIME:
                raise InputError(f"two families are named '{fam.name}' (a plug-in clashes)")
            found[fam.name] = with_ext(fam)
        kinds: dict[str, str] = {}
        for f in found.values():
            if f.kind in kinds:
                raise InputError(f"families {kinds[f.kind]} and {f.name} both read kind '{f.kind}'")
            kinds[f.kind] = f.name
        _FAMILIES = found
    return _FAMILIES


def register_family(fam: Family) -> Family:
    """Add a family at run time (replacing one registered before under its name); checked
    against the contract first, InputError naming what it lacks (docs/adding-a-family.md)."""
    global _FAMILIES
    problems = check_family(fam)
    if problems:
        raise InputError("; ".join(problems))
    if fam.name in {f.name for f in _builtin()}:
        raise InputError(f"family '{fam.name}' is built in; choose another name")
    old = _RUNTIME.get(fam.name)
    _RUNTIME[fam.name] = replace(fam, user=True)
    _FAMILIES = None
    try:
        families()
    except InputError:
        if old is None:
            _RUNTIME.pop(fam.name)
        else:
            _RUNTIME[fam.name] = old
        _FAMILIES = None
        raise
    return families()[fam.name]


def unregister_family(name: str) -> None:
    """Remove a family registered at run time (no error if it is not there)."""
    global _FAMILIES
    if _RUNTIME.pop(name, None) is not None:
        _FAMILIES = None


def family(name: str) -> Family:
    """The family called `name`, or InputError."""
    fams = families()
    if name not in fams:
        raise InputError(f"unknown puzzle family '{name}'; known: " + ", ".join(fams))
    return fams[name]


def family_of_kind(kind: str) -> Family:
    """The family whose instances have TOML `kind` == kind."""
    for f in families().values():
        if f.kind == kind:
            return f
    raise InputError(f"unknown kind '{kind}'; known: " + ", ".join(f.kind for f in families().values()))


def family_of(instance: Any) -> Family:
    """The family an instance belongs to."""
    for fam in families().values():
        if fam.owns(instance):
            return fam
    raise InputError(f"not a puzzlesat instance: {type(instance).__name__} (use puzzlesat.load)")


def with_ext(fam: Family) -> Family:
    """`fam` plus an `ext:dimacs` engine when one of its SAT engines has a formulation hook: the same
    decision formulation (and the SAT engine's model options) solved by an external DIMACS solver."""
    sat = next((e for e in fam.engines if e.formulation and e.name.split(":")[0] == "sat"), None)
    if sat is None or any(e.name == EXT_ENGINE for e in fam.engines):
        return fam
    ext = Engine(
        EXT_ENGINE, "puzzlesat.models._ext:run", tuple(t for t in sat.tasks if t is not Task.COUNT),
        options=(cmd_option(),
                 Option("formulation", sat.formulation, f"the formulation hook (that of {sat.name})",
                        (sat.formulation,)),
                 *(o for o in sat.options if o.name != "solver")),
        description=f"the {sat.name} formulation as DIMACS, solved by an external program; "
                    "its model is checked against every clause, then decoded",
        formulation=sat.formulation)
    return replace(fam, engines=(*fam.engines, ext))


# ---- user engines -----------------------------------------------------------------------------
def register_engine(family_name: str, name: str, fn: Callable | str,
                    tasks: Iterable[Task | str] | None = None,
                    options: dict[str, Any] | Iterable[Option] = (), description: str = "",
                    validate: Callable | str | None = None) -> Engine:
    """Add a user engine to `family_name` under `name` (replacing a user engine of that name).

    >>> from puzzlesat.core.result import Outcome, Status
    >>> e = register_engine("peg", "user:nothing", lambda inst, task, ctx: Outcome(Status.UNKNOWN),
    ...                     tasks=["optimize"], options={"depth": 3})
    >>> e.name, [o.name for o in e.options], family("peg").engine("user:nothing") is e
    ('user:nothing', ['depth'], True)
    """
    fam = family(family_name)
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.:\-]*", name or ""):
        raise InputError(f"engine name {name!r}: letters, digits and _ . : - only")
    if any(name == e.name or name in e.aliases for e in fam.engines):
        raise InputError(f"engine name '{name}' is a built-in engine of {family_name}; choose another")
    if not (callable(fn) or isinstance(fn, str)):
        raise InputError(f"engine {name}: fn must be a function (instance, task, ctx) -> Outcome")
    ts = tuple(Task(t) for t in tasks) if tasks is not None else fam.tasks
    opts = tuple(Option(k, v) for k, v in options.items()) if isinstance(options, dict) else tuple(options)
    eng = Engine(name, fn, ts, opts, description or getattr(fn, "__doc__", "") or "", (),
                 validate, user=True)
    _USER.setdefault(fam.name, {})[name] = eng
    return eng


def unregister_engine(family_name: str, name: str) -> None:
    """Remove a user engine (no error if it is not there)."""
    _USER.get(family_name, {}).pop(name, None)


def user_engines(family_name: str) -> list[Engine]:
    """The user engines registered for a family (entry points loaded on first call)."""
    _load_engine_entry_points()
    return list(_USER.get(family_name, {}).values())


def _load_engine_entry_points() -> None:
    global _ENGINE_ENTRY_POINTS_LOADED
    if _ENGINE_ENTRY_POINTS_LOADED:
        return
    _ENGINE_ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points
    for ep in entry_points(group="puzzlesat.engines"):
        try:
            obj = ep.load()
        except Exception as e:
            raise InputError(f"plug-in engine '{ep.name}' ({ep.value}) failed to load: "
                             f"{type(e).__name__}: {e}") from None
        items = obj() if callable(obj) and not isinstance(obj, UserEngine) else obj
        for u in (items if isinstance(items, (list, tuple)) else [items]):
            if not isinstance(u, UserEngine):
                raise InputError(f"plug-in engine '{ep.name}' ({ep.value}) must give a "
                                 "puzzlesat.UserEngine or a list of them")
            register_engine(u.family, u.name, u.fn, u.tasks, u.options, u.description, u.validate)


def is_user_spec(name: str) -> bool:
    """True for `path/to/file.py:function` and `package.module:function` engine specs."""
    mod, colon, fn = name.rpartition(":")
    return bool(colon and fn.isidentifier() and (mod.endswith(".py") or "/" in mod or "." in mod))


_FILE_MODULES: dict[str, ModuleType] = {}


def _load_file(path: str) -> ModuleType:
    """A user's Python file as a module (loaded once per process)."""
    key = str(Path(path).resolve())
    if key not in _FILE_MODULES:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"engine file not found: {path}")
        name = "puzzlesat_user_" + re.sub(r"\W", "_", p.stem)
        spec = importlib.util.spec_from_file_location(name, p)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:
            sys.modules.pop(name, None)
            raise InputError(f"cannot load engine file {path}: {type(e).__name__}: {e}") from None
        _FILE_MODULES[key] = mod
    return _FILE_MODULES[key]


def _spec_function(spec: str):
    mod, _, fn = spec.rpartition(":")
    try:
        if mod.endswith(".py") or "/" in mod or "\\" in mod:
            return getattr(_load_file(mod), fn, None)
        return getattr(importlib.import_module(mod), fn, None)
    except ImportError as e:
        raise InputError(f"engine '{spec}': cannot import {mod} ({e})") from None


def load_user_engine(fam: Family, spec: str) -> Engine:
    """The engine a spec names, loaded now (so a missing file or function is bad input). `TASKS`,
    `OPTIONS` (name -> default) and `VALIDATE` are read from the function, else from its module;
    without OPTIONS any `-o` is accepted (as a string)."""
    fn = _spec_function(spec)
    if not callable(fn):
        raise InputError(f"engine '{spec}': no function '{spec.rpartition(':')[2]}' there")
    mod = sys.modules.get(getattr(fn, "__module__", ""), None)

    def attr(name, default=None):  # on the function, else on its module
        return getattr(fn, name, getattr(mod, name, default))
    tasks = tuple(Task(t) for t in attr("TASKS", fam.tasks))
    declared = attr("OPTIONS")
    opts = tuple(Option(k, v) for k, v in (declared or {}).items())
    return Engine(spec, fn, tasks, opts, (fn.__doc__ or "").strip().split("\n")[0], (),
                  attr("VALIDATE"), user=True, free_options=declared is None)


def flag_options() -> dict[str, Option]:
    """The options every family's engines offer as CLI flags, by name (first declaration wins)."""
    out: dict[str, Option] = {}
    for fam in families().values():
        for e in fam.engines:
            for o in e.options:
                if o.flag:
                    out.setdefault(o.name, o)
    return out


# the contract's two hooks into the registry (core never imports this layer)
contract.HOOKS.user_engines = user_engines
contract.HOOKS.load_spec = lambda fam, name: load_user_engine(fam, name) if is_user_spec(name) else None
