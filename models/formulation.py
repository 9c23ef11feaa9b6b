"""Formulations as data: every CP-SAT and SAT model of puzzlesat is one `Formulation`.

A formulation names its variables by *domain keys* (`('j', 3, 17)`: jump line 17 at step 3) and
keeps its constraints in named *groups* ("frame axioms", "one jump per step", ...). Two backends
compile it: `to_cnf` (python-sat clauses over an IDPool; cardinality constraints in a PySAT
encoding chosen by name) and `to_cpsat` (a CpModel whose variables carry the same keys). Model
statistics, export, `puzzlesat.model` and the engines all read the same data, so a group's name
in `puzzlesat stats` is the name the model gave it, and decoding is reading true keys back.

Constraint kinds (frozen dataclasses; a literal is `(key, polarity)`):

    Clause(lits)                   OR of literals
    ExactlyOne(keys), AtMostOne(keys)
    AtMost(keys, k), AtLeast(keys, k)      cardinality (CNF: the chosen PySAT encoding)
    Xor(keys, parity)              XOR(keys) == parity (CNF: a Tseitin chain of determined auxiliaries)
    Linear(terms, lo, hi, enforce) lo <= sum(c * x) <= hi whenever every `enforce` literal holds;
                                   terms may use integer variables (CP-SAT only)

Every key is a Boolean variable unless declared with `int_var(key, lb, ub)`.

>>> f = Formulation("demo", "a toy")
>>> f.add("cover", ExactlyOne((("x", 0), ("x", 1), ("x", 2))))
>>> f.add("forbid", Clause(((("x", 0), False),)))
>>> f.projection = (("x", 0), ("x", 1), ("x", 2))
>>> cnf = to_cnf(f, "pairwise")
>>> [g["clauses"] for g in cnf.stats()["groups"].values()]
[4, 1]
>>> sum(1 for _ in cnf.models())
2
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable, Iterator, Sequence

from ..core.result import InputError

Key = Hashable                 # a variable's domain key, e.g. ('j', 3, 17)
Lit = tuple[Key, bool]         # (key, polarity)


@dataclass(frozen=True)
class Clause:
    """OR of `lits`."""
    lits: tuple[Lit, ...]


@dataclass(frozen=True)
class ExactlyOne:
    """Exactly one of `keys` is true."""
    keys: tuple[Key, ...]


@dataclass(frozen=True)
class AtMostOne:
    """At most one of `keys` is true."""
    keys: tuple[Key, ...]


@dataclass(frozen=True)
class AtMost:
    """At most `k` of `keys` are true."""
    keys: tuple[Key, ...]
    k: int


@dataclass(frozen=True)
class AtLeast:
    """At least `k` of `keys` are true."""
    keys: tuple[Key, ...]
    k: int


@dataclass(frozen=True)
class Xor:
    """XOR of `keys` equals `parity` (0 or 1)."""
    keys: tuple[Key, ...]
    parity: int


@dataclass(frozen=True)
class Linear:
    """lo <= sum(c * x for c, x in terms) <= hi whenever all `enforce` literals hold (CP-SAT only
    when an integer variable takes part; a Boolean-only Linear is still not compiled to CNF)."""
    terms: tuple[tuple[int, Key], ...]
    lo: int
    hi: int
    enforce: tuple[Lit, ...] = ()


# roles of optional groups: implied by the others (same solutions), symmetry breaking (keeps one
# solution per class: same optimum, fewer solutions), dominance (drops solutions no optimum needs)
ROLES = ("implied", "symmetry breaking", "dominance")
CONSTRAINT_KINDS = (Clause, ExactlyOne, AtMostOne, AtMost, AtLeast, Xor, Linear)
CNF_KINDS = (Clause, ExactlyOne, AtMostOne, AtMost, AtLeast, Xor)


def keys_of(c: Any) -> Iterator[Key]:
    """The variable keys a constraint mentions, in order."""
    if isinstance(c, Clause):
        yield from (k for k, _ in c.lits)
    elif isinstance(c, Linear):
        yield from (k for _, k in c.terms)
        yield from (k for k, _ in c.enforce)
    else:
        yield from c.keys


@dataclass
class Formulation:
    """A model as data: constraint groups by name, integer domains, the solution projection.

    `projection` lists the Boolean keys that define a solution (counting and blocking use these
    only; every other variable must be determined by them or left out). `objective` is
    ('min' | 'max', ((coef, key), ...)) or None. `build_seconds` is set by the builder.
    `optional` names the groups the model is right without, by role (ROLES: implied constraints,
    symmetry breaking, dominance) — what `puzzlesat lab ablate` drops in turn.
    """

    name: str
    source: str = ""
    groups: dict[str, list] = field(default_factory=dict)
    ints: dict[Key, tuple[int, int]] = field(default_factory=dict)
    projection: tuple[Key, ...] = ()
    objective: tuple[str, tuple[tuple[int, Key], ...]] | None = None
    build_seconds: float = 0.0
    optional: dict[str, str] = field(default_factory=dict)

    def mark(self, group: str, role: str) -> None:
        """Declare `group` optional in `role` (one of ROLES): the model answers the same without it
        (implied: the same solutions; symmetry breaking and dominance: the same optimum)."""
        if role not in ROLES:
            raise ValueError(f"role {role!r}: one of " + ", ".join(ROLES))
        self.optional[group] = role

    def without(self, *groups: str) -> "Formulation":
        """A copy without `groups` (a group not present is ignored)."""
        g = self.copy()
        for name in groups:
            g.groups.pop(name, None)
        return g

    def add(self, group: str, *constraints: Any) -> None:
        """Append constraints to `group` (created on first use, in order)."""
        for c in constraints:
            if not isinstance(c, CONSTRAINT_KINDS):
                raise TypeError(f"not a constraint: {c!r}")
        self.groups.setdefault(group, []).extend(constraints)

    def int_var(self, key: Key, lb: int, ub: int) -> Key:
        """Declare `key` an integer variable with domain [lb, ub]; returns the key."""
        if lb > ub:
            raise ValueError(f"empty domain for {key!r}: [{lb}, {ub}]")
        self.ints[key] = (int(lb), int(ub))
        return key

    def copy(self) -> "Formulation":
        """An independent copy (constraint lists copied; constraints themselves are immutable)."""
        return Formulation(self.name, self.source, {g: list(cs) for g, cs in self.groups.items()},
                           dict(self.ints), self.projection, self.objective, self.build_seconds,
                           dict(self.optional))

    def constraints(self) -> Iterator[tuple[str, Any]]:
        """(group, constraint) in order."""
        for g, cs in self.groups.items():
            for c in cs:
                yield g, c

    def bool_keys(self) -> list[Key]:
        """Every Boolean key, projection first, then in order of first mention."""
        seen: dict[Key, None] = dict.fromkeys(self.projection)
        for _, c in self.constraints():
            for k in keys_of(c):
                if k not in self.ints:
                    seen.setdefault(k, None)
        if self.objective:
            for _, k in self.objective[1]:
                if k not in self.ints:
                    seen.setdefault(k, None)
        return list(seen)

    def is_cnf(self) -> bool:
        """True when every constraint can be compiled to clauses (no Linear, no integers)."""
        return not self.ints and all(isinstance(c, CNF_KINDS) for _, c in self.constraints())

    def is_linear(self) -> bool:
        """True when every constraint is linear over its 0/1 and integer variables as written, so
        the model is an (I)LP: XOR and enforced (half-reified) Linear constraints are not."""
        return not any(isinstance(c, Xor) or (isinstance(c, Linear) and c.enforce)
                       for _, c in self.constraints())

    def summary(self) -> dict[str, Any]:
        """Variables and constraints per group, as written (before any backend)."""
        return {"name": self.name, "bool_vars": len(self.bool_keys()), "int_vars": len(self.ints),
                "groups": {g: len(cs) for g, cs in self.groups.items()},
                "constraints": sum(len(cs) for cs in self.groups.values()),
                "build_seconds": round(self.build_seconds, 4)}


# ----------------------------------------------------------------------------------------------
# CNF backend (python-sat)

class Cnf:
    """The CNF of a formulation: clauses over an IDPool whose objects are the domain keys.

    Ids 1..n are the Boolean keys (projection first); encodings' auxiliaries follow. Clauses are
    recorded per group, so `stats()` sums exactly to the totals.
    """

    def __init__(self, f: Formulation, encoding: str = "seqcounter"):
        from pysat.formula import IDPool

        from . import _sat
        if f.ints:
            raise ValueError(f"formulation {f.name} has integer variables: not expressible as CNF")
        self._sat = _sat
        self.formulation, self.encoding = f, encoding
        self.pool = IDPool()
        for k in f.bool_keys():
            self.pool.id(k)
        self.num_keys = self.pool.top
        self.clauses: list[list[int]] = []
        self.group_stats: dict[str, dict[str, int]] = {}
        t0 = time.perf_counter()
        for g, cs in f.groups.items():
            self.add(g, *cs)
        self.compile_seconds = time.perf_counter() - t0

    def id(self, key: Key) -> int:
        """The variable number of `key`."""
        return self.pool.id(key)

    def lit(self, key: Key, pol: bool = True) -> int:
        v = self.pool.id(key)
        return v if pol else -v

    def compile(self, c: Any) -> list[list[int]]:
        """Clauses for one constraint (auxiliaries are allocated in the pool)."""
        s, enc = self._sat, self.encoding
        if isinstance(c, Clause):
            return [[self.lit(k, p) for k, p in c.lits]]
        if isinstance(c, ExactlyOne):
            return s.exactly_one([self.id(k) for k in c.keys], self.pool, enc)
        if isinstance(c, AtMostOne):
            return s.at_most([self.id(k) for k in c.keys], 1, self.pool, enc)
        if isinstance(c, AtMost):
            return s.at_most([self.id(k) for k in c.keys], c.k, self.pool, enc)
        if isinstance(c, AtLeast):
            return s.at_least([self.id(k) for k in c.keys], c.k, self.pool, enc)
        if isinstance(c, Xor):
            return s.xor([self.id(k) for k in c.keys], c.parity, self.pool)
        raise ValueError(f"{type(c).__name__} constraints have no CNF form (formulation "
                         f"{self.formulation.name})")

    def extra(self, group: str, *constraints: Any) -> list[list[int]]:
        """Clauses for more constraints, counted under `group` but not stored in `clauses` (for
        one solver call, e.g. a bound that changes between calls)."""
        top, out = self.pool.top, []
        for c in constraints:
            out += self.compile(c)
        st = self.group_stats.setdefault(group, {"constraints": 0, "clauses": 0, "literals": 0,
                                                 "aux_vars": 0})
        st["constraints"] += len(constraints)
        st["clauses"] += len(out)
        st["literals"] += sum(map(len, out))
        st["aux_vars"] += self.pool.top - top
        return out

    def add(self, group: str, *constraints: Any) -> None:
        """Compile constraints into the stored clauses under `group`."""
        self.clauses += self.extra(group, *constraints)

    def keys_true(self, model: Sequence[int], keys: Iterable[Key]) -> set[Key]:
        """The keys among `keys` true in a solver model (a list of signed ints)."""
        vals = set(v for v in model if v > 0)
        return {k for k in keys if self.pool.id(k) in vals}

    def projection_ids(self) -> list[int]:
        return [self.pool.id(k) for k in self.formulation.projection]

    def var_map(self) -> dict[int, Any]:
        """Variable number -> domain key, for every keyed variable (auxiliaries are left out)."""
        return {v: self.pool.obj(v) for v in range(1, self.num_keys + 1)}

    def models(self, solver: str = "cadical195", limit: int | None = None) -> Iterator[set[Key]]:
        """The true projection keys of each distinct solution (no time limit; for small models)."""
        from pysat.solvers import Solver
        proj = self.projection_ids()
        with Solver(name=solver, bootstrap_with=self.clauses) as s:
            n = 0
            while (limit is None or n < limit) and s.solve():
                m = s.get_model()
                n = len(m)  # a variable in no clause is missing from the model: false
                true = [v for v in proj if v <= n and m[v - 1] > 0]
                yield {self.pool.obj(v) for v in true}
                n += 1
                s.add_clause([-v if v in true else v for v in proj])

    def stats(self) -> dict[str, Any]:
        """Variables, clauses and literals in total and per group (groups sum to the totals)."""
        groups = {g: dict(st) for g, st in self.group_stats.items()}
        return {"format": "cnf", "encoding": self.encoding, "vars": self.pool.top,
                "keyed_vars": self.num_keys,
                "clauses": sum(g["clauses"] for g in groups.values()),
                "literals": sum(g["literals"] for g in groups.values()), "groups": groups}


def to_cnf(f: Formulation, encoding: str = "seqcounter") -> Cnf:
    """Compile `f` to CNF with cardinality constraints in PySAT encoding `encoding`."""
    return Cnf(f, encoding)


# ----------------------------------------------------------------------------------------------
# CP-SAT backend (OR-tools)

class CpData:
    """A CpModel compiled from a formulation, with its variables by key and constraints by group."""

    def __init__(self, f: Formulation, model=None, vars=None, group_stats=None):
        from ortools.sat.python import cp_model
        self.formulation = f
        if model is not None:  # a clone
            self.model, self.vars, self.group_stats = model, vars, group_stats
            return
        self.model = cp_model.CpModel()
        self.vars: dict[Key, Any] = {}
        self.group_stats: dict[str, dict[str, int]] = {}
        for k in f.bool_keys():
            self.vars[k] = self.model.new_bool_var(str(k))
        for k, (lb, ub) in f.ints.items():
            self.vars[k] = self.model.new_int_var(lb, ub, str(k))
        for g, cs in f.groups.items():
            self.add(g, *cs)
        if f.objective is not None:
            sense, terms = f.objective
            expr = sum(c * self.var(k) for c, k in terms)
            (self.model.minimize if sense == "min" else self.model.maximize)(expr)

    def var(self, key: Key):
        """The CP-SAT variable of `key` (a new Boolean when the key is new)."""
        v = self.vars.get(key)
        if v is None:
            v = self.vars[key] = self.model.new_bool_var(str(key))
        return v

    def lit(self, key: Key, pol: bool = True):
        v = self.var(key)
        return v if pol else ~v

    def add(self, group: str, *constraints: Any) -> None:
        """Compile constraints into the model under `group`."""
        m = self.model
        n0 = len(m.Proto().constraints)
        lits = 0
        for c in constraints:
            if isinstance(c, Clause):
                m.add_bool_or([self.lit(k, p) for k, p in c.lits])
                lits += len(c.lits)
            elif isinstance(c, ExactlyOne):
                m.add_exactly_one([self.var(k) for k in c.keys])
                lits += len(c.keys)
            elif isinstance(c, AtMostOne):
                m.add_at_most_one([self.var(k) for k in c.keys])
                lits += len(c.keys)
            elif isinstance(c, (AtMost, AtLeast)):
                expr = sum(self.var(k) for k in c.keys)
                m.add(expr <= c.k if isinstance(c, AtMost) else expr >= c.k)
                lits += len(c.keys)
            elif isinstance(c, Xor):
                xs = [self.var(k) for k in c.keys]
                m.add_bool_xor(xs + ([] if c.parity else [m.new_constant(1)]))
                lits += len(c.keys)
            elif isinstance(c, Linear):
                ct = m.add_linear_constraint(sum(co * self.var(k) for co, k in c.terms), c.lo, c.hi)
                if c.enforce:
                    ct.only_enforce_if([self.lit(k, p) for k, p in c.enforce])
                lits += len(c.terms) + len(c.enforce)
            else:
                raise TypeError(f"not a constraint: {c!r}")
        st = self.group_stats.setdefault(group, {"constraints": 0, "literals": 0})
        st["constraints"] += len(m.Proto().constraints) - n0
        st["literals"] += lits

    def clone(self) -> "CpData":
        """An independent copy of the model (variables re-bound by index), e.g. to add a bound."""
        m = self.model.clone()
        vars = {k: (m.get_bool_var_from_proto_index(v.index) if _is_bool(self.model, v)
                    else m.get_int_var_from_proto_index(v.index)) for k, v in self.vars.items()}
        return CpData(self.formulation, m, vars, {g: dict(s) for g, s in self.group_stats.items()})

    def projection_vars(self) -> list:
        return [self.vars[k] for k in self.formulation.projection]

    def stats(self) -> dict[str, Any]:
        """Variables and constraints in total and per group (groups sum to the totals)."""
        proto = self.model.Proto()
        groups = {g: dict(s) for g, s in self.group_stats.items()}
        return {"format": "cp-sat", "vars": len(proto.variables),
                "constraints": len(proto.constraints),
                "literals": sum(g["literals"] for g in groups.values()), "groups": groups}


def _is_bool(model, v) -> bool:
    dom = list(model.Proto().variables[v.index].domain)
    return dom == [0, 1]


def to_cpsat(f: Formulation) -> CpData:
    """Compile `f` to a CpModel with its variables by key."""
    return CpData(f)


__all__ = ["ROLES", "Key", "Lit", "Clause", "ExactlyOne", "AtMostOne", "AtMost", "AtLeast", "Xor", "Linear",
           "Formulation", "Cnf", "CpData", "to_cnf", "to_cpsat", "keys_of"]


def to_lp(f: Formulation, objective: tuple | None, fmt: str) -> tuple[str, dict[int, Any]]:
    """The formulation as LP or MPS text through OR-tools' model builder (variables x<n>, n from
    1), and n -> domain key; InputError for a constraint that is not linear."""
    from ortools.linear_solver.python import model_builder as mb
    m = mb.Model()
    var: dict[Any, Any] = {}
    numbers: dict[int, Any] = {}

    def v(key):
        x = var.get(key)
        if x is None:
            n = len(var) + 1
            lb_ub = f.ints.get(key)
            x = m.new_int_var(*lb_ub, f"x{n}") if lb_ub else m.new_bool_var(f"x{n}")
            var[key], numbers[n] = x, key
        return x

    for k in f.bool_keys():
        v(k)
    for k in f.ints:
        v(k)
    for _, c in f.constraints():
        if isinstance(c, Clause):
            m.add(sum((v(k) if p else 1 - v(k)) for k, p in c.lits) >= 1)
        elif isinstance(c, ExactlyOne):
            m.add(sum(v(k) for k in c.keys) == 1)
        elif isinstance(c, AtMostOne):
            m.add(sum(v(k) for k in c.keys) <= 1)
        elif isinstance(c, AtMost):
            m.add(sum(v(k) for k in c.keys) <= c.k)
        elif isinstance(c, AtLeast):
            m.add(sum(v(k) for k in c.keys) >= c.k)
        elif isinstance(c, Linear):
            m.add_linear_constraint(sum(co * v(k) for co, k in c.terms), c.lo, c.hi)
        else:
            raise InputError(f"formulation {f.name}: {type(c).__name__} is not linear")
    if objective is not None:
        sense, terms, offset = objective
        expr = sum(co * v(k) for co, k in terms) + offset
        (m.minimize if sense == "min" else m.maximize)(expr)
    text = m.export_to_lp_string(False) if fmt == "lp" else m.export_to_mps_string(False)
    return text, numbers
