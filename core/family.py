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
             infeasible_reason, SUFFIXES (optional)
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
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Hashable, Mapping, Protocol, runtime_checkable

from .result import CheckError, InputError, Task


@runtime_checkable
class Puzzle(Protocol):
    """What a family's puzzle module (or object) provides. Instances are immutable values
    (frozen dataclasses with a `name`); solutions are plain picklable values of the family's
    own type, with a JSON form that `solution_json` / `solution_from_json` convert."""

    KIND: str                      # the TOML `kind` of its instance files, e.g. "peg"
    SENSE: str | None              # "min" | "max": direction of the objective; None: no objective

    def catalogue(self) -> Mapping[str, Callable[[], Any]]:
        """The built-in instances by short name (each a function that builds one)."""

    def from_toml(self, data: dict, src: Any) -> Any:
        """The instance a TOML table describes; InputError naming the field (`src.error(...)`)."""

    def check(self, instance: Any, solution: Any) -> int | None:
        """The independent checker: CheckError on any broken rule, else the objective value
        recomputed from the solution (None where there is no objective). Shares no code with
        any engine."""

    def solution_json(self, instance: Any, solution: Any) -> dict:
        """The solution as a JSON-able dict (what `solve --json` prints)."""

    def solution_from_json(self, instance: Any, data: dict) -> Any:
        """The solution a JSON dict describes (the inverse of solution_json); CheckError when
        malformed (a user engine's bad answer is a failed solution, not a crash)."""

    def describe(self, instance: Any) -> dict:
        """A JSON-able summary of the instance ({"name": ..., ...}) for `show`, `list`, reports."""

    # optional members (the Family record supplies the defaults):
    #   solution_key(instance, solution, **identity) -> Hashable   a solution's identity (default:
    #       its JSON form); identity options (e.g. up_to_symmetry) come from the engine's options
    #   render(instance, solution=None) -> str      text picture (default: the JSON summary)
    #   svg(instance, solution=None) -> str         SVG picture (default: none, `show --svg` refuses)
    #   infeasible_reason(instance) -> str | None   an invariant proving "no solution" at once
    #   check_infeasible(instance) -> (format, None | why not)   the independent check of that
    #       invariant claim (beside the checker; certify=True): None = VERIFIED, else REJECTED
    #   SUFFIXES: {".txt": parse(path, text)}       other instance file formats
    #   to_toml(instance) -> str                    the instance as TOML text that from_toml reads
    #       back to an equal instance: how a campaign job carries its instance to the job
    #       process (never a pickle); without it the job re-loads the instance from its source


REQUIRED = ("KIND", "SENSE", "catalogue", "from_toml", "check", "solution_json",
            "solution_from_json", "describe")
OPTIONAL = ("solution_key", "render", "svg", "infeasible_reason", "check_infeasible", "SUFFIXES",
            "to_toml")


def resolve(target: str | Callable) -> Callable:
    """The function a 'module:function' target names (imported now), or the callable itself."""
    if callable(target):
        return target
    mod, _, fn = target.rpartition(":")
    return getattr(importlib.import_module(mod), fn)


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
    choices: tuple | None = None
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

    `formulation` (CP-SAT and SAT engines whose model is a models.formulation.Formulation) is the
    engine's formulation hook, 'module:function' with signature (instance, task, options, bound)
    -> models._ext.Decision: what `export`, `stats`, `lab` sizes, `ext:dimacs` and
    `puzzlesat.model` read. A family whose `sat…` engine has one gets an `ext:dimacs` engine.
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
    code: str = ""

    def function(self) -> Callable:
        """The engine's run function (imported on first use)."""
        return resolve(self.target)

    def validator(self) -> Callable:
        """The engine's validation function (imported on first use)."""
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
            out[k] = known[k].parse(v, self.name)
            if known[k].available is not None:
                known[k].available(out[k], self.name)
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
    @property
    def module(self) -> Any:
        """The puzzle module or object (an import path is imported on first use)."""
        p = self.puzzle
        return importlib.import_module(p) if isinstance(p, str) else p

    @property
    def kind(self) -> str:
        return self.module.KIND

    @property
    def sense(self) -> str | None:
        return getattr(self.module, "SENSE", None)

    @property
    def suffixes(self) -> Mapping[str, Callable]:
        return getattr(self.module, "SUFFIXES", None) or {}

    def catalogue(self) -> Mapping[str, Callable[[], Any]]:
        return self.module.catalogue()

    def from_toml(self, data: dict, src: Any) -> Any:
        return self.module.from_toml(data, src)

    def check(self, instance: Any, solution: Any) -> int | None:
        return self.module.check(instance, solution)

    def solution_json(self, instance: Any, solution: Any) -> dict:
        return self.module.solution_json(instance, solution)

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
        fn = getattr(self.module, "solution_key", None)
        if fn is not None:
            return fn(instance, solution, **identity)
        return json.dumps(self.solution_json(instance, solution), sort_keys=True, default=str)

    def describe(self, instance: Any) -> dict:
        return self.module.describe(instance)

    def render(self, instance: Any, solution: Any = None) -> str:
        fn = getattr(self.module, "render", None)
        if fn is not None:
            return fn(instance, solution)
        d = self.describe(instance)
        text = "\n".join(f"{k}: {v}" for k, v in d.items())
        if solution is not None:
            text += "\nsolution: " + json.dumps(self.solution_json(instance, solution))
        return text

    def has_svg(self) -> bool:
        return getattr(self.module, "svg", None) is not None

    def svg(self, instance: Any, solution: Any = None) -> str:
        """The instance (and a checked solution) drawn as SVG text; InputError if the family
        draws no pictures."""
        fn = getattr(self.module, "svg", None)
        if fn is None:
            raise InputError(f"family {self.name} draws no pictures (its puzzle has no svg)")
        return fn(instance, solution)

    def to_toml(self, instance: Any) -> str | None:
        """The instance as TOML text its `from_toml` reads back (None: the puzzle gives none)."""
        fn = getattr(self.module, "to_toml", None)
        return fn(instance) if fn is not None else None

    def infeasible_reason(self, instance: Any) -> str | None:
        fn = getattr(self.module, "infeasible_reason", None)
        return fn(instance) if fn is not None else None

    def owns(self, instance: Any) -> bool:
        """Is `instance` one of this family's (its class defined in the puzzle's module, or an
        instance of a type in the puzzle's optional INSTANCE_TYPES)?"""
        mod = self.module
        types = getattr(mod, "INSTANCE_TYPES", ())
        if types and isinstance(instance, tuple(types)):
            return True
        name = mod.__name__ if isinstance(mod, ModuleType) else type(mod).__module__
        return type(instance).__module__ == name

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
    except ImportError as e:
        return [f"family {fam.name}: puzzle {fam.puzzle!r} cannot be imported ({e})"]
    for m in REQUIRED:
        if not hasattr(mod, m):
            problems.append(f"family {fam.name}: the puzzle lacks '{m}'")
    if problems:
        return problems
    if not isinstance(mod.KIND, str) or not mod.KIND:
        problems.append(f"family {fam.name}: KIND must be a non-empty string")
    if mod.SENSE not in ("min", "max", None):
        problems.append(f"family {fam.name}: SENSE must be 'min', 'max' or None")
    if not fam.tasks or not all(isinstance(t, Task) for t in fam.tasks):
        problems.append(f"family {fam.name}: tasks must be a non-empty tuple of Task")
    if mod.SENSE is None and Task.OPTIMIZE in fam.tasks:
        problems.append(f"family {fam.name}: task optimize needs a SENSE")
    names: set[str] = set()
    for e in fam.engines:
        if not isinstance(e, Engine):
            problems.append(f"family {fam.name}: engine {e!r} is not an Engine")
            continue
        for n in (e.name, *e.aliases):
            if n in names:
                problems.append(f"family {fam.name}: engine name '{n}' used twice")
            names.add(n)
        if not set(e.tasks) <= set(fam.tasks):
            problems.append(f"family {fam.name}: engine {e.name} does tasks the family does not have")
    return problems


__all__ = ["Puzzle", "Option", "Engine", "Family", "UserEngine", "check_family", "resolve",
           "REQUIRED", "OPTIONAL"]
