"""The engine registry: families, their engines by name, and each engine's recorded options.

A family is a puzzle module in `puzzles/` plus its engine table in `compare/engines/<family>.py`
(a module-level `FAMILY = Family(...)`). Engines are named `native`, `cpsat`, `sat` (the family's
defaults) or longer (`native:iddfs`, `sat:time`); an engine's function is imported only when it
runs, so listing engines never loads a solver.

User engines join the same tables three ways: `register_engine(...)` in Python, a spec
`path/to/file.py:function` or `package.module:function` wherever an engine name is accepted, and
the `puzzlesat.engines` entry-point group of installed plug-ins (each entry point loads a
`UserEngine` or a list of them). Their contract is `puzzlesat.engine`.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable

from puzzlesat.puzzles.core import InputError, Task

FAMILY_MODULES = ("peg", "pentomino", "sliding", "maze")


@dataclass(frozen=True)
class Option:
    """One engine option: its type, default and allowed values; recorded with every result.

    `flag`: the CLI also offers it as `--name` (a boolean as a switch, otherwise taking a value),
    besides `-o name=value`. `identity`: solutions are told apart by the family's
    `solution_key(instance, solution, **{name: value})` (e.g. up_to_symmetry: one per orbit)."""

    name: str
    default: Any
    help: str = ""
    choices: tuple | None = None
    check: Callable[[Any, str], None] | None = None  # raises InputError for a bad value (pure)
    flag: bool = False
    identity: bool = False
    # the value's needs on this machine (a program on PATH): checked before the engine runs, and at
    # resolution only for a value the user gave, so resolving defaults never looks at the machine
    available: Callable[[Any, str], None] | None = None

    def parse(self, raw: Any, engine: str) -> Any:
        """`raw` (a CLI string or a Python value) converted to this option's type, or InputError."""
        kind = type(self.default)
        v = raw
        if isinstance(raw, str) and kind is not str:
            try:
                if kind is bool:
                    low = raw.lower()
                    if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError
                    v = low in ("1", "true", "yes", "on")
                else:
                    v = kind(raw)
            except ValueError:
                raise InputError(f"option {self.name}={raw!r} of engine {engine}: "
                                 f"expected {kind.__name__}") from None
        elif kind is float and isinstance(raw, int) and not isinstance(raw, bool):
            v = float(raw)
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise InputError(f"option {self.name}={raw!r} of engine {engine}: expected {kind.__name__}")
        if self.choices is not None and v not in self.choices:
            raise InputError(f"option {self.name}={v!r} of engine {engine}: choose one of "
                             + ", ".join(map(str, self.choices)))
        if self.check is not None:
            self.check(v, engine)
        return v


@dataclass(frozen=True)
class Engine:
    """A named engine: `target` is 'module:function' (or the function itself, for user engines)
    with signature (instance, task, ctx) -> Outcome. `validate` ('module:function', optional)
    takes (instance, options) and raises InputError for a combination the engine cannot run, so
    that bad input is refused before anything runs. `free_options`: a user engine loaded from a
    spec accepts any `-o key=value` (passed as strings).

    `formulation` (CP-SAT and SAT engines whose model is a models.formulation.Formulation) is the
    engine's formulation hook, 'module:function' with signature (instance, task, options, bound)
    -> models._ext.Decision: what `export`, `stats`, `lab`, `ext:dimacs` and `puzzlesat.model`
    read. A family whose `sat…` engine has one gets an `ext:dimacs` engine automatically (see
    `families`).
    """

    name: str
    target: str | Callable
    tasks: tuple[Task, ...]
    options: tuple[Option, ...] = ()
    description: str = ""
    aliases: tuple[str, ...] = ()
    validate: str | Callable | None = None
    user: bool = False
    free_options: bool = False
    formulation: str | None = None

    def check_available(self, options: dict[str, Any]) -> None:
        """InputError when a resolved option value needs something this machine lacks (e.g. an
        external solver not on PATH); run before the engine runs, never by option resolution."""
        for o in self.options:
            if o.available is not None and o.name in options:
                o.available(options[o.name], self.name)

    def function(self) -> Callable:
        """The engine's run function (imported on first use)."""
        return _resolve_target(self.target)

    def validator(self) -> Callable:
        """The engine's validation function (imported on first use)."""
        return _resolve_target(self.validate)

    def resolve_options(self, given: dict[str, Any] | None, task: Task | None = None) -> dict[str, Any]:
        """Every option of this engine with its value: defaults overridden by `given` (validated);
        with `task` COUNT, a non-incremental SAT solver is refused (enumeration needs one)."""
        known = {o.name: o for o in self.options}
        out = {o.name: o.default for o in self.options}
        for k, v in (given or {}).items():
            if k not in known and self.free_options:
                out[k] = v
                continue
            if k not in known:
                raise InputError(f"unknown option '{k}' for engine {self.name}; known: "
                                 + (", ".join(sorted(known)) or "none"))
            out[k] = known[k].parse(v, self.name)
            if known[k].available is not None:
                known[k].available(out[k], self.name)
        for o in self.options:
            if o.check is not None and o.name not in (given or {}):
                o.check(out[o.name], self.name)
        if task is Task.COUNT and out.get("solver") in SAT_NON_INCREMENTAL:
            raise InputError(f"engine {self.name}: SAT solver '{out['solver']}' is not incremental; "
                             "counting adds blocking clauses between calls: choose one of "
                             + ", ".join(s for s in SAT_SOLVERS if s not in SAT_NON_INCREMENTAL))
        return out


@dataclass(frozen=True)
class Family:
    """A puzzle family: its puzzle module (rules, parser, checker) and its engines."""

    name: str
    module: str  # e.g. "puzzlesat.puzzles.peg"
    engines: tuple[Engine, ...]
    description: str = ""
    tasks: tuple[Task, ...] = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
    default_engines: tuple[str, ...] = ("native", "cpsat", "sat")
    extra: dict = field(default_factory=dict)

    @property
    def puzzle(self) -> ModuleType:
        """The family's puzzle module (see puzzles/__init__.py for what it provides)."""
        return importlib.import_module(self.module)

    def all_engines(self) -> tuple[Engine, ...]:
        """The built-in engines, then the user engines registered for this family."""
        return self.engines + tuple(user_engines(self.name))

    def engine(self, name: str) -> Engine:
        """The engine called `name` (or one of its aliases, or a user spec `file.py:function` /
        `package.module:function`); InputError naming the known ones."""
        for e in self.all_engines():
            if name == e.name or name in e.aliases:
                return e
        if is_user_spec(name):
            return load_user_engine(self, name)
        raise InputError(f"unknown engine '{name}' for {self.name}; known: "
                         + ", ".join(self.engine_names()))

    def engine_names(self) -> list[str]:
        return [n for e in self.all_engines() for n in (*e.aliases, e.name)]


def _resolve_target(target: str | Callable) -> Callable:
    if callable(target):
        return target
    mod, _, fn = target.rpartition(":")
    if mod.endswith(".py") or "/" in mod or "\\" in mod:
        return getattr(_load_file(mod), fn)
    return getattr(importlib.import_module(mod), fn)


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


@dataclass(frozen=True)
class UserEngine:
    """A user's engine for `register_engine` and the `puzzlesat.engines` entry-point group.

    `fn(instance, task, ctx) -> Outcome` (see `puzzlesat.engine`); `tasks` the tasks it does
    (default: all of the family's); `options` maps option names to defaults (their type is the
    default's type) or is a sequence of `Option`."""

    family: str
    name: str
    fn: Callable | str
    tasks: tuple[str, ...] | None = None
    options: dict[str, Any] | tuple[Option, ...] = ()
    description: str = ""
    validate: Callable | str | None = None


_USER: dict[str, dict[str, Engine]] = {}
_ENTRY_POINTS_LOADED = False


def register_engine(family_name: str, name: str, fn: Callable | str,
                    tasks: Iterable[Task | str] | None = None,
                    options: dict[str, Any] | Iterable[Option] = (), description: str = "",
                    validate: Callable | str | None = None) -> Engine:
    """Add a user engine to `family_name` under `name` (replacing a user engine of that name).

    >>> from puzzlesat.puzzles.core import Outcome, Status
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
    if isinstance(options, dict):
        opts = tuple(Option(k, v) for k, v in options.items())
    else:
        opts = tuple(options)
    eng = Engine(name, fn, ts, opts, description or getattr(fn, "__doc__", "") or "", (),
                 validate, user=True)
    _USER.setdefault(fam.name, {})[name] = eng
    return eng


def unregister_engine(family_name: str, name: str) -> None:
    """Remove a user engine (no error if it is not there)."""
    _USER.get(family_name, {}).pop(name, None)


def user_engines(family_name: str) -> list[Engine]:
    """The user engines registered for a family (entry points loaded on first call)."""
    _load_entry_points()
    return list(_USER.get(family_name, {}).values())


def _load_entry_points() -> None:
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED = True
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


def load_user_engine(fam: Family, spec: str) -> Engine:
    """The engine a spec names, loaded now (so a missing file or function is bad input). `TASKS`,
    `OPTIONS` (name -> default) and `VALIDATE` are read from the function, else from its module;
    without OPTIONS any `-o` is accepted (as a string)."""
    fn = _safe_target(spec)
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


def _safe_target(spec: str):
    try:
        return _resolve_target(spec)
    except InputError:
        raise
    except ImportError as e:
        raise InputError(f"engine '{spec}': cannot import {spec.rpartition(':')[0]} ({e})") from None
    except AttributeError:
        return None


def flag_options() -> dict[str, Option]:
    """The options every family's engines offer as CLI flags, by name (first declaration wins)."""
    out: dict[str, Option] = {}
    for fam in families().values():
        for e in fam.engines:
            for o in e.options:
                if o.flag:
                    out.setdefault(o.name, o)
    return out


def identity_options(eng: Engine, options: dict[str, Any]) -> dict[str, Any]:
    """The option values that decide when two solutions of `eng` are the same (for solution_key)."""
    return {o.name: options[o.name] for o in eng.options if o.identity and o.name in options}


@cache
def families() -> dict[str, Family]:
    """Every registered family by name."""
    out = {}
    for m in FAMILY_MODULES:
        fam = importlib.import_module(f"puzzlesat.compare.engines.{m}").FAMILY
        out[fam.name] = with_ext(fam)
    return out


EXT_ENGINE = "ext:dimacs"


def with_ext(fam: Family) -> Family:
    """`fam` plus an `ext:dimacs` engine when one of its SAT engines has a formulation hook: the same
    decision formulation (and the SAT engine's model options) solved by an external DIMACS solver."""
    sat = next((e for e in fam.engines if e.formulation and e.name.split(":")[0] == "sat"), None)
    if sat is None or any(e.name == EXT_ENGINE for e in fam.engines):
        return fam
    from puzzlesat.models._ext import check_command, check_command_syntax
    ext = Engine(
        EXT_ENGINE, "puzzlesat.models._ext:run", tuple(t for t in sat.tasks if t is not Task.COUNT),
        options=(Option("cmd", "cadical -q", "external DIMACS solver command ({cnf}, {model}: file "
                        "placeholders; else the CNF path is appended)", check=check_command_syntax,
                        available=check_command),
                 Option("formulation", sat.formulation, f"the formulation hook (that of {sat.name})",
                        (sat.formulation,)),
                 *(o for o in sat.options if o.name != "solver")),
        description=f"the {sat.name} formulation as DIMACS, solved by an external program; "
                    "its model is checked against every clause, then decoded",
        formulation=sat.formulation)
    return replace(fam, engines=(*fam.engines, ext))


def family(name: str) -> Family:
    """The family called `name`, or InputError."""
    fams = families()
    if name not in fams:
        raise InputError(f"unknown puzzle family '{name}'; known: " + ", ".join(fams))
    return fams[name]


def family_of_kind(kind: str) -> Family:
    """The family whose puzzle module has KIND == kind."""
    for f in families().values():
        if f.puzzle.KIND == kind:
            return f
    raise InputError(f"unknown kind '{kind}'; known: " + ", ".join(f.puzzle.KIND for f in families().values()))


# Options shared by every CP-SAT engine and every SAT engine (each engine adds its own).
CPSAT_OPTIONS = (
    Option("workers", 1, "CP-SAT num_workers (enumeration always uses 1: more workers drop solutions)"),
    Option("linearization_level", 0, "CP-SAT linearization_level (0 measured far better here)"),
    Option("seed", 0, "CP-SAT random_seed"),
)
from puzzlesat.models._sat import NON_INCREMENTAL as SAT_NON_INCREMENTAL  # noqa: E402
from puzzlesat.models._sat import SOLVERS as SAT_SOLVERS  # noqa: E402  (one list: what python-sat ships)
SAT_ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk",
                 "pairwise", "ladder", "bitwise")
SAT_OPTIONS = (
    Option("solver", "cadical195", "python-sat solver", SAT_SOLVERS),
    Option("encoding", "seqcounter", "cardinality encoding (pysat.card.EncType name); pairwise, "
           "ladder and bitwise encode at-most-one only", SAT_ENCODINGS),
)
