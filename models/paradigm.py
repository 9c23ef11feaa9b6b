"""One formulation on other paradigms: the driver that turns a formulation hook into an engine for
any solver backend (MIP: models/mip.py, MaxSAT: models/maxsat.py, CP/PB through CPMpy:
models/cpmpy_bridge.py).

Vocabulary:

    backend     a solver seen through one small interface: `open(formulation, objective)` gives a
                session; `session.solve(ctx)` -> Answer; `session.block(keys)` excludes one
                projection (a no-good over the projection keys) for the next call;
                `session.stats()` the model size and effort so far. `params` are the pinned
                solver parameters, recorded with the result.
    Answer      status (OPTIMAL: proved; FEASIBLE: a solution, optimality not proved — a MIP gap or
                a time limit; INFEASIBLE; UNKNOWN: a limit, no solution), the true projection keys
                of the solution, the objective value the solver reports
    objective mode   the hook's Decision has an `objective` and the backend optimises: the unbounded
                formulation (the hook's FEASIBLE call with no bound) with that objective, one solve.
                OPTIMAL and INFEASIBLE are claims about the puzzle only when the Decision says the
                unbounded model holds every solution (`upper_complete`); otherwise they become
                FEASIBLE and UNKNOWN.
    bound mode  no objective (sliding plans of exactly T moves, tilings): the hook's decision calls,
                as ext:dimacs makes them (`_ext._search`: ascending bounds, or descending from a
                found solution), each one solve of the backend with no objective
    count       the optimum first (either mode), then every projection of the decision call at the
                optimum (no bound: of the whole formulation), one solve per solution, each
                solution blocked by a no-good over the projection: exact when the projection
                identifies a solution, which every formulation hook promises unless it says
                `countable = False` (then the engines refuse count before anything runs)

Every solution is decoded through the hook and checked by the family's checker in the runner, like
every engine's; a solver's claim that nothing exists is its word, cross-validated as every solver's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Hashable, Iterable, Protocol

from ..core.result import Context, InputError, Outcome, Status, Task

from ._ext import SAT, UNKNOWN, UNSAT, Decision, _search, call_hook as _call_hook
from .formulation import Formulation

Key = Hashable


@dataclass
class Answer:
    """One solve: `status`, the true projection keys of its solution (None: none), the
    objective value the solver reports (None: no objective or no solution)."""

    status: Status
    true: set | None = None
    value: float | None = None
    reason: str | None = None


class Session(Protocol):
    def solve(self, ctx: Context) -> Answer: ...
    def block(self, true: set) -> None: ...
    def stats(self) -> dict[str, Any]: ...


@dataclass
class Backend:
    """A solver behind the driver: `open(formulation, objective) -> Session`; `params`: every
    pinned parameter (recorded); `objective`: whether it optimises (else bound mode always)."""

    name: str
    open: Callable[[Formulation, tuple | None], Session]
    params: dict[str, Any] = field(default_factory=dict)
    objective: bool = True
    count: bool = True


def countable(hook: str) -> bool:
    """Whether the formulation hook's projection identifies one solution of the puzzle (its
    function attribute `countable`, default True): only then is a count by enumeration exact."""
    from ..core.family import resolve
    return bool(getattr(resolve(hook), "countable", True))


def objective_value(objective: tuple, true: set, ints: dict | None = None) -> int:
    """offset + sum(coef * key) over the true Boolean keys (integer keys: from `ints`)."""
    sense, terms, offset = objective
    v = offset
    for c, k in terms:
        if ints is not None and k in ints:
            v += c * ints[k]
        elif k in true:
            v += c
    return v


def run(inst: Any, task: Task, ctx: Context, backend: Backend, drop: tuple[str, ...] = ()) -> Outcome:
    """The engine: `ctx.options['formulation']` (a hook) on `backend`, for `task` (module doc);
    `drop`: groups left out of every decision call (an ablation, models/why.py)."""
    opts = ctx.options
    hook = opts["formulation"]
    task = Task(task)

    def call_hook(target, inst, task, opts, bound):
        d = _call_hook(target, inst, task, opts, bound)
        return replace(d, formulation=d.formulation.without(*drop)) if drop else d

    if task is Task.COUNT and not (backend.count and countable(hook)):
        raise InputError(f"{backend.name} cannot count with {hook}" + ("" if backend.count else
                         ": it does not enumerate") + ("" if countable(hook) else
                         ": its projection does not identify one solution"))
    stats: dict[str, Any] = {"decisions": []}
    params = {"backend": backend.name, "formulation": hook, **backend.params,
              **({"dropped_groups": list(drop)} if drop else {})}
    d0 = call_hook(hook, inst, task, opts, None)
    t_build = [0.0]

    def solve_one(d: Decision, objective: tuple | None) -> tuple[Answer, Session]:
        t0 = time.perf_counter()
        s = backend.open(d.formulation, objective)
        t_build[0] += time.perf_counter() - t0
        ans = s.solve(ctx)
        _merge(stats, s.stats())
        stats["decisions"].append({"bound": d.bound_text, "result": ans.status.value,
                                   **({"objective": ans.value} if objective else {})})
        ctx.progress(bound=d.bound_text, result=ans.status.value)
        return ans, s

    def finish(out: Outcome) -> Outcome:
        stats["build_seconds"] = round(t_build[0], 4)
        return Outcome(out.status, out.objective, out.count, out.solutions, {**out.stats, **stats},
                       out.reason, params=params)

    best: int | None = None
    if d0.objective is not None and backend.objective:
        dfree = call_hook(hook, inst, Task.FEASIBLE, opts, None)
        if dfree.bound is not None:  # the hook has no unbounded form: bound mode
            dfree = None
    else:
        dfree = None

    if dfree is not None:  # objective mode
        complete = d0.upper_complete
        ans, _ = solve_one(dfree, None if task is Task.FEASIBLE else d0.objective)
        if ans.status is Status.UNKNOWN or ans.status is Status.ERROR:
            return finish(Outcome(ans.status, stats={}, reason=ans.reason or "time limit"))
        if ans.status is Status.INFEASIBLE:
            return finish(Outcome(Status.INFEASIBLE if complete else Status.UNKNOWN, stats={},
                                  reason=None if complete else "the model is restricted (not every "
                                  "solution is in it): no solution in it proves nothing"))
        sol = dfree.decode(ans.true)
        ctx.found(sol)
        if task is Task.FEASIBLE:
            return finish(Outcome(Status.FEASIBLE, None, None, (sol,), {}))
        value = d0.value(sol) if d0.value is not None else _int(ans.value)
        if ans.status is not Status.OPTIMAL or not complete:
            why = ans.reason or ("restricted model" if not complete else "optimality not proved")
            return finish(Outcome(Status.FEASIBLE, value, None, (sol,), {}, why))
        if task is Task.OPTIMIZE:
            return finish(Outcome(Status.OPTIMAL, value, None, (sol,), {}))
        best = value
    else:  # bound mode
        def decide(bound):
            d = call_hook(hook, inst, task, opts, bound)
            ans, _ = solve_one(d, None)
            if ans.status is Status.ERROR:
                raise _Failed(ans.reason or "solver error")
            if ans.status in (Status.OPTIMAL, Status.FEASIBLE):
                return SAT, d.decode(ans.true), d
            return (UNSAT if ans.status is Status.INFEASIBLE else UNKNOWN), None, d
        try:
            if task is not Task.COUNT or d0.bound is not None:
                out = _search(Task.OPTIMIZE if task is Task.COUNT else task, ctx, decide, d0, {})
                if task is not Task.COUNT or out.status is not Status.OPTIMAL:
                    return finish(out if task is not Task.COUNT else
                                  Outcome(out.status if out.status is not Status.OPTIMAL else
                                          Status.UNKNOWN, stats={}, reason=out.reason))
                best = out.objective
        except _Failed as e:
            return finish(Outcome(Status.ERROR, stats={}, reason=str(e)))

    # count: every projection of the decision call at the optimum (or of the whole formulation)
    d = call_hook(hook, inst, Task.COUNT, opts, best) if best is not None else d0
    t0 = time.perf_counter()
    s = backend.open(d.formulation, None)
    t_build[0] += time.perf_counter() - t0
    sols: list = []
    status = Status.OPTIMAL
    while True:
        ans = s.solve(ctx)
        if ans.status in (Status.UNKNOWN, Status.ERROR):
            status = ans.status
            break
        if ans.status is Status.INFEASIBLE:
            break
        sol = d.decode(ans.true)
        sols.append(sol)
        ctx.found(sol)
        if len(sols) % 16 == 0:
            ctx.progress(solutions=len(sols))
        s.block(ans.true)
    _merge(stats, s.stats())
    stats["decisions"].append({"bound": d.bound_text, "result": f"{len(sols)} solutions"
                               + ("" if status is Status.OPTIMAL else " (stopped)")})
    if status is not Status.OPTIMAL:
        return finish(Outcome(status, best, None, tuple(sols), {},
                              ans.reason or "enumeration stopped by the time limit"))
    if not sols:
        if best is not None:  # the optimum's own solution must be among them
            return finish(Outcome(Status.ERROR, stats={}, reason=f"the optimum {best} was found, "
                                  "but enumerating its decision call found no solution"))
        return finish(Outcome(Status.INFEASIBLE, count=0, stats={}))
    return finish(Outcome(Status.OPTIMAL, best, len(sols), tuple(sols), {}))


class _Failed(Exception):
    """A backend's solve failed (its reason)."""


def _int(v: float | None) -> int | None:
    return None if v is None else int(round(v))


def _merge(into: dict, new: dict) -> None:
    """Sizes are the latest model's; effort figures add up over the calls."""
    for k, v in new.items():
        if k in ("nodes", "conflicts", "decisions_solver", "iterations", "solver_calls") and \
                isinstance(v, (int, float)):
            into[k] = into.get(k, 0) + v
        else:
            into[k] = v


def no_good(true: set, keys: Iterable[Key]) -> list[tuple[Key, bool]]:
    """The literals of the clause that excludes exactly this projection: some true key false, or
    some false key true."""
    return [(k, k not in true) for k in keys]


__all__ = ["Answer", "Backend", "Session", "run", "countable", "objective_value", "no_good"]
