"""`peg problems`: single-vacancy -> single-survivor tables against a plain brute force, A127500,
the French-37 solvability pattern, triangle boards, and the backward level table."""
from __future__ import annotations

import json
from collections import deque

import pytest
from click.testing import CliRunner

from puzzlesat.compare.cli import cli
from puzzlesat.compare.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search import peg_bfs
from puzzlesat.native_search.peg_problems import minimum, orbit_pairs, problem_instance, problems
from puzzlesat.puzzles.core import InputError, Status
from puzzlesat.puzzles.peg import board, catalogue, check, hole_label, infeasible_reason, parse_hole

A127500 = {4: 5, 5: 9, 6: 9, 7: 12, 8: 13, 9: 16, 10: 18}  # OEIS A127500 (G. Bell)
BELL_BACKWARD = [1, 1, 16, 979, 14115]  # G. Bell: positions n moves from the English central finish


def brute_table(b) -> dict:
    """{(v, f): min moves or None} for every vacate v and finish f: plain BFS by moves over
    bitmask positions from each single-vacancy start (every prefix of a jump chain is one move)."""
    lines = [(1 << a, 1 << m, 1 << c, c) for a, m, c in b.lines]
    by_from: dict = {}
    for a, m, c in b.lines:
        by_from.setdefault(a, []).append((1 << a, 1 << m, 1 << c, c))
    full = (1 << b.n) - 1
    out = {}
    for v in range(b.n):
        start = full ^ (1 << v)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            d = dist[p] + 1
            stack = [(p ^ (A | M | C), c) for A, M, C, c in lines if p & A and p & M and not p & C]
            while stack:
                r, h = stack.pop()
                if r not in dist:
                    dist[r] = d
                    queue.append(r)
                for A, M, C, c in by_from.get(h, ()):
                    if r & M and not r & C:
                        stack.append((r ^ (A | M | C), c))
        for f in range(b.n):
            out[(v, f)] = dist.get(1 << f)
    return out


def check_table(n: int) -> None:
    b = board(f"triangle{n}")
    want = brute_table(b)
    rows = list(problems(b))
    # one problem per orbit: the orbits cover every pair once
    assert sum(r.orbit_size for r in rows) == b.n ** 2
    for r in rows:
        assert r.status in (Status.OPTIMAL, Status.INFEASIBLE)
        assert r.min_moves == want[(r.vacate, r.finish)], (r.vacate, r.finish)
        # every pair of the orbit has the same answer
        for g in b.symmetries:
            assert want[(g[r.vacate], g[r.finish])] == r.min_moves
        if r.min_moves is not None:
            assert check(problem_instance(b, r.vacate, r.finish), r.solution) == r.min_moves
    assert minimum(rows) == A127500[n] == min(x for x in want.values() if x is not None)


@pytest.mark.parametrize("n", [4, 5])
def test_triangle_tables_equal_brute_force(n):
    check_table(n)


@pytest.mark.slow
def test_triangle6_table_equals_brute_force():
    check_table(6)  # the brute force takes minutes


def test_a127500_side_6():
    assert minimum(list(problems(board("triangle6")))) == A127500[6]


@pytest.mark.slow
def test_a127500_side_7():
    assert minimum(list(problems(board("triangle7")))) == A127500[7]


def test_triangle_boards():
    for n in range(1, 11):
        b = board(f"triangle{n}")
        assert b.n == n * (n + 1) // 2 and len(b.symmetries) == (6 if n > 1 else 1)
        assert board(f"triangle({n})").coords == b.coords
        if n >= 2:
            assert b.corners == {0, b.n - n, b.n - 1}  # the three corners are never jumped over
    assert board("triangle5").coords == board("triangle15").coords
    for bad in ("triangle11", "triangle(11)", "triangle(0)"):
        with pytest.raises(InputError):
            board(bad)


def test_french37_single_vacancies():
    """Eight vacancy orbits c1, d1, b2, c2, d2, c3, d3, d4; d1, b2, c2, c3, d4 can end with one peg
    nowhere, proved by the position classes alone; c1, d2 and d3 each keep finishes the classes
    allow (Beasley, The Ins and Outs of Peg Solitaire: exactly these three are solvable)."""
    b = board("french37")
    assert [hole_label(b, h) for h in sorted({v for (v, _), _ in orbit_pairs(b)})] == \
        ["c1", "d1", "b2", "c2", "d2", "c3", "d3", "d4"]
    rows = list(problems(b, vacate=[parse_hole(b, x) for x in ("d1", "b2", "c2", "c3", "d4")]))
    assert sum(r.orbit_size for r in rows) == 5 * b.n  # every asked pair, one problem per orbit
    assert all(r.status is Status.INFEASIBLE and r.proof == "position class" for r in rows)
    allowed = {hole_label(b, v): [hole_label(b, f) for (vv, f), _ in orbit_pairs(b)
                                  if vv == v and infeasible_reason(problem_instance(b, v, f)) is None]
               for v in (0, 5, 11)}
    assert allowed == {"c1": ["e1", "b4", "e4", "e7"], "d2": ["a3", "d3", "d6"],
                       "d3": ["d2", "a5", "d5"]}


def test_orbit_pairs_with_explicit_holes():
    b = board("english33")
    (rep, size), = orbit_pairs(b, vacate=[16], finish="same")
    assert rep == (16, 16) and size == 1
    pairs = orbit_pairs(b, vacate=[0, 2], finish=[16])  # 0 and 2 are mirror images: one problem
    assert pairs == [((0, 16), 2)]


def test_problems_command_json_and_errors():
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle4", "--finish", "same", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["board"] == "triangle4" and d["complete"]
    assert {(p["vacate"], p["finish"], p["min_moves"]) for p in d["problems"]} == \
        {(v, v, m) for (v, f), m in brute_table(board("triangle4")).items()
         if v == f and v in (0, 1, 4)}
    assert d["minimum"] == minimum([]) or d["minimum"] is None or d["minimum"] >= A127500[4]
    r = CliRunner().invoke(cli, ["peg", "problems", "french37", "--vacate", "z9"])
    assert r.exit_code == 2 and "z9" in r.output
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle4"])
    assert r.exit_code == 0 and "minimum: 5" in r.output


# ---- the backward level table --------------------------------------------------------------------
def test_bell_backward_first_levels():
    inst = catalogue()["english33"]()
    group = [g for g in inst.board.symmetries if g[16] == 16]
    sp = peg_bfs.Space(inst, group)
    root = sp.canon([1 << 16])
    got = [len(x) for x in peg_bfs.layers(sp, root, True, limit=4)]
    assert len(group) == 8 and got == BELL_BACKWARD


@pytest.mark.parametrize("name", ["hoppers", "hoppers-first06", "triangle21-first146", "triangle15"])
def test_backward_exhaust_optimum_and_solution(name):
    inst = catalogue()[name]()
    r = solve(family("peg"), inst, "native:bfs", options={"exhaust": True, "direction": "backward"})
    assert (r.status, r.objective) == (Status.OPTIMAL, peg_bfs.search(inst).moves)
    assert r.stats["direction"] == "backward" and r.stats["exhausted"]
    assert r.stats["layers"] == r.stats["layers_backward"] and r.stats["total"] == sum(r.stats["layers"])


def test_backward_layers_equal_forward_layers_of_the_reverse_problem():
    """Backward from the finish of hoppers equals the full-graph BFS to it (as the forward test)."""
    inst = catalogue()["hoppers"]()
    r = peg_bfs.search(inst, exhaust=True, direction="backward", symmetry=False)
    dist: dict = {}
    n, lines = inst.board.n, inst.board.lines
    # distance to the finish by brute force: BFS over the reversed move graph of all 2^n positions
    succ = {m: set() for m in range(1 << n)}
    for m in range(1 << n):
        stack = [(m, None)]
        while stack:
            p, h = stack.pop()
            for a, b, c in lines:
                if (h is None or a == h) and p >> a & 1 and p >> b & 1 and not p >> c & 1:
                    q = p ^ (1 << a | 1 << b | 1 << c)
                    succ[m].add(q)
                    stack.append((q, c))
    pred: dict = {m: [] for m in succ}
    for m, qs in succ.items():
        for q in qs:
            pred[q].append(m)
    fin = sum(1 << h for h in inst.finish)
    dist = {fin: 0}
    queue = deque([fin])
    while queue:
        p = queue.popleft()
        for q in pred[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    want = [sum(1 for d in dist.values() if d == k) for k in range(max(dist.values()) + 1)]
    assert r.layers_backward == want and r.moves == dist[sum(1 << h for h in inst.start)]
