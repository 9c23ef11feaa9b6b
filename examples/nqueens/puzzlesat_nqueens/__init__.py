"""The n-queens family for puzzlesat: its record, which the `puzzlesat.families` entry point
names. Engines name their run functions as 'module:function' strings, so listing them imports
no solver."""
from puzzlesat import Engine, Family, Option, Task

TASKS = (Task.COUNT, Task.FEASIBLE)  # no objective: count every placement, or find one

FAMILY = Family(
    name="nqueens",
    puzzle="puzzlesat_nqueens.puzzle",
    description="n queens on an n x n board, none attacking another (some may be placed already)",
    tasks=TASKS,
    default_engines=("native", "cpsat", "sat"),
    engines=(
        Engine("native:dfs", "puzzlesat_nqueens.native:run", TASKS, aliases=("native",),
               description="backtracking row by row over bitmasks of free columns and diagonals"),
        Engine("cpsat:rows", "puzzlesat_nqueens.models:run_cpsat", TASKS, aliases=("cpsat",),
               options=(Option("workers", 1, "CP-SAT num_workers (counting always uses 1)"),),
               description="one integer per row (its queen's column), AllDifferent on columns "
                           "and both diagonals"),
        Engine("sat:cells", "puzzlesat_nqueens.models:run_sat", TASKS, aliases=("sat",),
               options=(Option("solver", "cadical195", "python-sat solver"),
                        Option("encoding", "seqcounter", "at-most-one encoding (pysat EncType)",
                               ("seqcounter", "pairwise", "ladder", "bitwise", "totalizer"))),
               description="one Boolean per cell; exactly one per row, at most one per column "
                           "and diagonal; blocking clauses over the cells",
               formulation="puzzlesat_nqueens.models:decision"),
    ),
)
