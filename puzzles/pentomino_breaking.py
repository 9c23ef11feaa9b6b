"""The symmetry-breaking plan for counting tilings up to symmetry (the engines' strategy; the
rules, the group and the checker are in `pentomino`).

Counting the tilings that obey the plan counts each orbit of the problem's group exactly once:
at each node, a piece used once is restricted to the smallest placement of each orbit (under the
node's group) of its placements; a kept placement with a non-trivial stabiliser becomes a child
that fixes it and breaks the stabiliser with another piece. A reflection that renames a chiral
piece to its partner maps that piece's placements onto the partner's, so such a piece is never
chosen to break a group containing such a reflection (its placements have no orbits of their own).
The argument needs no property of the board beyond its group, so the same plan serves any
subgroup: the proper rotations alone (`symmetry="rotations"`) as well as the whole group.

>>> from puzzlesat.puzzles.pentomino import catalogue
>>> plan_summary(catalogue()["6x10"]()), plan_summary(catalogue()["6x10"](), "rotations")
('X: 8 of 32', 'X: 16 of 32')
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .pentomino import Sym, Tiling, placements, symmetries


@dataclass(frozen=True)
class PlanNode:
    """One node of the symmetry-breaking plan (exact orbit counting, derived from the group).

    Among the tilings that contain every placement of `fixed` (placement indices), whose
    stabiliser in the group is `group`, keep only those in which `piece` (a piece used once)
    lies on an allowed placement: the smallest placement of each orbit of its placements. `free`
    are the kept placements whose stabiliser is trivial (each such orbit of tilings is counted
    exactly once); each kept placement with a non-trivial stabiliser becomes a child node that
    fixes it and breaks the remaining symmetry with another piece. `forbidden` lists the
    placements of `piece` (compatible with `fixed`) that are not kept. When no suitable piece is
    left, `piece` is -1 and `residual` > 1 says how many symmetries remain: those tilings must be
    deduplicated by canonical form.
    """

    fixed: tuple[int, ...]
    piece: int
    free: tuple[int, ...]
    forbidden: tuple[int, ...]
    children: tuple["PlanNode", ...]
    residual: int = 1

    def leaves_exact(self) -> bool:
        """True when every branch ends with a trivial residual group (no deduplication needed)."""
        return self.residual == 1 and all(ch.leaves_exact() for ch in self.children)

    def nodes(self):
        """This node and all its descendants, depth first."""
        yield self
        for ch in self.children:
            yield from ch.nodes()


def placement_orbits(inst: Tiling, cand: list[int], group: tuple[Sym, ...]
                     ) -> list[tuple[int, tuple[int, ...]]]:
    """The orbits under `group` of the placements `cand` (increasing indices into
    `placements(inst)`, closed under the group): per orbit (its least placement r, the image of r
    under each symmetry of `group`, in group order)."""
    pls = placements(inst)
    index = _placement_index(inst)
    seen: set[int] = set()
    out = []
    for r in cand:
        if r in seen:
            continue
        p = pls[r]
        imgs = tuple(index[(g.pmap[p.piece], tuple(sorted(g[x] for x in p.cells)))] for g in group)
        seen.update(imgs)
        out.append((r, imgs))  # cand is in increasing order: r is its orbit's smallest
    return out


@cache
def _placement_index(inst: Tiling) -> dict[tuple, int]:
    return {(p.piece, p.cells): i for i, p in enumerate(placements(inst))}


@cache
def symmetry_plan(inst: Tiling, symmetry: str = "all") -> PlanNode:
    """The plan for the group `symmetry` names (`pentomino.SYMMETRY_GROUPS`): keep one placement
    of X (in general: the piece used once, mapped to itself by the group, whose placements form
    the fewest orbits) per orbit of the group; where the kept placement is itself fixed by a
    non-trivial symmetry, restrict a further piece used once under those symmetries, and so on."""
    pls = placements(inst)
    group = symmetries(inst, symmetry)

    def node(fixed: tuple[int, ...], grp: tuple[Sym, ...], used: frozenset[int]) -> PlanNode:
        if len(grp) == 1:
            return PlanNode(fixed, -1, (), (), ())
        covered = {x for i in fixed for x in pls[i].cells}
        best = None
        for k, pc in enumerate(inst.pieces):
            if pc.count != 1 or not pc.exact or k in used or any(g.pmap[k] != k for g in grp):
                continue
            cand = [i for i, p in enumerate(pls) if p.piece == k and covered.isdisjoint(p.cells)]
            reps, nonfree = [], []
            for i, imgs in placement_orbits(inst, cand, grp):
                reps.append(i)
                stab = tuple(g for g, j in zip(grp, imgs) if j == i)
                if len(stab) > 1:
                    nonfree.append((i, stab))
            score = (len(reps), k) if not fixed else (len(nonfree), len(reps), k)
            if best is None or score < best[0]:
                best = (score, k, cand, reps, nonfree)
        if best is None:
            return PlanNode(fixed, -1, (), (), (), residual=len(grp))
        _, k, cand, reps, nonfree = best
        keep = set(reps)
        nf = {i for i, _ in nonfree}
        children = tuple(node(fixed + (i,), stab, used | {k}) for i, stab in nonfree)
        return PlanNode(fixed, k, tuple(i for i in reps if i not in nf),
                        tuple(i for i in cand if i not in keep), children)

    return node((), tuple(group), frozenset())


def plan_summary(inst: Tiling, symmetry: str = "all") -> str:
    """One line: which pieces the plan (for the group `symmetry`) restricts, and how much."""
    plan = symmetry_plan(inst, symmetry)
    if plan.piece < 0:
        return "none needed" if plan.residual == 1 else "none possible (no piece used once)"
    parts = []
    for n in plan.nodes():
        if n.piece >= 0:
            kept = len(n.free) + len(n.children)
            parts.append(f"{inst.pieces[n.piece].name}: {kept} of {kept + len(n.forbidden)}"
                         + (f" given {len(n.fixed)} fixed" if n.fixed else ""))
    return "; ".join(parts[:4]) + (f"; … ({len(parts)} nodes)" if len(parts) > 4 else "") + \
        ("" if plan.leaves_exact() else "; plus canonical dedup")
