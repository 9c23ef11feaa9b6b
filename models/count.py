"""An exact model counter for formulations (engine `count:frontier`): the number of solutions of
a family's formulation, projected on its projection keys, counted without listing them.

Why not pyganak (the Ganak model counter's Python binding, on PyPI): its `Counter` runs Ganak with
probabilistic component caching (hashed cache keys: a collision gives a wrong count, with a
probability Ganak bounds by delta ~1e-9) and offers no switch for the deterministic cache (the
`ganak` program's `--prob 0`), so its counts are not exact in the sense puzzlesat promises (a
count is exact or UNKNOWN). This counter is exact by construction and small.

The method: knowledge compilation by frontier (Knuth, TAOCP 7.1.4, "BDDs from frontiers"; Minato's
frontier-based search). The formulation's Boolean keys are put in an order (by first mention in
the constraints: as the model lists them, or in Cuthill-McKee order of the constraints when that
gives the narrower frontier, `frontier_bits`); at each point of the order the "frontier" is the
set of constraints that mention keys on both sides of it, and a state is the value of each
frontier constraint so far: a clause satisfied or not, a cardinality's running sum (capped), an
XOR's parity. Constraints are read as the model states them (ExactlyOne, AtMost, AtLeast, Clause,
Xor), not through a CNF encoding, so no auxiliary variable exists to multiply the count. The count
is a sum over paths: layer by layer, every distinct state with the number of assignments of the
keys so far that reach it.

When every key is in the projection (tilings, n-queens) the layers are compiled
(models/_frontier.py: numba kernels, states packed in uint64 words, counts as multi-limb integers
that widen on a carry, joined into a Python int at the end). A key outside the projection is
existentially quantified by the subset construction: its two values lead into one set of states (a
state of the counter is then a set of frontier states), so each projected assignment is counted
once whatever the other keys do; those layers are Python dicts of Python ints (exact, any size).

It fits formulations of small frontier (rectangles tiled by small pieces, n-queens by rows, time
models step by step); elsewhere the layers grow until the time limit or the memory budget
(`memory_mb`: the compiled layers' arrays, estimated before each layer is made; the Python layers'
growth of the process's resident memory, looked at every few thousand states) stops it:
UNKNOWN with the point reached, never a partial number. For a family with an objective, the
optimum is found first by decision calls of the same formulation (a SAT solver), and the solutions
at the optimal bound are counted. Counting up to symmetry needs the solutions: refused.
"""
from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Any, Hashable, Sequence

from ..core.result import Context, InputError, Outcome, Status, Task
from .formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Formulation, Xor,
                          keys_of)

MEMORY_MB = 2048  # what the layers may add to the process's resident memory, by default
_EVERY = 4096     # states made between two looks at the resident memory


def _rss_mb() -> float:
    """The process's resident memory in MB (Linux /proc; elsewhere its peak so far)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

CLAUSE, CARD, XOR = 0, 1, 2


class _Con:
    """One constraint in the counter's terms: kind, its keys' (index, polarity or weight), bounds."""

    __slots__ = ("kind", "lits", "lo", "hi", "first", "last")

    def __init__(self, kind: int, lits: list[tuple[int, bool]], lo: int, hi: int):
        self.kind, self.lits, self.lo, self.hi = kind, lits, lo, hi
        pos = [i for i, _ in lits]
        self.first, self.last = min(pos), max(pos)


def _bandwidth_order(constraints: list) -> list:
    """The constraints in Cuthill-McKee order (Cuthill and McKee 1969): breadth first over
    "shares a key", neighbours by fewest keys first, from a pseudo-peripheral constraint (the last
    one reached from a constraint of fewest keys); each component in turn. On a grid this is a
    sweep across the short side, whatever order the model listed its cells in."""
    by_key: dict[Hashable, list[int]] = {}
    keys = [list(dict.fromkeys(keys_of(c))) for c in constraints]
    for ci, ks in enumerate(keys):
        for k in ks:
            by_key.setdefault(k, []).append(ci)

    def bfs(root: int, seen: list[bool]) -> list[int]:
        out, seen[root] = [root], True
        for ci in out:
            nxt = []
            for k in keys[ci]:
                for cj in by_key[k]:
                    if not seen[cj]:
                        seen[cj] = True
                        nxt.append(cj)
            out.extend(sorted(nxt, key=lambda cj: len(keys[cj])))
        return out

    order: list[int] = []
    done = [False] * len(constraints)
    for root in sorted(range(len(constraints)), key=lambda ci: len(keys[ci])):
        if done[root]:
            continue
        far = bfs(root, list(done))[-1]
        part = bfs(far, done)
        order.extend(part)
    return [constraints[ci] for ci in order]


def _width_bits(c: _Con) -> int:
    """Bits of a constraint's value in a frontier state: a clause's or an XOR's one bit, a
    cardinality's running sum up to its upper bound (or up to its lower bound, when no upper bound
    can bind)."""
    if c.kind != CARD:
        return 1
    return max(c.lo if c.hi >= len(c.lits) else c.hi, 0).bit_length()


def frontier_bits(cons: Sequence[_Con | None], n: int) -> int:
    """The widest frontier of a key order, in bits of a state (the log2 of a bound on its states)."""
    delta = [0] * (n + 1)
    for c in cons:
        if c is not None and c.last > c.first:
            delta[c.first] += _width_bits(c)
            delta[c.last] -= _width_bits(c)
    best = run = 0
    for d in delta:
        run += d
        best = max(best, run)
    return best


def _compile(f: Formulation, order_constraints: bool = True) -> tuple[list[Hashable], list[_Con | None]]:
    """(keys in counting order, constraints over key indices); InputError for a formulation with
    integer variables or Linear constraints (no Boolean counting form here). The keys come in the
    order the constraints first mention them: the model's listing, or (`order_constraints`) the
    constraints in Cuthill-McKee order when that gives the narrower frontier (`frontier_bits`)."""
    if f.ints or not f.is_cnf():
        raise InputError(f"count:frontier counts Boolean formulations (clauses, cardinalities, XOR); "
                         f"{f.name} has integer variables or linear constraints")
    listed = [c for _, c in f.constraints()]
    best = _compile_in(f, listed)
    if order_constraints and listed:
        other = _compile_in(f, _bandwidth_order(listed))
        if frontier_bits(other[1], len(other[0])) < frontier_bits(best[1], len(best[0])):
            best = other
    return best


def _compile_in(f: Formulation, listed: list) -> tuple[list[Hashable], list[_Con | None]]:
    """`_compile` for one listing of the constraints."""
    order: dict[Hashable, int] = {}
    for c in listed:
        for k in keys_of(c):
            order.setdefault(k, len(order))
    for k in f.projection:  # a projection key in no constraint is free: it doubles the count
        order.setdefault(k, len(order))
    cons: list[_Con | None] = []  # None: a constraint nothing satisfies
    for c in listed:
        if isinstance(c, Clause):
            lits: dict[int, bool] = {}
            taut = False
            for k, pol in c.lits:
                i = order[k]
                if i in lits and lits[i] != pol:
                    taut = True
                lits[i] = pol
            if taut:
                continue
            if not lits:
                cons.append(None)  # the empty clause: nothing satisfies it
                continue
            cons.append(_Con(CLAUSE, sorted(lits.items()), 1, 1))
        elif isinstance(c, Xor):
            if not c.keys:
                if c.parity:
                    cons.append(None)
                continue
            cons.append(_Con(XOR, [(order[k], True) for k in c.keys], c.parity, c.parity))
        else:
            idx = [order[k] for k in c.keys]
            if len(set(idx)) != len(idx):
                raise InputError(f"count:frontier: a cardinality constraint of {f.name} names a key twice")
            n = len(idx)
            if isinstance(c, AtMost):
                lo, hi = 0, c.k
            elif isinstance(c, AtLeast):
                lo, hi = c.k, n
            elif type(c) is ExactlyOne:
                lo, hi = 1, 1
            elif type(c) is AtMostOne:
                lo, hi = 0, 1
            else:
                raise InputError(f"count:frontier: {f.name} has a constraint it cannot count: "
                                 f"{type(c).__name__}")
            if lo > min(hi, n) or hi < 0:
                cons.append(None)
                continue
            if not idx:
                continue
            cons.append(_Con(CARD, [(i, True) for i in sorted(idx)], max(lo, 0), min(hi, n)))
    return list(order), cons  # a dict keeps its keys in insertion order: the counting order


class Counter:
    """The layered count of a formulation (see the module docstring)."""

    def __init__(self, f: Formulation):
        self.keys, cons_or_none = _compile(f)
        self.empty = any(c is None for c in cons_or_none)
        cons = [c for c in cons_or_none if c is not None]
        n = len(self.keys)
        proj = set(f.projection)
        self.projected = [k in proj for k in self.keys]
        # per key index: the constraints it touches (index into cons, polarity)
        self.touch: list[list[tuple[int, bool]]] = [[] for _ in range(n)]
        for ci, c in enumerate(cons):
            for i, pol in c.lits:
                self.touch[i].append((ci, pol))
        self.cons = cons
        # the frontier after key i: constraints with first <= i < last, in a fixed order
        self.frontier: list[tuple[int, ...]] = []
        self.remaining: list[dict[int, int]] = []  # per level: keys of each frontier constraint left
        for i in range(n):
            self.frontier.append(tuple(ci for ci, c in enumerate(cons) if c.first <= i < c.last))
        # for each constraint, how many of its keys come after position i (for AtLeast pruning)
        self.after: list[dict[int, int]] = [dict() for _ in range(n)]
        for ci, c in enumerate(cons):
            pos = [j for j, _ in c.lits]
            for i in range(c.first, c.last + 1):
                self.after[i][ci] = sum(1 for j in pos if j > i)

    def run(self, ctx: Context | None = None, memory_mb: float = MEMORY_MB,
            compiled: bool = True) -> tuple[int | None, str | None, dict]:
        """(count or None, why not, stats): by the compiled layers (models/_frontier.py) when every
        key is in the projection and `compiled`, else by the Python layers below (sets of states)."""
        stats: dict[str, Any] = {"keys": len(self.keys), "constraints": len(self.cons),
                                 "max_frontier": max((len(x) for x in self.frontier), default=0),
                                 "frontier_bits": frontier_bits(self.cons, len(self.keys)),
                                 "projection_keys": sum(self.projected),
                                 "layers": "compiled" if compiled and all(self.projected) else "python"}
        if self.empty:
            return 0, None, {**stats, "peak_states": 0}
        if stats["layers"] == "compiled":
            return self._run_compiled(ctx, memory_mb, stats)
        cons, n = self.cons, len(self.keys)
        sets = not all(self.projected)
        layer: dict = {frozenset({()}): 1} if sets else {(): 1}
        prev: tuple[int, ...] = ()
        peak, total, last = 1, 0, time.monotonic()
        base = _rss_mb()
        made = 0

        def over() -> bool:  # the layers outgrew the memory budget
            return _rss_mb() - base > memory_mb

        def stopped(i: int, size: int):
            return None, (f"memory: the layer after key {i + 1} of {n} outgrew the budget of "
                          f"{memory_mb:g} MB ({size} states so far; memory_mb)"), \
                {**stats, "peak_states": max(peak, size), "states": total + size}
        for i in range(n):
            if ctx is not None and ctx.expired():
                return None, f"time limit at key {i} of {n} ({len(layer)} states in the layer)", \
                    {**stats, "peak_states": peak, "states": total}
            here = self.frontier[i]
            slot_prev = {ci: s for s, ci in enumerate(prev)}
            touch = dict(self.touch[i])
            after = self.after[i]
            spec = [(cons[ci].kind, slot_prev.get(ci, -1), touch.get(ci), cons[ci].lo, cons[ci].hi,
                     after.get(ci, 0)) for ci in here]
            ends = [(cons[ci].kind, slot_prev.get(ci, -1), pol, cons[ci].lo, cons[ci].hi)
                    for ci, pol in self.touch[i] if cons[ci].last == i]

            def step(state: tuple, value: bool, spec=spec, ends=ends) -> tuple | None:
                out = []
                for kind, src, pol, lo, hi, aft in spec:
                    v = state[src] if src >= 0 else 0
                    if pol is not None:
                        if kind == CLAUSE:
                            v = 1 if (v or value == pol) else 0
                        elif value:
                            v = v + 1 if kind == CARD else v ^ 1
                            if kind == CARD and v > hi:
                                return None
                    if kind == CARD and v + aft < lo:
                        return None
                    out.append(v)
                for kind, src, pol, lo, hi in ends:
                    v = state[src] if src >= 0 else 0
                    if kind == CLAUSE:
                        if not (v or value == pol):
                            return None
                    elif kind == CARD:
                        v += 1 if value else 0
                        if not lo <= v <= hi:
                            return None
                    elif (v ^ (1 if value else 0)) != lo:
                        return None
                return tuple(out)

            nxt: dict = {}
            for state, cnt in layer.items():
                made += 1
                if made % _EVERY == 0 and over():
                    return stopped(i, len(nxt))
                if not sets:
                    for value in (False, True):
                        s2 = step(state, value)
                        if s2 is not None:
                            nxt[s2] = nxt.get(s2, 0) + cnt
                elif self.projected[i]:
                    for value in (False, True):
                        g2 = frozenset(s2 for s in state if (s2 := step(s, value)) is not None)
                        if g2:
                            nxt[g2] = nxt.get(g2, 0) + cnt
                else:
                    g2 = frozenset(s2 for s in state for value in (False, True)
                                   if (s2 := step(s, value)) is not None)
                    if g2:
                        nxt[g2] = nxt.get(g2, 0) + cnt
            layer, prev = nxt, here
            peak, total = max(peak, len(layer)), total + len(layer)
            if over():
                return stopped(i, len(layer))
            if not layer:
                break
            if ctx is not None and time.monotonic() - last > 0.5:
                ctx.progress(key=f"{i + 1}/{n}", states=len(layer))
                last = time.monotonic()
        stats.update(peak_states=peak, states=total)
        return sum(layer.values()), None, stats

    def _layout(self, frontier: tuple[int, ...]) -> tuple[dict[int, tuple[int, int, int]], int]:
        """({constraint: (word, shift, bit mask)} for a frontier's packed state, words)."""
        at: dict[int, tuple[int, int, int]] = {}
        word, shift = 0, 0
        for ci in frontier:
            width = self.width[ci]
            if shift + width > 64:
                word, shift = word + 1, 0
            at[ci] = (word, shift, (1 << width) - 1)
            shift += width
        return at, word + 1

    def _run_compiled(self, ctx: Context | None, memory_mb: float,
                      stats: dict[str, Any]) -> tuple[int | None, str | None, dict]:
        """The count by the compiled layers (every key projected: a state is one packed tuple)."""
        import numpy as np

        from . import _frontier as fk
        cons, n = self.cons, len(self.keys)
        # a cardinality with no upper bound in reach counts up to its lower bound (saturates)
        self.width = [_width_bits(c) for c in cons]
        self.saturate = [c.kind == CARD and c.hi >= len(c.lits) for c in cons]
        i64, u64 = np.int64, np.uint64
        states = np.zeros((1, 1), dtype=u64)
        counts = np.zeros((1, 2), dtype=u64)
        counts[0, 0] = 1
        prev_at: dict[int, tuple[int, int, int]] = {}
        peak, total, last, words = 1, 0, time.monotonic(), 1
        budget = memory_mb * 2**20
        for i in range(n):
            if ctx is not None and ctx.expired():
                return None, f"time limit at key {i} of {n} ({states.shape[0]} states in the layer)", \
                    {**stats, "peak_states": peak, "states": total}
            at, wout = self._layout(self.frontier[i])
            words = max(words, wout)
            S, L = states.shape[0], counts.shape[1]
            need = 8 * S * (states.shape[1] + L + 2 * (2 * wout + L + 4))
            if need > budget:
                return None, (f"memory: the layer after key {i + 1} of {n} would outgrow the budget "
                              f"of {memory_mb:g} MB (from {S} states; memory_mb)"), \
                    {**stats, "peak_states": peak, "states": total}
            touch = dict(self.touch[i])
            after = self.after[i]
            here = self.frontier[i]
            src = [prev_at.get(ci, (-1, 0, 0)) for ci in here]
            spec = [np.array(x, dtype=i64) for x in (
                [w for w, _, _ in src], [sh for _, sh, _ in src],
                [cons[ci].kind for ci in here],
                [-1 if touch.get(ci) is None else int(touch[ci]) for ci in here],
                [cons[ci].lo for ci in here], [cons[ci].hi for ci in here],
                [int(self.saturate[ci]) for ci in here], [after.get(ci, 0) for ci in here],
                [at[ci][0] for ci in here], [at[ci][1] for ci in here])]
            s_msk = np.array([m for _, _, m in src], dtype=u64)
            ends = [(ci, pol) for ci, pol in self.touch[i] if cons[ci].last == i]
            esrc = [prev_at.get(ci, (-1, 0, 0)) for ci, _ in ends]
            e_src, e_sh = (np.array(x, dtype=i64) for x in ([w for w, _, _ in esrc], [sh for _, sh, _ in esrc]))
            e_msk = np.array([m for _, _, m in esrc], dtype=u64)
            e_kind, e_pol, e_lo, e_hi = (np.array(x, dtype=i64) for x in (
                [cons[ci].kind for ci, _ in ends], [int(p) for _, p in ends],
                [cons[ci].lo for ci, _ in ends], [cons[ci].hi for ci, _ in ends]))
            out, par, k = fk.expand(states, spec[0], spec[1], s_msk, spec[2], spec[3], spec[4],
                                    spec[5], spec[6], spec[7], spec[8], spec[9],
                                    e_src, e_sh, e_msk, e_kind, e_pol, e_lo, e_hi, wout)
            if k == 0:
                return 0, None, {**stats, "peak_states": peak, "states": total, "words": words,
                                 "limbs": counts.shape[1]}
            out = out[:k]
            order = (np.argsort(out[:, 0], kind="stable") if wout == 1
                     else np.lexsort(out.T[::-1]))
            while True:
                nxt, ncounts, carry = fk.merge(out, par, order, k, counts)
                if not carry:
                    break
                counts = np.hstack([counts, np.zeros((S, 1), dtype=u64)])  # one limb more
            states, counts, prev_at = nxt, ncounts, at
            peak, total = max(peak, states.shape[0]), total + states.shape[0]
            if ctx is not None and time.monotonic() - last > 0.5:
                ctx.progress(key=f"{i + 1}/{n}", states=states.shape[0])
                last = time.monotonic()
        stats.update(peak_states=peak, states=total, words=words, limbs=counts.shape[1])
        return fk.total(counts), None, stats


def count_formulation(f: Formulation, ctx: Context | None = None,
                      memory_mb: float = MEMORY_MB) -> tuple[int | None, str | None, dict]:
    """(the exact number of projected solutions of `f`, or None; why not; stats)."""
    return Counter(f).run(ctx, memory_mb)


def _optimum(hook: str, inst: Any, options: dict, ctx: Context, stats: dict):
    """(Status, bound) of an optimisation family's formulation: the best bound with a solution,
    by decision calls (the formulation's CNF, a SAT solver) ascending from its lower bound, or
    descending from each solution found when the Decision gives values."""
    from . import _sat
    from ._ext import SAT, UNKNOWN, UNSAT, _search, call_hook
    from .formulation import to_cnf
    found: dict = {}

    def decide(bound):
        d = call_hook(hook, inst, Task.OPTIMIZE, options, bound)
        cnf = to_cnf(d.formulation, options.get("encoding", "seqcounter"))
        with _sat.new_solver(options.get("solver", _sat.DEFAULT_SOLVER), cnf.clauses) as s:
            res = _sat.solve_limited(s, ctx)
            if res is None:
                return UNKNOWN, None, d
            if not res:
                return UNSAT, None, d
            sol = d.decode(cnf.keys_true(s.get_model(), d.formulation.projection))
            found[bound] = sol
            return SAT, sol, d
    out = _search(Task.OPTIMIZE, ctx, decide, call_hook(hook, inst, Task.OPTIMIZE, options, None),
                  stats.setdefault("decisions", {}))
    return out


def run(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine count:frontier — task count: the formulation (option `formulation`, a hook) counted
    on its projection without listing the solutions; for a family with an objective, at the
    optimum found first by decision calls."""
    if task is not Task.COUNT:
        raise ValueError("count:frontier counts")
    from ._ext import call_hook
    opts = dict(ctx.options)
    hook, cap = opts["formulation"], opts.get("memory_mb", MEMORY_MB)
    stats: dict[str, Any] = {}
    params = {"formulation": hook, "memory_mb": cap, "method": "frontier (exact: compiled layers when every key is "
              "projected, else Python layers of state sets)"}
    objective = None
    d0 = call_hook(hook, inst, Task.COUNT, opts, None)
    if d0.objective is not None or d0.value is not None or d0.bound is not None:
        best = _optimum(hook, inst, opts, ctx, stats)
        if best.status is not Status.OPTIMAL:
            return Outcome(best.status if best.status is Status.INFEASIBLE else Status.UNKNOWN,
                           count=0 if best.status is Status.INFEASIBLE else None, stats=stats,
                           params=params, reason=best.reason or "the optimum was not found")
        objective = best.objective
        d0 = call_hook(hook, inst, Task.COUNT, opts, objective)
    n, why, st = count_formulation(d0.formulation, ctx, cap)
    stats.update(st)
    if n is None:
        return Outcome(Status.UNKNOWN, stats=stats, params=params, reason=why)
    if n == 0:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, params=params)
    return Outcome(Status.OPTIMAL, objective, n, stats=stats, params=params,
                   reason=None if objective is None else f"{n} solutions at the optimum {objective} "
                   f"({d0.bound_text})")


def precheck(f: Formulation, probe_bits: int = 44) -> tuple[str | None, dict[str, Any]]:
    """(why not, measures): why the model counter is not worth starting on `f` — keys outside
    the projection (its layers would be sets of states) or a frontier wider than `probe_bits`
    (`frontier_bits`) — or None; and {"frontier_bits": bits} when measured. Linear in the
    formulation's size: no layer is made to decide (the 6x10 pentomino: 0.04 s CPU)."""
    outside = {k for _, c in f.constraints() for k in keys_of(c)} - set(f.projection)
    if outside:
        return (f"{len(outside)} keys are outside the projection (the model counter's layers would "
                "be sets of states)"), {}
    keys, cons = _compile(f)
    bits = frontier_bits(cons, len(keys))
    if bits > probe_bits:
        return f"the frontier is {bits} bits wide (more than probe_bits={probe_bits})", {"frontier_bits": bits}
    return None, {"frontier_bits": bits}


PROBE_MB = 256   # count:auto: the model counter's memory budget before it turns to enumeration
PROBE_BITS = 44  # count:auto: the widest frontier (bits of a state, `frontier_bits`) it tries


def run_auto(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine count:auto — task count by the faster route it can tell: the model counter
    (`run`: count:frontier) when every key of the formulation is in the projection (compiled
    layers), its frontier is at most `probe_bits` wide (`frontier_bits`, measured on the
    formulation before counting) and its layers stay within `probe_mb` (the first layer that would
    outgrow it stops the counter at once); else — keys outside the projection, orbits
    (up_to_symmetry), a wider frontier or a layer past the probe — the SAT engine's enumeration (option
    `enumerator`: the family's sat engine, same formulation, every solution listed and checked)."""
    if task is not Task.COUNT:
        raise ValueError("count:auto counts")
    from ..core.family import resolve
    from ._ext import call_hook
    opts = dict(ctx.options)
    why = "orbits need the solutions (up_to_symmetry)" if opts.get("up_to_symmetry") else None
    route: dict[str, Any] = {}
    if why is None:
        f = call_hook(opts["formulation"], inst, Task.COUNT, opts, None).formulation
        why, route = precheck(f, opts.get("probe_bits", PROBE_BITS))
    if why is None:
        probe = min(opts.get("probe_mb", PROBE_MB), opts.get("memory_mb", MEMORY_MB))
        out = run(inst, task, ctx.sub({**opts, "memory_mb": probe}))
        if out.status is not Status.UNKNOWN or not (out.reason or "").startswith("memory"):
            return replace(out, stats={**out.stats, "route": "count:frontier", **route})
        why = f"the model counter's probe stopped: {out.reason}"
        route["probe_states"] = out.stats.get("peak_states")
    out = resolve(opts["enumerator"])(inst, task, ctx.sub(opts))
    return replace(out, stats={**out.stats, "route": "enumeration", "route_reason": why, **route})


def validate(inst: Any, options: dict) -> None:
    """InputError for orbits (the counter lists no solutions to put in classes)."""
    if options.get("up_to_symmetry"):
        raise InputError("count:frontier counts without listing the solutions, and orbits need the "
                         "solutions: count orbits with an engine that lists them, or drop "
                         "up_to_symmetry")


__all__ = ["count_formulation", "Counter", "precheck", "run", "run_auto", "validate", "MEMORY_MB", "PROBE_MB",
           "PROBE_BITS"]
