"""Sliding-tile pattern databases, IDA* limits and parallel IDA*, on boards small enough for CI
(the 6-6-6-6 24-puzzle databases take minutes: bench/sliding.py --kf24 and the slow test)."""
from __future__ import annotations

import json
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.sliding import dida as D
from puzzlesat.native_search.sliding import ida as I
from puzzlesat.native_search.sliding import pattern_db as P
from puzzlesat.core.result import Context, InputError, Status
from puzzlesat.puzzles.sliding import KF24_GOAL, catalogue, korf_felner24, manhattan, solvable
from oracles import sliding_walk

FAM = family("sliding")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty database cache, forgotten databases in memory."""
    monkeypatch.setattr(P, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(P, "_LOADED", {})
    D._TABLES.clear()
    yield tmp_path
    D._TABLES.clear()


def oracle_pdb(rows: int, cols: int, cells: tuple[int, ...]) -> dict:
    """Fewest pattern-tile moves to home for every placement of the pattern (goal cells `cells`,
    blank at the last cell): a 0-1 BFS over (placement, blank) written independently of the
    package, minimised over the blank."""
    n = rows * cols
    start = (tuple(cells), n - 1)
    dist = {start: 0}
    dq = deque([start])
    while dq:
        s = dq.popleft()
        place, b = s
        r, c = divmod(b, cols)
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if not (0 <= r + dr < rows and 0 <= c + dc < cols):
                continue
            y = (r + dr) * cols + c + dc
            if y in place:
                t = (tuple(b if p == y else p for p in place), y)
                w = 1
            else:
                t = (place, y)
                w = 0
            if t not in dist or dist[t] > dist[s] + w:
                dist[t] = dist[s] + w
                (dq.appendleft if w == 0 else dq.append)(t)
    best: dict = {}
    for (place, _), d in dist.items():
        best[place] = min(best.get(place, 99), d)
    return best


def test_database_matches_an_independent_oracle(cache):
    """Every entry of the 3x3 and a 4x4 database equals the oracle's value (symmetric patterns
    read one database through a board symmetry)."""
    for rows, cols, patterns in ((3, 3, P.PARTITIONS[(3, 3)]["44"]), (4, 4, ((0, 1, 4), (2, 3, 7)))):
        n = rows * cols
        h = D.tables(rows, cols, [patterns], n - 1, mirror=False, dual=False)
        for p, cells in enumerate(patterns):
            ref = oracle_pdb(rows, cols, cells)
            assert len(ref) == P.partial_count(n, len(cells))
            for place, v in ref.items():
                pos = np.zeros(n, np.int64)  # object (its goal cell) -> cell
                for cell, goal_cell in zip(place, cells):
                    pos[goal_cell] = cell
                got = D._lookup(pos, h.fl[0, n - 1, p], n, h.dbs, h.lk_obj, h.lk_len, h.lk_map,
                                h.lk_off, P.pc16())
                assert got == v, (cells, place)
    # the two 4x4 corner patterns are mirror images: one database serves both
    assert len(D.tables(4, 4, [((0, 1, 4), (2, 3, 7))], 15, mirror=False, dual=False).keys) == 1


def test_partitions_share_databases_by_symmetry():
    """Korf & Felner's 24-puzzle partition needs two databases (three 2x3 blocks are one up to
    symmetry), 6-6-3 three; the frame partition is the published one turned by 180 degrees."""
    keys = {P.key_of(5, 5, c)[0] for c in P.PARTITIONS[(5, 5)]["6666"]}
    assert len(keys) == 2 and all(k.entries == 127_512_000 for k in keys)
    assert sorted(len(c) for c in P.PARTITIONS[(5, 5)]["6666"]) == [6, 6, 6, 6]
    assert sorted(sorted(24 - c for c in p) for p in P.PARTITIONS[(5, 5)]["6666"]) == \
        sorted(sorted(p) for p in P.KF24)
    assert len({P.key_of(4, 4, c)[0] for c in P.PARTITIONS[(4, 4)]["663"]}) == 3
    assert [P.key_of(4, 4, c)[0].entries for c in P.PARTITIONS[(4, 4)]["78"]] == [518_918_400, 57_657_600]


def test_every_partition_covers_each_tile_once():
    """An additive heuristic needs disjoint patterns: every built-in partition of a board covers
    each cell but the blank's goal cell (the last) exactly once; 78b is its own mirror image."""
    for (rows, cols), parts in P.PARTITIONS.items():
        for name, pats in parts.items():
            cells = sorted(c for p in pats for c in p)
            assert cells == list(range(rows * cols - 1)), (rows, cols, name)
    refl = P.mirror_cells(4, 4)
    assert {tuple(sorted(refl[c] for c in p)) for p in P.PARTITIONS[(4, 4)]["78b"]} == \
        set(P.PARTITIONS[(4, 4)]["78b"])


def test_cache_rejects_missing_truncated_damaged_and_other_versions(cache):
    key = P.key_of(3, 3, (0, 1, 3, 4))[0]
    assert P.read(key) is None  # missing
    info: dict = {}
    db = P.database(key, info=info)
    assert info[key.filename()]["source"] == "built" and P.read(key) is not None
    f = P.path(key)
    good = f.read_bytes()
    f.write_bytes(good[:-7])  # truncated
    assert P.read(key) is None
    bad = bytearray(good)
    bad[-3] ^= 1  # damaged
    f.write_bytes(bytes(bad))
    assert P.read(key) is None
    head, body = good.split(b"\n", 1)
    h = json.loads(head)
    h["version"] = P.VERSION - 1  # written by another version
    f.write_bytes(json.dumps(h).encode() + b"\n" + body)
    assert P.read(key) is None
    f.write_bytes(b"garbage")
    assert P.read(key) is None
    P._LOADED.clear()
    info = {}
    again = P.database(key, info=info)  # rebuilt, not trusted
    assert info[key.filename()]["source"] == "built" and (again == db).all()
    assert P.read(key) is not None
    P._LOADED.clear()
    info = {}
    P.database(key, info=info)
    assert info[key.filename()]["source"] == "cache"




@pytest.mark.parametrize("seed", range(4))
def test_8_puzzle_pdb_ida_counts_like_bfs(cache, seed):
    """IDA* over the 3x3 4-4 databases (and their mirror) counts the optimal solutions BFS counts,
    for goals with the blank in any corner."""
    goal = [[1, 2, 3, 4, 5, 6, 7, 8, 0], list(range(9)), [2, 1, 0, 3, 4, 5, 6, 7, 8],
            [7, 8, 6, 4, 5, 3, 0, 2, 1]][seed]
    inst = sliding_walk(3, 3, seed, 30, goal)
    ref = solve(FAM, inst, "native:bfs", "count", isolate=False)
    for mirror in (True, False):
        r = solve(FAM, inst, "native:ida", "count", options={"pdb": "44", "mirror": mirror}, isolate=False)
        assert (r.status, r.objective, r.count) == (Status.OPTIMAL, ref.objective, ref.count)
        assert r.stats["heuristic"] == "pdb-44" + ("+mirror" if mirror else "")


@pytest.mark.parametrize("blank", range(9))
def test_8_puzzle_pdb_any_goal_blank(cache, blank):
    """Goals with the blank on any cell (edges and centre get databases of their own, the mirror
    only where the diagonal reflection keeps the blank): IDA* counts what BFS counts."""
    rng = random.Random(blank)
    tiles = list(range(1, 9))
    rng.shuffle(tiles)
    goal = tiles[:blank] + [0] + tiles[blank:]
    inst = sliding_walk(3, 3, 100 + blank, 30, goal)
    ref = solve(FAM, inst, "native:bfs", "count", isolate=False)
    r = solve(FAM, inst, "native:ida", "count", options={"pdb": "44"}, isolate=False)
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, ref.objective, ref.count)
    assert r.stats["heuristic"] == "pdb-44" + ("+mirror" if blank in (0, 2, 4, 6, 8) else "")


def test_24_puzzle_frame_with_small_patterns(cache, monkeypatch):
    """The 5x5 path (Korf & Felner's blank-first goal turned onto the frame, symmetric lookups,
    mirror) with 3-tile patterns that build in a second: the same optimum and count as Manhattan +
    linear conflicts."""
    tiny = tuple(tuple(range(i, min(i + 3, 24))) for i in range(0, 24, 3))
    monkeypatch.setitem(P.PARTITIONS, (5, 5), {**P.PARTITIONS[(5, 5)], "t3": tiny})
    inst = sliding_walk(5, 5, 11, 26, KF24_GOAL)
    a = I.deepen(inst, "auto", True, pdb="t3")
    b = I.deepen(inst, "linear", True, pdb="none")
    assert a[0] is b[0] is Status.OPTIMAL and a[2]["heuristic"] == "pdb-t3+mirror"
    assert len(a[1][0]) == len(b[1][0]) and sorted(a[1]) == sorted(b[1])


def test_pdb_option_is_checked_per_board():
    with pytest.raises(InputError, match="no such partition for 4x4"):
        solve(FAM, catalogue()["korf-001"](), "native", "optimize", options={"pdb": "6666"}, isolate=False)
    with pytest.raises(InputError, match="no such partition for 5x5"):
        solve(FAM, catalogue()["kf24-25"](), "native", "optimize", options={"pdb": "663"}, isolate=False)
    with pytest.raises(InputError, match="choose one of"):
        solve(FAM, catalogue()["korf-001"](), "native", "optimize", options={"pdb": "99"}, isolate=False)
    with pytest.raises(InputError, match="no such partition for 4x4 boards: 6666"):
        solve(FAM, catalogue()["korf-001"](), "native", "optimize", options={"pdb": "555+6666"},
              isolate=False)


def test_time_limit_during_a_database_build(cache):
    inst = catalogue()["8-hardest"]()
    ctx = Context({}, time_limit=0.0)
    st, sols, stats, reason = I.deepen(inst, "auto", False, ctx, pdb="44")
    assert st is Status.UNKNOWN and sols == [] and "pattern database build" in reason
    assert not P.path(P.key_of(3, 3, (0, 1, 3, 4))[0]).exists()  # nothing half-written


def test_time_limit_inside_an_iteration():
    """Korf #88 (65 moves) takes Manhattan-only IDA* minutes: a 1 s limit stops inside an
    iteration with UNKNOWN, and the bound reached is a true lower bound."""
    inst = catalogue()["korf-088"]()
    r = solve(FAM, inst, "native", "optimize", options={"heuristic": "manhattan"}, time_limit=1,
              isolate=False)
    assert r.status is Status.UNKNOWN and "time limit inside the iteration" in r.reason
    # isolate=False: nothing but the engine itself stops it (a generous guard against a hang,
    # not a speed claim: the search runs for minutes without its own check)
    assert r.seconds < 60 and manhattan(inst) <= r.stats["lower_bound"] <= 65
    r2 = solve(FAM, inst, "native", "optimize", options={"heuristic": "manhattan", "processes": 2},
               time_limit=1, isolate=False)
    assert r2.status is Status.UNKNOWN and r2.seconds < 60


@pytest.mark.parametrize("name", ["15-easy-36", "korf-016"])
def test_parallel_ida_counts_like_one_process(name):
    """Counting finishes every iteration, so two processes see exactly the same tree: the same
    solutions and the same node count."""
    inst = catalogue()[name]()
    opts = {"pdb": "555"} if name == "korf-016" else {"pdb": "none"}
    a = solve(FAM, inst, "native", "count", options=opts, isolate=False)
    b = solve(FAM, inst, "native", "count", options={**opts, "processes": 2}, isolate=False)
    assert a.status is b.status is Status.OPTIMAL and a.objective == b.objective == inst.optimal
    assert a.count == b.count and sorted(a.solutions) == sorted(b.solutions)
    assert a.stats["nodes"] == b.stats["nodes"] and b.stats["processes"] == 2


def test_korf_felner_24_catalogue():
    """The 50 instances of Korf & Felner (2002): published optima 81..114, mean 100.78; #25 is 81
    and #40 82 moves; all solvable, Manhattan as published."""
    cat = catalogue()
    names = [n for n in cat if n.startswith("kf24-")]
    assert names == [f"kf24-{i:02d}" for i in range(1, 51)]
    opt = [r["optimal_length"] for r in korf_felner24()]
    assert (min(opt), max(opt), sum(opt)) == (81, 114, 5039)
    assert cat["kf24-25"]().optimal == 81 and cat["kf24-40"]().optimal == 82
    for r in korf_felner24():
        inst = cat[f"kf24-{r['id']:02d}"]()
        assert inst.goal == tuple(range(25)) and solvable(inst) and manhattan(inst) == r["manhattan"]


def test_pdb_build_runs_as_plain_python(tmp_path, no_jit):
    """The database build and the PDB kernel also run without numba (NUMBA_DISABLE_JIT)."""
    code = (
        "from puzzlesat.puzzles.sliding import parse_inline\n"
        "from puzzlesat.native_search.sliding import ida as S\n"
        "i = parse_inline(3, 3, [0, 1, 3, 4, 2, 5, 7, 8, 6])\n"
        "r = S.deepen(i, 'auto', True, pdb='44')\n"
        "print(r[2]['heuristic'], len(r[1]), len(r[1][0]))\n")
    stdout = no_jit(code, env={"XDG_CACHE_HOME": str(tmp_path)})
    assert stdout.split() == ["pdb-44+mirror", "1", "4"]
    assert list((tmp_path / "puzzlesat" / "sliding").glob("pdb-3x3-*.bin"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["kf24-25", "kf24-40"])
def test_24_puzzle_easiest_optimal(name):
    """Builds (once, minutes) and uses the 6-6-6-6 databases: Korf & Felner's published optimum."""
    inst = catalogue()[name]()
    r = solve(FAM, inst, "native", "optimize", options={"processes": 2}, time_limit=3600)
    assert r.status is Status.OPTIMAL and r.objective == inst.optimal and r.checked == 1


def test_all_square_symmetries_are_distinct():
    for rows, cols in ((3, 3), (4, 4), (5, 5), (2, 3)):
        syms = P.symmetries(rows, cols)
        assert len({tuple(g) for g in syms}) == (8 if rows == cols else 4)
        assert syms[0] == list(range(rows * cols))
        for g in syms:
            assert sorted(g) == list(range(rows * cols))


def test_published_node_counts_of_korf_felner_24():
    """The per-instance counts copied into the instance data: Korf & Felner's sum over the 50 as
    published (18,044,623,983,548), the best count never above theirs nor Doebbelin et al.'s
    6-6-6-6; and Clausecker's 14 unsolved 24-puzzles are in the catalogue, all solvable."""
    from puzzlesat.puzzles.sliding import clausecker_unsolved24
    recs = korf_felner24()
    assert sum(r["published_nodes"]["korf_felner_2002"] for r in recs) == 18_044_623_983_548
    for r in recs:
        pn = r["published_nodes"]
        assert pn["best"] <= min(pn["korf_felner_2002"], pn["dsr_6666"]) and pn["best_source"]
    assert len(clausecker_unsolved24()) == 14
    assert all(solvable(catalogue()[f"c24u-{i:02d}"]()) for i in range(1, 15))


def test_a_cache_that_cannot_be_written_costs_the_cache_not_the_answer(cache, monkeypatch):
    """A read-only or misplaced cache folder (XDG_CACHE_HOME under a file, say): the databases
    and the move-pruning automaton are built and used from memory, `info` says they were not
    kept, and the search answers as with a cache (it used to end in ERROR after the build)."""
    from puzzlesat.native_search.sliding import fsm
    (cache / "file").write_text("mine\n")
    key = P.key_of(3, 3, (0, 1, 3, 4))[0]
    want = bytes(P.database(key))
    P._LOADED.clear()
    monkeypatch.setattr(P, "cache_dir", lambda: cache / "file" / "sliding")
    info: dict = {}
    assert bytes(P.database(key, info=info)) == want
    assert info[key.filename()]["source"].startswith("built, not cached (") and P.read(key) is None
    nxt, start = fsm.loops(3, 3, 6, cache / "file" / "fsm")
    monkeypatch.setattr(fsm, "_MEMO", {})
    same = fsm.loops(3, 3, 6, cache / "kept")
    assert (nxt == same[0]).all() and (start == same[1]).all()
    assert sorted(p.name for p in cache.iterdir()) == sorted(["file", "kept", key.filename()])
    P._LOADED.clear()
    from puzzlesat.families.instances import load_instance
    r = solve(FAM, load_instance("sliding/8-hardest")[1], "native:ida", options={"pdb": "44"},
              isolate=False)
    assert (r.status.value, r.objective, r.checked) == ("OPTIMAL", 31, 1), r.reason
    assert r.stats["pdb"] and all(v["source"].startswith("built, not cached")
                                  for v in r.stats["pdb"].values()), r.stats["pdb"]
