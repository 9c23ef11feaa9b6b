"""Sliding-tile native engines: the functions the registry runs (instance, task, ctx) -> Outcome.

The searches live in `sliding_bfs` (BFS, bidirectional BFS, explore), `sliding_ida` (IDDFS, IDA*,
parallel IDA*) and `sliding_pdb` (pattern databases); this module reads the engines' options
from ctx.options (the registry fills every default) and turns results into Outcomes.
"""
from __future__ import annotations

from ..core.result import Context, InputError, Outcome, Status, Task
from ..puzzles.sliding import Sliding

from .sliding_bfs import bfs, bidir
from .sliding_ida import deepen
from .sliding_pdb import partitions


def _outcome(task: Task, result) -> Outcome:
    status, sols, stats, reason = result
    if status is not Status.OPTIMAL:
        return Outcome(status, count=0 if status is Status.INFEASIBLE and task is Task.COUNT else None,
                       stats=stats, reason=reason)
    length = len(sols[0])
    if task is Task.COUNT:
        return Outcome(Status.OPTIMAL, length, len(sols), tuple(sols), stats)
    return Outcome(Status.OPTIMAL, length, None, (sols[0],), stats)


def run_bfs(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:bfs — breadth-first search over the whole rank table (boards of <= 12 cells)."""
    return _outcome(task, bfs(inst, task is Task.COUNT, progress=ctx.progress,
                              exhaust=ctx.options["exhaust"]))


def run_bidir(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:bidir — bidirectional BFS over packed boards (<= 16 cells)."""
    return _outcome(task, bidir(inst, task is Task.COUNT, progress=ctx.progress,
                                memory_mb=ctx.options["memory_mb"]))


def run_iddfs(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:iddfs — plain iterative deepening without immediate undo."""
    return _outcome(task, deepen(inst, "none", task is Task.COUNT, ctx))


def check_pdb_option(inst: Sliding, pdb: str) -> None:
    """InputError unless partition `pdb` exists for the instance's board ('auto'/'none' always do)."""
    if pdb in ("auto", "none"):
        return
    known = partitions(inst.rows, inst.cols)
    if pdb not in known:
        raise InputError(f"option pdb={pdb} of engine native:ida: no such partition for "
                         f"{inst.rows}x{inst.cols} boards (there: {', '.join(('auto', *known, 'none'))})")


def validate_ida(inst: Sliding, options: dict) -> None:
    """native:ida's options for this instance: the partition exists for the board, processes >= 1."""
    check_pdb_option(inst, options["pdb"])
    if options["processes"] < 1:
        raise InputError(f"option processes={options['processes']} of engine native:ida: at least 1")


def run_ida(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:ida — IDA* with additive pattern databases (3x3 on request, 4x4, 5x5; goal blank in a
    corner) or Manhattan + linear conflicts; over several processes with `processes`."""
    o = ctx.options
    validate_ida(inst, o)
    return _outcome(task, deepen(inst, o["heuristic"], task is Task.COUNT, ctx, pdb=o["pdb"],
                                 mirror=o["mirror"], processes=o["processes"]))
