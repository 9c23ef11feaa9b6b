"""Search-order helpers shared by the two tiling models (the native search has its own).

Both models branch the way the native search does: on the first uncovered cell in a scan along
the board's short side, and split the enumeration into cubes, one per placement of the piece
used once that has the fewest placements (X for the pentominoes).
"""
from __future__ import annotations

from typing import Callable

from puzzlesat.puzzles.pentomino import Cell, Tiling, placements
from puzzlesat.puzzles.pentomino_breaking import symmetry_plan


def scan_key(inst: Tiling) -> Callable[[Cell], tuple[int, ...]]:
    """Sort key of cells for a scan that runs fastest along the board's shortest side (as the
    native search scans): coordinates ordered from the longest axis to the shortest."""
    axes = sorted(range(inst.dim), key=lambda a: (-inst.extent[a], a))
    return lambda x: tuple(x[a] for a in axes)


def cube_placements(inst: Tiling, breaking: bool) -> list[int | None]:
    """Placement indices to enumerate under one at a time: those of the piece used once with the
    fewest placements; every tiling uses exactly one of them, so the cubes partition the tilings.
    With symmetry breaking, the placements its plan forbids at the root are left out. [None]
    (one cube, no assumption) when no piece is used exactly once."""
    per: dict[int, list[int]] = {}
    for i, p in enumerate(placements(inst)):
        if inst.pieces[p.piece].count == 1:
            per.setdefault(p.piece, []).append(i)
    if not per:
        return [None]
    k = min(per, key=lambda k: (len(per[k]), k))
    plan = symmetry_plan(inst)
    skip = set(plan.forbidden) if breaking and plan.piece == k else set()
    return [i for i in per[k] if i not in skip] or [None]
