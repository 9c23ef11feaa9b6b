"""python-sat plumbing shared by the SAT formulations: encodings and solvers by name, limited solves,
projected enumeration by blocking clauses.

Encodings are PySAT's `EncType` members selected by name (`encoding="seqcounter"`), never copied.
Time limits: `interrupt()` is used where the solver honours it; some (cadical195) ignore it, so the
hard limit is the runner's worker process, which is killed at the deadline (result UNKNOWN).

Solvers: every solver the installed python-sat ships and can build (`SOLVERS`, probed once from
`pysat.solvers.SolverNames`; the registry's `solver` option uses this tuple). `NON_INCREMENTAL`
ones (kissat404: one solve per instance; it ignores assumptions and aborts the process on a clause
added after a solve) are wrapped so that a second call, an assumption or a later clause is an
InputError instead; engines create a fresh solver per decision call, and enumeration refuses them.
Solvers without a limited solve (lingeling) run a plain solve: the runner's kill is their limit.
"""
from __future__ import annotations

import threading
from typing import Any, Iterable, Iterator, Sequence

from pysat.card import CardEnc, EncType
from pysat.formula import CNF, IDPool
from pysat.solvers import NoSuchSolverError, Solver, SolverNames

from ..core.result import Context, InputError

ENCODINGS: dict[str, int] = {
    name: getattr(EncType, name)
    for name in ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder",
                 "totalizer", "mtotalizer", "kmtotalizer")
}


def _buildable(name: str) -> bool:
    try:
        Solver(name=name).delete()
    except NoSuchSolverError:  # listed by SolverNames but not compiled into this python-sat
        return False
    return True


DEFAULT_SOLVER = "cadical195"
# Every solver this python-sat can build, the default first (cadical195 ignores interrupt(): the
# runner's worker kill stops it).
SOLVERS: tuple[str, ...] = tuple(sorted(
    (n for n in vars(SolverNames) if not n.startswith("_") and _buildable(n)),
    key=lambda n: (n != DEFAULT_SOLVER, n)))
NON_INCREMENTAL: tuple[str, ...] = tuple(n for n in ("kissat404",) if n in SOLVERS)

AMO_ONLY = ("pairwise", "bitwise", "ladder")  # PySAT builds these for bound 1 only


def encoding(name: str) -> int:
    """The EncType value called `name`."""
    if name not in ENCODINGS:
        raise InputError(f"unknown cardinality encoding '{name}'; known: " + ", ".join(ENCODINGS))
    return ENCODINGS[name]


def at_most(lits: Sequence[int], k: int, pool: IDPool, enc: str) -> list[list[int]]:
    """Clauses for sum(lits) <= k with encoding `enc` (auxiliaries from `pool`)."""
    if k >= len(lits):
        return []
    if k < 0:
        return [[]]
    if k == 0:
        return [[-x] for x in lits]
    if enc in AMO_ONLY and k > 1:
        raise InputError(f"encoding '{enc}' only encodes at-most-one; this model needs "
                         f"at-most-{k}: choose one of seqcounter, totalizer, sortnetwrk, cardnetwrk, "
                         "mtotalizer, kmtotalizer")
    return CardEnc.atmost(lits=list(lits), bound=k, vpool=pool, encoding=encoding(enc)).clauses


def at_least(lits: Sequence[int], k: int, pool: IDPool, enc: str) -> list[list[int]]:
    """Clauses for sum(lits) >= k."""
    if k <= 0:
        return []
    if k > len(lits):
        return [[]]
    if k == 1:
        return [list(lits)]
    neg = [-x for x in lits]  # sum(lits) >= k  <=>  sum(not lits) <= n - k
    return at_most(neg, len(lits) - k, pool, enc)


def exactly(lits: Sequence[int], k: int, pool: IDPool, enc: str) -> list[list[int]]:
    """Clauses for sum(lits) == k."""
    return at_most(lits, k, pool, enc) + at_least(lits, k, pool, enc)


def exactly_one(lits: Sequence[int], pool: IDPool, enc: str) -> list[list[int]]:
    """Clauses for exactly one of `lits`."""
    return exactly(lits, 1, pool, enc)


def xor(lits: Sequence[int], parity: int, pool: IDPool) -> list[list[int]]:
    """Clauses for XOR(lits) == parity, as a Tseitin chain (each auxiliary is determined)."""
    if not lits:
        return [] if parity == 0 else [[]]
    acc, out = lits[0], []
    for x in lits[1:]:
        y = pool.id(("xor", len(pool.obj2id), acc, x))
        out += [[-y, acc, x], [-y, -acc, -x], [y, -acc, x], [y, acc, -x]]
        acc = y
    out.append([acc] if parity else [-acc])
    return out


def check_solver(name: str, enumerate_: bool = False) -> None:
    """InputError unless `name` is a solver of this python-sat (incremental, for `enumerate_`)."""
    if name not in SOLVERS:
        raise InputError(f"unknown SAT solver '{name}'; known: " + ", ".join(SOLVERS))
    if enumerate_ and name in NON_INCREMENTAL:
        raise InputError(f"SAT solver '{name}' is not incremental (one solve per instance, no "
                         "assumptions): counting adds blocking clauses between calls; choose one of "
                         + ", ".join(n for n in SOLVERS if n not in NON_INCREMENTAL))


class OneShot:
    """A non-incremental python-sat solver: one solve without assumptions, clauses only before it."""

    def __init__(self, name: str, solver: Solver):
        self.name, self.solver, self.solved = name, solver, False

    def _once(self, assumptions: Sequence[int]) -> None:
        if assumptions or self.solved:
            raise InputError(f"SAT solver '{self.name}' is not incremental: "
                             + ("it cannot take assumptions" if assumptions else "one solve per instance"))
        self.solved = True

    def solve(self, assumptions: Sequence[int] = ()) -> bool:
        self._once(assumptions)
        return self.solver.solve()

    def solve_limited(self, assumptions: Sequence[int] = (), expect_interrupt: bool = False) -> bool | None:
        self._once(assumptions)
        return self.solver.solve_limited(expect_interrupt=expect_interrupt)

    def add_clause(self, clause: Sequence[int], no_return: bool = True):
        if self.solved:
            raise InputError(f"SAT solver '{self.name}' is not incremental: no clause after a solve")
        return self.solver.add_clause(clause, no_return)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.solver, attr)

    def __enter__(self) -> "OneShot":
        return self

    def __exit__(self, *exc) -> None:
        self.solver.delete()


def new_solver(name: str, clauses: Iterable[Sequence[int]] = ()) -> Solver:
    """A python-sat solver by name, loaded with `clauses` (a non-incremental one wrapped in OneShot)."""
    check_solver(name)
    s = Solver(name=name, bootstrap_with=[list(c) for c in clauses])
    return OneShot(name, s) if name in NON_INCREMENTAL else s


def solve_limited(s: Solver, ctx: Context, assumptions: Sequence[int] = ()) -> bool | None:
    """True/False, or None when the time limit interrupted the solver."""
    rem = ctx.remaining()
    if rem is None:
        return s.solve(assumptions=list(assumptions))
    if rem <= 0:
        return None
    timer = threading.Timer(rem, _interrupt, (s,))
    timer.daemon = True
    timer.start()
    try:
        res = s.solve_limited(assumptions=list(assumptions), expect_interrupt=True)
    except NotImplementedError:  # lingeling: no limited solve; the runner's kill is the limit
        res = s.solve(assumptions=list(assumptions))
    finally:
        timer.cancel()
    if res is None or ctx.expired():
        try:
            s.clear_interrupt()
        except NotImplementedError:  # cadical195 has no interrupt: the worker kill is its limit
            pass
        return None if res is None else res
    return res


def _interrupt(s: Solver) -> None:
    try:
        s.interrupt()
    except NotImplementedError:  # cadical195: solve() runs on until the runner kills the worker
        pass


def enumerate_projected(s: Solver, proj: Sequence[int], ctx: Context, limit: int | None = None,
                        assumptions: Sequence[int] = ()) -> Iterator[frozenset[int]]:
    """Yield the set of true variables among `proj` for each distinct projected model.

    Blocks each projection with one clause over `proj` only. Ends normally when the formula has
    no more models; raises TimeoutError when the time limit stops it.
    """
    if isinstance(s, OneShot):
        check_solver(s.name, enumerate_=True)
    proj = list(proj)
    n = 0
    while limit is None or n < limit:
        res = solve_limited(s, ctx, assumptions)
        if res is None:
            raise TimeoutError
        if not res:
            return
        model = s.get_model()
        true = frozenset(true_in(model, proj))
        yield true
        n += 1
        if n % 64 == 0:
            ctx.progress(solutions=n)
        s.add_clause([-v if v in true else v for v in proj])


def true_in(model: Sequence[int], variables: Iterable[int]) -> list[int]:
    """The variables true in a solver model, in the order given. A model lists the variables up
    to the largest one the solver has seen: one that occurs in no clause is missing and counts
    as false (a blocking clause over it then lets the next call make it true)."""
    n = len(model)
    return [v for v in variables if v <= n and model[v - 1] > 0]


def add_stats(into: dict[str, Any], s: Solver, cnf_vars: int, cnf_clauses: int) -> None:
    """Record the model size of the latest call and add its conflicts and decisions to the totals
    (`conflicts`, `sat_decisions`) over every call."""
    new = stats(s, cnf_vars, cnf_clauses)
    into["vars"], into["clauses"] = new["vars"], new["clauses"]
    for k, key in (("conflicts", "conflicts"), ("decisions", "sat_decisions")):
        if k in new:
            into[key] = into.get(key, 0) + new[k]
    into["solver_calls"] = into.get("solver_calls", 0) + 1


def stats(s: Solver, cnf_vars: int, cnf_clauses: int) -> dict[str, Any]:
    """Model size and solver figures for reports."""
    out: dict[str, Any] = {"vars": cnf_vars, "clauses": cnf_clauses}
    try:
        acc = s.accum_stats() or {}
        out.update({k: acc[k] for k in ("conflicts", "decisions") if k in acc})
    except Exception:
        pass
    return out


__all__ = ["CNF", "IDPool", "ENCODINGS", "SOLVERS", "NON_INCREMENTAL", "check_solver", "add_stats", "true_in",
           "at_most", "at_least", "exactly", "exactly_one", "new_solver", "solve_limited", "enumerate_projected", "stats"]
