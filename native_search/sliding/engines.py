"""Sliding-tile native engines: the functions the registry runs (instance, task, ctx) -> Outcome.

The searches live in `bfs` (BFS, bidirectional BFS, explore), `ida` (IDDFS, IDA*,
parallel IDA*) and `pattern_db` (pattern databases); this module reads the engines' options
from ctx.options (the registry fills every default) and turns results into Outcomes.
"""
from __future__ import annotations

from ...core.result import Context, InputError, Outcome, Status, Task
from ...puzzles.sliding import Sliding

from .bfs import bfs, bidir
from .ida import deepen
from .pattern_db import partitions


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
    """InputError unless each partition of `pdb` ('+'-joined) exists for the instance's board
    ('auto'/'none' always do)."""
    if pdb in ("auto", "none"):
        return
    from .zpdb import CATALOGUES, catalogues
    if pdb in CATALOGUES:
        if pdb not in catalogues(inst.rows, inst.cols):
            raise InputError(f"option pdb={pdb} of engine native:ida: the zero-aware catalogue is "
                             f"for {CATALOGUES[pdb][0]}x{CATALOGUES[pdb][1]} boards, not "
                             f"{inst.rows}x{inst.cols}")
        if inst.goal.index(0) not in (0, inst.cols - 1, inst.cells - inst.cols, inst.cells - 1):
            raise InputError(f"option pdb={pdb} of engine native:ida: zero-aware catalogues need "
                             "the goal's blank in a corner")
        return
    known = partitions(inst.rows, inst.cols)
    for name in pdb.split("+"):
        if name not in known:
            raise InputError(f"option pdb={pdb} of engine native:ida: no such partition for "
                             f"{inst.rows}x{inst.cols} boards: {name} (there: "
                             f"{', '.join(('auto', *known, 'none'))})")


def validate_ida(inst: Sliding, options: dict) -> None:
    """native:ida's options for this instance: the partition exists for the board, processes >= 1,
    dask is '', 'local' or a tcp:// address (with the distributed package installed)."""
    check_pdb_option(inst, options["pdb"])
    from .zpdb import CATALOGUES, FSMS
    if options["pdb"] in CATALOGUES:
        for opt, default in (("heuristic", "auto"), ("dual", "off"), ("order", "board")):
            if options[opt] != default:
                raise InputError(f"option {opt}={options[opt]} of engine native:ida does not apply "
                                 f"to the zero-aware catalogue pdb={options['pdb']}")
    elif options["fsm"] != "simple":
        raise InputError(f"option fsm={options['fsm']} of engine native:ida: move-pruning automata "
                         "go with the zero-aware catalogues (pdb=" + ", ".join(CATALOGUES) + ")")
    if options["fsm"] not in FSMS:
        raise InputError(f"option fsm={options['fsm']} of engine native:ida: one of {', '.join(FSMS)}")
    if options["dual_fill_max"] < 0:
        raise InputError(f"option dual_fill_max={options['dual_fill_max']} of engine native:ida: "
                         "0 (every pattern) or a pattern size")
    if options["processes"] < 1:
        raise InputError(f"option processes={options['processes']} of engine native:ida: at least 1")
    d = options["dask"]
    if d and d != "local" and not d.startswith("tcp://"):
        raise InputError(f"option dask={d} of engine native:ida: 'local' or a scheduler address "
                         "tcp://HOST:PORT")
    if d:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("option dask of engine native:ida needs the distributed package: "
                             "pip install 'puzzlesat[dask]'") from None


def fill_of(o: dict):
    """The `fill` argument of the searches for native:ida's options: False, True (every pattern)
    or the largest pattern filled."""
    if not o["dual_fill"]:
        return False
    return o["dual_fill_max"] or True


def run_ida(inst: Sliding, task: Task, ctx: Context) -> Outcome:
    """native:ida — IDA* with additive pattern databases (3x3 on request, 4x4, 5x5; any goal), with
    dual lookups or dual search on request, or Manhattan + linear conflicts; over several processes
    with `processes`."""
    o = ctx.options
    validate_ida(inst, o)
    if not o["dask"]:
        return _outcome(task, deepen(inst, o["heuristic"], task is Task.COUNT, ctx, pdb=o["pdb"],
                                     mirror=o["mirror"], processes=o["processes"], dual=o["dual"],
                                     fill=fill_of(o), order=o["order"], fsm=o["fsm"]))
    from .cluster import DaskSplit, open_client
    client, cluster = open_client(o["dask"], o["processes"])
    try:
        dual = "lookup" if task is Task.COUNT and o["dual"] == "search" else o["dual"]
        spec = {"instance": inst, "heuristic": o["heuristic"], "pdb": o["pdb"], "mirror": o["mirror"],
                "dual": dual, "fill": fill_of(o), "order": o["order"],
                "fsm": "simple" if task is Task.COUNT else o["fsm"]}
        split = DaskSplit(client, spec, 0, o["split_nodes"])
        return _outcome(task, deepen(inst, o["heuristic"], task is Task.COUNT, ctx, pdb=o["pdb"],
                                     mirror=o["mirror"], dual=o["dual"], fill=fill_of(o), order=o["order"],
                                     split=split, fsm=o["fsm"]))
    finally:
        _close_quietly(client, cluster)


def _close_quietly(client, cluster) -> None:
    """Close the Dask client and cluster; a failure to close (a scheduler already gone) does not
    change the run's result."""
    for thing in (client, cluster):
        if thing is None:
            continue
        try:
            thing.close()
        except Exception:  # noqa: BLE001 - the answer is already decided
            pass
