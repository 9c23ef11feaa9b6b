"""The Rush Hour family for puzzlesat: its record, which the `puzzlesat.families` entry point
names. Engines name their run functions as 'module:function' strings, so listing them imports
no solver."""
from puzzlesat import Engine, Family, Option, Task

TASKS = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)

PLAN_OPTIONS = (
    Option("cuts", True, "cuts that keep every shortest plan: no vehicle moves twice in a row "
           "(metric moves), no step undoes the previous one (metric steps)"),
    Option("max_horizon", 120, "give up (UNKNOWN) beyond this many moves or steps"),
)
# the default first: glucose42 stops at the time limit (python-sat's interrupt); cadical153/195
# and lingeling have no interrupt, so the runner's hard kill ends them (UNKNOWN, no stats)
SAT_SOLVERS = ("glucose42", "glucose4", "minisat22", "maplesat", "maplechrono", "cadical153",
               "cadical195", "lingeling")
ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk",
             "pairwise", "ladder", "bitwise")

FAMILY = Family(
    name="rushhour",
    puzzle="puzzlesat_rushhour.puzzle",
    description="Rush Hour: slide cars and trucks along their lines until the red car reaches "
                "the exit; fewest moves or steps (the instance's metric)",
    tasks=TASKS,
    default_engines=("native", "cpsat", "sat"),
    engines=(
        Engine("native:bfs", "puzzlesat_rushhour.native:run", TASKS, aliases=("native",),
               options=(Option("component", True, "also explore the rest of the start's connected "
                               "component (every position reachable by any moves): its size and "
                               "the start's eccentricity in the stats", flag=True),),
               validate="puzzlesat_rushhour.native:validate",
               description="breadth-first search over positions packed into an int64 (numba), "
                           "hash table of seen positions; counts shortest plans by marking back "
                           "from the goal layer"),
        Engine("cpsat:time", "puzzlesat_rushhour.models:run_cpsat", TASKS, aliases=("cpsat",),
               options=(*PLAN_OPTIONS,
                        Option("workers", 1, "CP-SAT num_workers (enumeration always uses 1)"),
                        Option("linearization_level", 0, "CP-SAT linearization_level"),
                        Option("seed", 0, "CP-SAT random_seed")),
               description="time-indexed planning in CP-SAT (offset per vehicle and step, one "
                           "move per step, frame axioms), horizon raised until feasible"),
        Engine("sat:time", "puzzlesat_rushhour.models:run_sat", TASKS, aliases=("sat",),
               options=(*PLAN_OPTIONS,
                        Option("solver", "glucose42", "python-sat solver (all incremental: "
                               "counting adds blocking clauses; cadical and lingeling cannot be "
                               "interrupted: the hard time limit kills them)", SAT_SOLVERS),
                        Option("encoding", "seqcounter", "cardinality encoding (pysat EncType) of "
                               "the exactly-one constraints", ENCODINGS)),
               description="the same planning formulation in CNF (python-sat), horizon raised "
                           "until SAT; blocking clauses over the move variables"),
    ),
)
