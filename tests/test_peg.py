"""Peg solitaire: board derivations, published results over every engine, brute-force oracle."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.puzzles import peg
from puzzlesat.core.result import CheckError, Status
from oracles import peg_oracle
from strategies import peg_tiny

DATA = Path(__file__).parent / "data"
PEG = family("peg")


# ---- boards ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hoppers", "triangle21"])
def test_jump_tables_equal_reference(name):
    """SPEC §1: the derived jump tables equal the reference articles' tables."""
    text = (DATA / "peg_jump_tables.md").read_text()
    block = text.split(f"## {name}")[1].split("```")[1]
    ref = {int(h): set(eval(pairs)) for h, pairs in re.findall(r"(\d+): (\[.*\])", block)}
    got = {h: set(v) for h, v in peg.board(name).jump_table.items()}
    assert got == ref


def test_corner_holes_derived():
    """SPEC §1: in triangle21 the never-jumped-over holes are 0, 1, 12, 18, 19, 20."""
    assert peg.board("triangle21").corners == {0, 1, 12, 18, 19, 20}


@pytest.mark.parametrize("name,size", [("english33", 8), ("french37", 8), ("diamond41", 8), ("hoppers", 8)])
def test_square_boards_have_the_eight_symmetries(name, size):
    b = peg.board(name)
    assert len(b.symmetries) == size
    lines = set(b.lines)
    for perm in b.symmetries:
        assert sorted(perm) == list(range(b.n))
        assert {(perm[a], perm[x], perm[c]) for a, x, c in b.lines} == lines


def test_triangle_symmetries_include_rotations():
    b = peg.board("triangle15")  # the equilateral triangle: 3 rotations and 3 reflections
    assert len(b.symmetries) == 6
    lines = set(b.lines)
    assert all({(p[a], p[x], p[c]) for a, x, c in b.lines} == lines for p in b.symmetries)


def test_board_sizes():
    assert [peg.board(n).n for n in ("hoppers", "triangle15", "triangle21", "english33", "french37",
                                      "diamond41")] == [13, 15, 21, 33, 37, 41]
    assert peg.board("english33").coords[16] == (3, 3)  # centre = 16
    assert peg.board("french37").coords[18] == (3, 3)   # centre = 18


# ---- checker -----------------------------------------------------------------------------------
def test_checker_rejects_broken_sequences():
    inst = peg.catalogue()["hoppers-first06"]()
    good = solve(PEG, inst, "native", "optimize", isolate=False).solutions[0]
    assert peg.check(inst, good) == 7
    with pytest.raises(CheckError):
        peg.check(inst, good[:-1])                       # finish not reached
    with pytest.raises(CheckError):
        peg.check(inst, (good[1],) + good[1:])           # jump into a full hole / from empty
    with pytest.raises(CheckError):
        peg.check(inst, ((0, 1, 2),) + good[1:])         # not the required first jump
    with pytest.raises(CheckError):
        peg.check(inst, ((0, 4, 8),) + good[1:])         # not a jump line
    with pytest.raises(CheckError):
        peg.check(inst, ((0, 3, 99),) + good[1:])        # not a hole of the board


def test_move_count_counts_chains_once():
    assert peg.moves(((0, 1, 2), (2, 3, 4), (5, 6, 7), (7, 8, 9), (4, 10, 11))) == 3


# ---- published results, every engine -----------------------------------------------------------
# (instance, task, objective, count, engines, source)
FAST = ("native", "cpsat", "sat")
CASES = [
    ("peg/hoppers", "optimize", 7, None, FAST, "SPEC §1, Hiroi"),
    ("peg/hoppers-first06", "count", 7, 18, FAST, "SPEC §1, Hiroi: 18 with first jump 0->6"),
    ("peg/triangle21", "optimize", 12, None, ("native",), "SPEC §1, Hiroi"),
    ("peg/triangle21-first146", "count", 12, 96, ("native",), "SPEC §1, Hiroi: 96 with first 14->6"),
    *[(f"peg/ipc-p{i:02d}", "optimize", m, None, ("native",), "IPC-2011 pegsol, FD + SymK")
      for i, m in enumerate([3, 10, 7, 8, 12, 9, 7, 7, 8, 8, 6, 11, 8, 8, 8, 9, 7], 1)],
    *[(f"peg/ipc-p{i:02d}", "optimize", m, None, ("cpsat", "sat"), "IPC-2011 pegsol, FD + SymK")
      for i, m in [(1, 3), (5, 12), (12, 11)]],
]
SLOW = [
    ("peg/triangle21", "optimize", 12, None, ("cpsat", "sat"), "SPEC §1"),
    ("peg/triangle21-first146", "count", 12, 96, ("cpsat", "sat"), "SPEC §1"),
    *[(f"peg/ipc-p{i:02d}", "optimize", m, None, ("cpsat", "sat"), "IPC-2011 pegsol")
      for i, m in [(2, 10), (3, 7), (4, 8), (6, 9), (7, 7), (8, 7), (9, 8), (10, 8), (11, 6)]],
]


def _expand(cases, marks=()):
    return [pytest.param(i, t, o, c, e, id=f"{i}-{t}-{e}", marks=marks)
            for i, t, o, c, engines, _ in cases for e in engines]


@pytest.mark.parametrize("name,task,objective,count,engine",
                         _expand(CASES) + _expand(SLOW, pytest.mark.slow))
def test_published_results(name, task, objective, count, engine):
    fam, inst = load_instance(name)
    r = solve(fam, inst, engine, task)
    assert r.status is Status.OPTIMAL, r.reason
    assert r.objective == objective
    assert r.count == count
    assert r.checked == (count or 1)


def test_french37_central_game_is_infeasible_by_position_class():
    fam, inst = load_instance("peg/french37")
    for engine in ("native", "cpsat", "sat"):
        r = solve(fam, inst, engine, "optimize")
        assert r.status is Status.INFEASIBLE and "position class" in r.reason


def test_french37_without_the_invariant_never_answers_wrongly():
    fam, inst = load_instance("peg/french37")
    r = solve(fam, inst, "native", "optimize", precheck=False, time_limit=2)
    assert r.status in (Status.UNKNOWN, Status.INFEASIBLE) and not r.solutions


@pytest.mark.slow  # the default suite proves the English 18 by native:bfs (test_peg_bfs.py)
@pytest.mark.parametrize("engine", ["native", "cpsat"])
def test_english_central_game_feasible(engine):
    fam, inst = load_instance("peg/english33")
    r = solve(fam, inst, engine, "feasible", time_limit=120)
    assert r.status is Status.FEASIBLE and r.checked == 1
    assert peg.check(inst, r.solutions[0]) >= 18  # Beasley: no solution has fewer than 18 moves


def test_time_limit_is_unknown_or_feasible_never_optimal():
    fam, inst = load_instance("peg/english33")
    r = solve(fam, inst, "sat", "optimize", time_limit=1.5)
    assert r.status in (Status.UNKNOWN, Status.FEASIBLE)
    assert r.status is Status.UNKNOWN or peg.check(inst, r.solutions[0]) == r.objective






@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(peg_tiny())
def test_engines_agree_with_brute_force(inst):
    best, count = peg_oracle(inst)
    for engine in ("native", "cpsat", "sat"):
        for task in ("optimize", "count"):
            r = solve(PEG, inst, engine, task, time_limit=60, isolate=False)
            if best is None:
                assert r.status is Status.INFEASIBLE, (engine, task, r.reason)
            else:
                assert r.status is Status.OPTIMAL, (engine, task, r.reason)
                assert r.objective == best
                if task == "count":
                    assert r.count == count


# ---- plain-Python kernels ----------------------------------------------------------------------
def test_native_kernel_runs_without_jit(no_jit):
    code = ("from puzzlesat.families.instances import load_instance; from puzzlesat.compare.runner import solve;"
            "f,i=load_instance('peg/hoppers-first06'); r=solve(f,i,'native','count',isolate=False);"
            "print(r.status.value, r.objective, r.count)")
    assert no_jit(code).split() == ["OPTIMAL", "7", "18"]


# ---- input ---------------------------------------------------------------------------------------
def _toml(tmp_path, text: str) -> str:
    p = tmp_path / "inst.toml"
    p.write_text(text)
    return str(p)


def test_toml_instance_with_inline_art_board(tmp_path):
    path = _toml(tmp_path, 'kind = "peg"\nempty = [2]\nfinish = [2]\n[board]\nart = """\nooo\nooo\n"""\n')
    fam, inst = load_instance(path)
    assert inst.board.n == 6 and inst.start == frozenset({0, 1, 3, 4, 5})
    best, _ = peg_oracle(inst)
    r = solve(fam, inst, "native", "optimize")
    assert (r.objective if r.status is Status.OPTIMAL else None) == best


def test_toml_first_jump_reproduces_published_count(tmp_path):
    path = _toml(tmp_path, 'kind = "peg"\nboard = "triangle21"\nempty = [6]\nfinish = [6]\n'
                           'first_jump = [14, 6]\n')
    fam, inst = load_instance(path)
    r = solve(fam, inst, "native", "count")
    assert (r.objective, r.count) == (12, 96)
