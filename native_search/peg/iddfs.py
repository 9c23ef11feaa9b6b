"""Peg solitaire reference search: iterative deepening on *moves* with the corner lower bound.

One iterative DFS kernel over jumps (numba), with positions as int64 bitboards and a move counter
(a jump costs a move unless it continues the previous jump's peg). It prunes with the lower bound
"one move per peg on a never-jumped-over hole" (derived from the board) and a failed-state table
keyed by (pegs, moving peg) that stores the largest move budget known to fail; that table is exact
for counting too, because a failed state contributes no solution under any smaller budget.

Deepening the move limit from the lower bound finds the optimum; counting mode finishes the first
limit that has solutions and returns every optimal jump sequence. Feasibility is the same kernel
with an unlimited move budget (a DFS with a failed-position table).
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ...core.result import Context, Outcome, Status, Task
from ...puzzles.peg import PegInstance, start_lower_bound

MEMO_BITS = 22  # failed-state table: 4M slots (64 MiB); when full, it stops recording (still exact)


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _search(start, target_pegs, finish, fj_a, fj_c, la, lb, lc, corner_need, any_finish,
            limit, find_first, memo_keys, memo_vals, out, counters):
    """DFS over jump sequences with at most `limit` moves reaching the finish.

    Returns the number of solutions found (stored in `out` as line indices while it has room).
    counters[0] accumulates nodes. `finish` < 0 means "exactly `target_pegs` pegs anywhere".
    """
    nlines = la.shape[0]
    njumps = _popcount(start) - target_pegs
    if njumps <= 0:
        return 0
    mask = memo_keys.shape[0] - 1
    pegs_st = np.zeros(njumps + 1, np.int64)
    last_st = np.zeros(njumps + 1, np.int64)
    used_st = np.zeros(njumps + 1, np.int64)
    next_st = np.zeros(njumps + 1, np.int64)
    sols_st = np.zeros(njumps + 1, np.int64)
    path = np.zeros(njumps, np.int64)
    pegs_st[0] = start
    last_st[0] = -1
    found = 0
    nodes = 0
    d = 0
    while d >= 0:
        pegs = pegs_st[d]
        i = next_st[d]
        if d == njumps:
            # a complete jump sequence: check the finish
            if finish < 0 or pegs == finish:
                if found < out.shape[0]:
                    for k in range(njumps):
                        out[found, k] = path[k]
                found += 1
                if find_first:
                    counters[0] += nodes
                    return found
            d -= 1
            continue
        advanced = False
        while i < nlines:
            a = la[i]
            b = lb[i]
            c = lc[i]
            i += 1
            if (pegs >> a) & 1 == 0 or (pegs >> b) & 1 == 0 or (pegs >> c) & 1 == 1:
                continue
            if d == 0 and fj_a >= 0 and (a != fj_a or c != fj_c):
                continue
            used = used_st[d] + (0 if a == last_st[d] else 1)
            if used > limit:
                continue
            npegs = pegs ^ ((1 << a) | (1 << b) | (1 << c))
            # lower bound: pegs on never-jumped-over holes must each start a move,
            # except the moving peg (its chain may continue for free)
            lbd = _popcount(npegs & corner_need & ~(1 << c))
            if any_finish and lbd > 0:
                lbd -= 1
            if used + lbd > limit:
                continue
            # failed-state table: (pegs, moving peg) known to fail with this budget or more
            key = (npegs << 7) | (c + 1)
            h = (key ^ (key >> 15) ^ (key >> 31)) & mask
            budget = limit - used
            skip = False
            for probe in range(8):
                s = (h + probe) & mask
                if memo_keys[s] == key:
                    if memo_vals[s] >= budget:
                        skip = True
                    break
                if memo_keys[s] == 0:
                    break
            if skip:
                continue
            nodes += 1
            next_st[d] = i
            path[d] = i - 1
            d += 1
            pegs_st[d] = npegs
            last_st[d] = c
            used_st[d] = used
            next_st[d] = 0
            sols_st[d] = found
            advanced = True
            break
        if not advanced:
            # node exhausted: if nothing was found below it, record the failure
            if d > 0 and found == sols_st[d]:
                key = (pegs_st[d] << 7) | (last_st[d] + 1)
                h = (key ^ (key >> 15) ^ (key >> 31)) & mask
                budget = limit - used_st[d]
                for probe in range(8):
                    s = (h + probe) & mask
                    if memo_keys[s] == key or memo_keys[s] == 0:
                        memo_keys[s] = key
                        if memo_vals[s] < budget:
                            memo_vals[s] = budget
                        break
            d -= 1
    counters[0] += nodes
    return found


class PegKernel:
    """The board as arrays for the kernel, plus a failed-state table kept across iterations."""

    def __init__(self, inst: PegInstance, memo_bits: int = MEMO_BITS):
        b = inst.board
        if b.n > 56:
            raise ValueError(f"native peg search supports boards of up to 56 holes (this one: {b.n})")
        lines = np.array(b.lines, dtype=np.int64).reshape(-1, 3)
        self.inst = inst
        self.la, self.lb, self.lc = (np.ascontiguousarray(lines[:, k]) for k in range(3))
        self.start = _mask(inst.start)
        self.any_finish = inst.finish is None
        self.finish = -1 if inst.finish is None else _mask(inst.finish)
        self.target = 1 if inst.finish is None else len(inst.finish)
        need = b.corners if inst.finish is None else b.corners - inst.finish
        self.corner_need = _mask(need)
        self.fj = inst.first_jump or (-1, -1)
        self.memo_keys = np.zeros(1 << memo_bits, np.int64)
        self.memo_vals = np.full(1 << memo_bits, -1, np.int64)
        self.nodes = 0

    @property
    def njumps(self) -> int:
        return len(self.inst.start) - self.target

    def run(self, limit: int, find_first: bool, capacity: int = 1024) -> list[tuple]:
        """Jump sequences with ≤ `limit` moves (all of them, or the first); each a tuple of jumps."""
        while True:
            out = np.zeros((capacity, max(self.njumps, 1)), np.int64)
            counters = np.zeros(1, np.int64)
            found = _search(self.start, self.target, self.finish, self.fj[0], self.fj[1],
                            self.la, self.lb, self.lc, self.corner_need, self.any_finish,
                            limit, find_first, self.memo_keys, self.memo_vals, out, counters)
            self.nodes += int(counters[0])
            if found <= capacity:
                return [tuple((int(self.la[i]), int(self.lb[i]), int(self.lc[i])) for i in out[s])
                        for s in range(found)]
            capacity = found  # too many to store: run again with room for all (failures are memoised)


def _mask(holes) -> int:
    m = 0
    for h in holes:
        m |= 1 << h
    return m


def iddfs(inst: PegInstance, count: bool = False, ctx: Context | None = None):
    """Yield (limit, solutions, nodes) per deepening step; the last one holds the optimum's solutions.

    >>> from puzzlesat.puzzles.peg import catalogue
    >>> [(k, len(s)) for k, s, _ in iddfs(catalogue()["hoppers-first06"]())][-1]
    (7, 1)
    """
    ctx = ctx or Context()
    k = PegKernel(inst)
    t0 = time.monotonic()
    for limit in range(start_lower_bound(inst), k.njumps + 1):
        sols = k.run(limit, find_first=not count)
        ctx.progress(depth=limit, nodes=k.nodes, elapsed=round(time.monotonic() - t0, 2))
        yield limit, sols, k.nodes
        if sols:
            return


def run(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `native:iddfs`: optimum, all optimal sequences, or any solution."""
    if inst.jumps_needed == 0:
        if inst.solved_at_start:
            return Outcome(Status.OPTIMAL, 0, 1 if task is Task.COUNT else None, ((),), {"nodes": 0})
        return Outcome(Status.INFEASIBLE, reason="no jump is needed, and the start is not the finish "
                       "or a first jump is required")
    if task is Task.FEASIBLE:
        k = PegKernel(inst)
        sols = k.run(k.njumps, find_first=True)
        stats = {"nodes": k.nodes}
        if not sols:
            return Outcome(Status.INFEASIBLE, stats=stats, reason="exhaustive DFS")
        return Outcome(Status.FEASIBLE, None, None, (sols[0],), stats)
    nodes = 0
    for limit, sols, nodes in iddfs(inst, count=task is Task.COUNT, ctx=ctx):
        if sols:
            if task is Task.COUNT:
                return Outcome(Status.OPTIMAL, limit, len(sols), tuple(sols), {"nodes": nodes})
            ctx.found(sols[0])
            return Outcome(Status.OPTIMAL, limit, None, (sols[0],), {"nodes": nodes})
    return Outcome(Status.INFEASIBLE, stats={"nodes": nodes},
                   reason="exhaustive search: no jump sequence reaches the finish")


def run_auto(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `native:auto` (`native`): `native:bfs` (with its default options) for optimize and
    feasible, `native:iddfs` for count; stats["engine"] names the one that ran.

    Chosen by measurement: on the English central game (ipc-p20) native:iddfs had not finished
    after 120 s, native:bfs proves 18 in seconds; only iddfs enumerates every optimal sequence."""
    from . import bfs
    if task is Task.COUNT:
        out, name = run(inst, task, ctx), "native:iddfs"
    else:
        out, name = bfs.run(inst, task, ctx.sub(dict(bfs.OPTION_DEFAULTS))), "native:bfs"
    return Outcome(out.status, out.objective, out.count, out.solutions, {**out.stats, "engine": name},
                   out.reason, out.params)
