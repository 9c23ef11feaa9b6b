"""Counting tilings without listing them (native:count) and tilings whose pieces may be used any
number of times or between bounds: published counts (OEIS A004003, Knuth's 8x8 by monominoes,
dominoes and trominoes, the pentomino rectangles), Kasteleyn's formula, a brute-force oracle on
random small instances, the models on the same instances, and what a counter that stops says."""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import puzzlesat as ps
from puzzlesat.core.result import InputError, Status
from puzzlesat.native_search.pentomino.count import count, orbits

from helpers import cli
from oracles import tiling_oracle_count

ANY = '[pieces.{n}]\nshape = "{s}"\ncount = "any"\n'
MDT = "".join(ANY.format(n=n, s=s) for n, s in (("M", "#"), ("D", "##"), ("I", "###"), ("L", "##\\n#.")))


def board(rows: int, cols: int, pieces: str = ANY.format(n="D", s="##"), name: str = "b"):
    return ps.load(f'kind = "pentomino"\nname = "{name}"\nsize = [{cols}, {rows}]\n' + pieces)


def kasteleyn(m: int, n: int) -> int:
    """Domino tilings of an m x n rectangle (Kasteleyn 1961; Temperley and Fisher 1961)."""
    p = 1.0
    for j in range(1, math.ceil(m / 2) + 1):
        for k in range(1, math.ceil(n / 2) + 1):
            p *= 4 * math.cos(math.pi * j / (m + 1)) ** 2 + 4 * math.cos(math.pi * k / (n + 1)) ** 2
    return round(p)


def test_domino_rectangles_equal_kasteleyns_formula():
    for m in range(1, 9):
        for n in range(max(m, 2), 9):
            assert count(board(m, n)).count == kasteleyn(m, n), (m, n)


@pytest.mark.parametrize("n, published", [(8, 12_988_816), (10, 258_584_046_368),
                                          (12, 53_060_477_521_960_000)])  # OEIS A004003
def test_domino_squares_published(n, published):
    assert count(board(n, n)).count == published


def test_knuths_8x8_by_monominoes_dominoes_and_trominoes():
    # Knuth, TAOCP 7.1.4 (tilings of the 8x8 board by monominoes, dominoes, straight and L trominoes)
    c = count(board(8, 8, MDT))
    assert c.count == 92_109_458_286_284_989_468_604
    assert c.stats["limbs"] * 32 > c.count.bit_length()  # beyond 64 bits: multi-word counts


@pytest.mark.parametrize("name, published", [("3x20", 8), ("5x12", 4040)])
def test_pentomino_rectangles_published(name, published):
    assert count(ps.load(f"pentomino/{name}")).count == published


@pytest.mark.slow
def test_pentomino_6x10_9356():
    assert count(ps.load("pentomino/6x10")).count == 9356


# ---- orbits by Burnside's lemma (the tilings each symmetry fixes, counted on its quotient) ----------
def test_pentomino_orbits_published():
    c = orbits(ps.load("pentomino/3x20"))  # Polyform Puzzler: 2
    assert (c.count, c.stats["fixed"]) == (2, [8, 0, 0, 0])


@pytest.mark.slow
def test_pentomino_6x10_5x12_and_soma_orbits():
    c = orbits(ps.load("pentomino/6x10"))
    assert (c.count, c.stats["fixed"]) == (2339, [9356, 0, 0, 0])  # no tiling is symmetric: computed
    assert orbits(ps.load("pentomino/5x12")).count == 1010
    assert orbits(ps.load("pentomino/soma")).count == 240  # 11,520 / 48


D3 = '[pieces.D]\nshape = ["##"]\ncount = "any"\n[pieces.L]\nshape = ["##\\n#."]\ncount = "any"\n'
# one-sided S and Z tetrominoes: a reflection of the board renames S to Z (mirror partners)
SZ = ('kind = "pentomino"\nname = "sz"\none_sided = true\nsize = [4, 4]\n'
      + ANY.format(n="S", s=".##\\n##.") + ANY.format(n="Z", s="##.\\n.##") + ANY.format(n="D", s="##")
      + ANY.format(n="L", s="##\\n#."))


@pytest.mark.parametrize("inst, all_, rotations", [
    (board(4, 4), 9, 12), (ps.load(SZ), 81, 139),
    (ps.load('kind = "pentomino"\nname = "c"\nsize = [3, 2, 2]\n' + D3), 38, 61)])
def test_orbits_by_burnside_equal_the_listing_engines(inst, all_, rotations):
    """Orbits where symmetric tilings exist (fixed counts > 0): native:count's Burnside count and
    cpsat:cover's listing (canonical forms) agree, for the whole group and for rotations only
    (the S/Z board: reflections that rename pieces fix tilings too)."""
    for group, want in (("all", all_), ("rotations", rotations)):
        c = ps.compare(inst, ["native:count", "cpsat:cover"], "count", up_to_symmetry=True,
                       symmetry=group, time_limit=120)
        assert c.verdict.value == "AGREE" and [r.count for r in c.results] == [want] * 2, c.reasons
        assert sum(c.results[0].stats["fixed"][1:]) > 0


@pytest.mark.parametrize("rows, cols", [(3, 3), (2, 4), (3, 4)])
def test_ranged_pieces_equal_the_brute_force_oracle(rows, cols):
    inst = board(rows, cols, MDT)
    cells = sorted(inst.cells)
    shapes = {p.name: (sorted(p.shape), (p.count, p.most), False) for p in inst.pieces}
    assert count(inst).count == tiling_oracle_count(cells, shapes)


# ---- random small instances: native:count, the oracle and the models agree --------------------------
SHAPES = ["#", "##", "###", "##\\n#.", "##\\n##", "###\\n#..", "###\\n.#."]


@st.composite
def instances(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(2, 4))
    keep = draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))
    art = "\n".join("".join("." if keep[r * cols + c] or (r, c) == (0, 0) else "#" for c in range(cols))
                    for r in range(rows))
    chosen = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3, unique=True))
    text = f'kind = "pentomino"\nname = "r"\nboard = """\n{art}\n"""\n'
    for i, s in enumerate(chosen):
        kind = draw(st.sampled_from(["any", "range", "exact"]))
        lo = draw(st.integers(0, 2))
        mult = {"any": 'count = "any"', "range": f"min = {lo}\nmax = {lo + draw(st.integers(0, 3)) or 1}",
                "exact": f"count = {max(lo, 1)}"}[kind]
        text += f'[pieces.{"ABC"[i]}]\nshape = "{s}"\n{mult}\n'
    try:
        return ps.load(text)
    except InputError:  # areas that cannot match, a piece larger than the board: bad input
        return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_random_instances_count_like_the_oracle(inst):
    if inst is None:
        return
    shapes = {p.name: (sorted(p.shape), p.count if p.exact else (p.count, p.most), p.one_sided)
              for p in inst.pieces}
    assert count(inst).count == tiling_oracle_count(sorted(inst.cells), shapes)


def test_counter_and_models_agree_and_a_lone_count_is_unchecked():
    inst = board(3, 3, MDT)
    c = ps.compare(inst, ["native:count", "cpsat", "sat"], "count", time_limit=120)
    assert c.verdict.value == "AGREE", c.reasons
    assert [r.count for r in c.results] == [583] * 3
    assert c.results[0].solutions == [] and c.results[0].stats["enumerated"] is False
    lone = ps.compare(board(8, 8), ["native:count"], "count")
    assert lone.verdict.value == "UNCHECKED" and lone.results[0].count == 12_988_816


def test_a_counter_that_lies_is_caught():
    inst = board(4, 4)
    from puzzlesat.core.family import Engine
    from puzzlesat.core.result import Outcome, Task
    liar = Engine("liar:count", lambda i, t, c: Outcome(Status.OPTIMAL, count=35), (Task.COUNT,),
                  counter=True)
    c = ps.compare(inst, [liar, "native:count"], "count")
    assert c.verdict.value == "DISAGREE" and "counts differ" in c.reasons[0]


def test_a_counter_that_stops_is_unknown_never_a_number():
    inst = ps.load("pentomino/6x10")
    r = ps.solve(inst, "native:count", "count", memory_mb=1)
    assert (r.status, r.count) == (Status.UNKNOWN, None) and r.reason.startswith("memory")
    r = ps.solve(inst, "native:count", "count", time_limit=0.5)
    assert (r.status, r.count) == (Status.UNKNOWN, None)


def test_bad_multiplicities_and_orbits_are_one_line_errors():
    for bad, what in [('[pieces.D]\nshape = "##"\nmin = -1\n', "min must be at least 0"),
                      ('[pieces.D]\nshape = "##"\ncount = 0\n', "count must be at least 1"),
                      ('[pieces.D]\nshape = "##"\nmin = 3\nmax = 1\n', "max must be at least min"),
                      ('[pieces.D]\nshape = "#####"\ncount = "any"\n', "more than the board's 4"),
                      ('[pieces.D]\nshape = "##"\ncount = "lots"\n', 'or "any"')]:
        with pytest.raises(InputError, match=what):
            board(2, 2, bad)
    with pytest.raises(InputError, match="exact number of copies"):
        ps.solve(board(2, 2), "native:dfs", "count")


def test_cli_counts_a_toml_with_any_number_of_dominoes(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text('kind = "pentomino"\nname = "d10"\nsize = [10, 10]\n[pieces.D]\nshape = "##"\ncount = "any"\n')
    p = cli("solve", str(f), "-e", "native:count", "--json")
    assert p.returncode == 0, p.stderr
    assert '"count": 258584046368' in p.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "pentomino"\nname = "b"\nsize = [2, 2]\n[pieces.D]\nshape = "##"\nmin = -2\n')
    p = cli("solve", str(bad), "-e", "native:count")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "bad.toml:6" in p.stderr, p.stderr


def test_round_trip_of_ranged_pieces_through_toml():
    inst = board(3, 4, MDT.replace('count = "any"', "min = 1\nmax = 5", 1))
    fam = ps.family_of(inst)
    again = ps.load(fam.to_toml(inst))
    assert again.pieces == inst.pieces and again.cells == inst.cells


def test_numba_disabled_counter_runs_as_python(no_jit):
    out = no_jit("""
        import puzzlesat as ps
        from puzzlesat.native_search.pentomino.count import count, orbits
        i = ps.load('kind = "pentomino"\\nname = "d"\\nsize = [6, 4]\\n[pieces.D]\\nshape = "##"\\ncount = "any"\\n')
        print(count(i).count, count(ps.load("pentomino/3x20")).count, orbits(i).count)
        """)
    assert out.split() == ["281", "8", "98"]
