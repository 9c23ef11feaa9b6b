"""CP-SAT model of polyomino tiling: exact cover with one Boolean per placement.

Formulation: the exact cover of `models.pentomino.cover.formulation` (Knuth's "Dancing Links" matrix as
a 0-1 model), compiled by `models.formulation.to_cpsat`: x_p = 1 iff placement p (a piece kind
on a set of cells) is used; every board cell is covered by exactly one chosen placement; each
piece kind is chosen exactly its number of times. Because a
variable stands for a piece *kind* on cells, copies of one piece are interchangeable and a tiling
is one assignment. Enumeration is projected on the x_p with one worker.

Options: `search="fixed"` decides the placements in first-cell scan order (short side first),
value 1 first — the native search's order — which is far faster than CP-SAT's default search
here; `search="auto"` keeps CP-SAT's own. `symmetry_breaking` adds the plan of
`puzzles.pentomino_breaking.symmetry_plan` (X restricted to one placement per orbit, and so on) as clauses.
`cubes="piece"` (default) enumerates under each placement of X (the piece used once with the
fewest placements) as an assumption, one solve each: one long enumeration slows down per
conflict, and the split measured 6x10 all 136 s -> 22 s, up to symmetry 8.1 s -> 4.8 s;
`cubes="none"` enumerates in one solve.
"""
from __future__ import annotations

from ortools.sat.python import cp_model

from .. import _cpsat
from .cover import X, cube_placements, formulation, scan_order
from ..formulation import to_cpsat
from ...core.result import CertificateClaim, Context, Outcome, Status, Task
from ...puzzles.pentomino import Solution, Tiling, one_per_orbit, placements, symmetries
from ...puzzles.pentomino_breaking import symmetry_plan


def build(inst: Tiling, *, breaking: bool = False, search: str = "fixed", symmetry: str = "all"):
    """(model, placement variables, number of symmetry-breaking constraints): the shared exact
    cover (`models.pentomino.cover.formulation`, its breaking plan for the group `symmetry`) compiled to
    CP-SAT, plus the decision strategy."""
    data = to_cpsat(formulation(inst, breaking, symmetry))
    m = data.model
    pls = placements(inst)
    x = [data.var((X, i)) for i in range(len(pls))]
    added = len(data.formulation.groups.get("symmetry breaking", ()))
    if search == "fixed":
        m.add_decision_strategy([x[i] for i in scan_order(inst, pls)], cp_model.CHOOSE_FIRST,
                                cp_model.SELECT_MAX_VALUE)
    return m, x, added


def _extra(search: str) -> dict:
    """Pinned parameters of this model. SAT inprocessing off: measured on the up-to-symmetry
    counts with the fixed search, 6x10 8.5 s -> 7.2 s, 5x12 4.0 s -> 2.7 s, 8x8-centre 0.68 s ->
    0.30 s (same counts, fewer branches)."""
    p = {"use_sat_inprocessing": False}
    if search == "fixed":
        p["search_branching"] = cp_model.FIXED_SEARCH
    return p


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:cover — tasks feasible and count (options up_to_symmetry, symmetry,
    symmetry_breaking, search, cubes, and the shared CP-SAT options)."""
    o = ctx.options
    up = o["up_to_symmetry"] and task is Task.COUNT
    # one tiling wanted: the breaking clauses keep a tiling of every orbit (uncertified only: a
    # certified INFEASIBLE is proved on the plain cover)
    brk = bool(o["up_to_symmetry"] and o["symmetry_breaking"]
               and (up or (task is Task.FEASIBLE and not o.get("certify"))))
    search, group = o["search"], o.get("symmetry", "all")
    if o.get("certify"):
        return _certified(inst, task, ctx, up, group)
    m, x, added = build(inst, breaking=brk, search=search, symmetry=group)
    pls = placements(inst)

    def solution(true_idx) -> Solution:
        return tuple(sorted(pls[i].as_placement(inst) for i in true_idx))

    if task is Task.FEASIBLE:
        p = _cpsat.params(o, **_extra(search))
        st, solver = _cpsat.solve(m, p, ctx)
        stats = {**_cpsat.model_size(m), "branches": solver.num_branches,
                 "conflicts": solver.num_conflicts, "breaking_constraints": added}
        params: dict = {"cpsat": p, "symmetry_breaking_applied": brk, "search": search}
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            sol = solution(i for i, v in enumerate(x) if solver.value(v))
            ctx.found(sol)
            return Outcome(Status.FEASIBLE, solutions=(sol,), stats=stats, params=params)
        return Outcome(st, stats=stats, params=params)
    cubes = cube_placements(inst, brk, group) if o["cubes"] == "piece" else [None]
    st, sols = Status.OPTIMAL, []
    stats = {"duplicates": 0, **_cpsat.model_size(m), "branches": 0, "conflicts": 0}
    params = {}
    for q in cubes:
        m.clear_assumptions()
        if q is not None:
            m.add_assumptions([x[q]])
        cst, projs, cstats, params["cpsat"] = _cpsat.enumerate_projected(m, x, o, ctx, **_extra(search))
        for k in ("duplicates", "branches", "conflicts"):
            stats[k] += cstats[k]
        for t in projs:
            sols.append(solution(i for i, v in enumerate(t) if v))
            ctx.found(sols[-1])
        ctx.progress(solutions=len(sols))
        if cst not in (Status.OPTIMAL, Status.INFEASIBLE):  # this cube was cut short
            st = Status.UNKNOWN
            break
    m.clear_assumptions()
    params.update(symmetry_breaking_applied=brk, search=search)
    if up:
        params["group_order"] = len(symmetries(inst, group))
    stats["cubes"] = len(cubes)
    stats["breaking_constraints"] = added
    if st is Status.OPTIMAL and not sols:
        st = Status.INFEASIBLE
    if up and not (brk and symmetry_plan(inst, group).leaves_exact()):
        kept = one_per_orbit(inst, sols, group)
        stats["canonical_dedup"] = len(sols) - len(kept)
        sols = kept
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats, params=params)
    if st is Status.INFEASIBLE:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, params=params)
    return Outcome(st, solutions=tuple(sols), stats=stats, params=params)


def _certified(inst: Tiling, task: Task, ctx: Context, up: bool, group: str) -> Outcome:
    """certify=True: CP-SAT on the exact cover's CNF with LRAT (models.cpsat_cnf). An orbit count
    is certified through the full count (no symmetry-breaking clauses): the tilings go into the
    certificate, the runner counts their classes under the family's solution_key."""
    from dataclasses import replace

    from ..cpsat_cnf import run_certified
    hook = "puzzlesat.models.pentomino.cover:decision"
    if not up:
        return run_certified(inst, task, ctx, hook)
    out = run_certified(inst, task, ctx.sub({**ctx.options, "up_to_symmetry": False}), hook)
    cert = out.certificate
    if out.status is not Status.OPTIMAL or not isinstance(cert, CertificateClaim) or cert.refused is not None:
        return out
    full = list(out.solutions)
    kept = tuple(one_per_orbit(inst, full, group))
    how = "the full count, CP-SAT on the CNF without symmetry-breaking clauses"
    cert = replace(cert, claim=f"{cert.claim}, in the orbits of the group '{group}' counted from them",
                   orbits={"identity": {"up_to_symmetry": True, "symmetry": group}, "enumeration": how,
                           "solutions": [{"placements": [[n, [list(c) for c in cells]] for n, cells in t]}
                                         for t in full]})
    return replace(out, count=len(kept), solutions=kept, certificate=cert,
                   params={**out.params, "certify_full_enumeration": how})
