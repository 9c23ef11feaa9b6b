"""The Sudoku family for puzzlesat: its record, which the `puzzlesat.families` entry point names.
Engines name their run functions as 'module:function' strings, so listing them imports no solver."""
from puzzlesat import Engine, Family, InputError, Option, Task
from puzzlesat.engine import CPSAT_OPTIONS, SAT_ENCODINGS, SAT_NON_INCREMENTAL, SAT_SOLVERS

TASKS = (Task.COUNT, Task.FEASIBLE)  # no objective: count the solutions (1: a proper puzzle), or find one


def _incremental_to_count(solver: str, task: Task, engine: str) -> None:
    if task is Task.COUNT and solver in SAT_NON_INCREMENTAL:
        raise InputError(f"engine {engine}: SAT solver '{solver}' is not incremental; counting adds "
                         "blocking clauses between calls: choose another solver")


FAMILY = Family(
    name="sudoku",
    puzzle="puzzlesat_sudoku.puzzle",
    description="Sudoku: fill a 9x9 grid so that every row, column and 3x3 box holds 1..9 once",
    tasks=TASKS,
    default_engines=("native", "cpsat", "sat"),
    engines=(
        Engine("native:dfs", "puzzlesat_sudoku.native:run", TASKS, aliases=("native",),
               description="depth-first over the empty cells, the one with the fewest candidates "
                           "first (9-bit candidate masks)"),
        Engine("cpsat:cells", "puzzlesat_sudoku.models:run_cpsat", TASKS, aliases=("cpsat",),
               options=CPSAT_OPTIONS[:1],
               description="an integer per cell, AllDifferent on every row, column and box"),
        Engine("sat:cells", "puzzlesat_sudoku.models:run_sat", TASKS, aliases=("sat",),
               options=(Option("solver", "cadical195", "python-sat solver", SAT_SOLVERS,
                               task_check=_incremental_to_count),
                        Option("encoding", "pairwise", "encoding of the exactly-one constraints "
                               "(pysat.card.EncType name)", SAT_ENCODINGS)),
               formulation="puzzlesat_sudoku.models:formulation",
               description="a Boolean per cell and digit, exactly one per cell and per digit in "
                           "each unit (Lynce & Ouaknine's extended encoding), as a Formulation"),
    ),
)
