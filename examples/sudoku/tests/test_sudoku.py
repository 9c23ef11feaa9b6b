"""The Sudoku plug-in: every engine agrees on published puzzles (G. Stertenbrink's top95, one
solution each) and on puzzles made with known answers; a brute force through the checker; the
collection file; and puzzlesat's conformance kit."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.testing import assert_family_conforms
from puzzlesat_sudoku import FAMILY
from puzzlesat_sudoku.puzzle import TOP95_01_SOLUTION, Sudoku, check

TOP95 = Path(__file__).resolve().parents[1] / "puzzlesat_sudoku" / "data" / "top95.sdm"


@pytest.fixture(scope="module", autouse=True)
def family():
    """Registered at run time when the plug-in is not installed (then its entry point is)."""
    if "sudoku" not in [e.family for e in ps.engines()]:
        ps.register_family(FAMILY)
    yield


def test_the_family_conforms():
    report = assert_family_conforms(
        FAMILY, ["sudoku/top95-01", "sudoku/two-solutions", "sudoku/no-candidate"], time_limit=120,
        files=[TOP95],
        bad_toml={'kind = "sudoku"\npuzzle = "123"\n': r"puzzle: expected 81 characters \(the grid row by row\), got 3",
                  'kind = "sudoku"\nrows = ["123456789"]\n': r"rows: expected 9 strings of 9",
                  'kind = "sudoku"\n': r"give the grid as puzzle"})
    assert report.agreed == 9 and report.mutations_rejected > 0, report  # 3 instances x count, feasible, unique (from count)


@pytest.mark.parametrize("name", ["top95-01", "top95-06", "top95-50"])
def test_published_puzzles_have_one_solution(name):
    c = ps.compare(ps.load(f"sudoku/{name}"), None, "count", time_limit=120)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    assert [r.count for r in c.results] == [1, 1, 1]


@pytest.mark.slow
def test_every_top95_puzzle_has_one_solution():
    for inst in ps.load_all(str(TOP95)):
        c = ps.compare(inst, None, "count", time_limit=120)
        assert c.verdict is ps.Verdict.AGREE and {r.count for r in c.results} == {1}, inst.name


def test_the_first_solution_and_a_brute_force_of_two():
    r = ps.solve(ps.load("sudoku/top95-01"), "sat", "count")
    assert "".join(map(str, r.solutions[0])) == TOP95_01_SOLUTION
    inst = ps.load("sudoku/two-solutions")
    holes = [c for c in range(81) if inst.givens[c] == 0]
    n = 0
    for digits in itertools.product(range(1, 10), repeat=len(holes)):  # 9^4 fillings
        grid = list(inst.givens)
        for c, d in zip(holes, digits):
            grid[c] = d
        try:
            check(inst, tuple(grid))
        except ps.CheckError:
            continue
        n += 1
    assert len(holes) == 4 and n == 2
    c = ps.compare(inst, ["native", "cpsat", "sat[encoding=seqcounter]"], "count", time_limit=120)
    assert c.verdict is ps.Verdict.AGREE and [r.count for r in c.results] == [2, 2, 2]


def test_unsolvable_puzzles():
    c = ps.compare(ps.load("sudoku/no-candidate"), None, "count", time_limit=120)
    assert c.verdict is ps.Verdict.AGREE and [r.count for r in c.results] == [0, 0, 0]
    clash = ps.load('kind = "sudoku"\npuzzle = "' + "55" + "." * 79 + '"\n')
    r = ps.solve(clash, "sat", "feasible")
    assert r.status is ps.Status.INFEASIBLE and r.reason.startswith("row 1 is given 5 twice")


def test_the_collection_file():
    got = ps.load_all(str(TOP95))
    assert len(got) == 95 and got[0] == Sudoku(f"{TOP95}#1", ps.load("sudoku/top95-01").givens)
    assert got[94].name == f"{TOP95}#95"
    assert ps.load(f"{TOP95}#6").givens == ps.load("sudoku/top95-06").givens


def test_bad_lines_name_the_file_and_line(tmp_path):
    p = tmp_path / "mine.sdm"
    p.write_text("# my puzzles\n" + TOP95.read_text().splitlines()[0] + "  rating 9.0\n"
                 + "4....x8.5" + "." * 72 + "\n")
    with pytest.raises(ps.InputError, match=rf"^{p}:3: character 6 is 'x': expected 1-9"):
        ps.load_all(p)
    assert ps.load(f"{p}#2").givens == ps.load("sudoku/top95-01").givens  # a comment after it
