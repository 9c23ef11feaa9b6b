"""Pentomino / polyomino tiling: SPEC §2 facts, brute-force oracles, bad input, the checker."""
from __future__ import annotations

import json
import os
import textwrap

import pytest

from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.pentomino.dfs import tilings
from puzzlesat.puzzles import pentomino as P
from puzzlesat.puzzles.pentomino_breaking import symmetry_plan
from puzzlesat.core.result import CheckError, InputError
from puzzlesat.core.inputs import Source
from helpers import proved_count
from oracles import tiling_oracle_count

SPEC_COUNTS = {"6x10": (9356, 2339), "5x12": (4040, 1010), "4x15": (1472, 368), "3x20": (8, 2),
               "8x8-centre": (520, 65)}
FAM = family("pentomino")


def inst(name):
    return P.catalogue()[name]()


def toml_instance(tmp_path, text, name="t.toml"):
    f = tmp_path / name
    f.write_text(textwrap.dedent(text))
    return load_instance(str(f))[1]


def oracle_count(board_cells, pieces):
    """The shared brute force (tests/oracles.py) for pieces given as {name: (cells, count)}."""
    return tiling_oracle_count(board_cells, {n: (c, k, False) for n, (c, k) in pieces.items()})


def test_63_fixed_orientations_as_in_spec():
    t = inst("6x10")
    per = {p.name: len(p.orientations) for p in t.pieces}
    assert per == {"F": 8, "I": 2, "L": 8, "N": 8, "P": 8, "T": 4, "U": 4, "V": 4, "W": 4, "X": 1,
                   "Y": 8, "Z": 4}
    assert sum(per.values()) == 63


@pytest.mark.parametrize("art,order", [
    ("......\n......", 4), ("....\n....\n....\n....", 8), ("........\n" * 3 + "...##...\n" * 2
                                                           + "........\n" * 3, 8),
    ("...\n..", 1), ("...\n.#.\n...", 8), ("..#\n...", 1), (".#.\n...", 2)])
def test_board_group_derived_from_shape(art, order):
    t = P.Tiling("b", P.parse_board(art, Source("b")), ())
    g = P.symmetries(t)
    assert len(g) == order
    assert g[0] == {x: x for x in t.cells}
    for m in g:
        assert set(m.values()) == t.cells


def test_catalogue_describes_the_boards():
    for name in SPEC_COUNTS:
        d = P.describe(inst(name))
        assert d["cells"] == 60 and d["fixed_orientations"] == 63 and d["piece_area"] == 60
    assert P.describe(inst("8x8-centre"))["symmetries"] == 8
    assert P.describe(inst("6x10"))["symmetries"] == 4


# ---- native: the SPEC numbers, both symmetry routes ------------------------------------------
@pytest.mark.parametrize("name", list(SPEC_COUNTS))
def test_native_reproduces_spec_counts(name):
    t = inst(name)
    n_all, n_sym = SPEC_COUNTS[name]
    every = list(tilings(t))
    assert len(every) == n_all == len(set(every))
    canon = {P.canonical(t, s) for s in every}
    assert len(canon) == n_sym                                    # route 1: canonical forms
    reps = list(tilings(t, up_to_symmetry=True, symmetry_breaking=True))
    assert len(reps) == n_sym                                     # route 2: symmetry breaking
    assert {P.canonical(t, s) for s in reps} == canon             # one per orbit, every orbit
    group = P.symmetries(t)
    assert sum(len({P.transform(s, g) for g in group}) for s in reps) == n_all  # all = Σ |orbit|


def test_scan_orders_agree():
    t = P.make("5x6", "\n".join(["......"] * 5), "FILNPT")
    assert set(tilings(t, scan="long")) == set(tilings(t, scan="short"))


def test_numba_disabled_kernel_runs_as_python(no_jit):
    code = ("from puzzlesat.puzzles.pentomino import catalogue, make\n"
            "from puzzlesat.native_search.pentomino.dfs import tilings\n"
            "print(len(list(tilings(catalogue()['3x20']()))),"
            " len(list(tilings(make('bars', ('.' * 13 + chr(10)) * 5, 'I' * 13)))))\n")
    stdout = no_jit(code)
    assert stdout.split() == ["8", "20"]  # 5x13: 65 cells, two bitboard words


@pytest.mark.parametrize("cols,expected", [(12, 15), (13, 20)])
def test_bars_recurrence_single_and_multi_word(cols, expected):
    # 5 x n by 1x5 bars: a(n) = a(n-1) + a(n-5), a(0..4) = 1; 5x13 has 65 cells (two bitboard words)
    t = P.make("bars", "\n".join(["." * cols] * 5), "I" * cols)
    assert len(list(tilings(t))) == expected


# ---- identical copies and custom pieces -------------------------------------------------------
def test_identical_copies_are_not_counted_twice(tmp_path):
    dominoes = toml_instance(tmp_path, '''
        kind = "pentomino"
        board = """
        ....
        ....
        """
        [pieces.D]
        shape = "##"
        count = 4
        ''')
    sols = list(tilings(dominoes))
    assert len(sols) == 5  # domino tilings of 2x4: Fibonacci F(5)
    named = toml_instance(tmp_path, '''
        kind = "pentomino"
        board = "...."
        [pieces.A]
        shape = "##"
        [pieces.B]
        shape = "##"
        ''', "named.toml")
    assert len(list(tilings(named))) == 2  # A|B and B|A are different placements
    same = toml_instance(tmp_path, '''
        kind = "pentomino"
        board = "...."
        [pieces.A]
        shape = "##"
        count = 2
        ''', "same.toml")
    assert len(list(tilings(same))) == 1


def test_no_piece_used_once_falls_back_to_canonical_dedup(tmp_path):
    # 2x4 with four identical dominoes: 5 tilings; mirror pairs (HH|V|V) with (V|V|HH): 4 orbits
    t = toml_instance(tmp_path, '''
        kind = "pentomino"
        board = """
        ....
        ....
        """
        [pieces.D]
        shape = "##"
        count = 4
        ''')
    plan = symmetry_plan(t)
    assert (plan.piece, plan.residual, plan.leaves_exact()) == (-1, 4, False)
    for engine in ("native", "cpsat", "sat"):
        assert solve(FAM, t, engine, "count").count == 5
        for brk in (True, False):
            r = solve(FAM, t, engine, "count", options={"up_to_symmetry": True,
                                                         "symmetry_breaking": brk})
            assert (r.status.value, r.count) == ("OPTIMAL", 4), (engine, brk, r.reason)


def test_tetrominoes_twice_agree_with_oracle(tmp_path):
    t = toml_instance(tmp_path, '''
        kind = "pentomino"
        board = """
        ......
        ......
        ......
        ......
        """
        [pieces.I]
        shape = "####"
        count = 2
        [pieces.O]
        shape = """
        ##
        ##
        """
        [pieces.T]
        shape = """
        ###
        .#.
        """
        count = 2
        [pieces.L]
        shape = """
        ###
        #..
        """
        ''')
    every = list(tilings(t))
    want = oracle_count(t.cells, {p.name: (p.shape, p.count) for p in t.pieces})
    assert len(every) == want > 0
    assert len(set(every)) == len(every)
    canon = {P.canonical(t, s) for s in every}
    assert len(list(tilings(t, up_to_symmetry=True))) == len(canon)
    assert len(list(tilings(t, up_to_symmetry=True, symmetry_breaking=False))) == len(canon)


# ---- engines through the runner ---------------------------------------------------------------
@pytest.mark.parametrize("engine", ["native", "cpsat", pytest.param("sat", marks=pytest.mark.slow)])
def test_engines_count_3x20(engine):
    t = inst("3x20")
    for up, brk, want in ((False, True, 8), (True, True, 2), (True, False, 2)):
        r = solve(FAM, t, engine, "count", options={"up_to_symmetry": up, "symmetry_breaking": brk},
                  time_limit=120)
        assert (r.status.value, r.count, r.checked) == ("OPTIMAL", want, want), r.reason


@pytest.mark.parametrize("engine", ["native", "cpsat", pytest.param("sat", marks=pytest.mark.slow)])
def test_engines_count_8x8_centre_up_to_symmetry(engine):
    r = solve(FAM, inst("8x8-centre"), engine, "count", options={"up_to_symmetry": True},
              time_limit=200)
    assert (r.status.value, r.count) == ("OPTIMAL", 65), r.reason


@pytest.mark.parametrize("engine,name,up", [
    ("cpsat", "4x15", True), pytest.param("cpsat", "4x15", False, marks=pytest.mark.slow),
    pytest.param("cpsat", "5x12", True, marks=pytest.mark.slow), ("cpsat", "8x8-centre", False),
    pytest.param("sat", "4x15", True, marks=pytest.mark.slow)])
def test_models_reproduce_spec_counts(engine, name, up):
    """The SPEC counts the models reach in seconds (the rest: the slow test and the benchmark)."""
    want = SPEC_COUNTS[name][1 if up else 0]
    r = solve(FAM, inst(name), engine, "count", options={"up_to_symmetry": up}, time_limit=300)
    assert (r.status.value, r.count, r.checked) == ("OPTIMAL", want, want), r.reason


@pytest.mark.parametrize("engine", ["native", "cpsat", "sat"])
def test_engines_feasible(engine):
    r = solve(FAM, inst("6x10"), engine, "feasible", time_limit=120)
    assert r.status.value == "FEASIBLE" and r.checked == 1
    grid = P.solution_json(inst("6x10"), r.solutions[0])["grid"]
    assert len(grid) == 6 and all(len(row) == 10 for row in grid)
    assert sorted(set("".join(grid))) == sorted("FILNPTUVWXYZ")


def _small_instances():
    from hypothesis import strategies as st
    shapes = {"D": "##", "I": "###", "L": "##\n#.", "T": "###\n.#.", "O": "##\n##"}

    @st.composite
    def make(draw):
        h = draw(st.integers(2, 4))
        w = draw(st.integers(2, 4))
        holes = draw(st.sets(st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)), max_size=2))
        cells = {(r, c) for r in range(h) for c in range(w)} - holes
        names = draw(st.lists(st.sampled_from(sorted(shapes)), min_size=1, max_size=3, unique=True))
        src = Source("h")
        pieces = [P.Piece(n, P.parse_shape(shapes[n], src, n), 1) for n in names]
        area = len(cells)
        # fill the area with copies: greedy counts, the rest with dominoes/monominoes
        counts = {n: 0 for n in names}
        left = area
        for n in names:
            size = len(P.parse_shape(shapes[n], src, n))
            k = draw(st.integers(0, left // size))
            counts[n] = k
            left -= k * size
        pieces = [P.Piece(p.name, p.shape, counts[p.name]) for p in pieces if counts[p.name]]
        if left:
            pieces.append(P.Piece("m", frozenset({(0, 0)}), left))
        if not cells:
            cells = {(0, 0)}
            pieces = [P.Piece("m", frozenset({(0, 0)}), 1)]
        return P.Tiling("h", P.normalise(cells), tuple(pieces))
    return make()


def test_random_small_instances_all_engines_agree():
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_small_instances())
    def check(t):
        want = oracle_count(t.cells, {p.name: (p.shape, p.count) for p in t.pieces})
        every = list(tilings(t))
        assert len(every) == want
        canon = len({P.canonical(t, s) for s in every})
        for engine in ("native", "cpsat", "sat"):
            r = solve(FAM, t, engine, "count", time_limit=60, isolate=False)
            assert proved_count(r) == want
            for brk in (True, False):
                r = solve(FAM, t, engine, "count", time_limit=60, isolate=False,
                          options={"up_to_symmetry": True, "symmetry_breaking": brk})
                assert proved_count(r) == canon
    check()


def test_sat_encodings_and_blocking_agree():
    t = P.make("4x5", "\n".join(["....."] * 4), "FLUY")
    want = len(list(tilings(t)))
    assert want == 12
    for opts in ({"encoding": "pairwise"}, {"encoding": "totalizer", "blocking": "full"},
                 {"encoding": "ladder", "phase": "default", "solver": "glucose4"},
                 {"search": "solver"}, {"search": "first-cell", "cubes": "none", "phase": "negative"}):
        r = solve(FAM, t, "sat", "count", options=opts, time_limit=60)
        assert (r.status.value, r.count) == ("OPTIMAL", want), (opts, r.reason)
        first_cell = opts.get("search", "auto") != "solver" and "solver" not in opts
        assert r.params["search"] == ("first-cell" if first_cell else "solver"), opts
        assert (r.stats.get("first_cell_decisions", 0) > 0) == first_cell, (opts, r.stats)
    fewest = min(sum(1 for p in P.placements(t) if p.piece == k) for k in range(len(t.pieces)))
    for opts in ({"search": "auto"}, {"cubes": "none"}, {"cubes": "piece"}):
        r = solve(FAM, t, "cpsat", "count", options=opts, time_limit=60)
        assert (r.status.value, r.count) == ("OPTIMAL", want), (opts, r.reason)
        assert r.stats["cubes"] == (1 if opts.get("cubes") == "none" else fewest), (opts, r.stats)
    with pytest.raises(InputError, match="first-cell needs a solver"):
        solve(FAM, t, "sat", "count", options={"search": "first-cell", "solver": "glucose4"},
              isolate=False)


@pytest.mark.parametrize("engine", ["cpsat", "sat"])
def test_models_cut_short_are_unknown_never_a_count(engine):
    """Counting all 6x10 tilings takes the models 25 s and more: at 2 s the cubed enumeration is
    part-way, and what it found is a checked lower bound, not a count."""
    r = solve(FAM, inst("6x10"), engine, "count", time_limit=2)
    assert r.status.value == "UNKNOWN" and r.count is None, (r.status, r.count)
    # counts stream to the runner's checker; it returns the first solutions, all were checked
    # (on a loaded machine the first 2 s may find none: then there is no lower bound at all)
    lb = r.stats.get("count_lower_bound", 0)
    assert lb < 9356 and r.checked >= lb and r.checked >= len(r.solutions)
    assert (lb > 0) == (len(r.solutions) > 0)


# ---- checker ----------------------------------------------------------------------------------
def test_checker_accepts_a_tiling_and_rejects_broken_ones():
    t = inst("3x20")
    sol = next(tilings(t))
    assert P.check(t, sol) is None
    assert P.check(t, json.loads(json.dumps(P.solution_json(t, sol)))) is None
    pl = list(sol)
    with pytest.raises(CheckError, match="not covered"):
        P.check(t, tuple(pl[1:]))
    with pytest.raises(CheckError, match="covered twice|used 2 times"):
        P.check(t, tuple(pl + [pl[0]]))
    name, cells = pl[0]
    moved = (name, tuple((r, c + 1) for r, c in cells))
    with pytest.raises(CheckError):
        P.check(t, tuple([moved] + pl[1:]))
    other = next(p for p in pl if p[0] != name)
    with pytest.raises(CheckError, match="not an orientation"):
        P.check(t, tuple([(other[0], cells)] + [p for p in pl[1:] if p is not other]))
    with pytest.raises(CheckError, match="unknown piece"):
        P.check(t, tuple([("Q", cells)] + pl[1:]))
    # a shape that is congruent to nothing: I's cells bent
    i = next(p for p in pl if p[0] == "I")
    bent = ("I", tuple(sorted(i[1][:4])) + ((i[1][0][0] + 1, i[1][0][1]),))
    with pytest.raises(CheckError):
        P.check(t, tuple([bent] + [p for p in pl if p is not i]))


def test_solution_key_identity():
    t = inst("8x8-centre")
    sol = next(tilings(t))
    g = P.symmetries(t)[1]
    img = P.transform(sol, g)
    assert P.solution_key(t, sol) != P.solution_key(t, img)
    assert P.solution_key(t, sol, True) == P.solution_key(t, img, True)
    assert P.solution_key(t, tuple(reversed(sol))) == P.solution_key(t, sol)


# ---- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("body,match", [
    ('board = """\n.....\n....\n"""\npieces = "IL"', "cover 10 cells but the board has 9"),
    ('board = "###"\npieces = "I"', "no cells"),
    ('board = "....."\npieces = "Q"', "unknown pentomino letter"),
    ('board = ".."\n[pieces.A]\nshape = "#.#"', "not connected"),
    ('board = ".."\n[pieces.AB]\nshape = "##"', "one letter or digit"),
    ('board = ".."\n[pieces.A]\nshape = "##"\ncount = 0', "at least 1"),
    ('board = ".."\n[pieces.A]\nshap = "##"', "unknown key"),
    ('board = ".."\nextra = 1', "unknown key"),
    ('board = 5', "expected a string"),
])
def test_bad_input_raises_input_error(tmp_path, body, match):
    f = tmp_path / "bad.toml"
    f.write_text('kind = "pentomino"\n' + body + "\n")
    with pytest.raises(InputError, match=match) as e:
        load_instance(str(f))
    assert str(f) in str(e.value)


def test_bad_input_exits_2_from_the_cli(tmp_path):
    pytest.importorskip("puzzlesat.cli")
    f = tmp_path / "bad.toml"
    f.write_text('kind = "pentomino"\nboard = "....."\npieces = "IL"\n')
    import helpers
    out = helpers.cli("solve", str(f), "--engine", "native", "--task", "count",
                      cwd=os.path.dirname(os.path.dirname(__file__)))  # a fork of this process
    assert out.returncode == 2 and "pieces" in out.stderr


def test_infeasible_reasons():
    assert "X fits nowhere" in P.infeasible_reason(P.make("2x10", "\n".join(["." * 10] * 2), "XILP"))
    t = P.Tiling("two", P.normalise({(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (2, 3)}),
                 (P.Piece("D", frozenset({(0, 0), (0, 1)}), 2), P.Piece("I", frozenset({(0, 0), (0, 1), (0, 2)}), 1)))
    assert P.infeasible_reason(t) is None  # regions of 3 and 4 cells, piece sizes 2 and 3
    odd = P.Tiling("odd", P.normalise({(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)}),
                   (P.Piece("D", frozenset({(0, 0), (0, 1)}), 4),))
    assert "multiple of 2" in P.infeasible_reason(odd)
    r = solve(FAM, odd, "native", "count")
    assert (r.status.value, r.count) == ("INFEASIBLE", 0)
    for name in SPEC_COUNTS:
        assert P.infeasible_reason(inst(name)) is None
    # no precheck: the engines prove it themselves
    for engine in ("native", "cpsat", "sat"):
        r = solve(FAM, P.make("2x10", "\n".join(["." * 10] * 2), "XILP"), engine, "count",
                  precheck=False, time_limit=60)
        assert (r.status.value, r.count) == ("INFEASIBLE", 0), engine


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["cpsat", "sat"])
@pytest.mark.parametrize("name", list(SPEC_COUNTS))
def test_models_reproduce_spec_counts_slow(engine, name):
    """Minutes each (the benchmark times them): the models on every board, all and up to symmetry."""
    n_all, n_sym = SPEC_COUNTS[name]
    for up, want in ((True, n_sym), (False, n_all)):
        r = solve(FAM, inst(name), engine, "count", options={"up_to_symmetry": up}, time_limit=3600)
        assert (r.status.value, r.count) == ("OPTIMAL", want), r.reason
