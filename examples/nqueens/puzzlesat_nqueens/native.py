"""Native reference search: backtracking row by row over bitmasks of the free columns and
diagonals (Wirth 1976). Shares no code with the models or the checker."""
from __future__ import annotations

from typing import Iterator

from puzzlesat import Context, Outcome, Status, Task

from .puzzle import Queens, Solution


def placements(inst: Queens, ctx: Context | None = None) -> Iterator[Solution]:
    """Every solution, in lexicographic order; stops (TimeoutError) when ctx's time runs out."""
    n, full = inst.n, (1 << inst.n) - 1
    fixed = dict(inst.fixed)
    cols: list[int] = []
    nodes = 0

    def place(r: int, free_cols: int, d1: int, d2: int) -> Iterator[Solution]:
        nonlocal nodes
        if r == n:
            yield tuple(cols)
            return
        nodes += 1
        if ctx is not None and nodes % 4096 == 0:
            if ctx.expired():
                raise TimeoutError
            ctx.progress(nodes=nodes)
        avail = free_cols & ~(d1 | d2) & full
        if r in fixed:
            avail &= 1 << fixed[r]
        while avail:
            bit = avail & -avail
            avail ^= bit
            cols.append(bit.bit_length() - 1)
            yield from place(r + 1, free_cols & ~bit, (d1 | bit) << 1, (d2 | bit) >> 1)
            cols.pop()

    yield from place(0, full, 0, 0)


def run(inst: Queens, task: Task, ctx: Context) -> Outcome:
    """Engine native:dfs: count every solution (streamed to the runner), or find one."""
    sols = []
    try:
        for s in placements(inst, ctx):
            ctx.found(s)
            sols.append(s)
            if task is Task.FEASIBLE:
                return Outcome(Status.FEASIBLE, solutions=(s,))
    except TimeoutError:
        return Outcome(Status.UNKNOWN, solutions=tuple(sols), reason="time limit")
    if not sols:
        return Outcome(Status.INFEASIBLE, count=0 if task is Task.COUNT else None)
    return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols))
