"""Which families exist and which engines each has: the built-in tables, plug-ins, user engines.

Families are found, never listed: every module of this package that defines `FAMILY` (the
built-in tables: peg, pentomino, sliding, maze), every entry point of the `puzzlesat.families`
group of installed plug-ins (each loads a `Family`), and every family given to
`register_family` at run time. Each is checked against the contract (`core.family.check_family`)
when it joins; a bad one is refused with what it lacks.

Engines: a family's own table, plus the user engines registered for it — `register_engine(...)`
in Python, the `puzzlesat.engines` entry-point group, or a spec `path/to/file.py:function` /
`package.module:function` wherever an engine name is accepted. A family whose `sat…` engine has
a formulation hook also gets `ext:dimacs` (its decision CNF solved by an external program), and
every formulation hook gets its `mip:`, `maxsat:` and `cpmpy:` engines (families/paradigms.py).
Listing families and engines imports no solver: run functions are 'module:function' strings.
"""
from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable

from ..core import family as contract
from ..core.family import (Engine, Family, Option, UserEngine, check_family, declared_tasks,
                           produced_by, resolve, with_unique)
from ..core.result import InputError, Task, one_line
from .options import cmd_option
from .paradigms import with_paradigms

EXT_ENGINE = "ext:dimacs"

_FAMILIES: dict[str, Family] | None = None     # every family by name, ext:dimacs added
_RUNTIME: dict[str, Family] = {}                # register_family
_USER: dict[str, dict[str, Engine]] = {}        # register_engine, by family
_ENGINE_ENTRY_POINTS_LOADED = False


# ---- families ---------------------------------------------------------------------------------
FAMILY_GROUP = "puzzlesat.families"
ENGINE_GROUP = "puzzlesat.engines"
log = logging.getLogger("puzzlesat.plugins")


@dataclass(frozen=True)
class PluginInfo:
    """What discovery found (`puzzlesat plugins`, `puzzlesat.plugins()`): an entry point of a
    plug-in (`group` "puzzlesat.families" or "puzzlesat.engines"), or a route two families claim
    (`group` "conflict": `name` is the kind, suffix or family name, `provides` the claimants).
    `error` says why it was skipped or the route disabled; None: loaded."""

    group: str
    name: str
    target: str = ""             # the entry point's value, module:attribute
    dist: str = ""               # the distribution that installed it ("name version")
    provides: tuple[str, ...] = ()  # family names, or family:engine names
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "name": self.name, "target": self.target, "dist": self.dist,
                "provides": list(self.provides), "status": "ok" if self.error is None else
                ("conflict" if self.group == "conflict" else "skipped"), "error": self.error}


_FAMILY_INFO: list[PluginInfo] = []    # the family entry points and conflicts of the last discovery
_ENGINE_INFO: list[PluginInfo] = []    # the engine entry points
_EP_ENGINES: list[tuple[str, str]] = []  # (family, engine) registered from entry points
_ROUTES: dict[str, dict[str, list[str]]] = {"kind": {}, "suffix": {}}  # -> claimant families
_REPORTED: set[str] = set()


def _report(message: str) -> None:
    """One warning line (once per process) through the `puzzlesat.plugins` logger: the command
    line prints it as `puzzlesat: warning: ...`; without logging set up Python prints it as it is."""
    if message not in _REPORTED:
        _REPORTED.add(message)
        log.warning(message)


def _skipped(info: PluginInfo) -> PluginInfo:
    what = "plug-in family" if info.group == FAMILY_GROUP else "plug-in engine"
    _report(f"{what} '{info.name}' ({info.target}) skipped: {info.error} (`puzzlesat plugins` lists it)")
    return info


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


def _dist(ep: Any) -> str:
    d = getattr(ep, "dist", None)
    try:
        return f"{d.name} {d.version}" if d is not None else ""
    except Exception:  # noqa: BLE001 - broken metadata: unnamed
        return ""


def _plugins() -> list[tuple[Family, PluginInfo]]:
    """The families of the `puzzlesat.families` entry-point group (installed plug-ins), each
    loaded and checked against the contract; one that fails is skipped with one warning line
    (its PluginInfo says why), the rest go on."""
    from importlib.metadata import entry_points
    out = []
    for ep in entry_points(group=FAMILY_GROUP):
        info = PluginInfo(FAMILY_GROUP, ep.name, ep.value, _dist(ep))
        try:
            obj = ep.load()
            fam = obj() if callable(obj) and not isinstance(obj, Family) else obj
            if not isinstance(fam, Family):
                raise _Refused(f"it gives {type(fam).__name__}, not a puzzlesat.Family")
            fam = replace(fam, user=True, code=f"entry point {ep.name} = {ep.value}")
            problems = check_family(fam)
            if problems:
                raise _Refused("; ".join(problems))
        except _Refused as e:
            _FAMILY_INFO.append(_skipped(replace(info, error=str(e))))
            continue
        except (Exception, SystemExit) as e:  # noqa: BLE001 - someone else's code, contained
            _FAMILY_INFO.append(_skipped(replace(info, error=f"failed to load: {one_line(e)}")))
            continue
        out.append((fam, replace(info, provides=(fam.name,))))
    return out


class _Refused(Exception):
    """A plug-in that loaded but does not keep the contract (the message says how)."""


def families() -> dict[str, Family]:
    """Every family by name: built-in, plug-in, registered at run time. A plug-in that fails to
    load or to keep the contract, or takes a built-in family's name, or a name another plug-in
    also takes, is skipped with one warning line; a kind or file suffix two families read is
    disabled for both (the file needs `family=`), reported the same way (`plugins()` lists all)."""
    global _FAMILIES
    if _FAMILIES is None:
        found: dict[str, Family] = {}
        for fam in _builtin():
            problems = check_family(fam)
            if problems:  # our own table: a bug, not a plug-in's failure
                raise InputError("; ".join(problems))
            found[fam.name] = _complete(fam)
        _FAMILY_INFO.clear()
        plugged = _plugins()
        by_name: dict[str, list[PluginInfo]] = {}
        for fam, info in plugged:
            by_name.setdefault(fam.name, []).append(info)
        for fam, info in plugged:
            if fam.name in found:
                info = replace(info, error=f"family name '{fam.name}' is a built-in family's")
            elif len(by_name[fam.name]) > 1:
                others = ", ".join(f"{i.name} = {i.target}" for i in by_name[fam.name] if i is not info)
                info = replace(info, error=f"family name '{fam.name}' is also given by {others}: "
                                           "both are skipped")
            _FAMILY_INFO.append(_skipped(info) if info.error else info)
        for fam, info in plugged:
            if info.error is None and len(by_name[fam.name]) == 1 and fam.name not in found:
                found[fam.name] = _complete(fam)
        for fam in _RUNTIME.values():  # a family registered at run time replaces a plug-in's
            found[fam.name] = _complete(fam)
        _routes(found)
        _FAMILIES = found
    return _FAMILIES


def _routes(found: dict[str, Family]) -> None:
    """Which families read each TOML kind and each file suffix; a route two claim is reported
    (once) and disabled: such a file needs `family=` (`--family`)."""
    kinds: dict[str, list[str]] = {}
    suffixes: dict[str, list[str]] = {".toml": []}
    for f in found.values():
        kinds.setdefault(f.kind, []).append(f.name)
        for sfx in (*f.suffixes, *f.collections):
            suffixes.setdefault(sfx.lower(), []).append(f.name)
    _ROUTES["kind"], _ROUTES["suffix"] = kinds, suffixes
    for what, table in (("kind", kinds), ("suffix", suffixes)):
        for key, names in table.items():
            if len(names) > 1:
                text = ambiguous(what, key, names)
                _FAMILY_INFO.append(PluginInfo("conflict", f"{what} {key}", "", "", tuple(names), text))
                _report(text)


def ambiguous(what: str, key: str, names: list[str]) -> str:
    """The message of a kind or suffix that several families read."""
    file = f"a TOML file of kind '{key}'" if what == "kind" else f"a {key} file"
    return (f"{what} '{key}' is read by families {' and '.join(names)}: {file} needs --family "
            f"{'|'.join(names)} (API: family=...)")


def route(what: str, key: str) -> list[str]:
    """The families that read a TOML `kind` (what="kind") or a file suffix (what="suffix")."""
    families()
    return list(_ROUTES[what].get(key if what == "kind" else key.lower(), ()))


def plugins() -> list[PluginInfo]:
    """Every plug-in entry point found (families, then engines), each with its error if it was
    skipped, and every route two families claim (group "conflict").

    >>> [p.name for p in plugins() if p.group == "conflict"]
    []
    """
    families()
    _load_engine_entry_points()
    return [*_FAMILY_INFO, *_ENGINE_INFO]


def _rediscover() -> None:
    """Forget what discovery found (entry points are looked up again on next use); for tests."""
    global _FAMILIES, _ENGINE_ENTRY_POINTS_LOADED
    for fam_name, name in _EP_ENGINES:
        _USER.get(fam_name, {}).pop(name, None)
    _EP_ENGINES.clear()
    _ENGINE_INFO.clear()
    _FAMILY_INFO.clear()
    _FAMILIES = None
    _ENGINE_ENTRY_POINTS_LOADED = False


def register_family(fam: Family) -> Family:
    """Add a family at run time (replacing one registered before under its name, or a plug-in
    of that name); checked against the contract first, InputError naming what it lacks
    (docs/adding-a-family.md). A kind or file suffix it shares with another family is reported
    and disabled for both (such a file then needs `family=`)."""
    global _FAMILIES
    problems = check_family(fam)
    if problems:
        raise InputError("; ".join(problems))
    if fam.name in {f.name for f in _builtin()}:
        raise InputError(f"family '{fam.name}' is built in; choose another name")
    _RUNTIME[fam.name] = replace(fam, user=True, code=fam.code or f"module {_module_name(fam)}")
    _FAMILIES = None
    return families()[fam.name]


def _module_name(fam: Family) -> str:
    """The import name of a family's puzzle (a module, an import path, or an object's module)."""
    p = fam.puzzle
    if isinstance(p, str):
        return p
    return p.__name__ if isinstance(p, ModuleType) else type(p).__module__


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
    """The family whose instances have TOML `kind` == kind; InputError when none or several do."""
    names = route("kind", kind)
    if len(names) > 1:
        raise InputError(ambiguous("kind", kind, names))
    if not names:
        raise InputError(f"unknown kind '{kind}'; known: " + ", ".join(sorted(_ROUTES["kind"])))
    return families()[names[0]]


def family_of(instance: Any) -> Family:
    """The family an instance belongs to: the one whose catalogue or loader produced it; for an
    instance built by hand, the one family that claims its type (InputError when several do:
    load it through `puzzlesat.load`, or with `family=`).

    >>> from puzzlesat.families.instances import load_instance
    >>> family_of(load_instance("peg/hoppers")[1]).name
    'peg'
    """
    fams = families()
    made = produced_by(instance)
    if made is not None:
        if made not in fams:
            raise InputError(f"{type(instance).__name__} {getattr(instance, 'name', '')!r} was made by "
                             f"family {made}, which is no longer registered")
        return fams[made]
    claim = [f for f in fams.values() if f.claims(instance)]
    if len(claim) == 1:
        return claim[0]
    if claim:
        raise InputError(f"{type(instance).__name__} {getattr(instance, 'name', '')!r} could be an "
                         f"instance of families {' and '.join(f.name for f in claim)} (they share its "
                         "class): make it with puzzlesat.load (a catalogue name, or family=NAME)")
    raise InputError(f"not a puzzlesat instance: {type(instance).__name__} (use puzzlesat.load)")


def _complete(fam: Family) -> Family:
    """A family as the registry serves it: its engines, ext:dimacs, the paradigm engines,
    count:frontier, and task unique derived from every engine that counts."""
    return unique_from_count(with_counter(with_paradigms(with_ext(fam))))


def unique_from_count(fam: Family) -> Family:
    """`fam` with task unique for every engine that counts and does not declare unique itself
    (`core.family.with_unique`: the runner derives the answer from the engine's count, stopped at
    the second distinct solution), and in the family's tasks when any engine does it."""
    engines = tuple(with_unique(e) for e in fam.engines)
    tasks = fam.tasks
    if Task.UNIQUE not in tasks and any(Task.UNIQUE in e.tasks for e in engines):
        tasks = (*tasks, Task.UNIQUE)
    return replace(fam, engines=engines, tasks=tasks)


def with_ext(fam: Family) -> Family:
    """`fam` plus an `ext:dimacs` engine when one of its SAT engines has a formulation hook: the same
    decision formulation (and the SAT engine's model options) solved by an external DIMACS solver."""
    sat = next((e for e in fam.engines if e.formulation and e.name.split(":")[0] == "sat"), None)
    if sat is None or any(e.name == EXT_ENGINE for e in fam.engines):
        return fam
    ext = Engine(
        EXT_ENGINE, "puzzlesat.models._ext:run",
        tuple(t for t in sat.tasks if t not in (Task.COUNT, Task.UNIQUE)),
        options=(cmd_option(),
                 Option("formulation", sat.formulation, f"the formulation hook (that of {sat.name})",
                        (sat.formulation,)),
                 *(o for o in sat.options if o.name != "solver")),
        description=f"the {sat.name} formulation as DIMACS, solved by an external program; "
                    "its model is checked against every clause, then decoded",
        formulation=sat.formulation)
    return replace(fam, engines=(*fam.engines, ext))


COUNTER_ENGINE = "count:frontier"
AUTO_ENGINE = "count:auto"  # the model counter within a probe budget, else the SAT enumeration


def _megabytes(v: int, engine: str) -> None:
    if v < 1:
        raise InputError(f"option memory_mb={v} of engine {engine}: expected at least 1 (MB)")


def with_counter(fam: Family) -> Family:
    """`fam` plus a `count:frontier` engine when one of its SAT engines counts and has a
    formulation hook: that formulation counted on its projection without listing the solutions
    (models/count.py; exact; at the optimum for a family with an objective)."""
    sat = next((e for e in fam.engines if e.formulation and e.name.split(":")[0] == "sat"
                and Task.COUNT in e.tasks), None)
    if sat is None or any(e.name == COUNTER_ENGINE for e in fam.engines):
        return fam
    keep = {"up_to_symmetry", "symmetry", "symmetry_breaking", "solver", "encoding"}
    counter = Engine(
        COUNTER_ENGINE, "puzzlesat.models.count:run", (Task.COUNT,),
        options=(Option("formulation", sat.formulation, f"the formulation hook (that of {sat.name})",
                        (sat.formulation,)),
                 Option("memory_mb", 2048, "memory budget of the layers, in MB (the compiled "
                        "layers' arrays, or what Python layers add to the worker's resident "
                        "memory): past it the count stops (UNKNOWN 'memory')", check=_megabytes,
                        since="0.3"),
                 *(o for o in sat.options if o.name in keep or o.name not in
                   {"certify", "proof_dir", "blocking", "cubes", "phase", "search"})),
        description=f"the {sat.name} formulation counted on its projection without listing the "
                    "solutions (frontier compilation of its constraints, exact integers; for an "
                    "objective, at the optimum found by decision calls)",
        validate="puzzlesat.models.count:validate", formulation=sat.formulation, counter=True,
        preload=("puzzlesat.models._frontier",))
    engines = (*fam.engines, counter)
    if isinstance(sat.target, str) and not any(e.name == AUTO_ENGINE for e in fam.engines):
        engines = (*engines, Engine(
            AUTO_ENGINE, "puzzlesat.models.count:run_auto", (Task.COUNT,),
            options=(Option("formulation", sat.formulation, f"the formulation hook (that of {sat.name})",
                            (sat.formulation,)),
                     Option("enumerator", sat.target, f"the enumerating engine (that of {sat.name})",
                            (sat.target,)),
                     Option("probe_bits", 44, "the widest frontier (bits of a state, measured "
                            "on the formulation before counting) count:auto gives the model "
                            "counter", since="0.3"),
                     Option("probe_mb", 256, "the model counter's memory budget before count:auto "
                            "turns to enumeration, in MB", check=_megabytes, since="0.3"),
                     Option("memory_mb", 2048, "memory budget of the model counter's layers, in MB",
                            check=_megabytes, since="0.3"),
                     *(o for o in sat.options if o.name not in {"formulation", "memory_mb"})),
            description=f"count by the faster route: count:frontier when every formulation key is "
                        f"projected and its layers fit probe_mb, else {sat.name}'s enumeration",
            validate=sat.validate, formulation=sat.formulation, counter=True,
            preload=("puzzlesat.models._frontier",)))
    return replace(fam, engines=engines)


# ---- user engines -----------------------------------------------------------------------------
def register_engine(family_name: str, name: str, fn: Callable | str,
                    tasks: Iterable[Task | str] | None = None,
                    options: dict[str, Any] | Iterable[Option] = (), description: str = "",
                    validate: Callable | str | None = None, code: str = "") -> Engine:
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
    ts = tuple(Task(t) for t in tasks) if tasks is not None else declared_tasks(fam.tasks)
    opts = tuple(Option(k, v) for k, v in options.items()) if isinstance(options, dict) else tuple(options)
    where = code or ("module " + fn.rpartition(":")[0] if isinstance(fn, str)
                     else f"function {getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}")
    eng = with_unique(Engine(name, fn, ts, opts, description or getattr(fn, "__doc__", "") or "", (),
                             validate, user=True, code=where))
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
    """Register the engines of the `puzzlesat.engines` entry-point group (once); one that fails to
    load, gives something else than UserEngines, or names an unknown family or a taken name is
    skipped with one warning line (`plugins()` lists it), the rest are registered."""
    global _ENGINE_ENTRY_POINTS_LOADED
    if _ENGINE_ENTRY_POINTS_LOADED:
        return
    _ENGINE_ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENGINE_GROUP):
        info = PluginInfo(ENGINE_GROUP, ep.name, ep.value, _dist(ep))
        try:
            obj = ep.load()
            items = obj() if callable(obj) and not isinstance(obj, UserEngine) else obj
            items = list(items) if isinstance(items, (list, tuple)) else [items]
        except (Exception, SystemExit) as e:  # noqa: BLE001 - someone else's code, contained
            _ENGINE_INFO.append(_skipped(replace(info, error=f"failed to load: {one_line(e)}")))
            continue
        provided, problems = [], []
        for u in items:
            if not isinstance(u, UserEngine):
                problems.append(f"gives {type(u).__name__}, not a puzzlesat.UserEngine")
                continue
            try:
                if any(u.name == e.name for e in _USER.get(u.family, {}).values()):
                    raise InputError(f"engine name '{u.name}' of {u.family} is taken by another plug-in")
                register_engine(u.family, u.name, u.fn, u.tasks, u.options, u.description, u.validate,
                                code=f"entry point {ep.name} = {ep.value}")
            except InputError as e:
                problems.append(f"engine {u.family}:{u.name}: {e.message}")
            except Exception as e:  # noqa: BLE001 - e.g. a bad task or option value
                problems.append(f"engine {u.family}:{u.name}: {one_line(e)}")
            else:
                _EP_ENGINES.append((u.family, u.name))
                provided.append(f"{u.family}:{u.name}")
        info = replace(info, provides=tuple(provided), error="; ".join(problems) or None)
        _ENGINE_INFO.append(_skipped(info) if info.error else info)


def family_commands() -> list[tuple[Family, str, Any]]:
    """(family, 'generate' or 'command', the object its 'module:attr' names) for every command
    a family adds to the command line (`Family.commands`, `Family.generate`); a plug-in's that
    cannot be loaded is skipped with one warning line."""
    out = []
    for fam in families().values():
        for kind, target in [("command", t) for t in fam.commands] + (
                [("generate", fam.generate)] if fam.generate else []):
            if not fam.user:
                out.append((fam, kind, resolve(target)))
                continue
            try:
                out.append((fam, kind, resolve(target)))
            except (Exception, SystemExit) as e:  # noqa: BLE001 - contained
                _report(f"plug-in family '{fam.name}': its {kind} command {target} skipped: "
                        f"failed to load: {one_line(e)}")
    return out


def is_user_spec(name: str) -> bool:
    """True for `path/to/file.py:function` and `package.module:function` engine specs."""
    mod, colon, fn = name.rpartition(":")
    return bool(colon and fn.isidentifier() and (mod.endswith(".py") or "/" in mod or "." in mod))


def spec_code(name: str) -> str:
    """What a user engine spec would run, in words (without loading it): 'the Python file
    my.py (function run)' or 'the Python module my_pkg.models (function run)'."""
    mod, _, fn = name.rpartition(":")
    kind = "file" if mod.endswith(".py") or "/" in mod or "\\" in mod else "module"
    return f"the Python {kind} {mod} (function {fn})"


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
        if spec is None or spec.loader is None:  # a suffix Python does not import (.txt)
            raise InputError(f"engine file {path}: not a Python module (a .py file)")
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
    tasks = tuple(Task(t) for t in attr("TASKS", declared_tasks(fam.tasks)))
    declared = attr("OPTIONS")
    opts = tuple(Option(k, v) for k, v in (declared or {}).items())
    return with_unique(Engine(spec, fn, tasks, opts, (fn.__doc__ or "").strip().split("\n")[0], (),
                              attr("VALIDATE"), user=True, free_options=declared is None,
                              code=spec_code(spec)))


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
