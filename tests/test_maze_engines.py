"""Calculation maze engines: published optima, the reference solver's failure cases, brute-force
oracle, CP-SAT formulations agreeing with the native search on random tiny mazes."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.maze import search as N
from puzzlesat.puzzles import maze as M
from puzzlesat.core.result import Status, Task
from oracles import maze_snake

ROOT = Path(__file__).resolve().parents[1]
MAZE = family("maze")
OPTIMA = {"sample1": 36, "sample2": 198, "sample3": 854, "11_56": 452, "12_57": 924, "12_66": 15535}


def _maze(W, H, ops, start, goal, prefix=()):
    ops = tuple(M.parse_op(o) for o in ops.split())
    return M.Maze("t", W, H, ops, start, goal, tuple(prefix))


def _agree(m, want, engines=("native:dfs", "native:brute", "cpsat:time", "cpsat:segments"),
           task=Task.OPTIMIZE, **kw):
    """Every engine proves `want`: (status, objective) — plus the count for task count — with
    status OPTIMAL or INFEASIBLE (an ERROR or a limit everywhere must fail, issue 17)."""
    assert want[0] in (Status.OPTIMAL, Status.INFEASIBLE), want
    res = {e: solve(MAZE, m, e, task, isolate=False, **kw) for e in engines}
    got = {e: (r.status, r.objective) + ((r.count,) if task is Task.COUNT else ())
           for e, r in res.items()}
    assert all(g == want for g in got.values()), (want, got, {e: r.reason for e, r in res.items()})
    assert all(r.checked == len(r.solutions) for r in res.values())


def _oracle(m):
    """(best score, number of walks scoring it) over every trail, or (None, 0): a plain recursion
    written here from the rules (grid coordinates, edge ids in file order), sharing no code with
    puzzlesat's engines or checker."""
    W, H = m.width, m.height

    def eid(a, b):
        (ay, ax), (by, _bx) = divmod(min(a, b), W), divmod(max(a, b), W)
        return ay * (2 * W - 1) + ax if ay == by else ay * (2 * W - 1) + W - 1 + ax

    def nbrs(v):
        y, x = divmod(v, W)
        return [ny * W + nx for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1))
                if 0 <= ny < H and 0 <= nx < W]

    def step(s, e):
        c, k = m.ops[e]
        return {"+": s + k, "-": s - k, "*": s * k}[c]

    w = list(m.prefix) if m.prefix else [m.start]
    used, s = set(), 1
    for a, b in zip(w, w[1:]):
        used.add(eid(a, b))
        s = step(s, eid(a, b))
    scores = []

    def go(v, s):
        if v == m.goal:
            scores.append(s)
        for u in nbrs(v):
            e = eid(u, v)
            if e not in used:
                used.add(e)
                go(u, step(s, e))
                used.discard(e)

    go(w[-1], s)
    if not scores:
        return None, 0
    best = max(scores)
    return best, scores.count(best)


def _want(m, task=Task.OPTIMIZE):
    """What every engine must prove on `m`, from the oracle."""
    best, n = _oracle(m)
    st_ = Status.INFEASIBLE if best is None else Status.OPTIMAL
    return (st_, best, n) if task is Task.COUNT else (st_, best)


# ---- published optima ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sample1", "sample2", "11_56", "12_57", "12_66", "sample3"])
def test_native_reproduces_published_optimum(name):
    """results.json: the optimum of each shipped instance (all six: seconds each here)."""
    m = M.catalogue()[name]()
    r = solve(MAZE, m, "native", Task.OPTIMIZE, time_limit=300)
    assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, OPTIMA[name], 1)


@pytest.mark.parametrize("name", ["sample1", "sample2"])
def test_all_engines_agree_on_samples(name):
    m = M.catalogue()[name]()
    engines = ("native:dfs", "cpsat:time", "cpsat:segments") + (("native:brute",) if name == "sample1" else ())
    _agree(m, (Status.OPTIMAL, OPTIMA[name]), engines)


@pytest.mark.parametrize("name,count", [("sample1", 1), ("sample2", 2)])
def test_count_optimal_walks_all_engines(name, count):
    """Every walk reaching the optimum, counted exactly by all four engines (each one checked)."""
    m = M.catalogue()[name]()
    _agree(m, task=Task.COUNT, want=(Status.OPTIMAL, OPTIMA[name], count))


def test_count_11_56_native_and_segments():
    """11_56 has 1792 optimal walks: one segment solution (edge sets) expands to all of them."""
    m = M.catalogue()["11_56"]()
    _agree(m, (Status.OPTIMAL, 452, 1792), ("native:dfs", "cpsat:segments"), task=Task.COUNT,
           time_limit=120)


def test_segments_proves_11_56():
    """The segment formulation proves the 5x6 instance (the issue measured 7 s; ~1 s here)."""
    r = solve(MAZE, M.catalogue()["11_56"](), "cpsat:segments", Task.OPTIMIZE, time_limit=120)
    assert (r.status, r.objective) == (Status.OPTIMAL, 452)


@pytest.mark.slow
def test_time_model_11_56_never_beats_optimum():
    r = solve(MAZE, M.catalogue()["11_56"](), "cpsat:time", Task.OPTIMIZE, time_limit=60)
    assert r.status in (Status.OPTIMAL, Status.FEASIBLE) and r.objective <= 452


# ---- the reference solver's failure cases ---------------------------------------------------------
def test_start_equals_goal_on_a_corner():
    """challerunF returns 1 (empty walk); leaving the corner and coming back scores 5."""
    m = _maze(2, 2, "+1 +1 +1 +1", 0, 0)
    _agree(m, want=(Status.OPTIMAL, 5))
    r = solve(MAZE, m, "native", Task.OPTIMIZE, isolate=False)
    assert len(r.solutions[0]) == 5


def test_negative_optimum_where_reference_bound_prunes_wrongly():
    """Walks 0-1-3 score (1*3)-7 = -4 and 0-2-3 score (1-5)+1 = -3. After 0->2 (s = -4, unused
    +1 and *3), challerunF's bound (s + 1)*3 = -9 lies below the incumbent -4 and would cut the
    optimal branch; the corrected bound there is s + 1 = -3."""
    m = _maze(2, 2, "*3 -5 -7 +1", 0, 3)
    _agree(m, want=(Status.OPTIMAL, -3))
    assert N._bound(-4, 1, 3, 0) == -3 and (-4 + 1) * 3 == -9


def test_negative_optimum_with_prefix_and_times_zero():
    """A pre-walked path 0-1-4 (1+12+3 = 16); the only way on is -100: optimum -84."""
    m = M.parse_text("3 2\n+12 *0\n-7 +3 *10\n+1 -100\n3 0 1 4 5\n")
    _agree(m, want=(Status.OPTIMAL, -84))


def test_times_zero_resets_a_negative_score():
    """challerunF divides by the multiplier (SIGFPE on *0). Here *0 then +3 is best: 3."""
    m = _maze(2, 2, "-5 *0 +2 +3", 0, 3)
    _agree(m, want=(Status.OPTIMAL, 3))


def test_optimal_walk_uses_every_edge():
    """An Euler trail from 1 to 4 of the 3x2 grid: all 7 edges, 1 + 7 = 8 (challerunF's walk buffer
    holds only |E| nodes)."""
    m = _maze(3, 2, "+1 +1 +1 +1 +1 +1 +1", 1, 4)
    _agree(m, want=(Status.OPTIMAL, 8))
    r = solve(MAZE, m, "native", Task.OPTIMIZE, isolate=False)
    assert len(r.solutions[0]) == 8


def test_objective_read_exactly_not_through_a_float():
    """Found by fuzzing: CP-SAT reported 0.9999999999999998 for the optimum 1 of this maze; the
    objective must come from the integer variable, not int(float)."""
    m = _maze(2, 2, "-4 -2 *1 +1", 1, 3)
    _agree(m, want=(Status.OPTIMAL, 1))
    _agree(m, task=Task.COUNT, want=(Status.OPTIMAL, 1, 1))


def test_single_node_and_single_row():
    _agree(M.Maze("one", 1, 1, (), 0, 0), want=(Status.OPTIMAL, 1))
    _agree(_maze(4, 1, "+2 *3 -1", 0, 3), want=(Status.OPTIMAL, 8))
    _agree(_maze(1, 3, "+2 *3", 2, 0), want=(Status.OPTIMAL, 5))  # 1*3 + 2


def test_exact_integers_beyond_int64():
    """Scores past 2**63 switch the kernel to plain Python integers; results stay exact."""
    m = _maze(30, 1, "+1 " + "*9 " * 28, 0, 29)
    assert not N.fits_int64(m)
    r = solve(MAZE, m, "native", Task.OPTIMIZE, isolate=False)
    assert (r.status, r.objective) == (Status.OPTIMAL, 2 * 9 ** 28)
    big = _maze(3, 2, "*99999 -99999 *99999 *99999 +1 *99999 -3", 0, 5)
    assert not N.fits_int64(big)
    assert _oracle(big)[0] is not None
    _agree(big, _want(big), ("native:dfs", "native:brute"))




@pytest.mark.parametrize("H,W", [(10, 11), (64, 64)])
def test_native_on_grids_beyond_186_edges(H, W):
    """Edge ids past 186 (the old fixed 3-word edge set) are walked in the prefix and searched:
    optimum and count equal the brute force (10x11: 199 edges; 64x64: 8064, scores past int64)."""
    g = M.generate(H, W, seed=3)
    m = M.Maze("big", W, H, g.ops, 0, W * H - 1, maze_snake(W, H, 6))
    b, _, n, complete = N.brute(m)
    assert complete and len(m.ops) > 186
    best = [s for _, s in N.trails(m)]
    r = solve(MAZE, m, "native", Task.COUNT, isolate=False)
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, b, best.count(b))
    assert r.checked == r.count


def test_native_on_a_generated_64x64_maze_stops_at_its_limit():
    """`generate maze -r 64 -c 64` (the largest it makes): the default engine returns a checked walk
    at its time limit (before: IndexError / memory corruption past 186 edges). In this process
    (no worker, no hard kill): the engine looks at its clock only between kernel calls, so its
    first call (2M vertices) always runs, and a busy machine cannot leave it without a walk."""
    m = M.generate(64, 64, seed=0)
    r = solve(MAZE, m, "native", Task.OPTIMIZE, time_limit=1.5, isolate=False)
    assert r.status is Status.FEASIBLE and r.checked == 1, r.reason
    assert r.stats["tt_bits_used"] < 20  # 131-word keys: a smaller table of the same memory


def test_big_grid_kernel_runs_without_jit(no_jit):
    """The 10x11 case as plain Python (NUMBA_DISABLE_JIT=1): IndexError there before the fix."""
    code = ("from puzzlesat.puzzles import maze as M\nfrom puzzlesat.native_search.maze import search as N\n"
            "import sys; sys.path.insert(0, 'tests')\nfrom oracles import maze_snake\n"
            "g = M.generate(10, 11, seed=3)\nm = M.Maze('big', 11, 10, g.ops, 0, 109, maze_snake(11, 10, 6))\n"
            "b, w, s = N.optimize(m)\nprint(b == N.brute(m)[0], M.check(m, w) == b, s['complete'])")
    stdout = no_jit(code)
    assert stdout.split() == ["True", "True", "True"]


# ---- CP-SAT score bounds (issue 17: ERROR when the bound passed int64) -----------------------------
def test_agree_fails_unless_every_engine_proves_the_value():
    """The helper itself: a limit (or an ERROR) anywhere is a failure, not an agreement."""
    m = _maze(2, 2, "+1 +1 +1 +1", 0, 0)
    with pytest.raises(AssertionError):
        _agree(m, (Status.OPTIMAL, 5), ("native:brute",), options={"max_trails": 1})
    with pytest.raises(AssertionError):
        _agree(m, (Status.OPTIMAL, 4), ("native:dfs",))
    with pytest.raises(AssertionError):
        _agree(m, (Status.ERROR, None), ("native:dfs",))


def test_cpsat_bound_leaves_out_prewalked_edges():
    """Pre-walked *100000 *100000 (s0 = 10^10), then +1: the old bound (s0 + adds) x every *k =
    10^20 crashed building the model (TypeError); the bound over unused ops is 10^10 + 1."""
    m = _maze(4, 1, "*100000 *100000 +1", 0, 3, (0, 1, 2))
    _agree(m, (Status.OPTIMAL, 10 ** 10 + 1))
    _agree(m, (Status.OPTIMAL, 10 ** 10 + 1, 1), task=Task.COUNT)


@pytest.mark.parametrize("m", [
    _maze(2, 2, "*100000 *100000 *100000 *100000", 0, 3),   # optimum 10^10, bound 10^20: TypeError
    _maze(4, 1, "*1000000 *1000000 *1000000", 0, 3),         # bound 10^18 < 2^60, s' = 10^6 s: invalid
    M.generate(8, 8, seed=1, mul_rate=0.8),                  # `generate maze -r 8 -c 8 --mul-rate 0.8 -s 1`
], ids=["2x2-x100000", "row-x10^6", "8x8-mul0.8"])
@pytest.mark.parametrize("engine", ["cpsat:time", "cpsat:segments"])
def test_cpsat_scores_past_int64_are_unknown_with_the_reason(m, engine):
    """Never ERROR: UNKNOWN naming the bound, before any model is built (so at once)."""
    for task in (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE):
        r = solve(MAZE, m, engine, task, isolate=False, time_limit=30)
        assert r.status is Status.UNKNOWN and "int64" in r.reason, (r.status, r.reason)
        assert "vars" not in r.stats and "constraints" not in r.stats  # no model was built


def test_compare_with_scores_past_int64_is_incomplete_not_disagree():
    from puzzlesat.compare.crossval import Verdict, compare
    m = _maze(2, 2, "*100000 *100000 *100000 *100000", 0, 3)
    c = compare(MAZE, m, ["native", "cpsat:time", "cpsat:segments"], "optimize", time_limit=30)
    assert c.verdict is Verdict.INCOMPLETE, c.reasons
    assert (c.results[0].status, c.results[0].objective) == (Status.OPTIMAL, 10 ** 10)


# ---- infeasible and feasible ---------------------------------------------------------------------
def test_stranding_prefix_infeasible_for_every_engine():
    m = M.parse_text("2 2\n+1\n+1 +1\n+1\n5 0 1 3 2 0 3\n")
    for e in ("native:dfs", "native:brute", "cpsat:time", "cpsat:segments"):
        r = solve(MAZE, m, e, Task.OPTIMIZE, isolate=False)
        assert r.status is Status.INFEASIBLE and "no unused edges" in r.reason
        r = solve(MAZE, m, e, Task.OPTIMIZE, isolate=False, precheck=False)
        assert r.status is Status.INFEASIBLE, e


@pytest.mark.parametrize("engine", ["native:dfs", "native:brute", "cpsat:time", "cpsat:segments"])
def test_feasible_task(engine):
    r = solve(MAZE, M.catalogue()["sample2"](), engine, Task.FEASIBLE, time_limit=60)
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL) and r.checked == 1


def test_native_streams_walks_and_stops_at_time_limit():
    """A run cut short returns the best walk streamed so far, checked (FEASIBLE), never OPTIMAL."""
    r = solve(MAZE, M.catalogue()["12_66"](), "native", Task.OPTIMIZE, time_limit=0.3,
              options={"chunk": 20_000, "probe": False})
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert r.checked >= 1 and r.objective <= 15535


# ---- the search's own parts ----------------------------------------------------------------------
def test_options_prune_without_changing_the_optimum():
    """Dominance table, refined bound and probing each change the search, never the answer."""
    m = M.catalogue()["sample2"]()
    nodes = {}
    for tt in (0, 12):
        for refine in (False, True):
            s = N.DFS(m, tt_bits=tt, refine=refine)
            assert s.run() and s.best == 198 and M.check(m, s.walk) == 198
            nodes[tt, refine] = s.nodes
    assert nodes[12, True] < nodes[0, True] and nodes[0, True] < nodes[0, False]
    best, walk, st_ = N.optimize(m)
    assert best == 198 and st_["complete"] and M.check(m, walk) == 198


def test_brute_counts_all_trails_of_sample1():
    """Every trail from 0 ending at 8 in sample1 (each arrival at the goal counts once)."""
    best, walk, n, complete = N.brute(M.catalogue()["sample1"]())
    assert (best, complete) == (36, True) and walk == (0, 1, 2, 5, 4, 3, 6, 7, 8)
    assert n == sum(1 for _ in N.trails(M.catalogue()["sample1"]()))


def test_kernel_runs_without_jit(no_jit):
    """The numba kernels run as plain Python under NUMBA_DISABLE_JIT=1 (same optimum)."""
    code = ("from puzzlesat.puzzles.maze import catalogue\n"
            "from puzzlesat.native_search.maze.search import optimize\n"
            "b, w, s = optimize(catalogue()['sample2']())\nprint(b, len(w) - 1, s['complete'])")
    stdout = no_jit(code)
    assert stdout.split() == ["198", "16", "True"]


# ---- random tiny mazes: every engine agrees ------------------------------------------------------
OP = st.tuples(st.sampled_from("++--*"), st.integers(0, 4)).map(lambda t: f"{t[0]}{t[1]}")


@st.composite
def tiny_mazes(draw, max_nodes=6):
    W = draw(st.integers(1, 3))
    H = draw(st.integers(1, max(1, max_nodes // W)))
    n = W * H
    ops = draw(st.lists(OP, min_size=2 * W * H - W - H, max_size=2 * W * H - W - H))
    m = _maze(W, H, " ".join(ops), draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
    walk, used = [m.start], set()
    for _ in range(draw(st.integers(0, 3))):  # sometimes a pre-walked path (maybe a stranding one)
        nxt = [e for e in m.edges if walk[-1] in e and e not in used]
        if not nxt:
            break
        e = draw(st.sampled_from(nxt))
        used.add(e)
        walk.append(e[0] + e[1] - walk[-1])
    return M.Maze("t", W, H, m.ops, m.start, m.goal, tuple(walk) if len(walk) > 1 else ())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_mazes(max_nodes=9))
def test_native_dfs_equals_brute_force(m):
    b, w, n, complete = N.brute(m)
    assert b == _oracle(m)[0]
    assert (b is None) == (M.infeasible_reason(m) is not None)
    best, walk, _ = N.optimize(m)
    assert best == b
    if walk is not None:
        assert M.check(m, walk) == b
    s = N.DFS(m, tt_bits=0, refine=False)
    s.run()
    assert s.best == b


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_mazes(max_nodes=9))
def test_cpsat_score_bounds_hold_every_prefix(m):
    """Every score on the way of every walk to the goal lies inside the models' variable domains
    [low, high] (the tightened bound — unused, live edges only — is still a bound)."""
    from puzzlesat.models.maze.common import free_part
    fp = free_part(m)
    assert fp.low <= fp.s0 <= fp.high
    W = m.width
    eid = {e: i for i, e in enumerate(m.edges)}
    seen = set(zip(m.walked, m.walked[1:]))
    used = {eid[(min(a, b), max(a, b))] for a, b in seen}
    path = [fp.s0]

    def go(v):
        if v == m.goal:
            assert all(fp.low <= s <= fp.high for s in path), (path, fp)
        y, x = divmod(v, W)
        for u in (v - W, v + W, v - 1 if x > 0 else -1, v + 1 if x < W - 1 else -1):
            if 0 <= u < m.nodes:
                e = eid[(min(u, v), max(u, v))]
                if e not in used:
                    used.add(e)
                    path.append(M.op_apply(m.ops[e], path[-1]))
                    go(u)
                    path.pop()
                    used.discard(e)

    go(fp.v0)


def test_cpsat_bound_drops_dead_end_edges():
    """A *1000000 spur into a dead end (node 2 of a 3x1 row with goal 1) can never be walked to
    the goal: the bound leaves it out and the models solve the maze."""
    m = _maze(3, 1, "+5 *1000000", 0, 1)
    from puzzlesat.models.maze.common import free_part
    assert free_part(m).high == 6
    _agree(m, (Status.OPTIMAL, 6))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_mazes(max_nodes=6))
def test_cpsat_models_equal_native(m):
    _agree(m, _want(m), ("native:dfs", "native:brute", "cpsat:time", "cpsat:segments"), time_limit=60,
           precheck=False)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_mazes(max_nodes=6))
def test_counts_equal_on_random_mazes(m):
    """Exact counts of optimal walks: native counting DFS, brute force and both models agree."""
    _agree(m, _want(m, Task.COUNT), ("native:dfs", "native:brute", "cpsat:time", "cpsat:segments"),
           task=Task.COUNT,
           time_limit=60, precheck=False)


# ---- the models as data (models/formulation.py): stats, export and puzzlesat.model read them ----
@pytest.mark.parametrize("config,group", [("cpsat:time", "score step"), ("cpsat:segments", "degree parity"),
                                          ("cpsat:segments[segments=2]", "flow feeds touched vertices")])
def test_models_are_formulations_for_stats_and_export(config, group):
    """Named groups summing to the model's totals; a decision model at the optimum 36 of sample1
    is solved and its decoded walk scores at least 36; above it, infeasible."""
    from puzzlesat import model
    from puzzlesat.core.config import parse
    from puzzlesat.compare.export import model_stats
    m = M.catalogue()["sample1"]()
    s = model_stats(MAZE, m, parse(config))
    assert group in s["groups"] and sum(g["constraints"] for g in s["groups"].values()) == s["constraints"]
    assert s["formulation"].startswith("maze:") and "puzzlesat's" in s["source"]  # its source named
    if "segments=2" in config:  # one multiplication at most: 36 (two of them) is out of reach
        assert model(m, config, bound=36).solve().status is Status.INFEASIBLE
        r = model(m, config).solve()
        assert r.status is Status.FEASIBLE and M.check(m, r.solutions[0]) < 36
    else:
        r = model(m, config, bound=36).solve()
        assert r.status is Status.FEASIBLE and M.check(m, r.solutions[0]) >= 36
        assert model(m, config, bound=37).solve().status is Status.INFEASIBLE
    from puzzlesat.core.result import InputError
    with pytest.raises(InputError, match="int64"):
        model_stats(MAZE, _maze(2, 2, "*100000 *100000 *100000 *100000", 0, 3), parse(config))


def test_models_leave_out_dead_end_edges():
    """A 10x11 maze whose pre-walked path leaves ~70 edges free in dead-end columns (found by the
    differential bench: cpsat:segments did not finish in 120 s with a segment per free
    multiplier): edges no walk to the goal can use are not modelled; both models prove the
    brute-force optimum and count."""
    g = M.generate(10, 11, seed=4, mul_rate=0.5)
    walk = maze_snake(11, 10, 5)
    walked = {(min(a, b), max(a, b)) for a, b in zip(walk, walk[1:])}
    ops = tuple(("+", 1) if ab in walked else op for ab, op in zip(g.edges, g.ops))
    m = M.Maze("big", 11, 10, ops, 0, 109, walk)
    from puzzlesat.models.maze.common import free_part
    free = [e for e, ab in enumerate(m.edges) if ab not in walked]
    assert sum(1 for e in free if m.ops[e][0] == "*") > 30 and len(free_part(m).edges) < 20
    best, n = _oracle(m)
    _agree(m, (Status.OPTIMAL, best, n), ("native:dfs", "cpsat:time", "cpsat:segments"),
           task=Task.COUNT, time_limit=60)
