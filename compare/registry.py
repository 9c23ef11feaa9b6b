"""The engine registry: families, their engines by name, and each engine's recorded options.

A family is a puzzle module in `puzzles/` plus its engine table in `compare/engines/<family>.py`
(a module-level `FAMILY = Family(...)`). Engines are named `native`, `cpsat`, `sat` (the family's
defaults) or longer (`native:iddfs`, `sat:time`); an engine's function is imported only when it
runs, so listing engines never loads a solver.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from functools import cache
from types import ModuleType
from typing import Any, Callable

from puzzlesat.puzzles.core import InputError, Task

FAMILY_MODULES = ("peg", "pentomino", "sliding", "maze")


@dataclass(frozen=True)
class Option:
    """One engine option: its type, default and allowed values; recorded with every result."""

    name: str
    default: Any
    help: str = ""
    choices: tuple | None = None
    check: Callable[[Any, str], None] | None = None  # raises InputError for a bad value

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
    """A named engine: `target` is 'module:function' with signature (instance, task, ctx) -> Outcome.

    `formulation` (CP-SAT and SAT engines whose model is a models.formulation.Formulation) is the
    engine's formulation hook, 'module:function' with signature (instance, task, options, bound)
    -> models._ext.Decision: what `export`, `stats`, `lab` and `ext:dimacs` read. A family whose
    `sat…` engine has one gets an `ext:dimacs` engine automatically (see `families`).
    """

    name: str
    target: str
    tasks: tuple[Task, ...]
    options: tuple[Option, ...] = ()
    description: str = ""
    aliases: tuple[str, ...] = ()
    formulation: str | None = None

    def function(self) -> Callable:
        """The engine's run function (imported on first use)."""
        mod, fn = self.target.split(":")
        return getattr(importlib.import_module(mod), fn)

    def resolve_options(self, given: dict[str, Any] | None, task: Task | None = None) -> dict[str, Any]:
        """Every option of this engine with its value: defaults overridden by `given` (validated);
        with `task` COUNT, a non-incremental SAT solver is refused (enumeration needs one)."""
        known = {o.name: o for o in self.options}
        out = {o.name: o.default for o in self.options}
        for k, v in (given or {}).items():
            if k not in known:
                raise InputError(f"unknown option '{k}' for engine {self.name}; known: "
                                 + (", ".join(sorted(known)) or "none"))
            out[k] = known[k].parse(v, self.name)
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

    def engine(self, name: str) -> Engine:
        """The engine called `name` (or one of its aliases); InputError naming the known ones."""
        for e in self.engines:
            if name == e.name or name in e.aliases:
                return e
        raise InputError(f"unknown engine '{name}' for {self.name}; known: "
                         + ", ".join(self.engine_names()))

    def engine_names(self) -> list[str]:
        return [n for e in self.engines for n in (*e.aliases, e.name)]


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
    from puzzlesat.models._ext import check_command
    ext = Engine(
        EXT_ENGINE, "puzzlesat.models._ext:run", tuple(t for t in sat.tasks if t is not Task.COUNT),
        options=(Option("cmd", "cadical -q", "external DIMACS solver command ({cnf}, {model}: file "
                        "placeholders; else the CNF path is appended)", check=check_command),
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
