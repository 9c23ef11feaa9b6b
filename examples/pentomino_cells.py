"""Polyomino tiling with one integer per cell (which piece covers it), in CP-SAT.

Formulation: cell[c] in 0..P-1 is the piece covering cell c; a Boolean y[p] per placement p is
channelled to the cells: cell[c] == i  <=>  some placement of piece i covering c is chosen. Piece i
is placed exactly count_i times and labels exactly count_i * size_i cells, so placements of one
piece cannot overlap and placements of two pieces cannot share a cell (its label is one number).
There is no "exactly one placement per cell" constraint: that is the built-in exact cover.
When every piece is used once, the labelling *is* the tiling (its cells of label i form the one
placement of i): enumeration is projected on the cell integers. With copies of a piece the
labelling can be ambiguous (two dominoes in a 2x2 square), so it is projected on the placements.
Search: fixed, on the cells along the short side, lowest piece first (3x20, loaded machine:
2.5 s instead of 40 s with CP-SAT's own search).
"""
from ortools.sat.python import cp_model

from puzzlesat.engine import Outcome, Status, Task, CPSAT_DEFAULTS, cpsat_enumerate, cpsat_solve
from puzzlesat.puzzles.pentomino import one_per_orbit, placements

TASKS = ("count", "feasible")
OPTIONS = {"up_to_symmetry": False}


def run(inst, task, ctx):
    """Every tiling (or one per symmetry orbit with up_to_symmetry) / any tiling."""
    m, pieces, places = cp_model.CpModel(), inst.pieces, placements(inst)
    cells = sorted(inst.cells, key=(lambda rc: (rc[1], rc[0])) if inst.height <= inst.width else None)
    cell = {c: m.new_int_var(0, len(pieces) - 1, f"cell{c}") for c in cells}
    y = [m.new_bool_var(f"y{j}") for j in range(len(places))]
    for i, pc in enumerate(pieces):
        m.add(sum(y[j] for j, pl in enumerate(places) if pl.piece == i) == pc.count)
        is_i = {c: m.new_bool_var("") for c in cells}
        for c in cells:
            m.add(cell[c] == i).only_enforce_if(is_i[c])
            m.add(cell[c] != i).only_enforce_if(~is_i[c])
            covering = [y[j] for j, pl in enumerate(places) if pl.piece == i and c in pl.cells]
            m.add_bool_or(covering).only_enforce_if(is_i[c])     # labelled i -> covered by an i
            for v in covering:
                m.add_implication(v, is_i[c])                      # covered by an i -> labelled i
        m.add(sum(is_i.values()) == pc.count * pc.size)
    m.add_decision_strategy([cell[c] for c in cells], cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
    unique = all(pc.count == 1 for pc in pieces)
    proj = [cell[c] for c in cells] if unique else y

    def decode(vals):
        if not unique:
            return tuple(places[j].as_placement(inst) for j, v in enumerate(vals) if v)
        by = {}
        for c, v in zip(cells, vals):
            by.setdefault(v, []).append(c)
        return tuple(sorted((pieces[i].name, tuple(cs)) for i, cs in by.items()))

    params = {"search_branching": cp_model.FIXED_SEARCH, "use_sat_inprocessing": False}  # measured
    stats = {"params": {"cpsat": {**CPSAT_DEFAULTS, **params, "search_branching": "FIXED_SEARCH"}},
             "projection": "cells" if unique else "placements"}
    if task is Task.FEASIBLE:
        st, solver = cpsat_solve(m, ctx, **params)
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            return Outcome(Status.FEASIBLE, solutions=(decode([solver.value(v) for v in proj]),),
                           stats=stats)
        return Outcome(st, stats=stats)
    st, projs = cpsat_enumerate(m, proj, ctx, **params)
    sols = [decode(pr) for pr in projs]
    if ctx.options.get("up_to_symmetry") in (True, "true"):
        sols = one_per_orbit(inst, sols)
    if st is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, None, len(sols), tuple(sols), stats)
    if st is Status.INFEASIBLE:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats)
    return Outcome(Status.UNKNOWN, solutions=tuple(sols), stats=stats, reason="enumeration stopped by the limit")


run.TASKS, run.OPTIONS = TASKS, OPTIONS
