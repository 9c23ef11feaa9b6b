"""Dual lookups and dual search (DIDA*) over pattern databases: admissible on every state of small
boards (against BFS distances, for every blank object), optimal and checked solutions, exact
counts; partitions combined by max. Small databases only (the biggest here has 16P5 entries)."""
from __future__ import annotations

import random
from collections import deque

import numpy as np
import pytest

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.sliding import dida as D
from puzzlesat.native_search.sliding import ida as I
from puzzlesat.native_search.sliding import pattern_db as P
from puzzlesat.native_search.sliding.tables import pc16
from puzzlesat.native_search.sliding.tables import tables as board_tables
from puzzlesat.core.result import Status
from puzzlesat.puzzles.sliding import Sliding, catalogue

FAM = family("sliding")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty database cache, forgotten databases in memory."""
    monkeypatch.setattr(P, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(P, "_LOADED", {})
    D._TABLES.clear()
    yield tmp_path
    D._TABLES.clear()


def distances(rows: int, cols: int, beta: int) -> dict:
    """BFS distance to the identity of every permutation (cell -> object) reachable from it, the
    object `beta` being the blank (written independently of the package)."""
    n = rows * cols
    start = tuple(range(n))
    dist = {start: 0}
    todo = deque([start])
    while todo:
        s = todo.popleft()
        b = s.index(beta)
        r, c = divmod(b, cols)
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                y = (r + dr) * cols + c + dc
                t = list(s)
                t[b], t[y] = t[y], beta
                t = tuple(t)
                if t not in dist:
                    dist[t] = dist[s] + 1
                    todo.append(t)
    return dist


CASES = [  # board, partition (goal cells of the frame, blank goal at the last cell), blank objects
    (2, 3, ((0, 1, 3), (2, 4)), range(6)),
    (2, 4, ((0, 1, 4), (2, 3, 5, 6)), range(8)),
    (3, 3, ((0, 1, 3, 4), (2, 5, 6, 7)), (8, 4)),
]


@pytest.mark.parametrize("rows,cols,partition,betas", CASES)
@pytest.mark.parametrize("fill", [False, True, "smallest"])
def test_dual_lookup_admissible_on_every_state(cache, rows, cols, partition, betas, fill):
    """For every blank object and every reachable state, the larger of the regular and the dual
    value (each the larger over the partition and its mirror image) is at most the BFS distance;
    the dual raises h on some states and h is exact on some. 'smallest': only the smallest
    pattern filled (dual_fill_max), the others lose the tile."""
    n = rows * cols
    if fill == "smallest":
        fill = min(len(p) for p in partition)
    t = D.tables(rows, cols, [partition], n - 1, mirror=True, dual=True, fill=fill)
    args = (n, t.dbs, t.lk_obj, t.lk_len, t.lk_map, t.lk_off, pc16(), t.npat, t.fl)
    raised = exact = 0
    for beta in betas:
        for s, d in distances(rows, cols, beta).items():
            x = np.array(s, np.int64)
            h1 = D.heuristic2(x, beta, 0, *args)
            h2 = D.heuristic2(x, beta, 1, *args)
            assert h1 <= h2 <= d, (s, beta, h1, h2, d)
            raised += h2 > h1
            exact += h2 == d
    assert raised > 0 and exact > 0


def _random(rows: int, cols: int, seed: int, goal=None) -> Sliding:
    rng = random.Random(seed)
    goal = tuple(goal) if goal is not None else tuple(list(range(1, rows * cols)) + [0])
    b = list(goal)
    nbr, nnbr = board_tables(rows, cols)
    for _ in range(300):
        z = b.index(0)
        c = int(nbr[z, rng.randrange(int(nnbr[z]))])
        b[z], b[c] = b[c], 0
    return Sliding(f"r{seed}", rows, cols, tuple(b), goal, None)


@pytest.mark.parametrize("seed", range(6))
def test_dual_search_and_lookup_optimal_like_bfs(cache, seed):
    """3x3 (4-4 databases) with goals of every blank corner: dual lookup and DIDA* (with and without
    fill) prove the BFS optimum, every solution checked; a count with dual lookups (and with
    dual=search, run as lookups) equals BFS's count."""
    goals = [None, list(range(9)), [2, 1, 0, 3, 4, 5, 6, 7, 8], [7, 8, 6, 4, 5, 3, 0, 2, 1]]
    inst = _random(3, 3, seed, goals[seed % 4])
    ref = solve(FAM, inst, "native:bfs", "count", isolate=False)
    for dual in ("lookup", "search"):
        for fill in (False, True):
            opts = {"pdb": "44", "dual": dual, "dual_fill": fill}
            r = solve(FAM, inst, "native:ida", "optimize", options=opts, isolate=False)
            assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, ref.objective, 1)
            assert r.stats["dual"] == dual
            c = solve(FAM, inst, "native:ida", "count", options=opts, isolate=False)
            assert (c.status, c.objective, c.count) == (Status.OPTIMAL, ref.objective, ref.count)
            assert c.stats["dual"] == "lookup"


def test_dual_fill_max_fills_only_the_small_patterns(cache):
    """dual_fill_max=k: a pattern of at most k tiles gets the frame's blank object in place of the
    dual blank object, a larger one loses the tile; k = 0 fills all (dual_fill=true)."""
    part = [((0, 1, 3, 4, 6), (2, 5, 7))]  # 3x3, frame blank at cell 8

    def sizes(fill):
        keys = D.needed_keys(3, 3, part, 8, False, True, fill)
        return sorted({len(k.cells) for k in keys})
    assert sizes(False) == [2, 3, 4, 5]
    assert sizes(True) == [3, 5]
    assert sizes(3) == [3, 4, 5]
    assert sizes(2) == sizes(False)
    # assembled tables are remembered per process: fill=True and fill=1 (equal as keys) stay apart
    every = D.tables(3, 3, part, 8, False, True, fill=True)
    one = D.tables(3, 3, part, 8, False, True, fill=1)
    assert sorted({len(k.cells) for k in every.keys}) == [3, 5]
    assert sorted({len(k.cells) for k in one.keys}) == sizes(1) == sizes(False)


@pytest.mark.parametrize("seed", range(4))
def test_dual_fill_max_search_optimal_like_bfs(cache, seed):
    """A 5-3 partition of the 8-puzzle with the 3-tile pattern filled and the 5-tile one losing the
    tile (dual_fill_max=3): dual lookups and DIDA* prove BFS's optimum, every solution checked,
    and a count equals BFS's count (the kernel's incremental lookups across mixed patterns)."""
    goals = [None, list(range(9)), [2, 1, 0, 3, 4, 5, 6, 7, 8], [7, 8, 6, 4, 5, 3, 0, 2, 1]]
    inst = _random(3, 3, 100 + seed, goals[seed])
    ref = solve(FAM, inst, "native:bfs", "count", isolate=False)
    for dual in ("lookup", "search"):
        opts = {"pdb": "53", "dual": dual, "dual_fill": True, "dual_fill_max": 3}
        r = solve(FAM, inst, "native:ida", "optimize", options=opts, isolate=False)
        assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, ref.objective, 1)
        c = solve(FAM, inst, "native:ida", "count", options=opts, isolate=False)
        assert (c.status, c.objective, c.count) == (Status.OPTIMAL, ref.objective, ref.count)


@pytest.mark.parametrize("seed", range(4))
def test_child_order_keeps_optima_counts_and_the_work_of_a_count(cache, seed):
    """order=manhattan (children by the moved tile's Manhattan change): BFS's optimum with a checked
    solution, with and without dual lookups and DIDA*; a count equals BFS's, and without the dual
    (no BPMX cut-offs, whose place depends on the order) generates exactly the same nodes."""
    goals = [None, list(range(9)), [2, 1, 0, 3, 4, 5, 6, 7, 8], [7, 8, 6, 4, 5, 3, 0, 2, 1]]
    inst = _random(3, 3, 200 + seed, goals[seed])
    ref = solve(FAM, inst, "native:bfs", "count", isolate=False)
    for dual in ("off", "lookup", "search"):
        opts = {"pdb": "44", "dual": dual, "dual_fill": True, "order": "manhattan"}
        r = solve(FAM, inst, "native:ida", "optimize", options=opts, isolate=False)
        assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, ref.objective, 1)
        assert r.params["order"] == "manhattan"
        c = solve(FAM, inst, "native:ida", "count", options=opts, isolate=False)
        assert (c.status, c.objective, c.count) == (Status.OPTIMAL, ref.objective, ref.count)
        if dual == "off":
            b = solve(FAM, inst, "native:ida", "count", options={**opts, "order": "board"}, isolate=False)
            assert b.count == c.count and b.stats["nodes"] == c.stats["nodes"]


def test_dual_search_on_fifteen_puzzles(cache):
    """Korf's instances with the 5-5-5 databases: every dual setting finds the published optimum;
    dual lookups generate fewer nodes than none over the four."""
    cat = catalogue()
    nodes = {}
    for dual in ("off", "lookup", "search"):
        nodes[dual] = 0
        for name in ("korf-016", "korf-079", "korf-053", "15-easy-40"):
            inst = cat[name]()
            r = solve(FAM, inst, "native", "optimize", options={"pdb": "555", "dual": dual},
                      isolate=False)
            assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, inst.optimal, 1)
            nodes[dual] += r.stats["nodes"]
    assert nodes["lookup"] < nodes["off"]


def test_heuristic_at_most_the_optimum_on_the_catalogue(cache):
    """h of every 3x3 and 4x4 catalogue start with a known optimum (4-4 / 5-5-5, mirror, dual
    lookups; with the filled variant too on 3x3) is at most that optimum."""
    for name, make in catalogue().items():
        inst = make()
        if inst.optimal is None or inst.rows * inst.cols not in (9, 16):
            continue
        for fill in ((False, True) if inst.rows == 3 else (False,)):
            pr = I.problem(inst, "auto", "44" if inst.rows == 3 else "555", True, dual="lookup", fill=fill)
            assert pr.h0() <= inst.optimal, name


@pytest.mark.slow
def test_heuristic_at_most_the_optimum_on_korf_felner_24():
    """With the 6-6-6-6 databases (built once, minutes) and dual lookups, h of each of Korf &
    Felner's 50 starts is at most its published optimum."""
    for i in range(1, 51):
        inst = catalogue()[f"kf24-{i:02d}"]()
        assert I.problem(inst, "auto", "6666", True, dual="lookup").h0() <= inst.optimal


def test_max_over_partitions(cache, monkeypatch):
    """pdb=555+rows (a second partition: the four rows) takes the larger sum: h is the larger of
    the two partitions' at every start, the optimum unchanged."""
    rows4 = ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14))
    monkeypatch.setitem(P.PARTITIONS, (4, 4), {**P.PARTITIONS[(4, 4)], "rows": rows4})
    larger = 0
    for name in ("korf-016", "korf-079", "15-easy-40", "korf-001"):
        inst = catalogue()[name]()
        hs = {p: I.problem(inst, "auto", p, True).h0() for p in ("555", "rows", "555+rows")}
        assert hs["555+rows"] == max(hs["555"], hs["rows"])
        larger += hs["rows"] > hs["555"]
    r = I.deepen(catalogue()["korf-079"](), "auto", False, pdb="555+rows")
    assert r[0] is Status.OPTIMAL and len(r[1][0]) == catalogue()["korf-079"]().optimal
    assert r[2]["heuristic"] == "pdb-555+rows+mirror"


def test_sliding_pdb_command_builds_the_dual_databases(tmp_path):
    """`puzzlesat sliding-pdb --board 3x3 --partition 44 --dual` builds the partition's databases
    and those of its patterns minus each tile, into the user cache; a bad partition: exit 2."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "puzzlesat", "sliding-pdb", "--board", "3x3", "--partition",
                          "44", "--dual"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    files = list((tmp_path / "puzzlesat" / "sliding").glob("pdb-3x3-*.bin"))
    want = D.needed_keys(3, 3, [P.PARTITIONS[(3, 3)]["44"]], 8, True, True)
    assert len(files) == len(want) > 2 and "built in" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "puzzlesat", "sliding-pdb", "--board", "4x4", "--partition",
                          "99"], env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "not defined for 4x4" in bad.stderr
