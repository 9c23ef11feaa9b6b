"""The family contract: what a puzzle family gives puzzlesat, and how it declares its engines.

A family is a `Family` record: a name, a *puzzle* (a module, or any object, with the members of
the `Puzzle` protocol below), its engines (`Engine` entries naming their run functions as
'module:function' strings, so listing engines imports no solver), its tasks (the first is the
default) and its default engines for `compare`. The four built-in families are declared in
`puzzlesat.families.<name>`; a plug-in family is the same record, found through the
`puzzlesat.families` entry-point group or given to `puzzlesat.register_family` at run time.
Every layer above reaches a family's puzzle through the record's methods (`fam.check(...)`,
`fam.svg(...)`, `fam.solution_from_json(...)`), which supply the defaults of the optional
members; nothing family-specific sits in a central list.

    Puzzle   the protocol: KIND, SENSE, catalogue, from_toml, check, solution_json,
             solution_from_json, describe (required); solution_key, render, svg,
             infeasible_reason, check_infeasible, SUFFIXES, COLLECTIONS, INSTANCE_TYPES,
             to_toml (optional)
    Option   one engine option: type (by its default), allowed values, checks; recorded
    Engine   a named engine: run target, tasks, options, formulation hook
    Family   the record tying a puzzle to its engines
    UserEngine  an engine given by a user (register_engine, entry points)
    check_family  what a family record lacks or gets wrong (used on registration and by a test)

docs/adding-a-family.md walks through a family from scratch; examples/nqueens is the template to copy.
"""
from __future__ import annotations

import importlib
import json
import weakref
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Callable, Hashable, Mapping, Protocol, runtime_checkable

from .result import CheckError, InputError, PluginError, Task, one_line


@runtime_checkable
class Puzzle(Protocol):
    """What a family's puzzle module (or object) provides. Instances are immutable values
    (frozen dataclasses with a `name`); solutions are plain picklable values of the family's
    own type, with a JSON form that `solution_json` / `solution_from_json` convert."""

    KIND: str                      # the TOML `kind` of its instance files, e.g. "peg"
    SENSE: str | None              # "min" | "max": direction of the objective; None: no objective

    def catalogue(self) -> Mapping[str, Callable[[], Any]]:
        """The built-in instances by short name (each a function that builds one)."""

    def from_toml(self, data: dict[str, Any], src: Any) -> Any:
        """The instance a TOML table describes; InputError naming the field (`src.error(...)`)."""

    def check(self, instance: Any, solution: Any) -> int | None:
        """The independent checker: CheckError on any broken rule, else the objective value
        recomputed from the solution (None where there is no objective). Shares no code with
        any engine."""

    def solution_json(self, instance: Any, solution: Any) -> dict[str, Any]:
        """The solution as a JSON-able dict (what `solve --json` prints)."""

    def solution_from_json(self, instance: Any, data: dict[str, Any]) -> Any:
        """The solution a JSON dict describes (the inverse of solution_json); CheckError when
        malformed (a user engine's bad answer is a failed solution, not a crash)."""

    def describe(self, instance: Any) -> dict[str, Any]:
        """A JSON-able summary of the instance ({"name": ..., ...}) for `show`, `list`, reports."""

    # optional members (the Family record supplies the defaults):
    #   solution_key(instance, solution, **identity) -> Hashable   a solution's identity (default:
    #       its JSON form); identity options (e.g. up_to_symmetry) come from the engine's options
    #   render(instance, solution=None) -> str      text picture (default: the JSON summary)
    #   svg(instance, solution=None) -> str         SVG picture (default: none, `show --svg` refuses)
    #   infeasible_reason(instance) -> str | None   an invariant proving "no solution" at once
    #   check_infeasible(instance) -> (format, None | why not)   the independent check of that
    #       invariant claim (beside the checker; certify=True): None = VERIFIED, else REJECTED
    #   SUFFIXES: {".txt": parse(path, text)}       other instance file formats (one instance)
    #   COLLECTIONS: {".sdm": parse(line, src)}     collection files, one instance a line:
    #       `src` is the line's Source (name FILE#LINE, its line number); None: the line holds
    #       no instance (a comment); a bad line: src.error(...) names the file and line
    #   INSTANCE_TYPES: (cls, ...)                   the instance classes, when they are not all
    #       defined in the puzzle's module (ownership of an instance built by hand)
    #   to_toml(instance) -> str                    the instance as TOML text that from_toml reads
    #       back to an equal instance: how a campaign job carries its instance to the job
    #       process (never a pickle); without it the job re-loads the instance from its source


REQUIRED = ("KIND", "SENSE", "catalogue", "from_toml", "check", "solution_json",
            "solution_from_json", "describe")
OPTIONAL = ("solution_key", "render", "svg", "infeasible_reason", "check_infeasible", "SUFFIXES",
            "COLLECTIONS", "INSTANCE_TYPES", "to_toml")


def resolve(target: str | Callable[..., Any]) -> Callable[..., Any]:
    """The function a 'module:function' target names (imported now), or the callable itself."""
    if callable(target):
        return target
    mod, _, name = target.rpartition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(mod), name)
    return fn


@dataclass(frozen=True)
class Option:
    """One engine option: its type (that of its default), allowed values and checks; recorded
    with every result.

    `check(value, engine)` validates a value (pure: raises InputError); `available(value,
    engine)` checks what the value needs on this machine (a program on PATH): run before the
    engine runs, and at resolution only for a value the user gave. `task_check(value, task,
    engine)` refuses a value for a task (a non-incremental SAT solver cannot count). `flag`: the
    CLI also offers it as `--name`. `identity`: solutions are told apart by the family's
    `solution_key(instance, solution, **{name: value})` (e.g. up_to_symmetry: one per orbit).
    `since`: the version that added the option (empty: 0.2 or before); at its default such an
    option stays out of campaign job keys, so a store written before it still resumes."""

    name: str
    default: Any
    help: str = ""
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any, str], None] | None = None
    flag: bool = False
    identity: bool = False
    available: Callable[[Any, str], None] | None = None
    task_check: Callable[[Any, Task, str], None] | None = None
    since: str = ""

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

    def allowed(self) -> str:
        """The allowed values in words (for `engines --verbose`)."""
        if self.choices is not None:
            return " | ".join(map(str, self.choices))
        return {bool: "true | false", int: "an integer", float: "a number", str: "text"}.get(
            type(self.default), type(self.default).__name__)


@dataclass(frozen=True)
class Engine:
    """A named engine: `target` is 'module:function' (or the function itself, for user engines)
    with signature (instance, task, ctx) -> Outcome. `validate` ('module:function', optional)
    takes (instance, options) and raises InputError for a combination the engine cannot run, so
    that bad input is refused before anything runs. `free_options`: a user engine loaded from a
    spec accepts any `-o key=value` (passed as strings). `user`: not shipped with puzzlesat;
    `code` then says where its code comes from (a file, a module, an entry point), for the
    code-by-opt-in policy (compare/plan.py) and the store's `user_code` column.

    `counter`: the engine counts without listing the solutions (a frontier count, a model
    counter): its count is not backed by checked solutions, so the runner takes it as the
    engine's claim and `compare` calls an answer that rests on it alone UNCHECKED, never AGREE.

    `formulation` (CP-SAT and SAT engines whose model is a models.formulation.Formulation) is the
    engine's formulation hook, 'module:function' with signature (instance, task, options, bound)
    -> models._ext.Decision: what `export`, `stats`, `lab` sizes, `ext:dimacs` and
    `puzzlesat.model` read. A family whose `sat…` engine has one gets an `ext:dimacs` engine.

    `preload`: modules the run function imports when it runs (a search it calls lazily, a solver
    library): the runner imports them in the engine's worker, and loads the numba kernels they
    and the target's module define from numba's cache, before the engine's clock starts — so
    `Result.seconds` is the engine's own work and `startup_seconds` the loading. A run that still
    imports a module says so in `stats["imports_in_call"]`.
    """

    name: str
    target: str | Callable[..., Any]
    tasks: tuple[Task, ...]
    options: tuple[Option, ...] = ()
    description: str = ""
    aliases: tuple[str, ...] = ()
    validate: str | Callable[..., Any] | None = None
    user: bool = False
    free_options: bool = False
    formulation: str | None = None
    code: str = ""
    preload: tuple[str, ...] = ()
    unique_from_count: bool = False  # task unique answered by the runner from this engine's count
    counter: bool = False  # counts without listing the solutions: its count is a claim to cross-validate

    def function(self) -> Callable[..., Any]:
        """The engine's run function (imported on first use)."""
        return resolve(self.target)

    def validator(self) -> Callable[..., Any]:
        """The engine's validation function (imported on first use); callers look at
        `validate` first (an engine without one has nothing to call)."""
        if self.validate is None:
            raise LookupError(f"engine {self.name} has no validate function")
        return resolve(self.validate)

    def option(self, name: str) -> Option | None:
        """The option called `name`, or None."""
        return next((o for o in self.options if o.name == name), None)

    def resolve_options(self, given: dict[str, Any] | None, task: Task | None = None) -> dict[str, Any]:
        """Every option of this engine with its value: defaults overridden by `given` (each
        validated). Pure: looks at nothing on the machine except for a value the user gave."""
        known = {o.name: o for o in self.options}
        out = {o.name: o.default for o in self.options}
        for k, v in (given or {}).items():
            if k not in known and self.free_options:
                out[k] = v
                continue
            if k not in known:
                raise InputError(f"unknown option '{k}' for engine {self.name}; known: "
                                 + (", ".join(sorted(known)) or "none"))
            opt = known[k]
            out[k] = opt.parse(v, self.name)
            if opt.available is not None:
                opt.available(out[k], self.name)
        for o in self.options:
            if o.check is not None and o.name not in (given or {}):
                o.check(out[o.name], self.name)
            if o.task_check is not None and task is not None:
                o.task_check(out[o.name], task, self.name)
        return out

    def check_available(self, options: dict[str, Any]) -> None:
        """InputError when a resolved option value needs something this machine lacks (e.g. an
        external solver not on PATH); run before the engine runs, never by option resolution."""
        for o in self.options:
            if o.available is not None and o.name in options:
                o.available(options[o.name], self.name)

    def identity(self, options: dict[str, Any]) -> dict[str, Any]:
        """The option values that decide when two solutions are the same (for solution_key)."""
        return {o.name: options[o.name] for o in self.options if o.identity and o.name in options}


def with_unique(e: Engine) -> Engine:
    """`e` doing task unique too, derived from its count (`unique_from_count`: the runner asks it
    to count and stops it at the second distinct solution), when it counts and does not declare
    unique itself."""
    if Task.COUNT in e.tasks and Task.UNIQUE not in e.tasks and not e.counter:
        return replace(e, tasks=(*e.tasks, Task.UNIQUE), unique_from_count=True)
    return e


def declared_tasks(tasks: tuple[Task, ...]) -> tuple[Task, ...]:
    """A family's tasks as an engine that declares nothing more does them: without unique (which
    `with_unique` derives from count)."""
    return tuple(t for t in tasks if t is not Task.UNIQUE)


@dataclass(frozen=True)
class Family:
    """A puzzle family: its puzzle (module, import path, or object with the Puzzle members) and
    its engines. `tasks`: the first is the default everywhere. `streamed_count`: count engines
    stream their solutions and the runner keeps a checked tally instead of every solution.
    `commands` / `generate`: 'module:attr' of click commands the CLI adds (optional)."""

    name: str
    puzzle: Any
    engines: tuple[Engine, ...]
    description: str = ""
    tasks: tuple[Task, ...] = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
    default_engines: tuple[str, ...] = ("native", "cpsat", "sat")
    streamed_count: bool = False
    commands: tuple[str, ...] = ()
    generate: str | None = None
    user: bool = False  # a plug-in (not shipped with puzzlesat)
    code: str = ""      # a plug-in: where its code comes from (entry point, module)

    # ---- the puzzle, with the defaults of its optional members --------------------------------
    # Every call into the puzzle goes through `_call`: for a plug-in family (user=True) an
    # exception the contract does not allow becomes one PluginError naming the family, the member
    # and what it raised; a built-in family's exceptions propagate as they are (our own bugs).
    def _call(self, what: str, fn: Callable[..., Any], *args: Any,
              allowed: tuple[type[BaseException], ...] = (), **kw: Any) -> Any:
        if not self.user:
            return fn(*args, **kw)
        try:
            return fn(*args, **kw)
        except allowed:
            raise
        except Exception as e:  # noqa: BLE001 - someone else's code: contained, named
            raise plugin_error(self, what, e) from None

    @property
    def module(self) -> Any:
        """The puzzle module or object (an import path is imported on first use)."""
        p = self.puzzle
        if not isinstance(p, str):
            return p
        try:
            return importlib.import_module(p)
        except Exception as e:  # noqa: BLE001 - a plug-in's import: contained, named
            if not self.user:
                raise
            raise plugin_error(self, "its puzzle module's import", e) from None

    def _member(self, name: str, default: Any = None) -> Any:
        return self._call(f"reading {name}", getattr, self.module, name, default)

    @property
    def kind(self) -> str:
        kind: str = self._member("KIND")  # a string: check_family checks it
        return kind

    @property
    def sense(self) -> str | None:
        sense: str | None = self._member("SENSE")  # "min", "max" or None: check_family checks it
        return sense

    @property
    def suffixes(self) -> Mapping[str, Callable[..., Any]]:
        """The puzzle's other single-instance file formats: {suffix: parse(path, text)}."""
        table: Mapping[str, Callable[..., Any]] = self._member("SUFFIXES") or {}
        return table

    @property
    def collections(self) -> Mapping[str, Callable[..., Any]]:
        """The puzzle's collection formats, one instance a line: {suffix: parse(line, src)}."""
        table: Mapping[str, Callable[..., Any]] = self._member("COLLECTIONS") or {}
        return table

    def catalogue(self) -> Mapping[str, Callable[[], Any]]:
        """The built-in instances by short name, each a function building it (the instances
        it builds are recorded as this family's: `family_of` needs no guess)."""
        cat = self._call("catalogue", lambda: dict(self.module.catalogue()))
        return {k: self._maker(k, make) for k, make in cat.items()}

    def _maker(self, short: str, make: Callable[[], Any]) -> Callable[[], Any]:
        def build() -> Any:
            return record(self._call(f"catalogue entry '{short}'", make, allowed=(InputError,)), self)
        build.__doc__ = getattr(make, "__doc__", None)
        return build

    def from_toml(self, data: dict[str, Any], src: Any) -> Any:
        return record(self._call("from_toml", self.module.from_toml, data, src, allowed=(InputError,)),
                      self)

    def read_file(self, suffix: str, path: Any, text: str) -> Any:
        """The instance of a file in one of the puzzle's SUFFIXES formats; InputError."""
        parse = self.suffixes[suffix]
        return record(self._call(f"the {suffix} reader", parse, path, text, allowed=(InputError,)), self)

    def read_line(self, suffix: str, line: str, src: Any) -> Any:
        """The instance on one line of a collection file (None: the line holds none); InputError."""
        parse = self.collections[suffix]
        got = self._call(f"the {suffix} collection reader", parse, line, src, allowed=(InputError,))
        return None if got is None else record(got, self)

    def check(self, instance: Any, solution: Any) -> int | None:
        value: int | None = self._call("check", self.module.check, instance, solution,
                                       allowed=(CheckError,))
        return value

    def solution_json(self, instance: Any, solution: Any) -> dict[str, Any]:
        data: dict[str, Any] = self._call("solution_json", self.module.solution_json, instance,
                                          solution)
        return data

    def solution_from_json(self, instance: Any, data: Any) -> Any:
        """`data` in the family's own solution type: a JSON dict is converted (CheckError when
        malformed); anything else is taken to be in the family's type already."""
        if not isinstance(data, dict):
            return data
        try:
            return self.module.solution_from_json(instance, data)
        except CheckError:
            raise
        except Exception as e:  # a plug-in's decoder failing on garbage is a failed solution
            raise CheckError(f"malformed {self.name} solution JSON: {type(e).__name__}: {e}") from None

    def solution_key(self, instance: Any, solution: Any, **identity: Any) -> Hashable:
        fn = self._member("solution_key")
        if fn is not None:
            key: Hashable = self._call("solution_key", fn, instance, solution, **identity)
            return key
        return json.dumps(self.solution_json(instance, solution), sort_keys=True, default=str)

    def describe(self, instance: Any) -> dict[str, Any]:
        summary: dict[str, Any] = self._call("describe", self.module.describe, instance)
        return summary

    def render(self, instance: Any, solution: Any = None) -> str:
        fn = self._member("render")
        if fn is not None:
            text: str = self._call("render", fn, instance, solution)
            return text
        d = self.describe(instance)
        text = "\n".join(f"{k}: {v}" for k, v in d.items())
        if solution is not None:
            text += "\nsolution: " + json.dumps(self.solution_json(instance, solution))
        return text

    def has_svg(self) -> bool:
        return self._member("svg") is not None

    def svg(self, instance: Any, solution: Any = None) -> str:
        """The instance (and a checked solution) drawn as SVG text; InputError if the family
        draws no pictures."""
        fn = self._member("svg")
        if fn is None:
            raise InputError(f"family {self.name} draws no pictures (its puzzle has no svg)")
        svg: str = self._call("svg", fn, instance, solution)
        return svg

    def to_toml(self, instance: Any) -> str | None:
        """The instance as TOML text its `from_toml` reads back (None: the puzzle gives none)."""
        fn = self._member("to_toml")
        toml: str | None = self._call("to_toml", fn, instance) if fn is not None else None
        return toml

    def infeasible_reason(self, instance: Any) -> str | None:
        fn = self._member("infeasible_reason")
        return self._call("infeasible_reason", fn, instance) if fn is not None else None

    def check_infeasible(self, instance: Any) -> tuple[str, str | None] | None:
        """The puzzle's independent check of its invariant's INFEASIBLE claim: (format, None when
        it holds, else why not); None when the puzzle has no such check."""
        fn = self._member("check_infeasible")
        return self._call("check_infeasible", fn, instance) if fn is not None else None

    def claims(self, instance: Any) -> bool:
        """Is `instance` of a type this family declares: one of the puzzle's INSTANCE_TYPES, else
        a class defined in the puzzle's module? (Two families may claim one type; `owns` and
        the registry's `family_of` then go by which family produced the instance.)"""
        mod = self.module
        types = self._member("INSTANCE_TYPES") or ()
        if types:
            return isinstance(instance, tuple(types))
        name = mod.__name__ if isinstance(mod, ModuleType) else type(mod).__module__
        return type(instance).__module__ == name

    def owns(self, instance: Any) -> bool:
        """Is `instance` one of this family's: produced by its catalogue or loader (recorded),
        else, for an instance built by hand, of a type it claims (`claims`)?"""
        made = produced_by(instance)
        return made == self.name if made is not None else self.claims(instance)

    # ---- engines --------------------------------------------------------------------------------
    def all_engines(self) -> tuple[Engine, ...]:
        """The family's own engines, then the user engines registered for it."""
        return self.engines + tuple(HOOKS.user_engines(self.name))

    def engine(self, name: str) -> Engine:
        """The engine called `name` (or one of its aliases, or a user spec `file.py:function` /
        `package.module:function`); InputError naming the known ones."""
        for e in self.all_engines():
            if name == e.name or name in e.aliases:
                return e
        found = HOOKS.load_spec(self, name) if HOOKS.load_spec is not None else None
        if found is not None:
            return found
        raise InputError(f"unknown engine '{name}' for {self.name}; known: "
                         + ", ".join(self.engine_names()))

    def engine_names(self) -> list[str]:
        return [n for e in self.all_engines() for n in (*e.aliases, e.name)]


class _Hooks:
    """Where the registry (families layer) plugs in: user engines by family name, and engines
    named by a spec (file.py:function). Core never imports the registry."""

    user_engines: Callable[[str], Any] = staticmethod(lambda name: ())
    load_spec: Callable[[Family, str], Engine | None] | None = None


HOOKS = _Hooks()


def plugin_error(fam: Family, what: str, e: BaseException) -> PluginError:
    """The one-line error for a plug-in family's code that raised `e` in member `what`."""
    where = f" ({fam.code})" if fam.code else ""
    return PluginError(f"plug-in family {fam.name}{where}: {what} raised {one_line(e)}",
                       plugin=fam.name)


# ---- which family produced an instance --------------------------------------------------------
# The loader and the catalogue record the family of every instance they build, by the instance's
# identity (a weak reference: the record goes with the instance). `family_of` asks here first, so
# two families that share an instance class never run each other's engines. An instance built by
# hand, or one that cannot be weakly referenced, is owned by type (Family.claims).
_PRODUCED: dict[int, tuple[Any, str]] = {}   # id(instance) -> (weak reference, family name)


def record(instance: Any, fam: Family) -> Any:
    """Record that `fam` produced `instance` (returned as it is)."""
    key = id(instance)

    def gone(ref: Any, key: int = key) -> None:
        if _PRODUCED.get(key, (None,))[0] is ref:
            _PRODUCED.pop(key, None)
    try:
        ref = weakref.ref(instance, gone)
    except TypeError:  # not weakly referenceable (slots, builtins): owned by type
        return instance
    _PRODUCED[key] = (ref, fam.name)
    return instance


def produced_by(instance: Any) -> str | None:
    """The name of the family whose catalogue or loader produced `instance` (None: not recorded)."""
    entry = _PRODUCED.get(id(instance))
    return entry[1] if entry is not None and entry[0]() is instance else None


@dataclass(frozen=True)
class UserEngine:
    """A user's engine for `register_engine` and the `puzzlesat.engines` entry-point group.

    `fn(instance, task, ctx) -> Outcome` (see `puzzlesat.engine`); `tasks` the tasks it does
    (default: all of the family's); `options` maps option names to defaults (their type is the
    default's type) or is a sequence of `Option`."""

    family: str
    name: str
    fn: Callable[..., Any] | str
    tasks: tuple[str, ...] | None = None
    options: dict[str, Any] | tuple[Option, ...] = ()
    description: str = ""
    validate: Callable[..., Any] | str | None = None


def check_family(fam: Family) -> list[str]:
    """What `fam` lacks or gets wrong against the contract (empty: it conforms). Checks the
    record, the puzzle's required members, and that every built-in instance loads, describes
    itself, and draws when the family says it can."""
    problems: list[str] = []
    if not isinstance(fam, Family):
        return [f"not a puzzlesat Family record: {type(fam).__name__}"]
    if not fam.name or not fam.name.replace("-", "").replace("_", "").isalnum():
        problems.append(f"family name {fam.name!r}: letters, digits, - and _ only")
    try:
        mod = fam.module
    except Exception as e:  # noqa: BLE001 - a plug-in's import: PluginError; ours: ImportError
        return [f"family {fam.name}: puzzle {fam.puzzle!r} cannot be imported ({one_line(e)})"]
    for m in REQUIRED:
        if not hasattr(mod, m):
            problems.append(f"family {fam.name}: the puzzle lacks '{m}'")
    if problems:
        return problems
    readers: dict[str, str] = {}
    for member in ("SUFFIXES", "COLLECTIONS"):
        table = getattr(mod, member, None) or {}
        if not isinstance(table, Mapping) or not all(
                isinstance(k, str) and k.startswith(".") and len(k) > 1 and callable(v)
                for k, v in table.items()):
            problems.append(f"family {fam.name}: {member} must map file suffixes ('.txt') to functions")
            continue
        for k in table:
            if k.lower() == ".toml":
                problems.append(f"family {fam.name}: {member} claims '.toml' (TOML files are read "
                                "by their `kind`)")
            elif k.lower() in readers:
                problems.append(f"family {fam.name}: suffix '{k}' is in both {readers[k.lower()]} "
                                f"and {member}")
            readers[k.lower()] = member
    types = getattr(mod, "INSTANCE_TYPES", None)
    if types is not None and not (isinstance(types, tuple) and all(isinstance(t, type) for t in types)):
        problems.append(f"family {fam.name}: INSTANCE_TYPES must be a tuple of classes")
    if not isinstance(mod.KIND, str) or not mod.KIND:
        problems.append(f"family {fam.name}: KIND must be a non-empty string")
    if mod.SENSE not in ("min", "max", None):
        problems.append(f"family {fam.name}: SENSE must be 'min', 'max' or None")
    if not fam.tasks or not all(isinstance(t, Task) for t in fam.tasks):
        problems.append(f"family {fam.name}: tasks must be a non-empty tuple of Task")
    if mod.SENSE is None and Task.OPTIMIZE in fam.tasks:
        problems.append(f"family {fam.name}: task optimize needs a SENSE")
    names: set[str] = set()
    for eng in fam.engines:
        if not isinstance(eng, Engine):
            problems.append(f"family {fam.name}: engine {eng!r} is not an Engine")
            continue
        for n in (eng.name, *eng.aliases):
            if n in names:
                problems.append(f"family {fam.name}: engine name '{n}' used twice")
            names.add(n)
        if not set(eng.tasks) <= set(fam.tasks):
            problems.append(f"family {fam.name}: engine {eng.name} does tasks the family does not have")
    return problems


__all__ = ["Puzzle", "Option", "Engine", "Family", "UserEngine", "check_family", "resolve",
           "REQUIRED", "OPTIONAL", "with_unique", "declared_tasks"]
