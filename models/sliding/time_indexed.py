"""Sliding-tile puzzles as time-indexed planning, shared by the CP-SAT and SAT formulations.

Formulation (planning as satisfiability, Kautz & Selman 1992, with explanatory frame axioms), for
a horizon of T moves:
  ('x', t, c, k)  cell c holds tile k (0 = blank) after t moves   (absent: false)
  ('m', t, a, b)  move t takes the blank from cell a to the neighbouring cell b (the tile on b
                  slides to a)                                      (the projection)
  ('inc', t)      move t increases the Manhattan sum                (with `bound`)
Each cell holds one tile and each tile is somewhere at every step; exactly one move per step; a
move needs the blank at a before and at b after, carries the tile of b to a, and every cell the
blank does not enter keeps its tile (frame axioms, both directions).
Options: `no_undo` forbids m[t,a,b] & m[t+1,b,a]; `bound` uses that every move changes the
Manhattan sum by exactly ±1, so exactly (T - h0)/2 moves increase it (`manhattan_bound()`: at
most that many), and drops x[t,c,k] when c is farther than t from k's start cell or than T - t
from its goal cell; `parity` leaves the blank off the cells of the wrong square colour for each
step. Every auxiliary is a function of the m variables, so enumerating projected on m is exact.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...puzzles.sliding import Sliding, manhattan, neighbours

from ..formulation import AtMost, Clause, ExactlyOne, Formulation

Key = tuple  # ('x', t, c, k) | ('m', t, a, b) | ('inc', t)
SOURCE = "planning as satisfiability (Kautz & Selman 1992) with explanatory frame axioms"


@dataclass(frozen=True)
class TimeModel:
    """The formulation (`f`) of one horizon with what the engines need to bound and decode it."""

    inst: Sliding
    T: int
    f: Formulation
    moves: tuple[Key, ...]             # the m keys: the projection that defines a solution
    increases: tuple[Key, ...]         # the inc keys
    max_increases: int | None          # with `bound`: (T - h0) // 2
    empty: bool                        # some cell or tile has no possible content: UNSAT outright

    def manhattan_bound(self) -> AtMost | None:
        """At most (T - h0)/2 moves increase the Manhattan sum (None without `bound`)."""
        if self.max_increases is None:
            return None
        return AtMost(self.increases, self.max_increases)

    def decode(self, true_keys: set) -> tuple[int, ...]:
        """The tiles moved, from the set of true m keys."""
        board = list(self.inst.start)
        out = []
        by_step = {k[1]: k for k in true_keys if k[0] == "m"}
        for t in range(self.T):
            _, _, a, b = by_step[t]
            k = board[b]
            board[a], board[b] = k, 0
            out.append(k)
        return tuple(out)


def build(inst: Sliding, T: int, no_undo: bool = True, bound: bool = True, parity: bool = True) -> TimeModel:
    """The time-indexed model of `inst` for exactly T moves (the Manhattan bound left to the engine)."""
    t0 = time.perf_counter()
    n, cols, rows = inst.cells, inst.cols, inst.rows
    dist = lambda a, b: abs(a // cols - b // cols) + abs(a % cols - b % cols)  # noqa: E731
    s_at = {k: c for c, k in enumerate(inst.start)}
    g_at = {k: c for c, k in enumerate(inst.goal)}
    x: set = set()
    for t in range(T + 1):
        for c in range(n):
            for k in range(n):
                if t == 0 and inst.start[c] != k or t == T and inst.goal[c] != k:
                    continue
                if bound and (dist(c, s_at[k]) > t or dist(c, g_at[k]) > T - t):
                    continue
                if parity and k == 0 and (dist(c, s_at[0]) + t) % 2:
                    continue
                x.add(("x", t, c, k))
    X = lambda key: key if key in x else None  # noqa: E731
    f = Formulation("sliding:time", SOURCE)
    empty = False
    for t in range(T + 1):
        for c in range(n):
            g = tuple(key for k in range(n) if (key := X(("x", t, c, k))))
            empty |= not g
            f.add("one tile per cell", ExactlyOne(g))
        for k in range(n):
            g = tuple(key for c in range(n) if (key := X(("x", t, c, k))))
            empty |= not g
            f.add("one cell per tile", ExactlyOne(g))
    m: list = []
    for t in range(T):
        step = []
        for a in range(n):
            for b in neighbours(rows, cols, a):
                if X(("x", t, a, 0)) and X(("x", t + 1, b, 0)):
                    step.append(("m", t, a, b))
        m += step
        empty |= not step
        f.add("one move per step", ExactlyOne(tuple(step)))
    mset = set(m)
    neg = lambda key: (key, False)  # noqa: E731
    pos = lambda key: (key, True)  # noqa: E731
    for v in m:
        _, t, a, b = v
        f.add("move preconditions", Clause((neg(v), pos(("x", t, a, 0)))), Clause((neg(v), pos(("x", t + 1, b, 0)))),
              Clause((neg(("x", t, a, 0)), neg(("x", t + 1, b, 0)), pos(v))))
        for k in range(1, n):  # the tile on b slides to a
            src, dst = X(("x", t, b, k)), X(("x", t + 1, a, k))
            if src and dst:
                f.add("move effects", Clause((neg(v), neg(src), pos(dst))))
            elif src:
                f.add("move effects", Clause((neg(v), neg(src))))
        if no_undo and ("m", t + 1, b, a) in mset:
            f.add("no undo", Clause((neg(v), neg(("m", t + 1, b, a)))))
    for t in range(T):
        for c in range(n):
            into = [pos(("m", t, a, c)) for a in neighbours(rows, cols, c) if ("m", t, a, c) in mset]
            out_of = [pos(("m", t, c, b)) for b in neighbours(rows, cols, c) if ("m", t, c, b) in mset]
            for k in range(1, n):
                now, nxt = X(("x", t, c, k)), X(("x", t + 1, c, k))
                if now:  # tile k stays on c unless the blank enters c
                    f.add("frame axioms", Clause((neg(now), *([pos(nxt)] if nxt else []), *into)))
                if nxt:  # tile k arrived on c only if the blank left c
                    f.add("frame axioms", Clause((neg(nxt), *([pos(now)] if now else []), *out_of)))
    increases: list = []
    max_increases = None
    if bound:
        max_increases = (T - manhattan(inst)) // 2
        for t in range(T):
            inc = ("inc", t)
            used = False
            for v in m:
                if v[1] != t:
                    continue
                _, _, a, b = v
                for k in range(1, n):
                    src = X(("x", t, b, k))
                    if src and dist(a, g_at[k]) > dist(b, g_at[k]):
                        used = True
                        f.add("manhattan increases", Clause((neg(v), neg(src), pos(inc))))
            if used:
                increases.append(inc)
    if "no undo" in f.groups:
        f.mark("no undo", "dominance")  # an optimal plan never undoes its previous move
    f.projection = tuple(m)
    f.build_seconds = time.perf_counter() - t0
    return TimeModel(inst, T, f, tuple(m), tuple(increases), max_increases, empty)


def horizons(inst: Sliding, options: dict) -> range:
    """The horizons to try, in order, from the Manhattan bound (by 2 with `parity_step`)."""
    return range(manhattan(inst), options["max_horizon"] + 1, 2 if options["parity_step"] else 1)


def trivial(inst: Sliding, task):
    """The outcome without a model: unsolvable by parity, or already at the goal (else None)."""
    from ...core.result import Outcome, Status, Task
    from ...puzzles.sliding import infeasible_reason
    reason = infeasible_reason(inst)
    if reason is not None:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, reason=reason)
    if inst.start == inst.goal:
        return Outcome(Status.OPTIMAL, 0, 1 if task is Task.COUNT else None, ((),), {"vars": 0, "clauses": 0})
    return None


def decision(inst: Sliding, task, options: dict, bound: int | None = None):
    """Formulation hook of sat:time and cpsat:time (export, stats, ext:dimacs, ps.model): the plan
    of exactly `bound` moves (default: the published optimum, else the Manhattan lower bound)
    with the engine's options; ascending horizons (by 2 with parity_step) find the optimum."""
    from .._ext import Decision
    lower = manhattan(inst)
    T = bound if bound is not None else (inst.optimal if inst.optimal is not None else lower)
    tm = build(inst, T, options["no_undo"], options["manhattan_bound"], options["parity_step"])
    f = tm.f.copy()
    b = tm.manhattan_bound()
    if b is not None:
        f.add("manhattan bound", b)
        f.mark("manhattan bound", "implied")
    if tm.empty:
        f.add("empty horizon", Clause(()))  # a cell, tile or step with no possible content
    return Decision(f, tm.decode, T, f"exactly {T} moves", lower, options["max_horizon"], False,
                    2 if options["parity_step"] else 1)
