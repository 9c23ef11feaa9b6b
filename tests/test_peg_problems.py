"""`peg problems`: single-vacancy -> single-survivor tables against a plain brute force, A127500,
the French-37 solvability pattern, triangle boards, and the backward level table."""
from __future__ import annotations

import json
from collections import deque

import pytest
from click.testing import CliRunner

from puzzlesat.cli import cli
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.peg import bfs
from puzzlesat.compare.peg.problems import problems  # table (native) and bfs (runner)
from puzzlesat.native_search.peg.problems import minimum, orbit_pairs, problem_instance
from puzzlesat.native_search.peg.table import least_by_bound, least_over_all, solve_table
from puzzlesat.core.result import InputError, Status
from puzzlesat.puzzles.peg import board, catalogue, check, hole_label, infeasible_reason, parse_hole
from oracles import brute_table

A127500 = {4: 5, 5: 9, 6: 9, 7: 12, 8: 13, 9: 16, 10: 18}  # OEIS A127500 (G. Bell)
BELL_BACKWARD = [1, 1, 16, 979, 14115]  # G. Bell: positions n moves from the English central finish




def check_table(n: int, method: str = "table", all_vacates: bool = True) -> None:
    """The table equals the brute force; with all_vacates False the brute force runs from the
    vacate representatives only (the orbit check then covers the symmetries fixing them)."""
    b = board(f"triangle{n}")
    rows = list(problems(b, method=method))
    want = brute_table(b, None if all_vacates else sorted({r.vacate for r in rows}))
    # one problem per orbit: the orbits cover every pair once
    assert sum(r.orbit_size for r in rows) == b.n ** 2
    for r in rows:
        assert r.status in (Status.OPTIMAL, Status.INFEASIBLE)
        assert r.min_moves == want[(r.vacate, r.finish)], (r.vacate, r.finish)
        # every pair of the orbit has the same answer
        for g in b.symmetries:
            if (g[r.vacate], g[r.finish]) in want:
                assert want[(g[r.vacate], g[r.finish])] == r.min_moves
        if r.min_moves is not None:
            assert check(problem_instance(b, r.vacate, r.finish), r.solution) == r.min_moves
    assert minimum(rows) == A127500[n] == min(x for x in want.values() if x is not None)


@pytest.mark.parametrize("method", ["table", "bfs"])
@pytest.mark.parametrize("n", [4, 5])
def test_triangle_tables_equal_brute_force(n, method):
    check_table(n, method)


# (forward depth, backward depth, streamed levels, beam width): every way a problem gets settled
# or bounded — met in the stored layers, met while streaming, settled by a beam solution meeting
# the proved bound, left with bounds — on triangle5, whose brute-force table is known exactly
SMALL_DEPTHS = [(3, 2, 1, 0), (5, 3, 2, 50), (4, 1, 2, 50), (2, 2, 2, 50), (6, 1, 1, 50), (1, 0, 1, 0)]


@pytest.mark.parametrize("carry_max", [10**9, 0], ids=["carried", "own-frame"])
@pytest.mark.parametrize("fd,bd,stream,beam", SMALL_DEPTHS)
def test_table_bounds_are_sound_at_small_depths(fd, bd, stream, beam, carry_max):
    """carry_max 0: every backward layer met in its own frame (as triangle8's depth-4 layers)."""
    b = board("triangle5")
    want = _brute5()
    pairs = [p for p, _ in orbit_pairs(b) if infeasible_reason(problem_instance(b, *p)) is None]
    got = solve_table(b, pairs, forward_depth=fd, backward_depth=bd, stream=stream, beam_width=beam,
                      beam_depth=1, max_forward=10**9, max_backward=10**9, carry_max=carry_max)
    assert set(got) == set(pairs)
    for p, a in got.items():
        if a.status is Status.UNKNOWN:
            assert want[p] is None or want[p] >= a.lower  # the lower bound is proved
            if a.upper is not None:  # and the upper bound is a checked solution
                assert want[p] is not None and check(problem_instance(b, *p), a.solution) == a.upper
        else:
            assert a.moves == want[p], p
            if a.moves is not None:
                assert check(problem_instance(b, *p), a.solution) == a.moves
    statuses = {a.status for a in got.values()}
    if (fd, bd, stream) == (5, 3, 2):
        assert Status.OPTIMAL in statuses and Status.UNKNOWN in statuses


_BRUTE5: dict = {}


def _brute5() -> dict:
    if not _BRUTE5:
        _BRUTE5.update(brute_table(board("triangle5")))
    return _BRUTE5


def test_problems_settled_by_the_beam():
    """A problem whose lower bound comes from the layers and whose solution from the beam is a
    row like any other (proof "search + beam"), equal to the brute force."""
    b = board("triangle5")
    want = _brute5()
    rows = list(problems(b, forward_depth=5, backward_depth=3, stream=2, beam_width=50,
                         max_forward=10**9, max_backward=10**9))
    beamed = [r for r in rows if r.proof == "search + beam"]
    assert beamed
    for r in rows:
        if r.status is Status.OPTIMAL:
            assert r.min_moves == want[(r.vacate, r.finish)]
            assert check(problem_instance(b, r.vacate, r.finish), r.solution) == r.min_moves


def test_table_kernels_run_as_plain_python(no_jit):
    """The table's kernels (native_search/peg/table.py, beam.py) also run with numba's JIT off."""
    code = ("from puzzlesat.puzzles.peg import board\n"
            "from puzzlesat.native_search.peg.table import solve_table\n"
            "t = solve_table(board('triangle4'), [(0, 0), (1, 1), (4, 4)], forward_depth=2,"
            " backward_depth=1, stream=1, beam_width=5, beam_depth=1)\n"
            "print(sorted((p, a.status.value, a.moves, a.lower) for p, a in t.items()))")
    stdout = no_jit(code)
    jit = solve_table(board("triangle4"), [(0, 0), (1, 1), (4, 4)], forward_depth=2,
                      backward_depth=1, stream=1, beam_width=5, beam_depth=1)
    assert stdout.strip() == str(sorted((p, a.status.value, a.moves, a.lower)
                                            for p, a in jit.items()))


def test_own_frame_meetings_equal_carried_ones():
    """Meeting a backward layer in its own frame gives the carried meeting's answers exactly
    (triangle6, every problem, stored layers and a streamed level, no beam)."""
    b = board("triangle6")
    pairs = [p for p, _ in orbit_pairs(b) if infeasible_reason(problem_instance(b, *p)) is None]
    runs = [solve_table(b, pairs, forward_depth=6, backward_depth=2, stream=1, max_forward=10**9,
                        max_backward=10**9, carry_max=c) for c in (10**9, 0)]
    assert {p: (a.status, a.moves, a.lower) for p, a in runs[0].items()} == \
        {p: (a.status, a.moves, a.lower) for p, a in runs[1].items()}
    assert {a.status for a in runs[0].values()} >= {Status.OPTIMAL, Status.UNKNOWN}
    for p, a in runs[1].items():
        if a.moves is not None:
            assert check(problem_instance(b, *p), a.solution) == a.moves


@pytest.mark.slow
def test_triangle6_table_equals_brute_force():
    check_table(6, all_vacates=False)  # from the 5 vacate orbits' representatives: seconds


@pytest.mark.slow
def test_triangle6_every_vacancy_equals_brute_force():
    check_table(6)  # the brute force from all 21 vacancies takes minutes


@pytest.mark.parametrize("n", [4, 5, 6])
def test_least_over_all_problems_is_a127500(n):
    b = board(f"triangle{n}")
    r = least_over_all(b)
    assert r.moves == r.lower == A127500[n]
    assert check(problem_instance(b, *r.pair), r.solution) == A127500[n]


@pytest.mark.parametrize("fd,bd,beam", [(3, 3, 50), (4, 3, 0), (2, 2, 50), (5, 1, 0)])
def test_least_over_all_bounds_are_sound(fd, bd, beam):
    b = board("triangle5")
    r = least_over_all(b, fd, bd, stream=1, beam_width=beam)
    assert r.lower <= A127500[5]
    if r.moves is not None:
        assert r.moves == A127500[5]
    if r.solution is not None:
        assert check(problem_instance(b, *r.pair), r.solution) >= A127500[5]
    if beam == 0 and r.moves is None:
        assert r.solution is None


@pytest.mark.parametrize("n", [4, 5, 6])
def test_least_by_bound_is_a127500(n, tmp_path):
    """The pruned searches: every K below the minimum refuted, the minimum met and replayed; the
    same with every layer on disk (no memory) in a work folder."""
    b = board(f"triangle{n}")
    for kw in ({}, {"memory": 0, "work_dir": str(tmp_path)}):
        r = least_by_bound(b, **kw)
        assert r.moves == r.lower == A127500[n]
        assert all(k < A127500[n] for k in r.stats["refuted"])
        assert check(problem_instance(b, *r.pair), r.solution) == A127500[n]


def test_least_by_bound_at_a_fixed_k_is_a_bound():
    b = board("triangle6")
    below = least_by_bound(b, max_moves=A127500[6] - 1)
    assert below.moves is None and below.lower == A127500[6] and below.stats["refuted"] == [8]
    at = least_by_bound(b, max_moves=A127500[6] + 2)   # K above the minimum: still the least meeting
    assert at.moves == A127500[6]
    beam = least_by_bound(board("triangle5"), max_moves=A127500[5] - 1, beam_width=500)
    assert beam.lower == A127500[5] and (beam.moves in (None, A127500[5]))
    if beam.solution is not None:
        assert check(problem_instance(board("triangle5"), *beam.pair), beam.solution) >= A127500[5]


def test_a_work_folder_carries_the_refuted_k_into_later_runs(tmp_path):
    """K refuted by complete layers is kept in the work folder: a later run at a smaller
    --max-moves answers from it, an ascending run starts above it, and the bound it reports
    counts it (triangle6: minimum 9)."""
    b, w = board("triangle6"), str(tmp_path)
    first = least_by_bound(b, max_moves=A127500[6] - 1, work_dir=w)
    assert first.moves is None and first.lower == A127500[6]
    lines = []
    again = least_by_bound(b, max_moves=A127500[6] - 3, work_dir=w, progress=lines.append)
    assert again.moves is None and again.lower == A127500[6] and again.stats["refuted"] == []
    assert "refuted before" in again.stats["reason"]
    up = least_by_bound(b, work_dir=w)
    assert up.moves == up.lower == A127500[6] and up.stats["refuted"] == []
    assert up.stats["refuted_before"] == A127500[6] - 1
    assert check(problem_instance(b, *up.pair), up.solution) == A127500[6]
    settled = least_by_bound(b, work_dir=w, progress=lines.append)
    assert settled.moves == A127500[6] and any("settled by the folder" in s for s in lines)


def test_a_forged_refutation_cannot_lift_the_lower_bound(tmp_path):
    """A refutation cannot be checked cheaply, so it counts only with this user's seal: the record
    of triangle6's K = 8 refuted, changed to K = 9 (the minimum itself) or copied without its
    seal, is not used — the search still finds the 9-move minimum, never an answer of 10."""
    import os
    from puzzlesat.native_search.peg.table import _refuted_path
    b, w = board("triangle6"), str(tmp_path)
    least_by_bound(b, max_moves=A127500[6] - 1, work_dir=w)
    path = _refuted_path(w, b)
    rec = json.loads(path.read_text())
    assert rec["refuted"] == A127500[6] - 1 and "seal" in rec
    for forged in ({**rec, "refuted": A127500[6]}, {k: v for k, v in rec.items() if k != "seal"},
                   {**rec, "refuted": A127500[6], "seal": "\x80"}, "deep"):
        path.write_text("[" * 200_000 + "]" * 200_000 if forged == "deep" else json.dumps(forged))
        lines: list[str] = []
        got = least_by_bound(b, work_dir=w, progress=lines.append)
        assert got.moves == got.lower == A127500[6], lines
        assert any("stored refutation" in s and "not used" in s for s in lines), lines
        assert check(problem_instance(b, *got.pair), got.solution) == A127500[6]
        for f in tmp_path.glob("peg-least-upper-*"):   # the stored solution would settle it at once
            f.unlink()
    path.write_text(json.dumps({**rec, "refuted": 12}))   # the old code answered "no solution
    got = least_by_bound(b, max_moves=10, work_dir=w)      # within 10 moves, at least 13" here
    assert got.moves == got.lower == A127500[6]
    path.unlink()
    os.mkfifo(path)      # a FIFO in its place: not read (it would block), not used
    lines = []
    assert least_by_bound(b, max_moves=A127500[6] - 1, work_dir=w, progress=lines.append).lower == A127500[6]
    assert any("stored refutation" in s and "FIFO" in s for s in lines), lines


def test_least_command():
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle6", "--least", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["minimum"] == d["lower_bound"] == d["upper_bound"] == A127500[6]
    inst = problem_instance(board("triangle6"), *d["pair"])
    assert check(inst, tuple(map(tuple, d["solution"]))) == A127500[6]


@pytest.mark.slow
def test_least_over_all_side_7():
    assert least_over_all(board("triangle7"), 7, 4).moves == A127500[7]
    assert least_by_bound(board("triangle7")).moves == A127500[7]


def test_least_command_options():
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle5", "--least", "--no-prune", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["minimum"] == A127500[5]
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle6", "--least", "--max-moves", "8",
                                 "--beam", "0", "--json"])
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["minimum"] is None and d["lower_bound"] == 9
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle6", "--least", "--max-moves", "8",
                                 "--beam", "1000", "--json"])  # the beam after K = 8: 9 moves
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["minimum"] == d["lower_bound"] == d["upper_bound"] == 9
    for bad in (["--least", "--forward-depth", "3", "--prune"], ["--least", "--no-prune", "--max-moves", "9"],
                ["--least", "--no-prune", "--jobs", "2"],
                ["--max-moves", "9"]):
        r = CliRunner().invoke(cli, ["peg", "problems", "triangle5", *bad])
        assert r.exit_code == 2, (bad, r.output)


@pytest.mark.slow  # sides up to 5 stay in the default suite (the table tests above)
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
    for bad in ("triangle16", "triangle(15)", "triangle(0)"):
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


@pytest.mark.parametrize("vacate,finish", [("c1", "b4"), ("d2", "a3"), ("d3", "d2")])
def test_french37_solvable_vacancies(vacate, finish):
    """c1, d2 and d3 are solvable (Beasley): a beam search finds a solution the checker accepts
    (the beam proves nothing about the minimum; the table reports its moves as an upper bound)."""
    from puzzlesat.native_search.peg.beam import beam_solution
    b = board("french37")
    inst = problem_instance(b, parse_hole(b, vacate), parse_hole(b, finish))
    sol = beam_solution(inst, width=20000, back_depth=2)
    assert sol is not None and check(inst, sol) >= 17  # at least the position's lower bound


def test_orbit_pairs_with_explicit_holes():
    b = board("english33")
    (rep, size), = orbit_pairs(b, vacate=[16], finish="same")
    assert rep == (16, 16) and size == 1
    pairs = orbit_pairs(b, vacate=[0, 2], finish=[16])  # 0 and 2 are mirror images: one problem
    assert pairs == [((0, 16), 2)]


def test_problems_command_json_and_errors():
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle4", "--finish", "same", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["board"] == "triangle4" and d["complete"]
    assert {(p["vacate"], p["finish"], p["min_moves"]) for p in d["problems"]} == \
        {(v, v, m) for (v, f), m in brute_table(board("triangle4")).items()
         if v == f and v in (0, 1, 4)}
    assert d["minimum"] == minimum([]) or d["minimum"] is None or d["minimum"] >= A127500[4]
    r = CliRunner().invoke(cli, ["peg", "problems", "french37", "--vacate", "z9"])
    assert r.exit_code == 2 and "z9" in r.output
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle4"])
    assert r.exit_code == 0 and "minimum: 5" in r.output
    # layers too shallow to settle: bounds, never a minimum or "impossible" that is not proved
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle5", "--backward-depth", "1",
                                 "--max-forward", "300", "--stream", "0", "--beam", "50", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    want = _brute5()
    assert not d["complete"] and not d["minimum_proved"]
    for p in d["problems"]:
        truth = want[(p["vacate"], p["finish"])]
        if p["status"] == "UNKNOWN":
            assert p["min_moves"] is None and p["lower_bound"] <= (truth or 99)
            if p["upper_bound"] is not None:
                sol = tuple(map(tuple, p["solution"]))
                inst = problem_instance(board("triangle5"), p["vacate"], p["finish"])
                assert truth <= p["upper_bound"] == check(inst, sol)
        elif p["status"] == "INFEASIBLE":
            assert truth is None
        else:
            assert p["min_moves"] == truth


# ---- the backward level table --------------------------------------------------------------------
def test_bell_backward_first_levels():
    inst = catalogue()["english33"]()
    group = [g for g in inst.board.symmetries if g[16] == 16]
    sp = bfs.Space(inst, group)
    root = sp.canon([1 << 16])
    got = [len(x) for x in bfs.layers(sp, root, True, limit=4)]
    assert len(group) == 8 and got == BELL_BACKWARD


@pytest.mark.parametrize("name", ["hoppers", "hoppers-first06", "triangle21-first146", "triangle15"])
def test_backward_exhaust_optimum_and_solution(name):
    inst = catalogue()[name]()
    r = solve(family("peg"), inst, "native:bfs", options={"exhaust": True, "direction": "backward"})
    assert (r.status, r.objective) == (Status.OPTIMAL, bfs.search(inst).moves)
    assert r.stats["direction"] == "backward" and r.stats["exhausted"]
    assert r.stats["layers"] == r.stats["layers_backward"] and r.stats["total"] == sum(r.stats["layers"])


def test_backward_layers_equal_forward_layers_of_the_reverse_problem():
    """Backward from the finish of hoppers equals the full-graph BFS to it (as the forward test)."""
    inst = catalogue()["hoppers"]()
    r = bfs.search(inst, exhaust=True, direction="backward", symmetry=False)
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


def test_method_bfs_records_each_settled_problem_and_reads_it_back(tmp_path):
    """With a work folder, method bfs records each settled problem as it is settled; a second run
    reads the records (solutions replayed) instead of searching, and a record whose solution does
    not have its moves, or that is damaged, is ignored and the problem searched again
    (triangle5, finish = vacate: 10, 11, 9 moves, (4, 4) impossible)."""
    from puzzlesat.compare.peg.problems import answer_path
    b, w = board("triangle5"), tmp_path / "w"
    opts = {"options": {"prune": "merson", "work_dir": str(w)}}
    first = list(problems(b, finish="same", method="bfs", **opts))
    want = [(0, 0, 10), (1, 1, 11), (3, 3, 9), (4, 4, None)]
    assert [(r.vacate, r.finish, r.min_moves) for r in first] == want
    assert all(answer_path(b, r.vacate, r.finish, w).exists() for r in first)
    again = list(problems(b, finish="same", method="bfs", **opts))
    assert [(r.vacate, r.finish, r.min_moves) for r in again] == want
    assert all("answer_recorded" in r.stats for r in again)
    assert all(check(problem_instance(b, r.vacate, r.finish), r.solution) == r.min_moves
               for r in again if r.min_moves is not None)
    lie = answer_path(b, 0, 0, w)      # claims 9 moves with the 10-move solution
    d = json.loads(lie.read_text())
    lie.write_text(json.dumps(dict(d, min_moves=9)))
    answer_path(b, 1, 1, w).write_text("{ not json")
    lines = []
    third = list(problems(b, finish="same", method="bfs", progress=lines.append, **opts))
    assert [(r.vacate, r.finish, r.min_moves) for r in third] == want
    assert ["answer_recorded" in r.stats for r in third] == [False, False, True, True]
    assert any("no seal of this user's puzzlesat" in s and "searched again" in s for s in lines)
    assert any("unreadable record" in s for s in lines)
    assert json.loads(lie.read_text())["min_moves"] == 10   # the new answer replaced the lie
