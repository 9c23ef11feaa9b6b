"""The exact cover of a tiling instance as data (models/formulation.py), built once for the CP-SAT
and the SAT model, and the search-order helpers both use (the native search has its own).

Formulation (the classical exact-cover model, Knuth's "Dancing Links" matrix as a 0-1 model):
variable ("x", i) is true iff placement i (`puzzles.pentomino.placements`: a piece kind on a set
of cells) is used. Groups: "one placement per cell" (ExactlyOne per board cell), "each piece
once" (ExactlyOne per piece used once), "piece copies" (AtLeast and AtMost count per piece used
more than once, or within a range: AtLeast its fewest, AtMost its most when that is a limit), "symmetry breaking" (with `breaking`: the clauses of the plan of
`puzzles.pentomino_breaking`: a forbidden placement, or not all of a node's fixed placements
together with it). The projection is every ("x", i): a tiling is one assignment.

Both models branch the way the native search does: on the first uncovered cell in a scan along
the board's short side, and split the enumeration into cubes, one per placement of the piece
used once that has the fewest placements (X for the pentominoes).
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..formulation import AtLeast, AtMost, Clause, ExactlyOne, Formulation

from ...puzzles.pentomino import Cell, Place, Tiling, placements
from ...puzzles.pentomino_breaking import symmetry_plan


X = "x"  # the domain key of a placement variable: (X, placement index)
GROUPS = ("one placement per cell", "each piece once", "piece copies", "symmetry breaking")


def formulation(inst: Tiling, breaking: bool = False, symmetry: str = "all") -> Formulation:
    """The exact cover of `inst` (with the symmetry-breaking clauses of the plan for the group
    `symmetry` when `breaking`)."""
    pls = placements(inst)
    f = Formulation(f"tiling {inst.name}", "exact cover (Knuth, Dancing Links, 2000), 0-1 form")
    by_cell: dict = {c: [] for c in inst.cells}
    by_piece: list[list] = [[] for _ in inst.pieces]
    for i, p in enumerate(pls):
        by_piece[p.piece].append((X, i))
        for c in p.cells:
            by_cell[c].append((X, i))
    f.add(GROUPS[0], *(ExactlyOne(tuple(by_cell[c])) for c in sorted(inst.cells)))
    f.add(GROUPS[1], *(ExactlyOne(tuple(by_piece[k])) for k, p in enumerate(inst.pieces)
                       if p.count == 1 and p.exact))
    for k, p in enumerate(inst.pieces):
        lo, hi = p.bounds(len(inst.cells))
        if p.count == 1 and p.exact:
            continue
        if lo > 0:
            f.add(GROUPS[2], AtLeast(tuple(by_piece[k]), lo))
        if p.most is not None and hi < len(by_piece[k]):
            # a range's upper end; with no limit (as many as fit) the cover implies it by area,
            # and stating it would only make a frontier count track a running sum (count:frontier)
            f.add(GROUPS[2], AtMost(tuple(by_piece[k]), hi))
    if breaking:
        f.mark(GROUPS[3], "symmetry breaking")
        f.add(GROUPS[3], *(Clause(tuple(((X, q), False) for q in node.fixed) + (((X, g), False),))
                           for node in symmetry_plan(inst, symmetry).nodes() for g in node.forbidden))
    f.projection = tuple((X, i) for i in range(len(pls)))
    return f


def scan_key(inst: Tiling) -> Callable[[Cell], tuple[int, ...]]:
    """Sort key of cells for a scan that runs fastest along the board's shortest side (as the
    native search scans): coordinates ordered from the longest axis to the shortest."""
    axes = sorted(range(inst.dim), key=lambda a: (-inst.extent[a], a))
    return lambda x: tuple(x[a] for a in axes)


def scan_order(inst: Tiling, pls: Sequence[Place]) -> list[int]:
    """The placement indices in the order search=fixed decides them: by first cell in scan order
    (scan_key), then piece, then index."""
    key = scan_key(inst)
    return sorted(range(len(pls)), key=lambda i: (min(key(c) for c in pls[i].cells), pls[i].piece, i))


def cube_placements(inst: Tiling, breaking: bool, symmetry: str = "all") -> list[int | None]:
    """Placement indices to enumerate under one at a time: those of the piece used once with the
    fewest placements; every tiling uses exactly one of them, so the cubes partition the tilings.
    With symmetry breaking, the placements its plan (for the group `symmetry`) forbids at the root
    are left out. [None]
    (one cube, no assumption) when no piece is used exactly once."""
    per: dict[int, list[int]] = {}
    for i, p in enumerate(placements(inst)):
        if inst.pieces[p.piece].count == 1 and inst.pieces[p.piece].exact:
            per.setdefault(p.piece, []).append(i)
    if not per:
        return [None]
    k = min(per, key=lambda k: (len(per[k]), k))
    plan = symmetry_plan(inst, symmetry)
    skip = set(plan.forbidden) if breaking and plan.piece == k else set()
    return [i for i in per[k] if i not in skip] or [None]


def decision(inst: Tiling, task, options: dict, bound: int | None = None):
    """Formulation hook of sat:cover and cpsat:cover (export, stats, ext:dimacs, ps.model): the
    exact cover, with the symmetry-breaking clauses (for the group `symmetry`) with `up_to_symmetry`
    and `symmetry_breaking` when counting, or when looking for one tiling uncertified (the clauses
    keep one tiling of every orbit, so feasibility is unchanged; a certified INFEASIBLE is proved
    on the plain cover); no bound (tilings have no objective)."""
    from ...core.result import Task

    from .._ext import Decision
    t = Task(task)
    breaking = bool(options.get("up_to_symmetry")) and bool(options.get("symmetry_breaking", True)) \
        and (t is Task.COUNT or (t is Task.FEASIBLE and not options.get("certify")))
    f = formulation(inst, breaking, options.get("symmetry", "all"))
    pls = placements(inst)

    def decode(true_keys: set):
        return tuple(sorted(pls[k[1]].as_placement(inst) for k in true_keys if k[0] == X))
    return Decision(f, decode, None, "no bound", upper_complete=True,
                    search_order=tuple((X, i) for i in scan_order(inst, pls)))
