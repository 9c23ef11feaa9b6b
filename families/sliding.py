"""Sliding-tile engines (the built-in table): native BFS / bidirectional BFS / IDDFS / IDA*, CP-SAT
and SAT planning."""
from __future__ import annotations

from ..core.family import Engine, Family, Option
from ..core.result import Task
from .options import CPSAT_OPTIONS, SAT_OPTIONS

ALL = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
PDB_CHOICES = ("auto", "663", "555", "78", "6666", "44", "none")  # run_ida checks them per board

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
        Engine("native:ida", "puzzlesat.native_search.sliding:run_ida", ALL, (
            Option("heuristic", "auto", "auto: additive pattern databases where the board has them "
                   "(goal blank in a corner), else Manhattan + linear conflicts",
                   ("auto", "linear", "manhattan")),
            Option("pdb", "auto", "pattern-database partition, per board: 4x4 663 (auto), 555, 78; "
                   "5x5 6666 (auto; Korf & Felner 2002); 3x3 44; built once, cached on disk; none: "
                   "Manhattan + linear conflicts", PDB_CHOICES),
            Option("mirror", True, "with pattern databases, also look up the board's mirror image "
                   "about the main diagonal and take the larger value"),
            Option("processes", 1, "search each IDA* iteration's subtrees in this many forked "
                   "processes (node counts add up; 1: one process)"),
        ), "IDA*: additive pattern databases on 4x4/5x5, else Manhattan + linear conflicts",
            aliases=("native",), validate="puzzlesat.native_search.sliding:validate_ida"),
        Engine("native:bfs", "puzzlesat.native_search.sliding:run_bfs", ALL, (
            Option("exhaust", False, "search every position reachable from the start; the stats "
                   "get the distance histogram (layers), radius and farthest positions", flag=True),),
               "breadth-first search over a byte per arrangement (<= 12 cells); counts by layers"),
        Engine("native:bidir", "puzzlesat.native_search.sliding:run_bidir", ALL, (
            Option("memory_mb", 2000, "stop with UNKNOWN before the kept layers pass this size"),),
               "bidirectional BFS over sorted layers of packed boards (<= 16 cells)"),
        Engine("native:iddfs", "puzzlesat.native_search.sliding:run_iddfs", ALL, (),
               "plain iterative deepening without immediate undo, depth step 2"),
        Engine("cpsat:time", "puzzlesat.models.sliding_cpsat:run", ALL, (*PLAN_OPTIONS, *CPSAT_OPTIONS),
               "time-indexed planning in CP-SAT, horizon raised until SAT", aliases=("cpsat",),
               formulation="puzzlesat.models.sliding_time:decision"),
        Engine("sat:time", "puzzlesat.models.sliding_sat:run", ALL, (*PLAN_OPTIONS, *SAT_OPTIONS),
               "time-indexed planning in CNF (python-sat), horizon raised until SAT", aliases=("sat",),
               formulation="puzzlesat.models.sliding_time:decision"),
    ),
    commands=("puzzlesat.cli.sliding:explore", "puzzlesat.cli.sliding:sliding_pdb"),
    generate="puzzlesat.cli.sliding:generate",
)
