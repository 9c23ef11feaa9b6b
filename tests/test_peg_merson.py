"""peg:merson (Merson-region resource counts) and peg:ordered (commuting jumps in line order).

Facts: the regions are Merson regions and minimal (brute force over every hole set of tiny boards);
the counts never cut a solution (random tiny boards against the brute-force oracle of test_peg, and
random small positions on the named boards against cpsat:time: same optimum and count); the
ordering keeps the optimum but not the count (it does cut sequences: the engines count without it).
"""
from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.models.peg import merson, ordered as ordered_model
from puzzlesat.models.formulation import to_cnf
from puzzlesat.core.result import InputError, Status
from puzzlesat.puzzles.peg import PegInstance, board, catalogue, check
from oracles import peg_oracle
from strategies import peg_small, peg_solvable, peg_tiny


PEG = family("peg")


def _brute_minimal(b, max_size):
    """Every minimal Merson hole set of at most `max_size` holes, by plain enumeration."""
    merson = [frozenset(s) for k in range(1, max_size + 1) for s in combinations(range(b.n), k)
              if all(a in s or c in s for a, bb, c in b.lines if bb in s)]
    return {r for r in merson if not any(o < r for o in merson)}


def _connected(b, r):
    nb = {h: set() for h in r}
    for h in r:
        x, y = b.coords[h]
        for dx, dy in b.directions:
            o = b.index.get((x + dx, y + dy))
            if o in r:
                nb[h].add(o)
    seen, todo = set(), [min(r)]
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo += nb[h]
    return seen == set(r)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(peg_tiny())
def test_minimal_regions_are_the_connected_minimal_merson_sets(inst):
    b = inst.board
    want = {r for r in _brute_minimal(b, 4) if _connected(b, r)}
    assert set(merson.minimal_regions(b, 4)) == want


def test_english_regions_and_start_count():
    inst = catalogue()["english33"]()
    regs = merson.minimal_regions(inst.board)
    sizes = sorted(len(r) for r in regs)
    # the 8 never-jumped-over holes, the 4 inner-corner L trominoes, the 12 2x2 blocks of the cross
    assert sizes == [1] * 8 + [3] * 4 + [4] * 12
    fam = merson.merson_family(inst)
    assert all(not (r & o) for r, o in combinations(fam, 2))
    assert merson.start_count(inst, fam) == 12  # 8 corners + 4 L regions, all full at the start
    assert len(merson.maximal_packings(tuple(regs))) == 79




@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.one_of(peg_tiny(), peg_solvable()))
def test_merson_and_ordered_engines_agree_with_brute_force(inst):
    best, count = peg_oracle(inst)
    for engine, opts in (("cpsat:merson", {}), ("sat:merson", {"families": "best"}),
                         ("cpsat:ordered", {"families": "best"}), ("sat:ordered", {})):
        r = solve(PEG, inst, engine, "count", options=opts, time_limit=60, isolate=False, precheck=False)
        if best is None:
            assert r.status is Status.INFEASIBLE, (engine, r.reason)
        else:
            assert (r.status, r.objective, r.count) == (Status.OPTIMAL, best, count), (engine, r.reason)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(peg_small())
def test_merson_counts_never_cut_a_solution(inst):
    a = solve(PEG, inst, "cpsat:time", "count", isolate=False, precheck=False)
    assert a.status in (Status.OPTIMAL, Status.INFEASIBLE)
    for engine in ("cpsat:merson", "sat:merson", "cpsat:ordered"):
        b = solve(PEG, inst, engine, "count", isolate=False, precheck=False)
        assert (a.status, a.objective, a.count) == (b.status, b.objective, b.count), engine


@st.composite
def symmetric_instances(draw):
    """Random starts made symmetric under a random board symmetry s (the union of their s-orbits),
    the finish a hole that s fixes or one peg anywhere: the ordered model's symmetry clauses act."""
    b = board(draw(st.sampled_from(["hoppers", "triangle5", "triangle6"])))
    s = draw(st.sampled_from(b.symmetries[1:]))
    seed = draw(st.lists(st.integers(0, b.n - 1), min_size=2, max_size=4, unique=True))
    pegs = set(seed)
    while True:
        more = pegs | {s[h] for h in pegs}
        if more == pegs:
            break
        pegs = more
    fixed = [h for h in range(b.n) if s[h] == h]
    fin = draw(st.sampled_from([None] + fixed))
    assume(2 <= len(pegs) <= 8)
    return PegInstance("sym", b, frozenset(pegs), None if fin is None else frozenset({fin}))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(symmetric_instances())
def test_ordered_keeps_the_optimum_on_symmetric_positions(inst):
    assert ordered_model.stabiliser(inst)[1:]  # the symmetry clauses are in play
    a = solve(PEG, inst, "cpsat:time", "count", isolate=False, precheck=False)
    assert a.status in (Status.OPTIMAL, Status.INFEASIBLE)
    for engine in ("cpsat:ordered", "sat:ordered"):
        b = solve(PEG, inst, engine, "optimize", isolate=False, precheck=False)
        assert (a.status, a.objective) == (b.status, b.objective), engine
    c = solve(PEG, inst, "sat:ordered", "count", isolate=False, precheck=False)
    assert (a.status, a.objective, a.count) == (c.status, c.objective, c.count)


def _sequences(f):
    """Every jump sequence of a formulation (projected models of its CNF)."""
    cnf = to_cnf(f, "seqcounter")
    return {frozenset(k for k in true if k[0] == "j") for true in cnf.models()}


def test_ordering_keeps_the_optimum_but_not_the_count():
    inst = catalogue()["hoppers-first06"]()  # 7 moves, 18 sequences (SPEC §1, Hiroi)
    plain = merson.build(inst)
    ordered = ordered_model.build(inst)
    assert "commuting order" in ordered.f.groups and "commuting order" not in plain.f.groups
    for k in (6, 7, 8):
        fp, fo = plain.f.copy(), ordered.f.copy()
        fp.add("move counting", *plain.bounds(k))
        fo.add("move counting", *ordered.bounds(k))
        sp, so = _sequences(fp), _sequences(fo)
        assert so <= sp and bool(so) == bool(sp)  # an ordered sequence for every bound that has one
        for keys in so:
            assert check(inst, ordered.decode(set(keys))) <= k
        if k == 6:
            assert not sp
        if k == 7:
            assert len(sp) == 18
        if k == 8:
            assert len(so) < len(sp)  # the ordering does cut sequences (not for counting)
    r = solve(PEG, inst, "cpsat:ordered", "count", isolate=False)
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 7, 18)


@pytest.mark.parametrize("engine", ["cpsat:merson", "sat:ordered"])
def test_options_families_and_region_size(engine):
    inst = catalogue()["hoppers"]()
    for opts in ({"families": "best"}, {"max_region": 1}, {"max_region": 6, "families": "all"}):
        r = solve(PEG, inst, engine, "optimize", options=opts, isolate=False)
        assert (r.status, r.objective) == (Status.OPTIMAL, 7)
        assert r.params["families"] == opts.get("families", "all")
    with pytest.raises(InputError, match="max_region"):
        solve(PEG, inst, engine, "optimize", options={"max_region": 0}, isolate=False)


def test_region_size_one_is_the_corner_resource():
    inst = catalogue()["triangle21"]()
    m = merson.build(inst, max_region=1, families="best")
    assert set(m.regions) == {frozenset({h}) for h in inst.board.corners - inst.finish}


def test_formulation_hook_and_count_task():
    import puzzlesat as ps
    inst = catalogue()["hoppers"]()
    m = ps.model(inst, "sat:ordered", bound=7)
    assert m.decision.bound_text == "moves <= 7" and "commuting order" in m.formulation.groups
    assert "merson regions" in m.formulation.groups
    c = ps.model(inst, "cpsat:ordered", "count", bound=7)
    assert "commuting order" not in c.formulation.groups  # counts run over peg:merson
    assert ps.model(inst, "cpsat:merson", bound=7).formulation.name == "peg:merson"

