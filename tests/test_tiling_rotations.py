"""Counting tilings up to proper rotations only (`symmetry=rotations`) next to the whole group
(`symmetry=all`): Polyform Puzzler's tetracube boxes on every engine, brute-force orbit counts
on random small instances (every engine, symmetry breaking on and off), the identity option in
solution keys, params and the command line."""
from __future__ import annotations

import json

import pytest

from puzzlesat.compare.runner import solve
from puzzlesat.families import pentomino as family_table
from puzzlesat.families.registry import family
from puzzlesat.native_search.pentomino.dfs import tilings
from puzzlesat.puzzles import pentomino as P
from puzzlesat.puzzles.pentomino_breaking import plan_summary, symmetry_plan
from puzzlesat.core.result import InputError
from oracles import (PUBLISHED_TETRACUBES, PUBLISHED_TILINGS, TooMany, tiling_oracle_orbits,
                     tiling_oracle_tilings)
from strategies import tilings_small
from helpers import proved_count

FAM = family("pentomino")
ENGINES = ("native", "cpsat", "sat")


def inst(name):
    return P.catalogue()[name]()


def count(engine, t, time_limit=600, **opts):
    r = solve(FAM, t, engine, "count", options=opts, time_limit=time_limit)
    assert r.status.value == "OPTIMAL" and r.checked == r.count, (engine, opts, r.reason)
    return r


# ---- the groups ----------------------------------------------------------------------------------
def test_rotation_groups_are_the_proper_half():
    for name, full, rot in (("tetracubes-2x4x4", 16, 8), ("tetracubes-2x2x8", 16, 8),
                            ("soma", 48, 24), ("6x10", 4, 2), ("8x8-centre", 8, 4),
                            ("one-sided-3x30", 4, 2), ("3x4x5", 8, 4)):
        t = inst(name)
        g = P.symmetries(t, "rotations")
        assert (len(P.symmetries(t)), len(g)) == (full, rot), name
        assert all(s.proper and s.pmap == tuple(range(len(t.pieces))) for s in g)
        assert P.describe(t)["rotations"] == rot
    with pytest.raises(ValueError, match="rotations"):
        P.symmetries(inst("6x10"), "mirrors")


def test_family_table_names_the_puzzle_groups():
    """families/ may not import puzzles/: its copy of the group names must stay equal."""
    assert family_table.SYMMETRY_GROUPS == P.SYMMETRY_GROUPS
    for e in FAM.engines:
        o = e.option("symmetry")
        assert o is not None and o.identity and o.default == "all", e.name
        assert o.choices == P.SYMMETRY_GROUPS


def test_solution_key_tells_mirror_images_apart_under_rotations():
    t = inst("soma")
    sol = next(tilings(t))
    mirror = next(g for g in P.symmetries(t) if not g.proper)
    rot = next(g for g in P.symmetries(t, "rotations") if len(g) and g != P.symmetries(t)[0])
    img = P.transform(sol, mirror)
    assert P.solution_key(t, sol, True) == P.solution_key(t, img, True)
    assert P.solution_key(t, sol, True, "rotations") != P.solution_key(t, img, True, "rotations")
    assert P.solution_key(t, sol, True, "rotations") == \
        P.solution_key(t, P.transform(sol, rot), True, "rotations")
    assert P.solution_key(t, sol, False, "rotations") == P.solution_key(t, sol)  # ignored


def test_plan_for_the_rotation_group():
    # 6x10: X's 32 placements fall into 8 orbits under the 4 symmetries, 16 under the 2 rotations
    assert plan_summary(inst("6x10"), "rotations") == "X: 16 of 32"
    for name in ("tetracubes-2x4x4", "tetracubes-2x2x8", "soma"):
        assert symmetry_plan(inst(name), "rotations").leaves_exact(), name


# ---- published counts ----------------------------------------------------------------------------
def test_native_tetracube_boxes_all_three_counts():
    for name, (n_all, n_sym, n_rot) in PUBLISHED_TETRACUBES.items():
        t = inst(name)
        reps = list(tilings(t, up_to_symmetry=True, symmetry="rotations"))
        assert len(reps) == n_rot and len(list(tilings(t, up_to_symmetry=True))) == n_sym
        rot = P.symmetries(t, "rotations")
        assert len({P.canonical(t, s, rot) for s in reps}) == n_rot             # distinct orbits
        assert sum(len({P.transform(s, g) for g in rot}) for s in reps) == n_all  # Σ |orbit|
    r = count("native", inst("tetracubes-2x2x8"))
    assert r.count == 1792


def test_native_soma_up_to_rotations():
    """Soma: 240 up to rotations and reflections, 11,520 in all; every one of the 240 is chiral,
    so 480 up to rotations (each orbit of the 24 rotations holds 24 tilings)."""
    t = inst("soma")
    reps = list(tilings(t, up_to_symmetry=True, symmetry="rotations"))
    rot = P.symmetries(t, "rotations")
    assert len(reps) == 480
    assert sum(len({P.transform(s, g) for g in rot}) for s in reps) == PUBLISHED_TILINGS["soma"][0]


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_tetracubes_2x2x8_up_to_symmetry(engine):
    _, n_sym, n_rot = PUBLISHED_TETRACUBES["tetracubes-2x2x8"]
    t = inst("tetracubes-2x2x8")
    r = count(engine, t, up_to_symmetry=True, symmetry="rotations")
    assert (r.count, r.params["symmetry"], r.params["group_order"]) == (n_rot, "rotations", 8)
    assert r.params["symmetry_breaking_applied"] is True
    r = count(engine, t, up_to_symmetry=True)
    assert (r.count, r.params["symmetry"], r.params["group_order"]) == (n_sym, "all", 16)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(PUBLISHED_TETRACUBES))
def test_engines_tetracube_boxes_all_three_counts(engine, name):
    """Tens of seconds each on a loaded machine (SAT, 2x4x4 all 11120: about two minutes)."""
    n_all, n_sym, n_rot = PUBLISHED_TETRACUBES[name]
    t = inst(name)
    assert count(engine, t, up_to_symmetry=True, symmetry="rotations").count == n_rot
    assert count(engine, t, up_to_symmetry=True).count == n_sym
    assert count(engine, t).count == n_all
    r = count(engine, t, up_to_symmetry=True, symmetry="rotations", symmetry_breaking=False)
    assert r.count == n_rot and r.params["symmetry_breaking_applied"] is False


# ---- brute force ---------------------------------------------------------------------------------
def test_random_instances_orbit_counts_agree_with_the_oracle():
    """Random 3D boxes of polycubes (A and B a chiral pair) and 2D boards with one-sided pieces:
    the orbits under each group, counted by the oracle from its own tilings and its own board
    maps, equal every engine's count with the plan and without (canonical forms)."""
    from hypothesis import HealthCheck, assume, given, settings

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(tilings_small())
    def check(t):
        assume(t is not None)
        pieces = {p.name: (p.shape, p.count, p.one_sided) for p in t.pieces}
        try:  # a few hundred tilings at most: seconds per engine, even on a loaded machine
            every = tiling_oracle_tilings(t.cells, pieces, limit=400)
        except TooMany:
            assume(False)
        for group in P.SYMMETRY_GROUPS:
            want = tiling_oracle_orbits(t.cells, pieces, every, group)
            for brk in (True, False):
                got = len(list(tilings(t, up_to_symmetry=True, symmetry=group,
                                       symmetry_breaking=brk)))
                assert got == want, (group, brk)
            assert len({P.solution_key(t, P.as_solution(s), True, group) for s in every}) == want
            for engine in ("cpsat", "sat"):
                for brk in (True, False) if engine == "cpsat" else (True,):
                    r = solve(FAM, t, engine, "count", time_limit=300, isolate=False,
                              options={"up_to_symmetry": True, "symmetry": group,
                                       "symmetry_breaking": brk})
                    assert proved_count(r) == want, (engine, group, brk, r.reason)
    check()


def test_oracle_orbits_by_hand():
    """The oracle itself on a case checked by hand: two L-trominoes tile a 2x3 board in 2 ways,
    mirror images of each other (each fixed by the half turn): 1 orbit with reflections, 2 under
    rotations; one-sided changes nothing (the L-tromino is its own mirror image)."""
    board = [(r, c) for r in range(2) for c in range(3)]
    for one_sided in (False, True):
        pieces = {"L": ([(0, 0), (0, 1), (1, 0)], 2, one_sided)}
        every = tiling_oracle_tilings(board, pieces)
        assert len(every) == 2
        assert tiling_oracle_orbits(board, pieces, every, "all") == 1
        assert tiling_oracle_orbits(board, pieces, every, "rotations") == 2


@pytest.mark.slow
def test_oracle_orbits_on_a_known_case():
    """The oracle itself: one-sided 3x30 has 184 tilings, 46 orbits under the rectangle's 4
    symmetries (F<->f, ...: Polyform Puzzler) and 92 under its 2 rotations. The oracle is plain
    Python: many minutes."""
    t = inst("one-sided-3x30")
    pieces = {p.name: (p.shape, p.count, p.one_sided) for p in t.pieces}
    every = tiling_oracle_tilings(t.cells, pieces)
    assert len(every) == 184
    assert tiling_oracle_orbits(t.cells, pieces, every, "all") == 46
    assert tiling_oracle_orbits(t.cells, pieces, every, "rotations") == 92


# ---- options, command line -----------------------------------------------------------------------
def test_bad_group_is_an_input_error():
    with pytest.raises(InputError, match="symmetry='mirrors'.*all.*rotations"):
        solve(FAM, inst("3x20"), "native", "count", options={"symmetry": "mirrors"})


def run(*args):
    import helpers
    return helpers.cli(*args)  # a fork of this process


def test_cli_solve_and_compare_up_to_rotations():
    p = run("solve", "pentomino/tetracubes-2x2x8", "--up-to-symmetry", "-o", "symmetry=rotations",
            "--task", "count", "--json", "--time-limit", "0")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["count"] == 224 and out["params"]["symmetry"] == "rotations"
    p = run("compare", "pentomino/tetracubes-2x2x8", "--task", "count", "--up-to-symmetry",
            "-o", "symmetry=rotations", "--engines", "native,cpsat,sat", "--json",
            "--time-limit", "0")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "AGREE" and {r["count"] for r in out["results"]} == {224}
    p = run("solve", "pentomino/3x20", "--up-to-symmetry", "-o", "symmetry=mirror")
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "rotations" in p.stderr
