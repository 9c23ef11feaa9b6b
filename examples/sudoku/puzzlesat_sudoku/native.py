"""Native reference search: depth-first over the empty cells, always the one with the fewest
candidates (minimum remaining values), the candidates of a cell a 9-bit mask of the digits its
row, column and box leave free (bitmask Sudoku solvers, e.g. Knuth's "dancing" exact-cover
search is the other classic; this one needs no cover matrix). Shares no code with the models
or the checker."""
from __future__ import annotations

from typing import Iterator

from puzzlesat import Context, Outcome, Status, Task

from .puzzle import Grid, Sudoku

ROW = [c // 9 for c in range(81)]
COL = [c % 9 for c in range(81)]
BOX = [3 * (c // 27) + (c % 9) // 3 for c in range(81)]
FULL = 0x3FE  # digits 1..9 as bits 1..9


def solutions(inst: Sudoku, ctx: Context | None = None, stats: dict | None = None) -> Iterator[Grid]:
    """Every solution, in the search's order; none when two givens clash; stops (TimeoutError)
    when ctx's time runs out. `stats["nodes"]` counts the cells tried."""
    grid = list(inst.givens)
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9
    for c, d in enumerate(grid):
        if d:
            bit = 1 << d
            if (rows[ROW[c]] | cols[COL[c]] | boxes[BOX[c]]) & bit:
                return  # a clash among the givens: no solution
            rows[ROW[c]] |= bit
            cols[COL[c]] |= bit
            boxes[BOX[c]] |= bit
    empty = [c for c in range(81) if not grid[c]]
    nodes = 0

    def free(c: int) -> int:
        return FULL & ~(rows[ROW[c]] | cols[COL[c]] | boxes[BOX[c]])

    def search(k: int) -> Iterator[Grid]:
        nonlocal nodes
        if k == len(empty):
            yield tuple(grid)
            return
        best, best_mask, best_n = k, 0, 10  # the empty cell (from k on) with the fewest candidates
        for i in range(k, len(empty)):
            m = free(empty[i])
            n = bin(m).count("1")
            if n < best_n:
                best, best_mask, best_n = i, m, n
                if n <= 1:
                    break
        if best_n == 0:
            return
        empty[k], empty[best] = empty[best], empty[k]
        c = empty[k]
        r, q, b = ROW[c], COL[c], BOX[c]
        m = best_mask
        while m:
            bit = m & -m
            m ^= bit
            nodes += 1
            if ctx is not None and nodes % 4096 == 0:
                if ctx.expired():
                    raise TimeoutError
                ctx.progress(nodes=nodes)
            grid[c] = bit.bit_length() - 1
            rows[r] |= bit
            cols[q] |= bit
            boxes[b] |= bit
            yield from search(k + 1)
            rows[r] ^= bit
            cols[q] ^= bit
            boxes[b] ^= bit
        grid[c] = 0
        empty[k], empty[best] = empty[best], empty[k]

    try:
        yield from search(0)
    finally:
        if stats is not None:
            stats["nodes"] = nodes


def run(inst: Sudoku, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs: count every solution (streamed to the runner), or find one."""
    sols, stats = [], {}
    try:
        for s in solutions(inst, ctx, stats):
            ctx.found(s)
            sols.append(s)
            if task is Task.FEASIBLE:
                break
    except TimeoutError:
        return Outcome(Status.UNKNOWN, solutions=tuple(sols), stats=stats, reason="time limit")
    if not sols:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None, stats=stats)
    if task is Task.FEASIBLE:
        return Outcome(Status.FEASIBLE, solutions=(sols[0],), stats=stats)
    return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats)
