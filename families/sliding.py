"""Sliding-tile engines (the built-in table): native BFS / bidirectional BFS / IDDFS / IDA*, CP-SAT
and SAT planning."""
from __future__ import annotations

from ..core.family import Engine, Family, Option
from ..core.result import Task
from .options import CPSAT_CERTIFY_OPTIONS, CPSAT_OPTIONS, SAT_OPTIONS

ALL = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
PDB_CHOICES = ("auto", "663", "555", "78", "78b", "6666", "44", "53", "none")  # run_ida checks them per board
ZPDB_CHOICES = ("zpdb-small", "zpdb-large", "zpdb-small4", "zpdb-small3")  # zero-aware catalogues (native_search/sliding/zpdb.py)


def _check_pdb(value: str, engine: str) -> None:
    """A partition name, or several joined by '+' (h is the largest), each one of PDB_CHOICES."""
    from ..core.result import InputError
    parts = value.split("+")
    ok = (value in PDB_CHOICES + ZPDB_CHOICES) or (len(parts) > 1 and all(p in PDB_CHOICES[1:-1] for p in parts))
    if not ok:
        raise InputError(f"option pdb={value!r} of engine {engine}: choose one of "
                         + ", ".join(PDB_CHOICES + ZPDB_CHOICES)
                         + " (or several partitions joined by '+', e.g. 663+555)")


PLAN_OPTIONS = (
    Option("no_undo", True, "forbid a move that undoes the previous one (never in an optimal plan)"),
    Option("manhattan_bound", True, "at most (T-h0)/2 moves may increase the Manhattan sum; also "
           "drops tile-in-cell facts too far from the start or the goal for the step"),
    Option("parity_step", True, "try only horizons of the optimum's parity (step by 2) and keep the "
           "blank off cells of the wrong colour at each step; off: every horizon from the lower "
           "bound, the wrong-parity ones proved UNSAT by the solver"),
    Option("max_horizon", 90, "give up (UNKNOWN) beyond this many moves"),
)

FAMILY = Family(
    name="sliding",
    puzzle="puzzlesat.puzzles.sliding",
    description="sliding-tile puzzles (8-puzzle, 15-puzzle, any r×c): fewest moves",
    engines=(
        Engine("native:ida", "puzzlesat.native_search.sliding.engines:run_ida", ALL, (
            Option("heuristic", "auto", "auto: additive pattern databases where the board has them "
                   "(goal blank in a corner), else Manhattan + linear conflicts",
                   ("auto", "linear", "manhattan")),
            Option("pdb", "auto", "pattern-database partition, per board: 4x4 663 (auto), 555, 78, 78b; "
                   "5x5 6666 (auto; Korf & Felner 2002); 3x3 44, 53; several joined by '+' (e.g. 78+663): "
                   "h is the largest; built once, cached on disk; none: Manhattan + linear conflicts; "
                   "or a zero-aware catalogue with 1-bit entries (Clausecker & Reinefeld 2019): 5x5 "
                   "zpdb-small (14 partitions of 6-tile databases, 317 MB), 4x4 zpdb-small4, 3x3 zpdb-small3; the "
                   "catalogue holds its transposed partitions (mirror does not apply)",
                   check=_check_pdb),
            Option("mirror", True, "with pattern databases, also look up the board's mirror image "
                   "about the main diagonal and take the larger value"),
            Option("dual", "off", "with pattern databases: lookup = also the dual state's value (the "
                   "inverse permutation, Felner et al. 2005), search = dual IDA* (DIDA*, Zahavi et al. "
                   "2008: go on from the dual where its value is larger; a count runs it as lookup); "
                   "needs a database per pattern minus each blank object, built on first use",
                   ("off", "lookup", "search"), since="0.3"),
            Option("dual_fill", False, "with dual: the original blank object takes the dual blank "
                   "object's place in its pattern (databases as large as the partition's, stronger) "
                   "instead of the pattern losing a tile", since="0.3"),
            Option("dual_fill_max", 0, "with dual_fill: fill only the patterns of at most this "
                   "many tiles (the larger ones lose the tile: their filled databases are the "
                   "costly ones, e.g. 7-8's eight of 8 tiles); 0: every pattern", since="0.3"),
            Option("order", "board", "with pattern databases: the order of a node's children: board "
                   "(the board's neighbour order) or manhattan (tiles moving towards their goal cell "
                   "first); it moves where the last iteration meets its first solution, never what an "
                   "iteration proves", ("board", "manhattan"), since="0.3"),
            Option("fsm", "simple", "with a zero-aware catalogue, the move-pruning automaton: "
                   "simple (never undo the last move; Clausecker's published runs) or loops-L (also "
                   "every move sequence of at most L moves that a shorter or earlier equivalent "
                   "one replaces; keeps one optimal path, so a count uses simple)",
                   since="0.3"),
            Option("processes", 1, "search each IDA* iteration's subtrees in this many forked "
                   "processes (node counts add up; 1: one process; with a zero-aware catalogue "
                   "also optimize gives one process's solution, nodes and expansions); with "
                   "dask=local, the number of Dask workers"),
            Option("dask", "", "run the expensive IDA* iterations' subtrees as jobs on a Dask "
                   "cluster: 'local' (a LocalCluster of `processes` workers on 127.0.0.1) or a "
                   "scheduler address tcp://HOST:PORT; a job lost with its worker is re-run",
                   since="0.3"),
            Option("split_nodes", 1_000_000, "with dask: an iteration goes to the cluster once "
                   "the previous one generated at least this many nodes", since="0.3"),
        ), "IDA*: additive pattern databases on 4x4/5x5, else Manhattan + linear conflicts",
            aliases=("native",), validate="puzzlesat.native_search.sliding.engines:validate_ida"),
        Engine("native:bfs", "puzzlesat.native_search.sliding.engines:run_bfs", ALL, (
            Option("exhaust", False, "search every position reachable from the start; the stats "
                   "get the distance histogram (layers), radius and farthest positions", flag=True),),
               "breadth-first search over a byte per arrangement (<= 12 cells); counts by layers"),
        Engine("native:bidir", "puzzlesat.native_search.sliding.engines:run_bidir", ALL, (
            Option("memory_mb", 2000, "stop with UNKNOWN before the kept layers pass this size"),),
               "bidirectional BFS over sorted layers of packed boards (<= 16 cells)"),
        Engine("native:iddfs", "puzzlesat.native_search.sliding.engines:run_iddfs", ALL, (),
               "plain iterative deepening without immediate undo, depth step 2"),
        Engine("cpsat:time", "puzzlesat.models.sliding.cpsat:run", ALL, (*PLAN_OPTIONS, *CPSAT_OPTIONS,
                                                                                        *CPSAT_CERTIFY_OPTIONS),
               "time-indexed planning in CP-SAT, horizon raised until SAT", aliases=("cpsat",),
               formulation="puzzlesat.models.sliding.time_indexed:decision",
               preload=("puzzlesat.models._cpsat",)),
        Engine("sat:time", "puzzlesat.models.sliding.sat:run", ALL, (*PLAN_OPTIONS, *SAT_OPTIONS),
               "time-indexed planning in CNF (python-sat), horizon raised until SAT", aliases=("sat",),
               formulation="puzzlesat.models.sliding.time_indexed:decision",
               preload=("puzzlesat.models._sat",)),
    ),
    commands=("puzzlesat.cli.sliding:explore", "puzzlesat.cli.sliding:sliding_pdb"),
    generate="puzzlesat.cli.sliding:generate",
)
