"""Rush Hour as time-indexed planning (planning as satisfiability, Kautz & Selman 1992, with
explanatory frame axioms), one formulation compiled to CP-SAT and to CNF through puzzlesat's
`Formulation`. The horizon T rises from a lower bound until the plan exists; every shorter
horizon is proved infeasible, so the first feasible T is the optimum.

Variables for a horizon of T moves (metric moves) or T one-cell steps (metric steps):
  ('x', t, v, p)      vehicle v sits at offset p after t moves (absent: impossible: off the
                      board, over a wall, too far from its start for t steps, or the red car at
                      the exit before the end)
  ('m', t, v, p, q)   move t slides v from p to q (steps: |p - q| = 1)      (the projection)
  ('free', t, c)      cell c is empty after t moves
  ('moved', t, v)     v moves at move t (metric moves, with `no_repeat`)
Constraints: each vehicle at exactly one offset and each cell either free or covered by exactly
one (vehicle, offset) at every t; exactly one move per step; a move needs v at p before and at q
after and every cell it sweeps through free before (metric moves: the cells between; steps: the
one cell it enters, covered by the cell constraint after); a vehicle that does not move keeps its
offset (frame axioms); the red car at the exit after move T. Cuts that keep every shortest plan:
`no_repeat` (metric moves: no vehicle moves twice in a row: the two moves would merge into one),
`no_undo` (metric steps: no step undoes the previous one). Every other variable is a function of
the moves, so projected enumeration on m counts plans exactly.

Horizon lower bound: moves: 1 + the vehicles between the red car and the exit (each must move
once, then the red car); steps: the red car's distance to the exit + for each such vehicle the
fewest cells it must slide to clear the red car's row.
"""
from __future__ import annotations

import time
from typing import Any

from puzzlesat import Context, Outcome, Status, Task
from puzzlesat.engine import (CPSAT_DEFAULTS, Clause, ExactlyOne, Formulation, cpsat_enumerate,
                              cpsat_solve, sat_enumerate, sat_solve, to_cnf, to_cpsat)

from .puzzle import RushHour, Solution, infeasible_reason

SOURCE = "planning as satisfiability (Kautz & Selman 1992) with explanatory frame axioms"


def lower_bound(inst: RushHour) -> int:
    """A lower bound on the optimum in the instance's metric (see the module docstring)."""
    red = inst.red
    if red.offset == inst.goal:
        return 0
    row, cols = red.line, inst.cols
    ahead = range(red.offset + red.length, cols)
    blockers = [v for v in inst.vehicles[1:] if not v.horizontal and v.line in ahead
                and v.offset <= row < v.offset + v.length]
    if inst.metric == "moves":
        return 1 + len(blockers)
    lb = inst.goal - red.offset
    for v in blockers:
        up = v.offset + v.length - row                      # bottom just above the row
        down = row - v.offset + 1                           # top just below the row
        options = [k for k, ok in ((up, up <= v.offset), (down, row + v.length <= inst.rows - 1)) if ok]
        lb += min(options) if options else 0
    return lb


def _cells(inst: RushHour, v, p: int) -> tuple[int, ...]:
    return v.cells(inst.cols, p)


def _swept(inst: RushHour, v, p: int, q: int) -> set[int]:
    """The cells v covers on its way from offset p to offset q."""
    out: set[int] = set()
    for r in range(min(p, q), max(p, q) + 1):
        out |= set(_cells(inst, v, r))
    return out


def build(inst: RushHour, T: int, cuts: bool = True) -> tuple[Formulation, dict]:
    """The formulation of plans of exactly T moves (steps), and the decoder's data (the move keys
    by step)."""
    t0 = time.perf_counter()
    unit = inst.metric == "steps"
    n_cells = inst.rows * inst.cols
    walls = set(inst.walls)
    f = Formulation(f"rushhour:time:{inst.metric}", SOURCE)
    X: set = set()
    for vi, v in enumerate(inst.vehicles):
        size = inst.cols if v.horizontal else inst.rows
        for p in range(size - v.length + 1):
            if walls & set(_cells(inst, v, p)):
                continue
            for t in range(T + 1):
                if unit and abs(p - v.offset) > t:
                    continue
                if t == 0 and p != v.offset:
                    continue
                if vi == 0:
                    if t == T and p != inst.goal or t < T and p == inst.goal:
                        continue
                    if unit and inst.goal - p > T - t:
                        continue
                X.add(("x", t, vi, p))
    cover: dict[tuple[int, int], list] = {}
    for t in range(T + 1):
        for vi, v in enumerate(inst.vehicles):
            keys = tuple(k for p in range(max(inst.rows, inst.cols)) if (k := ("x", t, vi, p)) in X)
            f.add("one offset per vehicle", ExactlyOne(keys))
            for k in keys:
                for c in _cells(inst, v, k[3]):
                    cover.setdefault((t, c), []).append(k)
        for c in range(n_cells):
            if c in walls:
                continue
            f.add("each cell free or covered once", ExactlyOne((("free", t, c), *cover.get((t, c), ()))))
    moves_by_step: list[list] = []
    for t in range(T):
        step = []
        for vi, v in enumerate(inst.vehicles):
            size = inst.cols if v.horizontal else inst.rows
            for p in range(size - v.length + 1):
                if ("x", t, vi, p) not in X:
                    continue
                for q in range(size - v.length + 1):
                    if q == p or unit and abs(q - p) != 1 or ("x", t + 1, vi, q) not in X:
                        continue
                    if walls & _swept(inst, v, p, q):  # it would jump over a wall
                        continue
                    step.append(("m", t, vi, p, q))
        moves_by_step.append(step)
        f.add("one move per step", ExactlyOne(tuple(step)))
        for m in step:
            _, _, vi, p, q = m
            v = inst.vehicles[vi]
            f.add("move preconditions", Clause(((m, False), (("x", t, vi, p), True))),
                  Clause(((m, False), (("x", t + 1, vi, q), True))))
            if not unit:  # the cells swept between p and q (beyond the ones v covers at p)
                for c in sorted(_swept(inst, v, p, q) - set(_cells(inst, v, p))):
                    f.add("path clear", Clause(((m, False), (("free", t, c), True))))
        by_v: dict[int, list] = {}
        for m in step:
            by_v.setdefault(m[2], []).append(m)
        for vi, v in enumerate(inst.vehicles):
            size = inst.cols if v.horizontal else inst.rows
            for p in range(size - v.length + 1):
                now = ("x", t, vi, p)
                if now not in X:
                    continue
                nxt = ("x", t + 1, vi, p)
                leave = [(m, True) for m in by_v.get(vi, ()) if m[3] == p]
                f.add("frame axioms", Clause(((now, False), *([(nxt, True)] if nxt in X else []), *leave)))
        if cuts and not unit:
            for vi, ms in by_v.items():
                mv = ("moved", t, vi)
                f.add("moved", Clause(((mv, False), *[(m, True) for m in ms])),
                      *[Clause(((m, False), (mv, True))) for m in ms])
    if cuts:
        for t in range(T - 1):
            if unit:
                later = set(moves_by_step[t + 1])
                for m in moves_by_step[t]:
                    back = ("m", t + 1, m[2], m[4], m[3])
                    if back in later:
                        f.add("no undo", Clause(((m, False), (back, False))))
            else:
                movers = {m[2] for m in moves_by_step[t]} & {m[2] for m in moves_by_step[t + 1]}
                for vi in sorted(movers):
                    f.add("no repeat", Clause(((("moved", t, vi), False), (("moved", t + 1, vi), False))))
    f.projection = tuple(m for step in moves_by_step for m in step)
    f.build_seconds = time.perf_counter() - t0
    return f, {"ids": [v.id for v in inst.vehicles], "unit": unit}


def decode(inst: RushHour, true_moves: set, info: dict) -> Solution:
    """The plan from the set of true move keys (one per step), one-cell steps merged."""
    by_t = sorted(true_moves, key=lambda m: m[1])
    out: list[tuple[str, int]] = []
    for _, _, vi, p, q in by_t:
        vid, d = info["ids"][vi], q - p
        if info["unit"] and out and out[-1][0] == vid and (out[-1][1] > 0) == (d > 0):
            out[-1] = (vid, out[-1][1] + d)
        else:
            out.append((vid, d))
    return tuple(out)


def _trivial(inst: RushHour, task: Task) -> Outcome | None:
    reason = infeasible_reason(inst)
    if reason is not None:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, reason=reason)
    if inst.red.offset == inst.goal:
        return Outcome(Status.OPTIMAL if task is not Task.FEASIBLE else Status.FEASIBLE, 0,
                       1 if task is Task.COUNT else None, ((),), {"vars": 0})
    return None


def _out_of_time(T: int, tried: list, params: dict) -> Outcome:
    return Outcome(Status.UNKNOWN, stats={"horizons": tried}, params=params,
                   reason=f"time limit while building horizon {T} (every shorter horizon infeasible)")


def _done(task: Task, T: int, first: Solution, stats: dict, params: dict) -> Outcome:
    return Outcome(Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL, T, None, (first,),
                   stats, params=params)


def run_cpsat(inst: RushHour, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:time — raise the horizon until feasible; count optimal plans by projected
    enumeration (one worker)."""
    out = _trivial(inst, task)
    if out is not None:
        return out
    o = ctx.options
    p = {**CPSAT_DEFAULTS, "num_workers": o["workers"], "linearization_level": o["linearization_level"],
         "random_seed": o["seed"]}
    params = {"cpsat": p, "cuts": o["cuts"]}
    tried: list[tuple[int, Any, float]] = []
    t0 = time.perf_counter()
    for T in range(lower_bound(inst), o["max_horizon"] + 1):
        f, info = build(inst, T, o["cuts"])
        data = to_cpsat(f)
        if ctx.expired():  # building took the rest of the time
            return _out_of_time(T, tried, params)
        t1 = time.perf_counter()
        st, solver = cpsat_solve(data.model, ctx, **p)
        tried.append((T, {Status.OPTIMAL: True, Status.FEASIBLE: True, Status.INFEASIBLE: False}.get(st),
                      round(time.perf_counter() - t1, 3)))
        ctx.progress(horizon=T, result=str(st))
        size = data.stats()
        stats = {"vars": size["vars"], "constraints": size["constraints"], "horizons": tried,
                 "branches": solver.num_branches, "conflicts": solver.num_conflicts}
        if st is Status.INFEASIBLE:
            continue
        if st not in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.UNKNOWN, stats=stats, params=params,
                           reason=f"time limit at horizon {T} (every shorter horizon infeasible)")
        first = decode(inst, {k for k in f.projection if solver.boolean_value(data.vars[k])}, info)
        ctx.found(first)
        stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
        if task is not Task.COUNT:
            return _done(task, T, first, stats, params)
        est, projs = cpsat_enumerate(data.model, data.projection_vars(), ctx, **{
            k: v for k, v in p.items() if k != "num_workers"})
        params["cpsat_enumerate"] = {**{k: v for k, v in p.items() if k != "num_workers"},
                                     "num_workers": 1, "enumerate_all_solutions": True}
        sols = tuple(decode(inst, {k for k, val in zip(f.projection, pr) if val}, info) for pr in projs)
        if est is not Status.OPTIMAL:
            return Outcome(Status.UNKNOWN, T, None, sols, stats, reason="time limit while counting",
                           params=params)
        return Outcome(Status.OPTIMAL, T, len(sols), sols, stats, params=params)
    return Outcome(Status.UNKNOWN, stats={"horizons": tried}, params=params,
                   reason=f"no plan within max_horizon={o['max_horizon']}")


def run_sat(inst: RushHour, task: Task, ctx: Context) -> Outcome:
    """Engine sat:time — raise the horizon until SAT; count optimal plans by blocking clauses over
    the move variables."""
    out = _trivial(inst, task)
    if out is not None:
        return out
    o = ctx.options
    params = {"sat": {"solver": o["solver"], "encoding": o["encoding"]}, "cuts": o["cuts"]}
    tried: list[tuple[int, Any, float]] = []
    t0 = time.perf_counter()
    for T in range(lower_bound(inst), o["max_horizon"] + 1):
        f, info = build(inst, T, o["cuts"])
        cnf = to_cnf(f, o["encoding"])
        if ctx.expired():  # building took the rest of the time
            return _out_of_time(T, tried, params)
        t1 = time.perf_counter()
        res, model = sat_solve(cnf.clauses, ctx, o["solver"])
        tried.append((T, res, round(time.perf_counter() - t1, 3)))
        ctx.progress(horizon=T, result={None: "limit", True: "SAT", False: "UNSAT"}[res])
        stats = {"vars": cnf.pool.top, "clauses": len(cnf.clauses), "horizons": tried}
        if res is None:
            return Outcome(Status.UNKNOWN, stats=stats, params=params,
                           reason=f"time limit at horizon {T} (every shorter horizon UNSAT)")
        if not res:
            continue
        proj = cnf.projection_ids()
        true = {v for v in model if v > 0}
        first = decode(inst, {k for k, v in zip(f.projection, proj) if v in true}, info)
        ctx.found(first)
        stats["seconds_to_optimum"] = round(time.perf_counter() - t0, 3)
        if task is not Task.COUNT:
            return _done(task, T, first, stats, params)
        sols = []
        try:
            for true in sat_enumerate(cnf.clauses, proj, ctx, o["solver"]):
                sols.append(decode(inst, {k for k, v in zip(f.projection, proj) if v in true}, info))
        except TimeoutError:
            return Outcome(Status.UNKNOWN, T, None, tuple(sols), stats, params=params,
                           reason="time limit while counting")
        return Outcome(Status.OPTIMAL, T, len(sols), tuple(sols), stats, params=params)
    return Outcome(Status.UNKNOWN, stats={"horizons": tried}, params=params,
                   reason=f"no plan within max_horizon={o['max_horizon']}")
