"""Peg solitaire engines."""
from puzzlesat.puzzles.core import Task

from ..registry import CPSAT_OPTIONS, SAT_OPTIONS, Engine, Family, Option

ALL = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
INVARIANTS = Option("invariants", True, "add the board's GF(2) position-class parities on every "
                    "intermediate state (redundant, prunes)")

FAMILY = Family(
    name="peg",
    module="puzzlesat.puzzles.peg",
    description="peg solitaire: minimum moves (a multi-jump is one move), optimal sequence counts",
    engines=(
        Engine("native:iddfs", "puzzlesat.native_search.peg:run", ALL, aliases=("native",),
               description="iterative deepening on moves, corner lower bound, failed-state table"),
        Engine("native:bfs", "puzzlesat.native_search.peg_bfs:run", (Task.OPTIMIZE, Task.FEASIBLE),
               options=(
                   Option("exhaust", False, "forward BFS over all positions reachable from the start; "
                          "reports layer sizes (up to symmetry) and their total"),
                   Option("symmetry", True, "reduce positions by the board's symmetry group"),
                   Option("bidirectional", True, "grow forward and backward layers, the smaller side first"),
               ),
               description="breadth-first search by moves over symmetry-reduced bitboard layers"),
        Engine("cpsat:time", "puzzlesat.models.peg_cpsat:run", ALL, aliases=("cpsat",),
               options=(*CPSAT_OPTIONS, INVARIANTS,
                        Option("strategy", "descend", "descend: decision calls moves<=K below the best; "
                               "minimize: CP-SAT's objective", ("descend", "minimize"))),
               description="time-indexed peg states, one jump per step, clause-style move counting",
               formulation="puzzlesat.models.peg_sat:decision"),
        Engine("sat:time", "puzzlesat.models.peg_sat:run", ALL, aliases=("sat",), options=(*SAT_OPTIONS, INVARIANTS),
               description="the same time-indexed model as CNF; moves<=K by a cardinality encoding",
               formulation="puzzlesat.models.peg_sat:decision"),
    ),
)
