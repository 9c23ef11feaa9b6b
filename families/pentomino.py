"""Pentomino / polyomino tiling engines: native first-empty-cell DFS, CP-SAT and SAT exact cover."""
from __future__ import annotations

from ..core.family import Engine, Family, Option
from ..core.result import InputError, Task
from .options import CPSAT_CERTIFY_OPTIONS, CPSAT_OPTIONS, SAT_ENCODINGS, SAT_OPTIONS

SYMMETRY_GROUPS = ("all", "rotations")   # = puzzles.pentomino.SYMMETRY_GROUPS (tables are data)

TASKS = (Task.COUNT, Task.FEASIBLE)
# Pairwise at-most-one measured best here (6x10, 30 s, glucose4: 163 tilings found against 74
# bitwise, 63 ladder, 34 seqcounter; with cadical195 and first-cell decisions, the 2339 orbits in
# 35 s against 88 s with ladder); piece counts above 1 fall back to seqcounter (recorded).
_SAT_OPTIONS = tuple(Option("encoding", "pairwise", o.help, SAT_ENCODINGS) if o.name == "encoding"
                     else o for o in SAT_OPTIONS)
def _positive(v: int, engine: str) -> None:
    if v < 1:
        raise InputError(f"option parts={v} of engine {engine}: expected a positive integer")


def _megabytes(v: float, engine: str) -> None:
    if not v >= 1:
        raise InputError(f"option memory_mb={v} of engine {engine}: expected at least 1 (MB)")


def _part(v: int, engine: str) -> None:
    if v < 0:
        raise InputError(f"option part={v} of engine {engine}: expected 0 or more (below parts)")


def exact_pieces(inst, options: dict) -> None:
    """Validation of native:dfs: it uses each piece its exact number of times (a piece given a
    range of copies — `count = "any"`, min/max — is for the counters and the models)."""
    ranged = [p.name for p in inst.pieces if getattr(p, "most", -1) != -1]
    if ranged:
        raise InputError(f"native:dfs needs an exact number of copies of each piece; piece(s) "
                         f"{', '.join(ranged)} take a range: use native:count (counts), cpsat:cover "
                         "or sat:cover")


SYMMETRY_OPTIONS = (
    Option("up_to_symmetry", False, "count tilings up to the board's symmetries (orbits); with "
           "feasible (sat:/cpsat:, uncertified), look for one tiling of an orbit (symmetry breaking)",
           flag=True, identity=True),
    Option("symmetry", "all", "with up_to_symmetry, the group whose orbits are counted: all (the "
           "board's rotations, and its reflections when the piece set is closed under mirror "
           "images) or rotations (the board's proper rotations only: mirror-image tilings count "
           "apart)", SYMMETRY_GROUPS, identity=True),
    Option("symmetry_breaking", True, "with up_to_symmetry: restrict X (then P, …) to one placement "
           "per orbit of the board's group (exact orbit counts); off: count canonical forms. "
           "Native, all tilings: pin a piece on one placement per orbit and map each tiling "
           "found onto its orbit (every image checked); off: the plain search"),
)

FAMILY = Family(
    name="pentomino",
    puzzle="puzzlesat.puzzles.pentomino",
    description="Tile a 2D or 3D board with polyominoes or polycubes (named sets, custom pieces, "
                "one-sided): count all tilings or orbits",
    # counts stream to the runner, which checks each tiling and keeps a tally, not the tilings
    streamed_count=True,
    tasks=TASKS,
    engines=(
        Engine("native:dfs", "puzzlesat.native_search.pentomino.dfs:run", TASKS,
               (*SYMMETRY_OPTIONS,
                Option("scan", "short", "cell scan order: fastest along the shortest side of "
                       "the box, or the longest", ("short", "long")),
                Option("processes", 1, "count: run the independent subtrees (plan branches split "
                       "by their first choice) on this many forked processes"),
                Option("branching", "auto", "first-cell: fill the first empty cell; fewest: the "
                       "exact-cover column (cell or piece) with the fewest live placements; auto: "
                       "fewest on 3D and non-rectangular boards (measured)",
                       ("auto", "first-cell", "fewest")),
                Option("parts", 1, "count: split the subtrees into this many parts (subtree i in "
                       "part i mod parts); a run counts one part, the parts' counts add up",
                       check=_positive),
                Option("part", 0, "count with parts > 1: which part this run counts (0-based)",
                       check=_part)),
               "depth-first search filling the first empty cell, bitboards (numba)",
               aliases=("native",), validate="puzzlesat.families.pentomino:exact_pieces"),
        Engine("native:count", "puzzlesat.native_search.pentomino.count:run", (Task.COUNT,),
               (*SYMMETRY_OPTIONS,  # up_to_symmetry: orbits by Burnside's lemma (symmetry_breaking unused)
                Option("memory_mb", 2048, "memory budget of the layers and their hash tables, "
                       "in MB: a layer that would outgrow it stops the count (UNKNOWN 'memory')",
                       check=_megabytes, since="0.3")),
               "counts tilings without listing them: the remaining region (first uncovered cell, "
               "the window after it, the pieces' copies used) memoised layer by layer, exact "
               "integers of any size (numba); orbits by Burnside's lemma (the tilings each "
               "symmetry fixes, counted on its quotient)",
               validate="puzzlesat.native_search.pentomino.count:validate", counter=True),
        Engine("cpsat:cover", "puzzlesat.models.pentomino.cpsat:run", TASKS,
               (*SYMMETRY_OPTIONS,
                Option("search", "fixed", "fixed: decide placements in first-cell scan order "
                       "(value 1 first); auto: CP-SAT's default search", ("fixed", "auto")),
                Option("cubes", "piece", "piece: enumerate under each placement of X (the piece "
                       "used once with the fewest placements), one solve each; none: one solve",
                       ("piece", "none")),
                *CPSAT_OPTIONS, *CPSAT_CERTIFY_OPTIONS),
               "exact cover: one Boolean per placement, exactly one per cell and piece copy",
               aliases=("cpsat",), formulation="puzzlesat.models.pentomino.cover:decision"),
        Engine("sat:cover", "puzzlesat.models.pentomino.sat:run", TASKS,
               (*SYMMETRY_OPTIONS, *_SAT_OPTIONS,
                Option("blocking", "placements", "blocking clause per solution: its chosen "
                       "placements only, or every placement variable ('full')",
                       ("placements", "full")),
                Option("cubes", "piece", "piece: enumerate under each placement of X (the piece "
                       "used once with the fewest placements) in turn; none: in one go",
                       ("piece", "none")),
                Option("phase", "default", "initial phase of placement variables: the solver's "
                       "default, or all false", ("default", "negative")),
                Option("search", "auto", "first-cell: decide an open placement at the first "
                       "uncovered cell (IPASIR-UP decider, cadical195 only); solver: the "
                       "solver's own heuristic; auto: first-cell where supported",
                       ("auto", "first-cell", "solver"))),
               "exact cover in CNF, cardinality encodings from PySAT, blocking-clause enumeration, "
               "first-cell decisions (IPASIR-UP, cadical195)",
               aliases=("sat",), formulation="puzzlesat.models.pentomino.cover:decision"),
    ),
)
