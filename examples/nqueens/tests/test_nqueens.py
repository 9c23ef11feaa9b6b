"""The n-queens plug-in against its published counts (OEIS A000170) with every engine, its
checker against a brute force on small boards, and puzzlesat's conformance kit."""
from __future__ import annotations

import itertools

import pytest

import puzzlesat as ps
from puzzlesat.testing import assert_family_conforms
from puzzlesat_nqueens import FAMILY
from puzzlesat_nqueens.puzzle import A000170, Queens, check


@pytest.fixture(scope="module", autouse=True)
def family():
    """Registered at run time when the plug-in is not installed (then its entry point is)."""
    if "nqueens" not in [e.family for e in ps.engines()]:
        ps.register_family(FAMILY)
    yield


def brute(inst: Queens) -> int:
    """Every permutation of columns, checked by the checker: the count."""
    n = 0
    for p in itertools.permutations(range(inst.n)):
        try:
            check(inst, p)
        except ps.CheckError:
            continue
        n += 1
    return n


@pytest.mark.parametrize("n", range(1, 9))
def test_counts_agree_with_oeis_and_brute_force(n):
    inst = ps.load(f"nqueens/queens-{n}")
    c = ps.compare(inst, ["native", "cpsat", "sat"], "count", time_limit=60)
    assert c.verdict.value == "AGREE", c.reasons
    assert {r.count for r in c.results} == {A000170[n - 1]}
    if n <= 7:
        assert brute(inst) == A000170[n - 1]


def test_fixed_queen_and_feasible():
    inst = ps.load("nqueens/queens-8-corner")
    c = ps.compare(inst, ["native", "cpsat", "sat[encoding=pairwise]"], "count", time_limit=60)
    assert c.verdict.value == "AGREE" and c.results[0].count == brute(inst) == 4
    r = ps.solve(ps.load("nqueens/queens-3"), "sat", "feasible")
    assert r.status is ps.Status.INFEASIBLE


def test_bad_input_names_the_field():
    with pytest.raises(ps.InputError, match="n: expected an integer"):
        ps.load('kind = "nqueens"\nn = 0\n')
    with pytest.raises(ps.InputError, match="fixed: two fixed queens in one row"):
        ps.load('kind = "nqueens"\nn = 4\nfixed = [[0, 1], [0, 2]]\n')


def test_the_family_conforms():
    """Contract, round trips, mutated solutions refused, every engine agreeing, bad input."""
    report = assert_family_conforms(
        FAMILY, ["nqueens/queens-6", "nqueens/queens-8-corner", "nqueens/queens-3"], time_limit=60,
        bad_toml={'kind = "nqueens"\nn = 0\n': r"n: expected an integer from 1 to 64",
                  'kind = "nqueens"\nn = 4\nfixed = [[0, 4]]\n': r"fixed: expected a list of \[row, col\]"})
    assert report.agreed == 9 and report.mutations_rejected > 0, report  # 3 instances x count, feasible, unique (from count)
