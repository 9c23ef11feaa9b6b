"""The engine contract: your own formulation or search, run and checked like a built-in engine.

An engine is a function ``run(instance, task, ctx) -> Outcome``:

- ``instance`` — the family's instance dataclass (what ``puzzlesat.load`` returns);
- ``task`` — ``Task.OPTIMIZE`` (best objective and one solution), ``Task.COUNT`` (every optimal
  solution; every solution where there is no objective) or ``Task.FEASIBLE`` (any one solution);
  ``Task.UNIQUE`` only if the engine declares it (one solution and a complete search for another,
  or two different ones): an engine that counts gets ``unique`` without it, the runner asking
  it to count and stopping it at the second distinct solution it streams;
- ``ctx`` — a ``Context``: ``ctx.options`` (every declared option with its value),
  ``ctx.remaining()`` / ``ctx.expired()`` (the time limit), ``ctx.progress(**fields)`` (the live
  status line) and ``ctx.found(solution)`` (stream a solution as soon as it exists, so that it
  survives a hard kill).

It returns ``Outcome(status, objective, count, solutions, stats, reason)``. Solutions may be in the
family's own type or in its JSON form — exactly what ``puzzlesat solve --json`` prints, e.g. peg
``{"jumps": [[a, b, c], ...]}``, tiling ``{"placements": [[piece, [[r, c], ...]], ...]}``,
sliding ``{"moves": [tile, ...]}``, maze ``{"walk": [node, ...]}``. The runner converts them,
runs every one through the family's independent checker, and checks every claim: a solution
that breaks the rules, a count that is not the number of distinct solutions returned, an
optimum that the solutions do not have, INFEASIBLE with a solution — each makes the result ERROR
with the reason. An engine that raises is ERROR; one that hangs is killed at the hard time limit
(UNKNOWN); one that exceeds the memory limit is UNKNOWN with reason 'memory'. The tool never
crashes because of an engine.

Statuses: ``OPTIMAL`` (proved; for COUNT: all counted), ``FEASIBLE`` (a solution, not proved
best), ``INFEASIBLE`` (proved: none), ``UNKNOWN`` (a limit stopped it), ``ERROR``. A limit must
never give OPTIMAL or INFEASIBLE.

Register an engine with ``puzzlesat.register_engine(family, name, run, tasks, options)``, name it
on the command line as ``--engine path/to/file.py:run`` (or ``package.module:run``; optional
function attributes ``TASKS`` and ``OPTIONS``), or ship it in the ``puzzlesat.engines``
entry-point group. Counting helpers below enumerate projected on the variables that define a
solution (CP-SAT with one worker: with more it silently drops solutions).

>>> import puzzlesat as ps
>>> from puzzlesat.engine import Outcome, Status, Task
>>> def one_jump(inst, task, ctx):
...     '''Hoppers' first legal jump only: never a full solution.'''
...     return Outcome(Status.FEASIBLE, solutions=({"jumps": [[0, 3, 6]]},))
>>> r = ps.solve(ps.load("peg/hoppers"), one_jump)
>>> r.status.value, "fails the checker" in r.reason
('ERROR', True)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Sequence

from .core.family import Option, UserEngine
from .families.options import (CPSAT_OPTIONS, SAT_ENCODINGS, SAT_NON_INCREMENTAL, SAT_OPTIONS,
                               SAT_SOLVERS, cmd_option)
from .models._ext import Decision
from .models.formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Formulation, Linear, Xor, to_cnf, to_cpsat)
from .core.result import CheckError, Context, InputError, Outcome, Status, Task

if TYPE_CHECKING:  # OR-tools is imported when a CP-SAT engine runs (by models/, the one layer
    from .models._cpsat import cp_model  # that imports solver libraries), not with this module

CPSAT_DEFAULTS = {"num_workers": 1, "linearization_level": 0, "random_seed": 0}


def cpsat_solve(model: cp_model.CpModel, ctx: Context,
                **params: Any) -> tuple[Status, cp_model.CpSolver]:
    """Solve a CpModel within ctx's time limit: (Status, CpSolver). Parameters default to
    CPSAT_DEFAULTS (measured best on these models) and are recorded by the caller."""
    from .models import _cpsat
    return _cpsat.solve(model, {**CPSAT_DEFAULTS, **params}, ctx)


def cpsat_enumerate(model: cp_model.CpModel, variables: Sequence[cp_model.IntVar], ctx: Context, limit: int | None = None,
                    stats: dict[str, Any] | None = None,
                    **params: Any) -> tuple[Status, list[tuple[int, ...]]]:
    """Every distinct value tuple of `variables` over the model's solutions, one worker.

    Status OPTIMAL = complete, INFEASIBLE = none, UNKNOWN = a limit stopped it (partial list).
    `params` are CP-SAT parameters (CPSAT_DEFAULTS apply; num_workers is always 1 and
    enumerate_all_solutions True); record them in your Outcome's `params`. `stats` (a dict, if
    given) receives the model size and the solver's branches and conflicts, for the lab.
    """
    from .models import _cpsat
    opts = {"workers": 1, "linearization_level": params.pop("linearization_level", 0),
            "seed": params.pop("random_seed", 0)}
    st, sols, st_stats, _ = _cpsat.enumerate_projected(model, variables, opts, ctx, limit, **params)
    if stats is not None:
        stats.update(st_stats)
    return st, sols


def sat_solve(clauses: Sequence[Sequence[int]], ctx: Context, solver: str = "cadical195",
              assumptions: Sequence[int] = (), stats: dict[str, Any] | None = None
              ) -> tuple[bool | None, list[int] | None]:
    """(True, model) / (False, None) / (None, None) at the time limit, for CNF `clauses`.
    `stats` (a dict, if given) receives the model size (`vars`, `clauses`) and adds this call's
    conflicts and decisions to its totals (`conflicts`, `sat_decisions`), for the lab."""
    from .models import _sat
    with _sat.new_solver(solver, clauses) as s:
        res = _sat.solve_limited(s, ctx, assumptions)
        if stats is not None:
            _sat.add_stats(stats, s, max((abs(x) for c in clauses for x in c), default=0), len(clauses))
        return res, (s.get_model() if res else None)


def sat_enumerate(clauses: Sequence[Sequence[int]], projection: Sequence[int], ctx: Context,
                  solver: str = "cadical195", limit: int | None = None,
                  stats: dict[str, Any] | None = None) -> Iterator[frozenset[int]]:
    """The set of true variables among `projection` for each distinct projected model (blocking
    clauses over `projection` only); raises TimeoutError when the time limit stops it. `stats`
    (a dict, if given) receives the size and the solver's totals when the enumeration ends."""
    from .models import _sat
    with _sat.new_solver(solver, clauses) as s:
        try:
            yield from _sat.enumerate_projected(s, projection, ctx, limit)
        finally:
            if stats is not None:
                _sat.add_stats(stats, s, max((abs(x) for c in clauses for x in c), default=0),
                               len(clauses))


__all__ = ["Outcome", "Status", "Task", "Context", "InputError", "CheckError", "Option", "UserEngine",
           "cpsat_solve", "cpsat_enumerate", "sat_solve", "sat_enumerate", "Formulation", "Clause",
           "ExactlyOne", "AtMostOne", "AtMost", "AtLeast", "Xor", "Linear", "to_cnf", "to_cpsat",
           "CPSAT_DEFAULTS", "Decision", "CPSAT_OPTIONS", "SAT_OPTIONS", "SAT_SOLVERS",
           "SAT_NON_INCREMENTAL", "SAT_ENCODINGS", "cmd_option"]
