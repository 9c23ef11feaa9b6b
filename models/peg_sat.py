"""Peg solitaire as CNF (python-sat): the time-indexed formulation of models/peg_time.py.

Variables come from an IDPool by domain key (`pool.id(('j', t, l))`), so decoding reads the true
j keys back. "moves <= K" is a cardinality constraint over the new-move variables in the chosen
PySAT encoding (`encoding=seqcounter|totalizer|…`). Minimum moves by descending K from the best
solution found until UNSAT or the corner lower bound; counting by blocking clauses on the jump
variables only.
"""
from __future__ import annotations

from typing import Any

from pysat.formula import IDPool

from puzzlesat.puzzles.core import Context, Outcome, Status, Task
from puzzlesat.puzzles.peg import PegInstance, moves, start_lower_bound

from . import _sat
from .peg_time import TimeModel, build as build_time


class PegCnf:
    """The CNF of the time model, with its IDPool; `bounded(k)` adds moves <= k."""

    def __init__(self, inst: PegInstance, encoding: str, invariants: bool = True):
        self.tm: TimeModel = build_time(inst, invariants)
        self.pool = IDPool()
        self.encoding = encoding
        lit = self.lit
        self.clauses: list[list[int]] = [[lit(k, p)] for k, p in self.tm.fixed]
        self.clauses += [[lit(k, p) for k, p in c] for c in self.tm.clauses]
        for group in self.tm.exactly_one:
            self.clauses += _sat.exactly_one([self.pool.id(k) for k in group], self.pool, encoding)
        for keys, parity in self.tm.parities:
            self.clauses += _sat.xor([self.pool.id(k) for k in keys], parity, self.pool)
        self.jump_ids = [self.pool.id(k) for k in self.tm.jump_vars]

    def lit(self, key: tuple, pol: bool) -> int:
        v = self.pool.id(key)
        return v if pol else -v

    def bounded(self, k: int) -> list[list[int]]:
        """Clauses for moves <= k (first jump always starts a move)."""
        return _sat.at_most([self.pool.id(m) for m in self.tm.move_vars], k - 1, self.pool, self.encoding)

    def decode(self, true_ids: set[int]):
        return self.tm.decode({k for k, v in zip(self.tm.jump_vars, self.jump_ids) if v in true_ids})


def build(inst: PegInstance, **options: Any) -> PegCnf:
    """The CNF model of `inst` with options['encoding'] for its cardinality constraints (the
    engine's options, defaults filled in by the registry)."""
    return PegCnf(inst, options["encoding"], options["invariants"])


def run(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `sat:time`."""
    opts = ctx.options
    pc = build(inst, **opts)
    stats: dict[str, Any] = {"params": {"sat_solver": opts["solver"], "encoding": opts["encoding"]},
                             "conflicts": 0, "decisions": []}
    if pc.tm.horizon == 0:
        ok = inst.finish is None or inst.start == inst.finish
        return Outcome(Status.OPTIMAL if ok else Status.INFEASIBLE, 0 if ok else None,
                       1 if ok and task is Task.COUNT else None, ((),) if ok else (), stats)

    def decide(k: int | None):
        """(True/False/None, solution) for moves <= k (None: no bound)."""
        extra = pc.bounded(k) if k is not None else []
        with _sat.new_solver(opts["solver"], pc.clauses + extra) as s:
            res = _sat.solve_limited(s, ctx)
            solved = _sat.stats(s, pc.pool.top, len(pc.clauses) + len(extra))  # read after solving
            calls.append({"moves_le": k, "result": {True: "SAT", False: "UNSAT", None: "limit"}[res],
                          **{x: solved[x] for x in ("conflicts", "model_size") if x in solved}})
            stats["model_size"] = solved["model_size"]
            stats["conflicts"] += solved.get("conflicts", 0)
            if res:
                model = s.get_model()
                return True, pc.decode({v for v in pc.jump_ids if model[v - 1] > 0})
            return res, None

    calls: list[dict] = stats["decisions"]  # one entry per solver call, with its own conflicts
    if task is Task.FEASIBLE:
        res, sol = decide(None)
        if res:
            return Outcome(Status.FEASIBLE, None, None, (sol,), stats)
        return Outcome(Status.INFEASIBLE if res is False else Status.UNKNOWN, stats=stats)
    lb = start_lower_bound(inst)
    best, best_sol, k, proved = None, None, pc.tm.horizon, True
    while k >= lb:
        res, sol = decide(k)
        ctx.progress(bound=k, result=calls[-1]["result"])
        if res is None:
            proved = False
            break
        if not res:
            break
        best_sol, best = sol, moves(sol)
        ctx.found(sol)
        k = best - 1
    if best is None:
        return Outcome(Status.INFEASIBLE if proved else Status.UNKNOWN, stats=stats)
    if not proved:
        return Outcome(Status.FEASIBLE, best, None, (best_sol,), stats)
    if task is Task.OPTIMIZE:
        return Outcome(Status.OPTIMAL, best, None, (best_sol,), stats)
    sols = []
    with _sat.new_solver(opts["solver"], pc.clauses + pc.bounded(best)) as s:
        try:
            for true in _sat.enumerate_projected(s, pc.jump_ids, ctx):
                sols.append(pc.decode(set(true)))
        except TimeoutError:
            return Outcome(Status.UNKNOWN, best, None, tuple(sols), stats,
                           reason="enumeration stopped by the time limit")
        finally:
            stats["enumeration_conflicts"] = _sat.stats(s, 0, 0).get("conflicts", 0)
            stats["conflicts"] += stats["enumeration_conflicts"]
    return Outcome(Status.OPTIMAL, best, len(sols), tuple(sols), stats)
