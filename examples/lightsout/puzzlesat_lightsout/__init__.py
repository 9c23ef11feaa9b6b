"""The Lights Out family for puzzlesat: its record, which the `puzzlesat.families` entry point
names. Engines name their run functions as 'module:function' strings, so listing them imports
no solver."""
from puzzlesat import Engine, Family, InputError, Option, Task

TASKS = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)  # fewest presses; minimum solutions; any one

# the solvers python-sat 1.9 ships (kissat404 solves once per instance: no counting)
SAT_SOLVERS = ("cadical195", "cadical103", "cadical153", "cadical300", "ergo", "glucose3",
               "glucose4", "glucose42", "gluecard3", "gluecard4", "kissat404", "lingeling",
               "maplechrono", "maplecm", "maplesat", "mergesat3", "minicard", "minisat22",
               "minisatep")
NON_INCREMENTAL = ("kissat404",)
# PySAT cardinality encodings of presses <= K (pairwise, ladder, bitwise encode K = 1 only)
ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk")


def _incremental_to_count(solver: str, task: Task, engine: str) -> None:
    if task is Task.COUNT and solver in NON_INCREMENTAL:
        raise InputError(f"engine {engine}: SAT solver '{solver}' is not incremental; counting adds "
                         "blocking clauses between calls: choose another solver")


def _at_least_one(value: int, engine: str) -> None:
    if value < 1:
        raise InputError(f"option workers={value} of engine {engine}: must be at least 1")


FAMILY = Family(
    name="lightsout",
    puzzle="puzzlesat_lightsout.puzzle",
    description="Lights Out on an m x n board: turn every light off with the fewest presses "
                "(a press toggles a cell and its orthogonal neighbours)",
    tasks=TASKS,
    default_engines=("native", "cpsat", "sat"),
    generate="puzzlesat_lightsout.cli:generate",
    engines=(
        Engine("native:gf2", "puzzlesat_lightsout.native:run", TASKS, aliases=("native",),
               description="Gaussian elimination over GF(2): one solution and a null-space basis, "
                           "then the 2^k solutions in Gray-code order (njit kernel)"),
        Engine("cpsat:xor", "puzzlesat_lightsout.models:run_cpsat", TASKS, aliases=("cpsat",),
               options=(Option("workers", 1, "CP-SAT num_workers (counting always uses 1)",
                               check=_at_least_one),
                        Option("linearization_level", 0, "CP-SAT linearization_level"),
                        Option("seed", 0, "CP-SAT random_seed")),
               description="a Boolean per cell, AddBoolXOr per light over its neighbourhood, "
                           "minimise presses; count: enumerate with presses <= the optimum"),
        Engine("sat:xor", "puzzlesat_lightsout.models:run_sat", TASKS, aliases=("sat",),
               options=(Option("solver", "cadical195", "python-sat solver", SAT_SOLVERS,
                               task_check=_incremental_to_count),
                        Option("encoding", "seqcounter", "cardinality encoding of presses <= K "
                               "(pysat EncType)", ENCODINGS),
                        Option("xor_cut", 4, "XOR pieces of at most this many literals, chained by "
                               "auxiliaries (3: Tseitin chain; 5: every neighbourhood direct)",
                               (3, 4, 5)),
                        Option("search", "descending", "optimum by decision calls presses <= K: "
                               "descending from the best found, or ascending from ceil(lights/5)",
                               ("descending", "ascending"))),
               description="the parity constraints as CNF (cutting encoding), presses <= K by a "
                           "cardinality encoding; count: blocking clauses over the presses"),
    ),
)
