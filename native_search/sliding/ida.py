"""Sliding-tile depth-first searches: IDDFS and IDA* (numba kernel), one process or several.

- `iddfs` (heuristic 'none'): plain iterative deepening, never undoing the previous move, depth
  stepping by 2 (every move flips the blank's square colour, so the length parity is known).
- IDA* with Manhattan distance plus linear conflicts (Hansson, Mayer & Yung 1985: per line, tiles
  that must leave it = line length - longest increasing run), or with the additive pattern
  databases of `native_search.sliding.pattern_db` (Korf & Felner 2002) on boards that have a partition
  (3x3, 4x4, 5x5), the board mapped onto the databases' frame by a symmetry and a relabelling;
  the pattern-database kernel (`dida`) adds dual lookups and dual search (DIDA*).
- Parallel IDA* (`processes` > 1): each iteration's tree is cut at a shallow depth into subtrees
  (Korf's 2002-style work split), and forked workers take them one at a time; node counts add up.
  `deepen(split=...)` hands the iterations it wants to another splitter (`cluster`: Dask jobs).
Counting (task count) finishes the last iteration: a solution is the sequence of tiles moved, and
an optimal path never revisits a position, so paths are counted exactly without duplicate
detection. Every kernel call stops at the wall-clock deadline (ctx's time limit): UNKNOWN then.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, objmode

from ...core.result import Context, Status
from ...core.procs import fork_pipes, reap_pipes
from ...puzzles.sliding import Sliding, infeasible_reason

from ..live import reporting, tick
from .dida import DUAL_LOOKUP, DUAL_NAMES, DUAL_OFF, DUAL_SEARCH, dfs, heuristic2, replay
from .dida import tables as dida_tables
from .tables import pc16, tables

H_NONE, H_MANHATTAN, H_LINEAR, H_PDB = 0, 1, 2, 3
HEURISTIC_NAMES = {H_NONE: "none", H_MANHATTAN: "manhattan", H_LINEAR: "manhattan+linear"}
NO_BOUND = 1 << 30
ROW, COL = np.True_, np.False_  # _line_conflict's is_row as values, not literals: one compile
CHECK_EVERY = (1 << 20) - 1  # nodes between two looks at the clock inside the kernel


@njit(cache=True)
def _line_conflict(board, goalpos, rows, cols, line, is_row, seq, lis):
    """2 x (tiles of the line whose goal is in it, minus their longest increasing run).

    seq and lis are scratch arrays of at least max(rows, cols) entries."""
    m = 0
    length = cols if is_row else rows
    for i in range(length):
        cell = line * cols + i if is_row else i * cols + line
        t = board[cell]
        if t == 0:
            continue
        g = goalpos[t]
        if is_row and g // cols == line:
            seq[m] = g % cols
            m += 1
        elif not is_row and g % cols == line:
            seq[m] = g // cols
            m += 1
    if m < 2:
        return 0
    best = 0
    for i in range(m):
        lis[i] = 1
        for j in range(i):
            if seq[j] < seq[i] and lis[j] + 1 > lis[i]:
                lis[i] = lis[j] + 1
        if lis[i] > best:
            best = lis[i]
    return 2 * (m - best)


@njit(cache=True)
def heuristic(board, goalpos, md, rows, cols, mode):
    """h of a whole board (used at the root; the search updates it incrementally); Manhattan
    distance, with linear conflicts in mode H_LINEAR, 0 in mode H_NONE."""
    n = rows * cols
    if mode == H_NONE:
        return 0
    h = 0
    for c in range(n):
        if board[c] != 0:
            h += md[board[c], c]
    if mode == H_LINEAR:
        seq = np.empty(max(rows, cols), np.int64)
        lis = np.empty(max(rows, cols), np.int64)
        for r in range(rows):
            h += _line_conflict(board, goalpos, rows, cols, r, True, seq, lis)
        for c in range(cols):
            h += _line_conflict(board, goalpos, rows, cols, c, False, seq, lis)
    return h


@njit(cache=True)
def _dfs(board, goal, bound, mode, rows, cols, nbr, nnbr, goalpos, md, prev_blank, find_first, deadline,
         out, counters):
    """All move sequences of exactly `bound` moves from `board` to `goal` with f = g + h <= bound.

    Never undoes the previous move (nor, at the root, moves the blank back to `prev_blank`).
    Returns the number of solutions (the first out.shape[0] are written to `out`); counters[0] +=
    nodes generated, counters[1] = the smallest f above bound, counters[2] = 1 if the wall clock
    passed `deadline` (time.monotonic seconds) first — the count is then incomplete.
    Pattern databases have a kernel of their own (`dida.dfs`).
    """
    n = rows * cols
    blank_st = np.zeros(bound + 1, np.int64)
    next_st = np.zeros(bound + 1, np.int64)
    h_st = np.zeros(bound + 1, np.int64)
    mis_st = np.zeros(bound + 1, np.int64)
    path = np.zeros(max(bound, 1), np.int64)
    seq = np.empty(max(rows, cols), np.int64)
    lis = np.empty(max(rows, cols), np.int64)
    b0 = 0
    mis = 0
    for c in range(n):
        if board[c] == 0:
            b0 = c
        elif board[c] != goal[c]:
            mis += 1
    blank_st[0] = b0
    mis_st[0] = mis
    h_st[0] = heuristic(board, goalpos, md, rows, cols, mode)
    # linear conflicts per row and per column, kept up to date along the path (lc_save undoes)
    lc_row = np.zeros(rows, np.int64)
    lc_col = np.zeros(cols, np.int64)
    lc_save = np.zeros((bound + 1, 4), np.int64)  # line 1, line 2, their old values
    if mode == H_LINEAR:
        for r in range(rows):
            lc_row[r] = _line_conflict(board, goalpos, rows, cols, r, ROW, seq, lis)
        for q in range(cols):
            lc_col[q] = _line_conflict(board, goalpos, rows, cols, q, COL, seq, lis)
    nodes = 0
    found = 0
    next_bound = 1 << 30
    if mis == 0 and bound == 0:
        counters[1] = next_bound
        return 1
    l1 = 0
    l2 = 0
    o1 = 0
    o2 = 0
    n1 = 0
    n2 = 0
    vertical = False
    d = 0
    while d >= 0:
        b = blank_st[d]
        k = next_st[d]
        if k >= nnbr[b] or d == bound:
            # backtrack: undo the move that led here
            if d > 0:
                pb = blank_st[d - 1]
                t = board[pb]
                board[b] = t
                board[pb] = 0
                if mode == H_LINEAR:
                    if (b // cols) != (pb // cols):
                        lc_row[lc_save[d - 1, 0]] = lc_save[d - 1, 2]
                        lc_row[lc_save[d - 1, 1]] = lc_save[d - 1, 3]
                    else:
                        lc_col[lc_save[d - 1, 0]] = lc_save[d - 1, 2]
                        lc_col[lc_save[d - 1, 1]] = lc_save[d - 1, 3]
            d -= 1
            continue
        next_st[d] = k + 1
        c = nbr[b, k]
        if d > 0 and c == blank_st[d - 1]:
            continue
        if d == 0 and c == prev_blank:
            continue
        t = board[c]
        nodes += 1
        if (nodes & CHECK_EVERY) == 0:
            with objmode(now="float64"):
                now = tick(nodes)
            if now > deadline:
                counters[0] += nodes
                counters[1] = next_bound
                counters[2] = 1
                return found
        # the tile t moves from c to b
        if mode == H_NONE:
            h = 0
        else:
            h = h_st[d] - md[t, c] + md[t, b]
            if mode == H_LINEAR:
                vertical = (c // cols) != (b // cols)
                if vertical:
                    l1 = c // cols
                    l2 = b // cols
                    o1 = lc_row[l1]
                    o2 = lc_row[l2]
                else:
                    l1 = c % cols
                    l2 = b % cols
                    o1 = lc_col[l1]
                    o2 = lc_col[l2]
                board[b] = t
                board[c] = 0
                n1 = _line_conflict(board, goalpos, rows, cols, l1, vertical, seq, lis)
                n2 = _line_conflict(board, goalpos, rows, cols, l2, vertical, seq, lis)
                board[c] = t
                board[b] = 0
                h += n1 + n2 - o1 - o2
        f = d + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        # apply
        m2 = mis_st[d]
        if goal[c] == t:
            m2 += 1
        if goal[b] == t:
            m2 -= 1
        board[b] = t
        board[c] = 0
        path[d] = t
        if mode == H_LINEAR:
            lc_save[d, 0] = l1
            lc_save[d, 1] = l2
            lc_save[d, 2] = o1
            lc_save[d, 3] = o2
            if vertical:
                lc_row[l1] = n1
                lc_row[l2] = n2
            else:
                lc_col[l1] = n1
                lc_col[l2] = n2
        d += 1
        blank_st[d] = c
        next_st[d] = 0
        h_st[d] = h
        mis_st[d] = m2
        if m2 == 0 and d == bound:
            if found < out.shape[0]:
                for i in range(d):
                    out[found, i] = path[i]
            found += 1
            if find_first:
                counters[0] += nodes
                counters[1] = next_bound
                return found
    counters[0] += nodes
    counters[1] = next_bound
    return found


@dataclass
class Problem:
    """Arrays the depth-first kernels need for one (board shape, goal, heuristic): `_dfs` for
    none/Manhattan/linear conflicts, `dida.dfs` for pattern databases (`tabs`)."""

    rows: int
    cols: int
    start: np.ndarray
    goal: np.ndarray
    mode: int
    nbr: np.ndarray
    nnbr: np.ndarray
    goalpos: np.ndarray
    md: np.ndarray
    tabs: object = None     # dida.Tables with pattern databases
    dual: int = 0           # dida.DUAL_OFF / DUAL_LOOKUP / DUAL_SEARCH
    relabel: tuple[int, ...] | None = None  # solution tiles map back through this (PDB frame)
    name: str = ""
    pdb_info: dict | None = None
    order: int = 0          # 1: dida.dfs visits children by the moved tile's Manhattan change

    def objects(self, board) -> np.ndarray:
        """The board as objects: each tile named by its goal cell (the identity is the goal)."""
        return self.goalpos[np.asarray(board, np.int64)]

    def h0(self) -> int:
        return self.h(self.start)

    def h(self, board) -> int:
        if self.tabs is not None:
            T = self.tabs
            return int(heuristic2(self.objects(board), int(self.goalpos[0]), self.dual, self.rows * self.cols,
                                  T.dbs, T.lk_obj, T.lk_len, T.lk_map, T.lk_off, pc16(), T.npat, T.fl))
        return int(heuristic(np.asarray(board, np.int64), self.goalpos, self.md, self.rows, self.cols,
                             self.mode))

    def run(self, board, bound: int, find_first: bool, prev_blank: int = -1,
            deadline: float = float("inf"), capacity: int = 64, path=()) -> tuple[list, int, int, bool, dict]:
        """(solutions of exactly `bound` moves from `board`, nodes, next bound, expired, {} (the
        counters other kernels add)); solutions as tiles moved, in the kernel's labels. `path`
        (the moves from the start to `board`) is for kernels that carry state along it."""
        n = self.rows * self.cols
        while True:
            counters = np.zeros(3, np.int64)
            if self.tabs is not None:
                T = self.tabs
                out = np.zeros((capacity, max(bound, 1)), np.int16)  # cell pairs x*n+y
                found = int(dfs(self.objects(board), int(self.goalpos[0]), bound, self.dual, prev_blank,
                                find_first, deadline, out, counters, n, self.nbr, self.nnbr, T.dbs,
                                T.lk_obj, T.lk_len, T.lk_map, T.lk_off, pc16(), T.npat, T.patof, T.fl,
                                T.fillobj, self.order, _cell_distances(self.rows, self.cols)))
            else:
                out = np.zeros((capacity, max(bound, 1)), np.int8)  # tiles < 36
                found = int(_dfs(np.array(board, np.int64), self.goal, bound, self.mode, self.rows,
                                 self.cols, self.nbr, self.nnbr, self.goalpos, self.md, prev_blank,
                                 find_first, deadline, out, counters))
            expired = bool(counters[2])
            if found <= capacity or expired:
                k = min(found, capacity)
                if self.tabs is not None:
                    sols = [tuple(replay(board, out[i, :bound], n)) for i in range(k)]
                else:
                    sols = [tuple(int(x) for x in out[i, :bound]) for i in range(k)]
                return sols, int(counters[0]), int(counters[1]), expired, {}
            capacity = found  # rerun this iteration with room for every solution

    def original(self, sol) -> tuple[int, ...]:
        """A solution in the instance's own tile labels."""
        return tuple(sol) if self.relabel is None else tuple(self.relabel[t] for t in sol)


def pdb_partitions(rows: int, cols: int, pdb: str) -> list[str]:
    """The partition names of a `pdb` option: one name, or several joined by '+' (h is the
    largest over them)."""
    return [x for x in pdb.split("+") if x]


def problem(inst: Sliding, heuristic_name: str = "auto", pdb: str = "auto", mirror: bool = True,
            progress=None, deadline: float = float("inf"), dual: str = "off", fill: bool | int = False,
            order: str = "board", fsm: str = "simple"):
    """The kernel's arrays for `inst`: heuristic 'none', 'manhattan', 'linear' or 'auto' (pattern
    databases where the board has partition `pdb` — 'auto': the board's first; several joined by
    '+' — for any goal; else Manhattan + linear conflicts); `dual` 'off', 'lookup' (the larger
    of the state's and its dual's value) or 'search' (DIDA*), with pattern databases only. A
    zero-aware catalogue's name (`zpdb.CATALOGUES`) as `pdb` gives a `zpdb.ZProblem` (its
    move-pruning automaton `fsm`)."""
    from . import pattern_db as P
    from . import zpdb as Z
    if pdb in Z.CATALOGUES:
        return Z.ZProblem(inst, pdb, fsm, progress=progress, deadline=deadline)
    rows, cols, n = inst.rows, inst.cols, inst.cells
    start, goal = np.array(inst.start, np.int64), np.array(inst.goal, np.int64)
    relabel = None
    mode = {"none": H_NONE, "manhattan": H_MANHATTAN, "linear": H_LINEAR, "auto": H_LINEAR}[heuristic_name]
    name, info, tabs, dual_mode = HEURISTIC_NAMES[mode], None, None, DUAL_OFF
    names = P.partitions(rows, cols)
    if pdb == "auto":
        pdb = names[0] if names and (rows, cols) != (3, 3) else "none"
    if heuristic_name == "auto" and pdb != "none":
        canon = P.canonical(rows, cols, inst.start, inst.goal)
        if canon is not None:
            start, goal, relabel = canon
            info = {}
            blank = int(np.flatnonzero(goal == 0)[0])
            dual_mode = DUAL_NAMES[dual]
            parts = [P.for_blank(P.PARTITIONS[(rows, cols)][x], n, blank)
                     for x in pdb_partitions(rows, cols, pdb)]
            tabs = dida_tables(rows, cols, parts, blank, mirror, dual_mode > 0, progress=progress,
                               deadline=deadline, info=info, fill=fill)
            mode = H_PDB
            name = (f"pdb-{pdb}" + ("+mirror" if tabs.groups > len(parts) else "")
                    + {DUAL_OFF: "", DUAL_LOOKUP: "+dual", DUAL_SEARCH: "+dual-search"}[dual_mode])
    goalpos = np.zeros(n, np.int64)
    for c in range(n):
        goalpos[goal[c]] = c
    md = np.zeros((n, n), np.int64)
    for t in range(1, n):
        g = goalpos[t]
        for c in range(n):
            md[t, c] = abs(c // cols - g // cols) + abs(c % cols - g % cols)
    nbr, nnbr = tables(rows, cols)
    return Problem(rows, cols, start, goal, mode, nbr, nnbr, goalpos, md, tabs, dual_mode, relabel, name,
                   info, ORDER_NAMES[order])


ORDER_NAMES = {"board": 0, "manhattan": 1}  # native:ida's `order` option -> the kernel's mode
_CD: dict = {}


def _cell_distances(rows: int, cols: int) -> np.ndarray:
    """The Manhattan distance between every two cells of the board (cached per shape)."""
    if (rows, cols) not in _CD:
        r, c = np.divmod(np.arange(rows * cols), cols)
        _CD[(rows, cols)] = (np.abs(r[:, None] - r[None, :]) + np.abs(c[:, None] - c[None, :])).astype(np.int64)
    return _CD[(rows, cols)]


# ---------------------------------------------------------------- parallel iterations

def frontier(pr: Problem, bound: int, depth: int) -> tuple[list, int, int, dict]:
    """The subtrees of one iteration cut at `depth` < bound: (jobs, nodes generated above the cut,
    the smallest f above bound seen there, the problem's other counters above the cut), each job
    (board, blank's previous cell, path so far) with f <= bound. A problem with a `frontier` of
    its own (zero-aware catalogues: values carried along the path) cuts its tree itself."""
    if hasattr(pr, "frontier"):
        return pr.frontier(bound, depth)
    jobs, nodes, nxt = [], 0, NO_BOUND
    nbr, nnbr = pr.nbr, pr.nnbr

    def walk(board: list[int], prev: int, path: list[int], d: int) -> None:
        nonlocal nodes, nxt
        if d == depth:
            jobs.append((tuple(board), prev, tuple(path)))
            return
        b = board.index(0)
        for k in range(int(nnbr[b])):
            c = int(nbr[b, k])
            if c == prev:
                continue
            t = board[c]
            board[b], board[c] = t, 0
            nodes += 1
            f = d + 1 + pr.h(board)
            if f <= bound:
                path.append(t)
                walk(board, b, path, d + 1)
                path.pop()
            else:
                nxt = min(nxt, f)
            board[c], board[b] = t, 0

    walk([int(x) for x in pr.start], -1, [], 0)
    return jobs, nodes, nxt, {}


def add_counts(total: dict, more: dict) -> None:
    """Add a kernel's other counters (e.g. expanded, lookups) into `total`."""
    for k, v in more.items():
        total[k] = total.get(k, 0) + v


def _iteration_parallel(pr: Problem, bound: int, find_first: bool, processes: int, deadline: float,
                        depth: int) -> tuple[list, int, int, bool, dict]:
    """One IDA* iteration over `processes` forked workers taking subtrees from a shared counter."""
    import multiprocessing as mp
    import pickle
    jobs, nodes, nxt, extra = frontier(pr, bound, depth)
    if not jobs:
        return [], nodes, nxt, False, extra
    ctx = mp.get_context("fork")
    counter = ctx.Value("q", 0)

    def work(out) -> None:  # a worker: take subtrees until none is left
        while True:
            with counter.get_lock():
                i = counter.value
                counter.value += 1
            if i >= len(jobs):
                break
            board, prev, path = jobs[i]
            sols, k_nodes, nxt, expired, k_extra = pr.run(board, bound - len(path), find_first, prev, deadline,
                                                          path=path)
            nxt = nxt + len(path) if nxt < NO_BOUND else NO_BOUND  # f from the root
            pickle.dump(([path + s for s in sols], k_nodes, nxt, expired, k_extra), out)
            out.flush()
            if expired or (sols and find_first):
                break

    pipes, pids = fork_pipes(processes, work)
    sols, expired = [], False
    import select
    open_pipes = list(pipes)
    try:
        while open_pipes:
            ready, _, _ = select.select(open_pipes, [], [])
            for f in ready:
                try:
                    s, k_nodes, k_nxt, k_exp, k_extra = pickle.load(f)
                except EOFError:
                    open_pipes.remove(f)
                    continue
                sols.extend(s)
                nodes += k_nodes
                add_counts(extra, k_extra)
                nxt = min(nxt, k_nxt)
                expired |= k_exp
            if (sols and find_first) or expired:
                break
    finally:
        reap_pipes(pipes, pids)
    return sols, nodes, nxt, expired, extra


# ---------------------------------------------------------------- the driver

class SplitLost(Exception):
    """An iteration split into cluster jobs could not be finished (jobs lost with their workers)."""


def _cpu_now() -> float:
    """CPU seconds of this process and of its finished forked workers (processes > 1; Dask
    workers are not children that end within the run, so not counted)."""
    import resource
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def _blank_parity(inst: Sliding) -> int:
    a, b = inst.start.index(0), inst.goal.index(0)
    return (abs(a // inst.cols - b // inst.cols) + abs(a % inst.cols - b % inst.cols)) % 2


def deepen(inst: Sliding, heuristic_name: str, count: bool, ctx: Context | None = None,
           pdb: str = "auto", max_depth: int = 250, mirror: bool = True, processes: int = 1,
           split_depth: int = 0, dual: str = "off", fill: bool | int = False,
           split=None, order: str = "board", fsm: str = "simple") -> tuple[Status, list, dict, str | None]:
    """Iterative deepening (IDA* with a heuristic, IDDFS with 'none') to the optimum.

    Unsolvable starts are INFEASIBLE from the parity invariant (a depth-first search would never
    end); a solvable start ends with OPTIMAL, or UNKNOWN at ctx's time limit (during a pattern
    database build or inside an iteration). With `processes` > 1 every iteration is split into
    subtrees at `split_depth` (0: chosen from the board size) searched by forked workers.
    `dual` (pattern databases only): 'lookup' adds the dual state's value, 'search' is DIDA*;
    a count runs 'search' as 'lookup' (jumps would miss or repeat solutions). `split` (e.g.
    cluster.DaskSplit) runs the iterations it `wants` as cluster jobs. `pdb` may name a
    zero-aware catalogue (`zpdb.CATALOGUES`, e.g. zpdb-small), searched with the move-pruning
    automaton `fsm` (a count always uses 'simple': the others keep one optimal path, not all).
    """
    reason = infeasible_reason(inst)
    if reason is not None:
        return Status.INFEASIBLE, [], {"nodes": 0}, reason
    ctx = ctx if ctx is not None else Context()
    deadline = float("inf") if ctx.deadline is None else ctx.deadline
    t_build = time.perf_counter()
    from .pattern_db import Expired  # also a zero-aware catalogue's (zpdb imports it)
    try:
        dual = "lookup" if count and dual == "search" else dual
        pr = problem(inst, heuristic_name, pdb, mirror, progress=ctx.progress, deadline=deadline,
                     dual=dual, fill=fill, order=order, fsm="simple" if count else fsm)
    except Expired:
        return (Status.UNKNOWN, [], {"nodes": 0}, "time limit during the pattern database build "
                f"({time.perf_counter() - t_build:.1f} s)")
    t_build = time.perf_counter() - t_build
    h0 = pr.h0()
    parity = _blank_parity(inst)  # every solution's length has this parity
    bound = parity if pr.mode == H_NONE else h0 + ((h0 - parity) & 1)
    if split_depth <= 0:
        split_depth = max(2, min(12, inst.cells // 2))
    if split is not None and split.depth <= 0:
        split.depth = split_depth
    nodes = 0
    iters: list[int] = []
    extra: dict = {}      # the kernel's other counters (zero-aware: expanded, lookups), in all
    extra_iters: list[dict] = []
    t0 = time.perf_counter()
    c0 = _cpu_now()
    stats = {"h0": h0, "heuristic": pr.name, "processes": processes,
             "dual": {DUAL_OFF: "off", DUAL_LOOKUP: "lookup", DUAL_SEARCH: "search"}[pr.dual]}
    if pr.pdb_info is not None:
        stats["pdb_seconds"] = round(t_build, 3)
        stats["pdb"] = pr.pdb_info

    def finish(status, sols, reason=None):
        secs = time.perf_counter() - t0
        if split is not None:
            stats["split"] = dict(split.stats)
        stats.update({"nodes": nodes, "iterations": iters, "search_seconds": round(secs, 4),
                      "search_cpu_seconds": round(_cpu_now() - c0, 4),
                      "nodes_per_second": int(nodes / secs) if secs > 0 else None})
        if extra:
            stats.update(extra)
            stats["iterations_" + "_".join(extra)] = [[e.get(k, 0) for k in extra] for e in extra_iters]
            if "expanded" in extra:
                stats["expanded_per_second"] = int(extra["expanded"] / secs) if secs > 0 else None
        return status, [pr.original(s) for s in sols], stats, reason

    while bound <= max_depth:
        if split is not None and split.wants(bound, iters[-1] if iters else 0):
            try:
                sols, k_nodes, nxt, expired, k_extra = split(pr, bound, not count, deadline)
            except SplitLost as e:
                stats["lower_bound"] = bound
                return finish(Status.UNKNOWN, [], f"{e} (the optimum is at least {bound})")
        elif processes > 1 and bound > split_depth and hasattr(pr, "run_split"):
            # zero-aware catalogues: the processes share one kernel walk (same nodes as one process)
            sols, k_nodes, nxt, expired, k_extra = pr.run_split(bound, not count, processes, deadline,
                                                                split_depth)
        elif processes > 1 and bound > split_depth:
            sols, k_nodes, nxt, expired, k_extra = _iteration_parallel(pr, bound, not count, processes,
                                                                       deadline, split_depth)
        else:  # one process: the kernel's node count shows live during a long iteration
            def live(n: int, bound: int = bound, base: int = nodes) -> None:
                ctx.progress(bound=bound, nodes=base + n, elapsed=round(time.perf_counter() - t0, 2))
            with reporting(live):
                sols, k_nodes, nxt, expired, k_extra = pr.run(pr.start, bound, not count, -1, deadline)
        nodes += k_nodes
        iters.append(k_nodes)
        add_counts(extra, k_extra)
        extra_iters.append(k_extra)
        ctx.progress(bound=bound, nodes=nodes, elapsed=round(time.perf_counter() - t0, 2))
        if expired:
            stats["lower_bound"] = bound  # every shorter bound was exhausted
            return finish(Status.UNKNOWN, [], f"time limit inside the iteration with bound {bound} "
                          f"(the optimum is at least {bound})")
        if sols:
            ctx.found(pr.original(sols[0]))
            return finish(Status.OPTIMAL, sols)
        if pr.mode == H_NONE:
            bound += 2
        else:
            if nxt >= NO_BOUND:
                break
            bound = nxt
    return finish(Status.UNKNOWN, [], f"no solution within {max_depth} moves")
