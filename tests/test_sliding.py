"""Sliding-tile puzzles: rules, parsing, checker, and every engine against SPEC §3 and oracles."""
from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.core.result import CheckError, InputError, Status
from puzzlesat.puzzles.sliding import (EASY15, Sliding, catalogue, check, default_goal, describe, infeasible_reason, korf100, manhattan, parse_inline, render, solution_json, solvable)
from oracles import sliding_walk

FAM = family("sliding")
HARDEST = (8, 6, 7, 2, 5, 4, 3, 0, 1)
HARDEST_2 = (6, 4, 7, 8, 5, 0, 3, 2, 1)
ROOT = Path(__file__).resolve().parents[1]


def oracle(rows: int, cols: int, start, goal) -> tuple[int | None, int]:
    """(shortest length, number of shortest move lists) by a plain BFS over tuples; None if unreachable."""
    start, goal = tuple(start), tuple(goal)
    dist, ways = {start: 0}, {start: 1}
    q = deque([start])
    while q:
        s = q.popleft()
        z = s.index(0)
        r, c = divmod(z, cols)
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                y = (r + dr) * cols + c + dc
                b = list(s)
                b[z], b[y] = b[y], 0
                t = tuple(b)
                if t not in dist:
                    dist[t] = dist[s] + 1
                    ways[t] = 0
                    q.append(t)
                if dist[t] == dist[s] + 1:
                    ways[t] += ways[s]
    return (dist[goal], ways[goal]) if goal in dist else (None, 0)


# ------------------------------------------------------------------ rules, parsing, checker

def test_catalogue_holds_spec_positions_and_korf_lengths():
    cat = catalogue()
    assert cat["8-hardest"]().start == HARDEST and cat["8-hardest-2"]().start == HARDEST_2
    assert cat["8-goal"]().start == default_goal(3, 3)
    korf = [n for n in cat if n.startswith("korf-")]
    assert len(korf) == 100 and korf[0] == "korf-001" and korf[-1] == "korf-100"
    k16 = cat["korf-016"]()
    assert k16.optimal == 42 and k16.goal == tuple(range(16))  # README: #16 is 42, not 44
    assert cat["korf-001"]().start == (14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3)
    assert cat["korf-001"]().optimal == 57
    lengths = [r["optimal_length"] for r in korf100()]
    assert min(lengths) == 41 and max(lengths) == 66 and sum(lengths) == 5305  # mean 53.05 (Korf 1985)
    for r in korf100():  # Manhattan recomputed here matches the published column
        inst = cat[f"korf-{r['id']:03d}"]()
        assert solvable(inst) and manhattan(inst) == r["manhattan"] <= inst.optimal


def test_parity_matches_reachability_on_2x3():
    import itertools
    reach = {p for p in itertools.permutations(range(6))
             if oracle(2, 3, p, default_goal(2, 3))[0] is not None}
    assert len(reach) == 360  # exactly half of 6! (SPEC §3)
    for p in itertools.permutations(range(6)):
        inst = Sliding("p", 2, 3, p, default_goal(2, 3))
        assert solvable(inst) == (p in reach)
        assert (infeasible_reason(inst) is None) == (p in reach)


def test_infeasible_reason_names_parity():
    inst = catalogue()["8-unsolvable"]()
    assert "parity" in infeasible_reason(inst) and "odd" in infeasible_reason(inst)
    r = solve(FAM, inst, "native", "optimize")
    assert r.status is Status.INFEASIBLE and "parity" in r.reason
    assert infeasible_reason(catalogue()["8-hardest"]()) is None


def test_checker_replays_moves():
    inst = parse_inline(2, 2, [1, 2, 0, 3])
    assert check(inst, [3]) == 1
    assert check(inst, (3,) + (2, 1, 3) * 4) == 13  # then the blank goes round the square 3 times
    with pytest.raises(CheckError, match="not the goal"):
        check(inst, [])
    with pytest.raises(CheckError, match="not next to the blank"):
        check(inst, [2])
    with pytest.raises(CheckError, match="no tile"):
        check(inst, [4])
    with pytest.raises(CheckError):
        check(inst, "x")
    assert solution_json(inst, (3,)) == {"moves": [3], "length": 1}
    assert check(catalogue()["8-goal"](), ()) == 0


def test_describe_and_render():
    inst = catalogue()["8-hardest"]()
    d = describe(inst)
    assert d["manhattan"] == 21 and d["published_optimal"] == 31 and d["solvable"]
    txt = render(inst, (1, 2))
    assert "8 6 7" in txt and "2 moves: 1 2" in txt and "." in txt


@pytest.mark.parametrize("data, field, msg", [
    ({"rows": 3, "cols": 3, "start": [1, 2, 3, 4, 5, 6, 7, 8, 8]}, "start", "exactly once"),
    ({"rows": 3, "cols": 3, "start": [1, 2, 3, 4, 5, 6, 7, 0]}, "start", "has 8 entries"),
    ({"rows": 2, "cols": 2, "start": [1, 2, 3, 0], "goal": [0, 1, 2, 2]}, "goal", "exactly once"),
    ({"rows": 2, "cols": 2, "start": [1, 2, 3, 0], "goal": [0, 1, 2, 4]}, "goal", "exactly once"),
    ({"rows": 1, "cols": 4, "start": [1, 2, 3, 0]}, "rows", "at least 2"),
    ({"rows": 3, "cols": 1, "start": [1, 2, 0]}, "cols", "at least 2"),
    ({"rows": 2, "cols": 2, "start": [1, 2, 3, "x"]}, "start", "integers"),
    ({"rows": "2", "cols": 2, "start": [1, 2, 3, 0]}, "rows", "integer"),
    ({"cols": 2, "start": [1, 2, 3, 0]}, "rows", "missing"),
    ({"rows": 2, "cols": 2, "start": [1, 2, 3, 0], "colour": 1}, "colour", "unknown key"),
])
def test_bad_input(tmp_path, data, field, msg):
    lines = ['kind = "sliding"'] + [f"{k} = {json.dumps(v)}" for k, v in data.items()]
    f = tmp_path / "bad.toml"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as e:
        load_instance(str(f))
    assert e.value.field == field and msg in str(e.value) and "bad.toml" in str(e.value)
    if field in data:  # the message points at the offending line
        assert e.value.line == 2 + list(data).index(field)


def test_toml_instance_with_goal(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('kind = "sliding"\nrows = 2\ncols = 3\nstart = [1, 2, 3, 4, 0, 5]\n'
                 'goal = [0, 1, 2, 3, 4, 5]\n')
    fam, inst = load_instance(str(f))
    assert fam.name == "sliding" and inst.goal == (0, 1, 2, 3, 4, 5)
    r = solve(fam, inst, "native:bfs", "count")
    assert (r.objective, r.count) == oracle(2, 3, inst.start, inst.goal)


# ------------------------------------------------------------------ SPEC §3: the 8-puzzle

@pytest.mark.parametrize("engine", ["native:ida", "native:bfs", "native:bidir", "native:iddfs", "sat"])
def test_8_hardest_has_40_optimal_solutions(engine):
    inst = catalogue()["8-hardest"]()
    r = solve(FAM, inst, engine, "count", time_limit=120)
    assert r.status is Status.OPTIMAL and r.objective == 31 and r.count == 40 and r.checked == 40


@pytest.mark.parametrize("engine", ["native", "cpsat"])
def test_8_hardest_2_is_31(engine):
    r = solve(FAM, catalogue()["8-hardest-2"](), engine, "optimize", time_limit=120)
    assert r.status is Status.OPTIMAL and r.objective == 31 and len(r.solutions[0]) == 31


def test_bfs_finds_both_antipodes():
    from puzzlesat.native_search.sliding.bfs import explore
    e = explore(3, 3)
    assert e.positions == 181440 and e.radius == 31
    assert set(e.farthest) == {HARDEST, HARDEST_2}
    assert e.histogram[:4] == (1, 2, 4, 8) and sum(e.histogram) == 181440


def test_explore_command():
    from click.testing import CliRunner

    from puzzlesat.cli import cli
    from puzzlesat.cli.sliding import explore
    res = CliRunner().invoke(explore, ["2x3", "--json"])
    assert res.exit_code == 0
    d = json.loads(res.output)
    assert (d["positions"], d["radius"], d["farthest"]) == (360, 21, [[4, 5, 0, 1, 2, 3]])
    for args, words in ((["1x3"], "at least 2"), (["4x4"], "at most 12 cells"), (["7x2"], "at most 12"),
                        (["2x2", "--root", "1,2,3,3"], "exactly once"), (["2x3", "--root", "1,x"], "tile numbers"),
                        (["axb"], "ROWSxCOLS")):
        res = CliRunner().invoke(cli, ["explore", *args])         # through the command line
        assert res.exit_code == 2, args
        assert res.output.count("\n") == 1 and res.output.startswith("puzzlesat: error: ") \
            and words in res.output, args
        assert "Traceback" not in res.output
    assert FAM.commands[0] == "puzzlesat.cli.sliding:explore"


def test_bfs_proves_unsolvable_by_exhaustion():
    inst = catalogue()["8-unsolvable"]()
    r = solve(FAM, inst, "native:bfs", "optimize", precheck=False)
    assert r.status is Status.INFEASIBLE and "181440" in r.reason


@pytest.mark.parametrize("engine", ["native:ida", "native:bidir", "native:iddfs", "sat", "cpsat"])
def test_unsolvable_without_precheck(engine):
    inst = Sliding("u", 4, 4, (2, 1) + tuple(range(3, 16)) + (0,), default_goal(4, 4))
    for task in ("optimize", "count"):
        r = solve(FAM, inst, engine, task, precheck=False, time_limit=30)
        assert r.status is Status.INFEASIBLE and "parity" in r.reason


# ------------------------------------------------------------------ 15-puzzle

@pytest.mark.parametrize("k", [55, 79, 42, 16, 97])
def test_korf_easiest_natively(k):
    inst = catalogue()[f"korf-{k:03d}"]()
    r = solve(FAM, inst, "native", "optimize", options={"pdb": "555"}, time_limit=60)
    assert r.status is Status.OPTIMAL and r.objective == inst.optimal


@pytest.mark.slow
@pytest.mark.parametrize("k", [55, 79, 42, 16, 97, 1, 2, 3])
def test_korf_default_pdb(k):
    inst = catalogue()[f"korf-{k:03d}"]()
    r = solve(FAM, inst, "native", "optimize", time_limit=600)
    assert r.status is Status.OPTIMAL and r.objective == inst.optimal


@pytest.mark.parametrize("name, engine", [("15-easy-10", "native:bidir"), ("15-easy-20", "native:bidir"),
                                          ("15-easy-26", "native:ida"), ("15-easy-20", "sat"),
                                          ("15-easy-20", "cpsat")])
def test_easy_15_counts(name, engine):
    inst = catalogue()[name]()
    n = EASY15[name][2]  # the optimal-solution count recorded with the position
    opts = {"pdb": "555"} if engine == "native:ida" else {}  # the 663 build is the benchmark's
    r = solve(FAM, inst, engine, "count", options=opts, time_limit=120)
    assert r.status is Status.OPTIMAL and (r.objective, r.count) == (inst.optimal, n)


def test_ida_linear_without_pdb_agrees():
    inst = catalogue()["15-easy-36"]()
    for opts in ({"pdb": "none"}, {"heuristic": "manhattan"}, {"pdb": "555"},
                 {"pdb": "555", "mirror": False}):
        r = solve(FAM, inst, "native", "count", options=opts, time_limit=60)
        assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 36, 12), opts


def test_pdb_canonical_relabel_maps_korf_goal():
    from puzzlesat.native_search.sliding.pattern_db import canonical
    inst = catalogue()["korf-001"]()
    start, goal, relabel = canonical(4, 4, inst.start, inst.goal)
    assert list(goal) == list(range(1, 16)) + [0]
    # the transformed start is the same position up to a board symmetry: same Manhattan distance
    t = Sliding("t", 4, 4, tuple(int(x) for x in start), tuple(int(x) for x in goal))
    assert manhattan(t) == manhattan(inst) and sorted(relabel) == list(range(16))


# ------------------------------------------------------------------ models and their options

@pytest.mark.parametrize("opts", [{"no_undo": False}, {"manhattan_bound": False}, {"parity_step": False},
                                  {"solver": "glucose4", "encoding": "totalizer"},
                                  {"solver": "minisat22", "encoding": "pairwise"}])
@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_model_options_keep_the_optimum(engine, opts):
    if engine == "cpsat" and "solver" in opts:
        pytest.skip("SAT-only options")
    inst = parse_inline(3, 3, [4, 1, 3, 7, 2, 6, 0, 5, 8])
    best, ways = oracle(3, 3, inst.start, inst.goal)
    r = solve(FAM, inst, engine, "count", options=opts, time_limit=60)
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, best, ways)
    for k, v in opts.items():
        assert r.params[k] == v


def test_model_time_limit_is_unknown():
    r = solve(FAM, catalogue()["korf-001"](), "sat", "optimize", time_limit=1)
    assert r.status is Status.UNKNOWN


# ------------------------------------------------------------------ random small boards

ENGINES = ["native:ida", "native:bfs", "native:bidir", "native:iddfs", "sat", "cpsat"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from([(2, 2), (2, 3), (3, 2)]), data=st.data())
def test_engines_agree_with_bfs_oracle(shape, data):
    rows, cols = shape
    n = rows * cols
    start = tuple(data.draw(st.permutations(range(n))))
    goal = tuple(data.draw(st.permutations(range(n)))) if data.draw(st.booleans()) else default_goal(rows, cols)
    inst = Sliding("h", rows, cols, start, goal)
    best, ways = oracle(rows, cols, start, goal)
    for eng in ENGINES:
        r = solve(FAM, inst, eng, "count", precheck=False, isolate=False, time_limit=60)
        if best is None:
            assert r.status is Status.INFEASIBLE, eng
        else:
            assert (r.status, r.objective, r.count) == (Status.OPTIMAL, best, ways), eng


# ------------------------------------------------------------------ numba-free run

def test_kernels_run_as_plain_python(no_jit):
    code = (
        "from puzzlesat.puzzles.sliding import parse_inline\n"
        "from puzzlesat.native_search.sliding import bfs as B, ida as S\n"
        "i = parse_inline(2, 3, [4, 5, 0, 1, 2, 3])\n"
        "print(len(B.bfs(i, True)[1]), len(S.deepen(i, 'linear', True)[1][0]),"
        " len(S.deepen(i, 'none', False)[1][0]), len(B.bidir(i, True)[1]))\n")
    stdout = no_jit(code)
    best, ways = oracle(2, 3, (4, 5, 0, 1, 2, 3), default_goal(2, 3))
    assert stdout.split() == [str(ways), str(best), str(best), str(ways)] == ["4", "21", "21", "4"]


# ------------------------------------------------------------------ other board shapes



@pytest.mark.parametrize("rows, cols, seed, engines", [
    (2, 8, 5, ["native:bidir", "native:ida", "sat"]),
    (3, 5, 7, ["native:bidir", "native:ida", "cpsat"]),
    (5, 5, 3, ["native:ida", "sat"]),
    (6, 6, 4, ["native:ida", "sat"]),
])
def test_wider_boards_agree(rows, cols, seed, engines):
    inst = sliding_walk(rows, cols, seed, 24)
    got = set()
    for eng in engines:
        # 5x5 pattern databases take minutes to build: that case is the benchmark's (bench/sliding.py)
        opts = {"pdb": "none"} if eng == "native:ida" else {}
        r = solve(FAM, inst, eng, "count", options=opts, time_limit=120)
        assert r.status is Status.OPTIMAL, (eng, r.reason)
        got.add((r.objective, r.count))
    assert len(got) == 1, got
    assert manhattan(inst) <= next(iter(got))[0] <= 24 and next(iter(got))[0] >= 22


@pytest.mark.slow
@pytest.mark.parametrize("name", ["15-easy-30", "15-easy-36", "15-easy-40"])
@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_models_on_harder_15_puzzles(engine, name):
    inst = catalogue()[name]()
    r = solve(FAM, inst, engine, "optimize", time_limit=300)
    assert r.status is Status.OPTIMAL and r.objective == inst.optimal


def test_solve_with_exhaust_explores_the_8_puzzle():
    r = solve(FAM, catalogue()["8-goal"](), "native:bfs", "optimize", options={"exhaust": True})
    assert r.status is Status.OPTIMAL and r.objective == 0
    assert (r.stats["positions"], r.stats["radius"], r.stats["farthest_count"]) == (181440, 31, 2)
    assert sorted(map(tuple, r.stats["farthest"])) == sorted([HARDEST, HARDEST_2])


def test_bidir_memory_budget_gives_unknown():
    r = solve(FAM, catalogue()["korf-001"](), "native:bidir", "optimize", options={"memory_mb": 5})
    assert r.status is Status.UNKNOWN and "memory budget" in r.reason


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pdb_on_other_4x4_goals(seed):
    """Any goal goes through a symmetry and a relabelling onto a databases' goal (the standard one
    for a blank in a corner; a blank inside gets databases of its own). Both agree with bidir."""
    import random
    rng = random.Random(seed)
    tiles = list(range(1, 16))
    rng.shuffle(tiles)
    corner = [0, 3, 12, 15][seed % 4]
    in_corner = tuple(tiles[:corner] + [0] + tiles[corner:])
    inside = tuple(tiles[:5] + [0] + tiles[5:])
    for goal in (in_corner, inside):
        inst = sliding_walk(4, 4, seed, 26, goal)
        ref = solve(FAM, inst, "native:bidir", "count", time_limit=60)
        r = solve(FAM, inst, "native", "count", options={"pdb": "555"}, time_limit=60)
        assert ref.status is Status.OPTIMAL and ref.objective >= 16
        assert (r.status, r.objective, r.count) == (Status.OPTIMAL, ref.objective, ref.count)
        assert r.stats["heuristic"] == "pdb-555+mirror"  # cell 5 is on the diagonal: mirror too


def test_generate_round_trips_and_is_solvable(tmp_path):
    from click.testing import CliRunner

    from puzzlesat.cli.sliding import generate as gen_cmd
    from puzzlesat.puzzles.sliding import generate, to_toml
    for r, c in ((2, 2), (3, 3), (2, 5), (4, 4)):
        for seed in range(5):
            inst = generate(r, c, seed)
            assert solvable(inst) and sorted(inst.start) == list(range(r * c))
    assert generate(3, 3, 7) == generate(3, 3, 7) and generate(3, 3, 7) != generate(3, 3, 8)
    f = tmp_path / "w.toml"
    res = CliRunner().invoke(gen_cmd, ["-r", "3", "-c", "3", "--walk", "12", "-s", "2", "-o", str(f)])
    assert res.exit_code == 0
    fam, inst = load_instance(str(f))
    assert inst == generate(3, 3, 2, walk=12)
    best, _ = oracle(3, 3, inst.start, inst.goal)
    assert best <= 12 and best % 2 == 0  # a 12-move walk: even distance, at most 12
    assert f.read_text() == to_toml(inst)
    with pytest.raises(InputError):
        generate(1, 5)
    for walk in (-1, 10**7 + 1, True, 2.0):   # 10**11 used to run for hours; now refused at once
        with pytest.raises(InputError, match="a number of moves from 0 to 10,000,000"):
            generate(3, 3, walk=walk)
    res = CliRunner().invoke(gen_cmd, ["--walk", str(10**11)])
    assert res.exit_code == 2 and "0<=x<=10000000" in res.output


def test_mirror_lookup_prunes_more_and_agrees():
    inst = catalogue()["korf-016"]()
    a = solve(FAM, inst, "native", "optimize", options={"pdb": "555", "mirror": False})
    b = solve(FAM, inst, "native", "optimize", options={"pdb": "555"})
    assert a.objective == b.objective == 42 and b.stats["nodes"] < a.stats["nodes"]


def test_live_node_count_refreshes_inside_an_iteration(monkeypatch):
    """The status line's node count moves during a long iteration (iddfs looked frozen between
    iterations): with the refresh interval at 0, the long iterations of 8-hardest (31 moves; bound 29
    alone generates millions of nodes) report growing counts before they end, the answer unchanged."""
    from puzzlesat.core.result import Context, Task
    from puzzlesat.native_search import live
    from puzzlesat.native_search.sliding.engines import run_iddfs
    monkeypatch.setattr(live, "REFRESH", 0.0)
    seen = []
    inst = load_instance("sliding/8-hardest")[1]
    o = run_iddfs(inst, Task.FEASIBLE, Context(options={}, progress=lambda f: seen.append(dict(f))))
    assert o.status is Status.OPTIMAL and len(o.solutions[0]) == 31
    nodes = [f["nodes"] for f in seen]
    assert nodes == sorted(set(nodes)), nodes  # never back, never the same twice
    per_bound = {b: sum(f["bound"] == b for f in seen) for b in range(1, 32, 2)}
    assert per_bound[29] >= 3, per_bound  # live reports inside bound 29, then its end
    assert live._state["hook"] is None  # the hook is this iteration's only
