"""Peg solitaire engines (the built-in table): native searches, CP-SAT and SAT models."""
from __future__ import annotations

from ..core.family import Engine, Family, Option
from ..core.result import Task
from .options import CPSAT_CERTIFY_OPTIONS, CPSAT_OPTIONS, SAT_OPTIONS

ALL = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
BITBOARD = "puzzlesat.native_search.peg.bitboard:validate"  # the native engines: at most 64 holes
INVARIANTS = Option("invariants", True, "add the board's GF(2) position-class parities on every "
                    "intermediate state (redundant, prunes)")

DESCEND = Option("strategy", "descend", "descend: decision calls moves<=K below the best; ascend: "
                 "calls moves<=K upward from the corner bound, the first feasible one is the optimum "
                 "(the resource counts need K: no minimize)", ("descend", "ascend"))
SEARCH = (Option("search", "auto", "auto: CP-SAT's default search; fixed: depth-first in time order "
                 "(FIXED_SEARCH over the jump literals, step by step, lines in board order)",
                 ("auto", "fixed")),
          Option("presolve", True, "CP-SAT cp_model_presolve for the decision calls"))
NATIVE_LAYER_OPTIONS = (
    Option("prune", "none", "merson: layers bounded by K moves, a position kept only if its depth "
           "plus its Merson-region move bound is at most K (native_search/peg/bound.py); K ascends "
           "from the start's bound (or is max_moves) until the layers meet", ("none", "merson")),
    Option("max_moves", 0, "with prune=merson: search only for solutions of at most this many "
           "moves (0: ascend from the start's bound); none proves a lower bound of max_moves + 1"),
    Option("memory_mb", 0, "memory for layers in MiB (0: 75% of the memory available); layers "
           "past it are built and kept on disk"),
    Option("work_dir", "", "folder for the layers on disk: every finished layer is kept there and "
           "a run with the same folder resumes from its last complete layer (empty: a temporary "
           "folder, removed)"),
    Option("disk_limit_mb", 0, "disk the layers may use in MiB (0: all but 1 GiB of free space); "
           "past it the answer is UNKNOWN with the bound the complete layers prove"),
)
MERSON_OPTIONS = (
    Option("families", "all", "Merson-region families counted: all = every maximal disjoint family "
           "of the minimal regions, one constraint each; best = one family (most regions full at "
           "the start)", ("all", "best")),
    Option("max_region", 4, "largest Merson region enumerated (holes)"),
)
ORDER_OPTIONS = (
    Option("prefix", 2, "symmetry breaking on the first jumps: a prefix of this many jumps that is "
           "not the least of its orbit under the symmetries keeping start and finish is forbidden "
           "(0: none; `peg cubes` sets it to the cube depth)"),
)

FAMILY = Family(
    name="peg",
    puzzle="puzzlesat.puzzles.peg",
    description="peg solitaire: minimum moves (a multi-jump is one move), optimal sequence counts",
    engines=(
        Engine("native:iddfs", "puzzlesat.native_search.peg.iddfs:run", ALL, validate=BITBOARD,
               description="iterative deepening on moves, corner lower bound, failed-state table"),
        Engine("native:bfs", "puzzlesat.native_search.peg.bfs:run", (Task.OPTIMIZE, Task.FEASIBLE),
               options=(
                   Option("exhaust", False, "one-sided BFS to the end (see direction); reports the "
                          "layer sizes up to symmetry (stats `layers`) and their total", flag=True),
                   Option("direction", "forward", "with exhaust: forward = every position reachable "
                          "from the start, by moves; backward = every position that can reach the "
                          "finish, by the moves it needs", ("forward", "backward"), flag=True),
                   Option("symmetry", True, "reduce positions by the board's symmetry group"),
                   Option("bidirectional", True, "grow forward and backward layers, the smaller side first"),
                   *NATIVE_LAYER_OPTIONS,
               ), validate=BITBOARD,
               description="breadth-first search by moves over symmetry-reduced bitboard layers"),
        Engine("native:auto", "puzzlesat.native_search.peg.iddfs:run_auto", ALL, aliases=("native",),
               validate=BITBOARD,
               preload=("puzzlesat.native_search.peg.bfs",),
               description="native:bfs for optimize/feasible, native:iddfs for count (by measurement: "
                           "iddfs does not finish the English central game)"),
        Engine("cpsat:time", "puzzlesat.models.peg.cpsat:run", ALL, aliases=("cpsat",),
               options=(*CPSAT_OPTIONS, INVARIANTS,
                        Option("strategy", "descend", "descend: decision calls moves<=K below the best; "
                               "ascend: upward from the corner bound; minimize: CP-SAT's objective",
                               ("descend", "ascend", "minimize")), *SEARCH,
                        *CPSAT_CERTIFY_OPTIONS),
               description="time-indexed peg states, one jump per step, clause-style move counting",
               formulation="puzzlesat.models.peg.sat:decision"),
        Engine("sat:time", "puzzlesat.models.peg.sat:run", ALL, aliases=("sat",), options=(*SAT_OPTIONS, INVARIANTS),
               validate="puzzlesat.models.peg.sat:validate",
               description="the same time-indexed model as CNF; moves<=K by a cardinality encoding",
               formulation="puzzlesat.models.peg.sat:decision"),
        Engine("cpsat:resource", "puzzlesat.models.peg.resource:run_cpsat", ALL,
               options=(*CPSAT_OPTIONS, INVARIANTS,
                        DESCEND, *SEARCH, *CPSAT_CERTIFY_OPTIONS),
               description="the time model plus the corner lower bound as a resource count on every state",
               preload=("puzzlesat.models.peg.cpsat",),
               formulation="puzzlesat.models.peg.resource:decision"),
        Engine("sat:resource", "puzzlesat.models.peg.resource:run_sat", ALL,
               options=(*SAT_OPTIONS, INVARIANTS), validate="puzzlesat.models.peg.sat:validate",
               description="the resource formulation as CNF (at-most-K in the chosen encoding)",
               preload=("puzzlesat.models.peg.sat",),
               formulation="puzzlesat.models.peg.resource:decision"),
        *(Engine(f"{be}:{name}", f"puzzlesat.models.peg.{name}:run_{be}", ALL,
                 options=(*(CPSAT_OPTIONS + (DESCEND, *SEARCH, *CPSAT_CERTIFY_OPTIONS) if be == "cpsat"
                            else SAT_OPTIONS), INVARIANTS,
                          *MERSON_OPTIONS, *(ORDER_OPTIONS if name == "ordered" else ())),
                 validate="puzzlesat.models.peg.merson:validate", description=text + (
                     "" if be == "cpsat" else " (CNF; at-most-K in the chosen encoding)"),
                 formulation=f"puzzlesat.models.peg.{name}:decision",
                 preload=(f"puzzlesat.models.peg.{be}",))
          for name, text in (
              ("merson", "the time model plus Merson-region resource counts (board-derived) on every state"),
              ("ordered", "peg:merson plus commuting jumps in line order (symmetry breaking valid for "
                          "minimum moves; counts run over peg:merson)"))
          for be in ("cpsat", "sat")),
    ),
    commands=("puzzlesat.cli.peg:peg",),
)
