"""MIP backend: a Formulation compiled straight into a HiGHS model through highspy (no LP file in
between), and the `mip:<formulation>` engines (the driver: models/paradigm.py).

Formulation (0-1 integer programming, the textbook translation of each constraint kind):

    Clause(l1..ln)          sum(x for positive l) - sum(x for negative l) >= 1 - #negative
    ExactlyOne / AtMostOne  sum = 1 / sum <= 1;   AtMost(k) / AtLeast(k): sum <= k / sum >= k
    Xor(keys, p)            sum(keys) - 2 z = p, z an integer in [0, n // 2]
    Linear(terms, lo, hi)   lo <= sum(c x) <= hi; with `enforce` literals e (half-reified): the
                            big-M form lo - M_lo * v <= sum(c x) <= hi + M_hi * v, v = the number
                            of enforce literals that are false, M from the variables' domains
                            (exact: the domains are finite, so the bound is never cut)

Every parameter that can change a result is pinned and recorded (`params`): one thread, seed 0,
relative and absolute MIP gaps 0 (HiGHS stops at "optimal" only with the gap closed), presolve on,
feasibility tolerances. Status: HiGHS's kOptimal with a closed gap -> OPTIMAL; a solution at a
time limit or with a gap left -> FEASIBLE; kInfeasible -> INFEASIBLE; else UNKNOWN. Solutions are
read by rounding the columns (mip_feasibility_tolerance, which HiGHS also applies to integrality, is 1e-9 here), decoded through the keys,
and checked by the family's checker.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Hashable

from ..core.result import Context, InputError, Outcome, Status, Task

from .formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Formulation, Linear, Xor)
from .paradigm import Answer, Backend, no_good, run as drive

Key = Hashable

PARAMS = {
    "threads": 1,
    "random_seed": 0,
    "mip_rel_gap": 0.0,
    "mip_abs_gap": 0.0,
    "presolve": "on",
    "mip_feasibility_tolerance": 1e-9,
    "primal_feasibility_tolerance": 1e-9,
    "output_flag": False,
}


def available() -> str | None:
    """None when highspy is installed, else why not (the engines' availability check, in the
    parent process: looked up, not imported)."""
    from importlib.util import find_spec
    if find_spec("highspy") is None:
        return "highspy is not installed: pip install 'puzzlesat[paradigms]' or pip install highspy"
    return None


@contextlib.contextmanager
def _quiet():
    """fd 1 to /dev/null while HiGHS prints its banner (it ignores output_flag for that)."""
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


class HighsModel:
    """The formulation as a HiGHS model: one column per key (Booleans in [0, 1], integers in their
    domain, all integral), one row per linear form of a constraint (module doc)."""

    def __init__(self, f: Formulation, objective: tuple | None = None,
                 params: dict[str, Any] | None = None):
        import highspy
        import numpy as np
        self.f = f
        with _quiet():
            self.h = h = highspy.Highs()
        for k, v in {**PARAMS, **(params or {})}.items():
            h.setOptionValue(k, v)
        self.col: dict[Key, int] = {}
        lb: list[float] = []
        ub: list[float] = []

        def col(key: Key) -> int:
            c = self.col.get(key)
            if c is None:
                c = self.col[key] = len(lb)
                lo, hi = f.ints.get(key, (0, 1))
                lb.append(lo)
                ub.append(hi)
            return c

        for k in f.bool_keys():
            col(k)
        for k in f.ints:
            col(k)
        rows_lo: list[float] = []
        rows_hi: list[float] = []
        starts: list[int] = []
        idx: list[int] = []
        val: list[float] = []
        inf = highspy.kHighsInf
        self.group_rows: dict[str, int] = {}

        def row(terms: list[tuple[int, int]], lo: float, hi: float) -> None:
            merged: dict[int, int] = {}
            for c, j in terms:
                merged[j] = merged.get(j, 0) + c
            starts.append(len(idx))
            for j, c in merged.items():
                if c:
                    idx.append(j)
                    val.append(c)
            rows_lo.append(lo)
            rows_hi.append(hi)

        def span(terms: list[tuple[int, int]]) -> tuple[int, int]:
            lo = sum(c * (lb[j] if c > 0 else ub[j]) for c, j in terms)
            hi = sum(c * (ub[j] if c > 0 else lb[j]) for c, j in terms)
            return lo, hi

        nxor = 0
        for g, cs in f.groups.items():
            n0 = len(rows_lo)
            for c in cs:
                if isinstance(c, Clause):
                    neg = sum(1 for _, p in c.lits if not p)
                    row([(1 if p else -1, col(k)) for k, p in c.lits], 1 - neg, inf)
                elif isinstance(c, ExactlyOne):
                    row([(1, col(k)) for k in c.keys], 1, 1)
                elif isinstance(c, AtMostOne):
                    row([(1, col(k)) for k in c.keys], -inf, 1)
                elif isinstance(c, AtMost):
                    row([(1, col(k)) for k in c.keys], -inf, c.k)
                elif isinstance(c, AtLeast):
                    row([(1, col(k)) for k in c.keys], c.k, inf)
                elif isinstance(c, Xor):
                    z = col(("mip xor", nxor))
                    nxor += 1
                    ub[z] = len(c.keys) // 2
                    row([(1, col(k)) for k in c.keys] + [(-2, z)], c.parity, c.parity)
                elif isinstance(c, Linear):
                    terms = [(co, col(k)) for co, k in c.terms]
                    if not c.enforce:
                        row(terms, c.lo, c.hi)
                        continue
                    # v = number of false enforce literals = sum(1 - x) + sum(x) over them
                    off = sum(1 for _, p in c.enforce if p)
                    ev = [(-1 if p else 1, col(k)) for k, p in c.enforce]
                    smin, smax = span(terms)
                    m_lo, m_hi = max(0, c.lo - smin), max(0, smax - c.hi)
                    if m_lo:  # sum + m_lo * v >= lo
                        row(terms + [(m_lo * a, j) for a, j in ev], c.lo - m_lo * off, inf)
                    if m_hi:  # sum - m_hi * v <= hi
                        row(terms + [(-m_hi * a, j) for a, j in ev], -inf, c.hi + m_hi * off)
                else:
                    raise InputError(f"formulation {f.name}: {type(c).__name__} has no MIP form")
            self.group_rows[g] = len(rows_lo) - n0
        n = len(lb)
        with _quiet():
            h.addVars(n, np.array(lb, dtype=float), np.array(ub, dtype=float))
            h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                                    np.full(n, highspy.HighsVarType.kInteger))
            if rows_lo:
                h.addRows(len(rows_lo), np.array(rows_lo, dtype=float), np.array(rows_hi, dtype=float),
                          len(idx), np.array(starts, dtype=np.int32), np.array(idx, dtype=np.int32),
                          np.array(val, dtype=float))
        self.objective = objective
        if objective is not None:
            sense, terms, offset = objective
            cost = np.zeros(n)
            for c, k in terms:
                cost[col(k)] += c
            h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
            h.changeObjectiveOffset(float(offset))
            h.changeObjectiveSense(highspy.ObjSense.kMaximize if sense == "max"
                                   else highspy.ObjSense.kMinimize)
        self.calls = 0
        self.nodes = 0
        self.proj = [(k, self.col[k]) for k in f.projection]

    def solve(self, ctx: Context) -> Answer:
        """One run under the context's remaining time (module doc: statuses)."""
        import highspy
        h = self.h
        rem = ctx.remaining()
        if rem is not None and rem <= 0:
            return Answer(Status.UNKNOWN, reason="time limit")
        h.setOptionValue("time_limit", float(rem) if rem is not None else highspy.kHighsInf)
        with _quiet():
            h.run()
        self.calls += 1
        info = h.getInfo()
        self.nodes += max(0, int(getattr(info, "mip_node_count", 0)))
        ms = h.getModelStatus()
        M = highspy.HighsModelStatus
        has_sol = info.primal_solution_status == 2  # kSolutionStatusFeasible
        if ms == M.kInfeasible:
            return Answer(Status.INFEASIBLE)
        if ms == M.kOptimal or (has_sol and ms in (M.kTimeLimit, M.kInterrupt, M.kIterationLimit,
                                                    M.kSolutionLimit, M.kObjectiveBound,
                                                    M.kObjectiveTarget)):
            values = h.getSolution().col_value
            true = {k for k, j in self.proj if values[j] > 0.5}
            value = info.objective_function_value if self.objective is not None else None
            gap_closed = ms == M.kOptimal and (self.objective is None or _closed(info))
            return Answer(Status.OPTIMAL if gap_closed else Status.FEASIBLE, true, value,
                          None if gap_closed else ("time limit" if ms == M.kTimeLimit
                                                   else f"HiGHS stopped: {h.modelStatusToString(ms)}"))
        if ms in (M.kTimeLimit, M.kInterrupt):
            return Answer(Status.UNKNOWN, reason="time limit")
        if ms == M.kMemoryLimit:
            return Answer(Status.UNKNOWN, reason="memory")
        return Answer(Status.UNKNOWN, reason=f"HiGHS: {h.modelStatusToString(ms)}")

    def block(self, true: set) -> None:
        """Add the no-good row that excludes this projection."""
        import numpy as np
        lits = no_good(true, (k for k, _ in self.proj))
        neg = sum(1 for _, p in lits if not p)
        cols = np.array([self.col[k] for k, _ in lits], dtype=np.int32)
        vals = np.array([1.0 if p else -1.0 for _, p in lits])
        import highspy
        self.h.addRow(1.0 - neg, highspy.kHighsInf, len(cols), cols, vals)

    def stats(self) -> dict[str, Any]:
        return {"vars": int(self.h.getNumCol()), "constraints": int(self.h.getNumRow()),
                "nonzeros": int(self.h.getNumNz()), "nodes": self.nodes, "solver_calls": self.calls}


def _closed(info) -> bool:
    """The MIP gap is closed: the dual bound meets the incumbent (integer objective: within 1)."""
    gap = getattr(info, "mip_gap", None)
    if gap is not None and gap <= 1e-9:
        return True
    primal, dual = info.objective_function_value, getattr(info, "mip_dual_bound", None)
    return dual is not None and abs(primal - dual) < 1 - 1e-6


def backend(options: dict[str, Any]) -> Backend:
    """The HiGHS backend with its pinned parameters."""
    why = available()
    if why is not None:
        raise InputError(why)
    version = _version()
    return Backend("HiGHS " + version, lambda f, obj: HighsModel(f, obj),
                   {"solver": "highs", "highs_version": version,
                    **{k: v for k, v in PARAMS.items() if k != "output_flag"}})


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("highspy")
    except PackageNotFoundError:
        return "?"


def run(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine `mip:<formulation>`: the formulation hook's model in HiGHS (optimize: its objective
    when it has one, else the hook's decision calls; count: no-good enumeration, exact)."""
    return drive(inst, task, ctx, backend(ctx.options))
