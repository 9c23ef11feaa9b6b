"""The shared sliding formulation (models.sliding.time_indexed): one Formulation that both backends read."""
from __future__ import annotations

from puzzlesat.models.formulation import to_cnf
from puzzlesat.models.sliding.time_indexed import build
from puzzlesat.puzzles.sliding import parse_inline


def test_formulation_enumerates_every_optimal_plan():
    """The 2x3 position [4,5,0,1,2,3] is 21 moves from the goal with 4 optimal plans (SPEC-style
    BFS count, tests/test_sliding.py oracle); the CNF of the 21-move model without the bound has
    exactly those 4 plans projected on the moves, and no plan at 19 moves."""
    inst = parse_inline(2, 3, [4, 5, 0, 1, 2, 3])
    tm = build(inst, 21, bound=False)
    plans = {tm.decode(keys) for keys in to_cnf(tm.f).models()}
    assert len(plans) == 4 and all(len(p) == 21 for p in plans)
    assert set(tm.f.projection) == set(tm.moves) and not tm.empty
    short = build(inst, 19, bound=False)
    assert short.empty or not list(to_cnf(short.f).models(limit=1))
    assert set(tm.f.groups) >= {"one tile per cell", "one cell per tile", "one move per step",
                                "move preconditions", "move effects", "frame axioms", "no undo"}
