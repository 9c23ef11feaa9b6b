"""The Rush Hour plug-in against its published anchors (the 40 cards' optimal move counts,
Collette-Raskin-Servais's 93 steps in a component of 24,132, Fogleman's 51 and 60 moves with their
clusters), a brute-force oracle over move sequences through the checker, hypothesis-generated
small boards on which every engine agrees, the checker's rules, bad TOML input, and puzzlesat's
conformance kit."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import puzzlesat as ps
from puzzlesat.testing import assert_family_conforms
from puzzlesat_rushhour import FAMILY
from puzzlesat_rushhour.native import Search
from puzzlesat_rushhour.puzzle import RushHour, catalogue, check, make, solution_key

HERE = Path(__file__).resolve().parents[1]
CARDS = tomllib.loads(resources.files("puzzlesat_rushhour").joinpath("data/cards.toml").read_text())


@pytest.fixture(scope="module", autouse=True)
def family():
    """Registered at run time when the plug-in is not installed (then its entry point is)."""
    if "rushhour" not in [e.family for e in ps.engines()]:
        ps.register_family(FAMILY)
    yield


# ---- the brute-force oracle -------------------------------------------------------------------
def oracle(inst: RushHour, max_cost: int) -> tuple[int | None, int]:
    """(optimum, number of optimal plans) by iterative deepening over move sequences, judged by
    the checker alone: a prefix is extended only while the checker's one complaint is that the
    red car has not reached the exit; metric moves: every (vehicle, distance), one more move per
    round; metric steps: one-cell steps, one more step per round (plans told apart by
    solution_key). None: no plan within max_cost."""
    size = max(inst.rows, inst.cols)
    if inst.metric == "moves":
        cands = [(v.id, d) for v in inst.vehicles for d in range(-size + 1, size) if d]
    else:
        cands = [(v.id, d) for v in inst.vehicles for d in (-1, 1)]

    def legal_unfinished(seq) -> bool:
        try:
            check(inst, seq)
        except ps.CheckError as e:
            return str(e).startswith("after the last move")
        return False

    for depth in range(max_cost + 1):
        found = set()

        def grow(seq, depth=depth, found=found):
            if len(seq) == depth:
                try:
                    check(inst, seq)
                except ps.CheckError:
                    return
                found.add(solution_key(inst, seq))
                return
            for m in cands:
                nxt = seq + (m,)
                if len(nxt) == depth or legal_unfinished(nxt):
                    grow(nxt)

        grow(())
        if found:
            return depth, len(found)
    return None, 0


def test_oracle_on_the_small_boards():
    """The small catalogue boards: oracle = native BFS (optimum and plan count)."""
    for name, want in (("small-4x4", 5), ("small-4x4-steps", 6)):
        inst = catalogue()[name]()
        opt, n = oracle(inst, 7)
        assert opt == want
        r = ps.solve(inst, "native", "count")
        assert (r.status, r.objective, r.count) == (ps.Status.OPTIMAL, opt, n)


# ---- published anchors ------------------------------------------------------------------------
IBA_TYPES = {0: (True, 2), 1: (True, 2), 2: (True, 3), 3: (False, 2), 4: (False, 3)}


def test_card_boards_agree_with_iba():
    """Cards 1, 2, 28-40: the norush board strings and Iba's start lists place the same pieces."""
    checked = 0
    for c in CARDS["card"]:
        if "iba" not in c:
            continue
        inst = make("c", c["board"])
        ours = {(v.horizontal, v.length, v.line if v.horizontal else v.offset,
                 v.offset if v.horizontal else v.line, v is inst.red) for v in inst.vehicles}
        iba = {(*IBA_TYPES[t], r, col, t == 0) for t, r, col in c["iba"]}
        assert ours == iba, c["number"]
        checked += 1
    assert checked == 15


def test_all_40_cards_native_bfs_reproduces_the_published_moves():
    """Every card's optimum by BFS (in this process: the kernels directly) is the published one,
    and the BFS plan passes the checker with that many moves."""
    for c in CARDS["card"]:
        inst = catalogue()[f"card-{c['number']:02d}"]()
        s = Search(inst)
        assert s.run(0)
        plan = s.plan(s.goal)
        assert int(s.depth[s.goal]) == c["moves"] == check(inst, plan) == inst.optimum


@pytest.mark.parametrize("name,metric,opt,comp", [
    ("crs-93", "steps", 93, 24132), ("crs-93-moves", "moves", 49, 24132),
    ("fogleman-51", "moves", 51, 4780), ("fogleman-60", "moves", 60, 2332)])
def test_published_hardest_positions_native(name, metric, opt, comp):
    """Collette-Raskin-Servais: 93 steps, component 24,132 (and 49 moves, as Fogleman's README
    says); Fogleman's hardest without walls 51 moves (cluster 4,780), with a wall 60 (2,332)."""
    inst = ps.load(f"rushhour/{name}")
    assert inst.metric == metric and inst.optimum == opt and inst.component == comp
    r = ps.solve(inst, "native", time_limit=120)
    assert (r.status, r.objective) == (ps.Status.OPTIMAL, opt)
    assert r.stats["component"] == comp


def test_card_40_lies_in_fogleman_51s_cluster():
    """Card 40 (51 moves) and Fogleman's hardest wall-free position (51 moves) share their
    component: the BFS from one reaches the other."""
    a, b = ps.load("rushhour/card-40"), ps.load("rushhour/fogleman-51")
    s = Search(a)
    s.run(2)

    def segments(inst: RushHour, offsets) -> frozenset:
        return frozenset((v.horizontal, v.length, v.line, o, v is inst.red)
                         for v, o in zip(inst.vehicles, offsets))
    target = segments(b, [v.offset for v in b.vehicles])
    g = s.g
    seen = {segments(a, [(int(x) >> int(sh)) & int(mk) for sh, mk in zip(g.shift, g.mask)])
            for x in s.states[:s.tail]}
    assert target in seen and s.tail == 4780


@pytest.mark.parametrize("name,task,want", [
    ("card-01", "optimize", 8), ("card-04", "optimize", 9), ("card-01", "count", 61),
    ("small-5x5", "count", None)])
def test_models_agree_on_short_cards(name, task, want):
    inst = ps.load(f"rushhour/{name}")
    c = ps.compare(inst, ["native", "cpsat", "sat"], task, time_limit=120)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    got = {r.count if task == "count" else r.objective for r in c.results}
    assert len(got) == 1 and (want is None or got == {want})


def test_steps_metric_from_toml_all_engines():
    inst = ps.load('kind = "rushhour"\ncard = 1\nmetric = "steps"\n')
    c = ps.compare(inst, ["native", "cpsat", "sat"], "optimize", time_limit=120)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    assert {r.objective for r in c.results} == {16}


def test_models_answer_unknown_on_a_long_card_at_their_limit():
    """Card 40 needs 51 moves: within 3 seconds the models prove some short horizons infeasible
    and stop UNKNOWN, never a wrong optimum."""
    inst = ps.load("rushhour/card-40")
    for eng in ("cpsat", "sat"):
        r = ps.solve(inst, eng, time_limit=3)
        assert r.status is ps.Status.UNKNOWN, (eng, r.status, r.objective)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(1, 41))
def test_models_on_every_card_never_wrong(n):
    """Each card with both models at 120 s: the published optimum or UNKNOWN."""
    inst = ps.load(f"rushhour/card-{n:02d}")
    for eng in ("cpsat", "sat"):
        r = ps.solve(inst, eng, time_limit=120)
        assert (r.status, r.objective) in ((ps.Status.OPTIMAL, inst.optimum), (ps.Status.UNKNOWN, None))


# ---- random small boards ----------------------------------------------------------------------
@st.composite
def boards(draw, max_side=5):
    """A random board of 3..max_side rows and 4..max_side columns: the red car somewhere, then
    vehicles dropped at random free places (length 2 or 3, either orientation), then up to two
    walls."""
    rows, cols = draw(st.integers(3, max_side)), draw(st.integers(4, max_side))
    g = [["."] * cols for _ in range(rows)]
    r, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 3))
    g[r][c] = g[r][c + 1] = "X"
    letters = iter("ABCDEFGHIJKL")
    for _ in range(draw(st.integers(1, 8))):
        length, horiz = draw(st.sampled_from((2, 3))), draw(st.booleans())
        if (cols if horiz else rows) < length:
            continue
        rr = draw(st.integers(0, rows - (1 if horiz else length)))
        cc = draw(st.integers(0, cols - (length if horiz else 1)))
        cells = [(rr, cc + i) if horiz else (rr + i, cc) for i in range(length)]
        if all(g[a][b] == "." for a, b in cells):
            ch = next(letters)
            for a, b in cells:
                g[a][b] = ch
    for _ in range(draw(st.integers(0, 2))):  # walls
        a, b = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        if g[a][b] == ".":
            g[a][b] = "x"
    return ["".join(row) for row in g], draw(st.sampled_from(("moves", "steps")))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_random_small_boards_every_engine_agrees(board):
    agree_on(board)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(max_side=6))
def test_many_random_boards_every_engine_agrees(board):
    agree_on(board)


def agree_on(board):
    """native proves the optimum (or infeasibility); the models, given a horizon limit of that
    optimum, agree on it and (up to 200 plans) on the number of optimal plans; the oracle
    agrees on both when the optimum is at most 4."""
    rows, metric = board
    inst = make("random", rows, "X", metric)
    native = ps.solve(inst, "native", "count", time_limit=60)
    if native.status is ps.Status.INFEASIBLE:  # models cannot prove it: UNKNOWN at max_horizon
        for eng in ("cpsat", "sat"):
            r = ps.solve(inst, eng, max_horizon=6, time_limit=60)
            assert r.status in (ps.Status.INFEASIBLE, ps.Status.UNKNOWN)
        return
    assert native.status is ps.Status.OPTIMAL
    opt, n = native.objective, native.count
    task = "count" if n <= 200 else "optimize"
    c = ps.compare(inst, [f"cpsat[max_horizon={opt}]", f"sat[max_horizon={opt}]"], task,
                   time_limit=60)
    assert c.verdict is ps.Verdict.AGREE, (rows, metric, c.reasons)
    assert {(r.objective, r.count) for r in c.results} == {(opt, n if task == "count" else None)}
    if opt <= 4:
        assert oracle(inst, opt) == (opt, n)


# ---- the checker ------------------------------------------------------------------------------
def test_checker_rules():
    inst = catalogue()["small-4x4"]()  # XX.D / ...D / CBBB / CAA.
    good = (("X", 1), ("C", -2), ("B", -1), ("D", 1), ("X", 1))
    assert check(inst, good) == 5
    for bad, msg in [
        ((("X", 2),), "vehicle D is in the way"),
        ((("C", 1),), "leaves the 4x4 board"),
        ((("X", 0),), "not a non-zero integer"),
        ((("Z", 1),), "no vehicle 'Z'"),
        ((("X", 1),), "not the exit cell"),
        (good + (("A", 1),), "the puzzle ends there"),
        ((("B", -1), ("B", 1)) + good, "vehicle C is in the way"),
        ((["X"],), "expected (vehicle, distance)"),
    ]:
        with pytest.raises(ps.CheckError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            check(inst, bad)
    steps = catalogue()["small-4x4-steps"]()
    assert check(steps, good) == 6
    assert solution_key(steps, (("C", -2),)) == solution_key(steps, (("C", -1), ("C", -1)))
    assert solution_key(inst, (("C", -2),)) != solution_key(inst, (("C", -1), ("C", -1)))


def test_red_car_at_the_exit_already():
    done = make("done", ["..XX", "AA.."])
    c = ps.compare(done, ["native", "cpsat", "sat"], "count")
    assert c.verdict is ps.Verdict.AGREE and {(r.objective, r.count) for r in c.results} == {(0, 1)}


def test_walls_and_infeasible_positions():
    blocked = make("blocked", ["XXA.", "..A.", "BBB."])     # A can never leave row 0
    assert FAMILY.infeasible_reason(blocked) is None
    r = ps.solve(blocked, "native", "optimize", precheck=False)
    assert r.status is ps.Status.INFEASIBLE and r.stats["component"] == 2
    for eng in ("cpsat", "sat"):
        r = ps.solve(blocked, eng, max_horizon=8)
        assert r.status is ps.Status.UNKNOWN
    behind = make("behind", ["XX.BB.", "......"])
    for eng in ("native", "cpsat", "sat"):
        assert ps.solve(behind, eng, precheck=False).status is ps.Status.INFEASIBLE
    over = make("over", ["XXA..", "..A..", "..x..", ".....", "....."])  # A cannot jump the wall
    assert ps.solve(over, "native", precheck=False).status is ps.Status.INFEASIBLE
    for eng in ("cpsat", "sat"):
        assert ps.solve(over, eng, max_horizon=6).status is ps.Status.UNKNOWN
    wall = make("wall", ["XXx..", ".....", "AA..."])
    assert "wall" in FAMILY.infeasible_reason(wall)
    walled = ps.load("rushhour/fogleman-60")
    with pytest.raises(ps.CheckError, match="a wall is in the way"):
        check(walled, (("B", 1),))


def test_json_round_trip_and_pictures():
    inst = ps.load("rushhour/card-01")
    r = ps.solve(inst, "sat")
    sol = r.solutions[0]
    assert FAMILY.solution_from_json(inst, FAMILY.solution_json(inst, sol)) == sol
    with pytest.raises(ps.CheckError, match="needs \"moves\""):
        FAMILY.solution_from_json(inst, {"moves": [["X"]]})
    assert ps.svg(inst, sol).startswith("<svg") and "<svg" in ps.svg(inst)
    text = FAMILY.render(inst, sol)
    assert text.splitlines()[2].endswith("<") and "8 moves" in text
    d = FAMILY.describe(inst)
    assert d["known_optimum"] == 8 and "norush" in d["source"]


def test_docstring_examples():
    import doctest

    import puzzlesat_rushhour.puzzle as puzzle
    res = doctest.testmod(puzzle)
    assert res.failed == 0 and res.attempted >= 3


def test_native_kernels_run_as_plain_python():
    """NUMBA_DISABLE_JIT=1: the same optimum and component from the kernels as Python."""
    code = ("from puzzlesat_rushhour.puzzle import catalogue\n"
            "from puzzlesat_rushhour.native import Search\n"
            "s = Search(catalogue()['small-5x5']())\n"
            "s.run(2)\n"
            "print(int(s.depth[s.goal]), s.tail)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(HERE)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["9", "375"]


# ---- bad input --------------------------------------------------------------------------------
BAD_TOML = [
    ('board = ["XX.."]\nsize = 4\n', "unknown key 'size'"),
    ('card = 41\n', "card: expected a card number from 1 to 40"),
    ('card = 1\nboard = "XX"\n', "either board .* or card"),
    ('card = 1\nred = "A"\n', "red: 'red' goes with board"),
    ('board = ["XX.."]\nmetric = "cells"\n', "metric: expected one of moves, steps"),
    ('board = ["XX..", "..."]\n', "board: every row must have the same number of cells"),
    ('board = ["XX..", "A...", ".A.."]\n', "not a straight unbroken line"),
    ('board = ["XX..", "A..."]\n', "vehicle A covers 1 cell"),
    ('board = ["AA..", "...."]\n', "no vehicle 'X'"),
    ('board = ["X...", "X..."]\n', "red: the red car X must be a horizontal car"),
    ('board = ["XX.?", "...."]\n', "'\\?' is not a letter"),
    ('board = "XX.............."\nrows = 3\n', "16 cells do not make a 3x5 board"),
    ('board = ["XX..", "...."]\nrows = 3\n', "rows = 3 disagrees"),
    ('board = ["XX........"]\n', "sides from 2 to 8"),
    ('board = 7\n', "expected a list of row strings or one string"),
]


@pytest.mark.parametrize("text,msg", BAD_TOML)
def test_bad_toml_names_the_field(text, msg):
    with pytest.raises(ps.InputError, match=msg):
        ps.load('kind = "rushhour"\n' + text)


def test_the_family_conforms():
    """Contract, round trips, mutated solutions refused, every engine agreeing, bad input (the
    family has no to_toml: the bad TOML cases are given)."""
    report = assert_family_conforms(
        FAMILY, ["rushhour/small-4x4", "rushhour/small-4x4-steps"], time_limit=120,
        bad_toml={'kind = "rushhour"\n' + text: msg for text, msg in BAD_TOML})
    assert report.agreed == 8 and report.mutations_rejected > 0, report  # 2 instances x 4 tasks (unique from count)
