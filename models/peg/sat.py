"""Peg solitaire as CNF (python-sat): the time-indexed formulation of models/peg/time_indexed.py.

Variables come from an IDPool by domain key (`pool.id(('j', t, l))`), so decoding reads the true
j keys back. "moves <= K" is a cardinality constraint over the new-move variables in the chosen
PySAT encoding (`encoding=seqcounter|totalizer|…`). Minimum moves by descending K from the best
solution found until UNSAT or the corner lower bound; counting by blocking clauses on the jump
variables only.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any


from ...core.result import Context, InputError, Outcome, Status, Task
from ...puzzles.peg import PegInstance, moves, start_lower_bound

from .._ext import Decision

from .. import _sat
from ..formulation import to_cnf
from ..prooflog import ProofLog, blocking
from .time_indexed import TimeModel, build as build_time


class PegCnf:
    """The CNF of the time model (`cnf`, over an IDPool of domain keys); `bounded(k)` adds moves <= k."""

    def __init__(self, inst: PegInstance, encoding: str, invariants: bool = True, builder=build_time):
        self.tm: TimeModel = builder(inst, invariants)
        self.cnf = to_cnf(self.tm.f, encoding)
        self.pool = self.cnf.pool
        self.clauses: list[list[int]] = self.cnf.clauses
        self.jump_ids = [self.pool.id(k) for k in self.tm.jump_vars]

    def bounded(self, k: int) -> list[list[int]]:
        """Clauses for moves <= k (first jump always starts a move), group 'move counting'."""
        return self.cnf.extra("move counting", *self.tm.bounds(k))

    def decode(self, true_ids: set[int]):
        return self.tm.decode({k for k, v in zip(self.tm.jump_vars, self.jump_ids) if v in true_ids})


def build(inst: PegInstance, builder=build_time, **options: Any) -> PegCnf:
    """The CNF model of `inst` (`builder`: the formulation, default the time model) with
    options['encoding'] for its cardinality constraints (the engine's options, defaults filled in
    by the registry)."""
    return PegCnf(inst, options["encoding"], options["invariants"], builder)


def validate(inst: PegInstance, options: dict) -> None:
    """Refuse (InputError) an encoding that cannot state "moves <= K": pairwise, ladder and bitwise
    encode at-most-one only, and the move bound is an at-most-K."""
    if options["encoding"] in _sat.AMO_ONLY:
        raise InputError(f"option encoding={options['encoding']} of peg sat:time: it encodes "
                         "at-most-one only and the move bound is an at-most-K; choose one of "
                         + ", ".join(e for e in _sat.ENCODINGS if e not in _sat.AMO_ONLY))


def decision(inst: PegInstance, task: Task, options: dict, bound: int | None,
             builder=build_time) -> Decision:
    """Formulation hook of sat:time and cpsat:time: the time model with moves <= bound (default:
    the known optimum, else the corner lower bound; FEASIBLE: no bound)."""
    tm = builder(inst, options["invariants"])
    lb = start_lower_bound(inst)
    if bound is None and task is not Task.FEASIBLE:
        bound = inst.known_min_moves if inst.known_min_moves is not None else lb
    f = tm.f.copy()
    if bound is not None and tm.horizon:
        first, *rest = tm.bounds(bound)  # moves <= K, then the bound's implied resource counts
        f.add("move counting", first)
        if rest:
            f.add("resource bounds", *rest)
            f.mark("resource bounds", "implied")
    return Decision(f, tm.decode, bound, "no bound" if bound is None else f"moves <= {bound}",
                    lb, tm.horizon, True, 1, moves, ("min", tuple((1, k) for k in tm.move_vars),
                                                     1 if tm.horizon else 0),
                    search_order=tm.jump_vars)


def run(inst: PegInstance, task: Task, ctx: Context, builder=build_time, count_builder=None) -> Outcome:
    """Engine `sat:time` (other peg formulations pass their `builder`; a formulation whose
    solution set is not the full one — symmetry breaking — passes `count_builder`, the model the
    count enumerates over)."""
    opts = ctx.options
    log = ProofLog(ctx, opts["solver"], f"peg-{getattr(inst, 'name', 'instance')}")
    pc = build(inst, builder, **opts)
    params = {"sat_solver": opts["solver"], "encoding": opts["encoding"]}
    stats: dict[str, Any] = {}
    trusted = (f"the CNF states the puzzle ({getattr(builder, '__module__', 'peg.time_indexed')} formulation, "
               f"moves <= K in the {opts['encoding']} encoding; cross-validated against the native "
               "searches); solutions are checked by the family's checker")
    if pc.tm.horizon == 0:
        ok = inst.solved_at_start
        cert = log.certificate("the start is the finish" if ok else "no jump and not solved at the "
                               "start: nothing for a solver to refute", trusted)
        if cert is not None:
            cert = replace(cert, refused="no solver call: the board has no jump")
        return Outcome(Status.OPTIMAL if ok else Status.INFEASIBLE, 0 if ok else None,
                       1 if ok and task is Task.COUNT else None, ((),) if ok else (), stats, params=params,
                       certificate=cert)

    def decide(k: int | None):
        """(True/False/None, solution) for moves <= k (None: no bound)."""
        extra = pc.bounded(k) if k is not None else []
        with log.solver(pc.clauses + extra) as s:
            res = _sat.solve_limited(s, ctx)
            if res is False:
                log.unsat(s, pc.clauses + extra, "no solution" if k is None else
                          f"no solution with <= {k} moves", pc.pool.top)
            before = stats.get("conflicts", 0)
            _sat.add_stats(stats, s, pc.pool.top, len(pc.clauses) + len(extra))
            calls.append({"moves_le": k, "result": {True: "SAT", False: "UNSAT", None: "limit"}[res],
                          "conflicts": stats.get("conflicts", 0) - before})
            if res:
                model = s.get_model()
                return True, pc.decode(set(_sat.true_in(model, pc.jump_ids)))
            return res, None

    calls: list[dict] = []  # one entry per solver call, with that call's own conflicts
    if task is Task.FEASIBLE:
        res, sol = decide(None)
        if res:
            return Outcome(Status.FEASIBLE, None, None, (sol,), stats, params=params)
        return Outcome(Status.INFEASIBLE if res is False else Status.UNKNOWN, stats=stats, params=params,
                       certificate=log.certificate("no solution", trusted))
    # certifying: descend to 0, so that "moves <= best-1" is always a solver call with its proof
    # (without, the corner lower bound may end the descent with no call)
    lb = 0 if log.on else start_lower_bound(inst)
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
    stats["decisions"] = calls
    if best is None:
        return Outcome(Status.INFEASIBLE if proved else Status.UNKNOWN, stats=stats, params=params,
                       certificate=log.certificate("no solution", trusted) if proved else None)
    if not proved:
        return Outcome(Status.FEASIBLE, best, None, (best_sol,), stats, params=params)
    if task is Task.OPTIMIZE:
        return Outcome(Status.OPTIMAL, best, None, (best_sol,), stats, params=params,
                       certificate=log.certificate(f"minimum {best} moves: the solution found has "
                                                   f"{best}, and no solution has <= {best - 1}", trusted))
    sols, trues = [], []
    if count_builder is not None:
        pc = build(inst, count_builder, **opts)
    with _sat.new_solver(opts["solver"], pc.clauses + pc.bounded(best)) as s:
        try:
            for true in _sat.enumerate_projected(s, pc.jump_ids, ctx):
                sols.append(pc.decode(set(true)))
                trues.append(true)
        except TimeoutError:
            return Outcome(Status.UNKNOWN, best, None, tuple(sols), stats,
                           reason="enumeration stopped by the time limit", params=params)
        finally:
            _sat.add_stats(stats, s, pc.pool.top, len(pc.clauses))
    cert = None
    if log.on:  # the formula at the optimum plus one blocking clause per solution: UNSAT
        log.refute(pc.clauses + pc.bounded(best) + [blocking(t, pc.jump_ids) for t in trues],
                   f"no solution with <= {best} moves beyond the {len(sols)} blocked (blocking "
                   f"clauses over the {len(pc.jump_ids)} jump variables, which define a solution)",
                   pc.pool.top)
        cert = log.certificate(f"exactly {len(sols)} solutions with the minimum {best} moves",
                               trusted, blocking=len(sols))
    return Outcome(Status.OPTIMAL, best, len(sols), tuple(sols), stats, params=params,
                   certificate=cert)
