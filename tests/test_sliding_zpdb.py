"""Zero-aware 1-bit pattern databases and their catalogue IDA* (native_search/sliding/zpdb.py), the
move-pruning automata (native_search/sliding/fsm.py), on boards small enough for CI (3x3 and 4x4
catalogues; the 24-puzzle's zpdb-small takes minutes to build: the slow tests and bench/sliding.py)."""
from __future__ import annotations

import json
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from puzzlesat.compare.runner import solve
from puzzlesat.core.result import InputError, Status
from puzzlesat.families.registry import family
from puzzlesat.families.sliding import ZPDB_CHOICES
from puzzlesat.native_search.sliding import fsm as F
from puzzlesat.native_search.sliding import ida as I
from puzzlesat.native_search.sliding import zpdb as Z
from puzzlesat.native_search.sliding.tables import sorted_tables, tables
from puzzlesat.puzzles.sliding import Sliding, catalogue, check, generate, parse_inline

FAM = family("sliding")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "instances" / "sliding"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty database cache, forgotten databases and catalogues in memory."""
    monkeypatch.setattr(Z, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(Z, "_LOADED", {})
    monkeypatch.setattr(Z, "_CATS", {})
    return tmp_path


def oracle(rows: int, cols: int, cells: tuple[int, ...]) -> dict:
    """Fewest pattern moves home for every (tile cells, blank region), by a breadth-first search
    over those pairs written apart from the package (regions as frozensets)."""
    n = rows * cols

    def nbrs(x):
        r, c = divmod(x, cols)
        return [(r + dr) * cols + c + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= r + dr < rows and 0 <= c + dc < cols]

    def region(occ, b):
        seen, todo = {b}, [b]
        while todo:
            x = todo.pop()
            for y in nbrs(x):
                if y not in occ and y not in seen:
                    seen.add(y)
                    todo.append(y)
        return frozenset(seen)

    start = (tuple(cells), region(set(cells), 0))
    dist = {start: 0}
    todo = deque([start])
    while todo:
        cs, reg = todo.popleft()
        for i, a in enumerate(cs):
            for b in nbrs(a):
                if b in reg:
                    ncs = cs[:i] + (b,) + cs[i + 1:]
                    st = (ncs, region(set(ncs), a))
                    if st not in dist:
                        dist[st] = dist[(cs, reg)] + 1
                        todo.append(st)
    assert all(len(set(cs)) == len(cs) for cs, _ in dist) and n > len(cells)
    return dist


@pytest.mark.parametrize("rows,cols,cells", [(3, 3, (1, 2, 5)), (3, 3, (3, 4, 6, 7)), (2, 3, (1, 2)),
                                             (4, 4, (1, 2, 3)), (3, 4, (5, 6, 11))])
def test_database_equals_an_independent_oracle(rows, cols, cells):
    """Every (placement, region) has an entry of its own (the index is a bijection onto 0..N-1)
    holding the oracle's distance, and the 1-bit walk gets every distance back."""
    key = Z.Key(rows, cols, cells)
    dist = Z.build_distances(key)
    T = Z.index_tables(rows * cols, len(cells), cols)
    ref = oracle(rows, cols, cells)
    assert len(ref) == T.entries == dist.size
    seen = set()
    bits = Z.pack_bits(dist)
    nbr, nnbr = tables(rows, cols)
    goal = np.array(cells, np.int64)
    for (cs, reg), v in ref.items():
        e = int(Z.entry(np.array(cs, np.int64), len(cs), min(reg), T.lo, T.hi, T.info, T.regtab, T.fact))
        seen.add(e)
        assert dist[e] == v
        for b in list(reg)[:2]:  # any cell of the region names it
            w = Z.walk_value(bits, np.array(cs, np.int64), b, goal, len(cs), rows * cols, cols, nbr, nnbr,
                             T.lo, T.hi, T.info, T.regtab, T.fact)
            assert w == v
    assert seen == set(range(T.entries))


def test_catalogues_cover_every_tile_once_and_share_databases():
    """Each partition holds every tile once; symmetric patterns read one database (zpdb-small: 28
    patterns, 14 databases of 181,008,000 entries = 22.6 MB each at one bit)."""
    assert set(ZPDB_CHOICES) == set(Z.CATALOGUES)
    for rows, cols, parts in Z.CATALOGUES.values():
        for p in parts:
            assert sorted(t for pat in p for t in pat) == list(range(1, rows * cols))
    units, parts = Z.catalogue_units("zpdb-small")
    assert len(parts) == 14 and len(units) == 28 and len(Z.catalogue_keys("zpdb-small")) == 14
    assert Z.Key(5, 5, (1, 2, 5, 6, 7, 12)).entries == 181_008_000
    # a transposed pattern reads the same database through the transposition
    u = Z.unit_of(5, 5, (1, 2, 3, 4, 5, 6))
    v = Z.unit_of(5, 5, tuple(sorted(Z.transpose_cell(c, 5) for c in (1, 2, 3, 4, 5, 6))))
    assert u.key == v.key and u.cmap != v.cmap


def random_walk(rows, cols, steps, rng):
    board = [0] + list(range(1, rows * cols))
    b = 0
    nbr, nnbr = tables(rows, cols)
    for _ in range(steps):
        c = int(nbr[b, rng.randrange(int(nnbr[b]))])
        board[b], board[c] = board[c], 0
        b = c
    return board


def assert_steps_exact(cat, rng, walks: int, start_steps: int, moves: int) -> None:
    """Along random walks on the 15-puzzle every unit's value after a move, from the 1-bit
    difference (`step_values`), equals its value from scratch and moves by at most one."""
    A = cat.arrays
    nbr, nnbr = tables(4, 4)
    for _ in range(walks):
        board = np.array(random_walk(4, 4, start_steps, rng), np.int64)
        vals = cat.values(board)
        for _ in range(moves):
            b = int(np.flatnonzero(board == 0)[0])
            c = int(nbr[b, rng.randrange(int(nnbr[b]))])
            v2 = Z.step_values(vals, board, b, c, 16, A["u_addr"], A["u_k"], A["u_tiles"], A["u_cmap"],
                               A["u_ibase"], A["u_fact"], A["lo"], A["hi"], A["info"], A["regtab"],
                               A["t_units"], A["t_nunits"])
            board[b], board[c] = board[c], 0
            assert (v2 == cat.values(board)).all()
            assert set(np.abs(v2 - vals).tolist()) <= {0, 1}
            vals = v2


def test_differences_equal_values_from_scratch(cache):
    """Along random walks on the 15-puzzle every unit's value after a move, from the 1-bit
    difference, equals its value from scratch (the walk to the goal), and moves one at a time."""
    assert_steps_exact(Z.catalogue("zpdb-small4"), random.Random(5), 6, 300, 40)


def bfs_distances(rows, cols, depth):
    """Every position within `depth` moves of the goal (blank on cell 0) with its distance."""
    goal = tuple(range(rows * cols))
    dist = {goal: 0}
    layer = [goal]
    nbr, nnbr = tables(rows, cols)
    for d in range(depth):
        nxt = []
        for s in layer:
            b = s.index(0)
            for e in range(int(nnbr[b])):
                c = int(nbr[b, e])
                t = list(s)
                t[b], t[c] = t[c], 0
                t = tuple(t)
                if t not in dist:
                    dist[t] = d + 1
                    nxt.append(t)
        layer = nxt
    return dist


def test_admissible_on_15_puzzle_positions_near_the_goal(cache):
    """h never exceeds the BFS distance on the 15-puzzle positions within 11 moves of the goal,
    and h0 <= the published optimum on Korf's 100 (the 4x4 analogue of zpdb-small)."""
    cat = Z.catalogue("zpdb-small4")
    for s, d in bfs_distances(4, 4, 11).items():
        assert cat.h(np.array(s, np.int64)) <= d
    korf = json.loads((SHARED / "korf100.json").read_text())["instances"] if SHARED.exists() else []
    for k in korf:
        assert cat.h(np.array(k["tiles"], np.int64)) <= k["optimal_length"]


def test_mixed_pattern_sizes_admissible_and_stepped_exactly(cache, monkeypatch):
    """A catalogue of 5-, 4- and 2-tile patterns in one partition (as zpdb-large mixes 7, 6, 5 and
    4): h <= the BFS distance within 10 moves of the 15-puzzle's goal, every unit's 1-bit step
    equals its value from scratch along a random walk, and IDA* proves korf-079's optimum."""
    parts = Z._with_transpositions((((1, 2, 3, 6, 7), (4, 5, 8, 9), (10, 11, 14, 15), (12, 13)),), 4)
    monkeypatch.setitem(Z.CATALOGUES, "mixed4", (4, 4, parts))
    cat = Z.catalogue("mixed4")
    assert sorted({u.key.k for u in cat.units}) == [2, 4, 5]
    for s, d in bfs_distances(4, 4, 10).items():
        assert cat.h(np.array(s, np.int64)) <= d
    assert_steps_exact(cat, random.Random(7), 1, 200, 60)
    inst = catalogue()["korf-079"]()
    st, sols, _, _ = I.deepen(inst, "auto", False, pdb="mixed4")
    assert st is Status.OPTIMAL and check(inst, sols[0]) == len(sols[0]) == inst.optimal


def test_bits_packed_in_slices_equal_one_pass():
    """pack_bits in slices (a 7-tile build's peak memory) gives the bytes of one np.packbits."""
    rng = np.random.default_rng(1)
    for size in (0, 1, 7, 8, 9, 1000, 4099):
        dist = rng.integers(0, 90, size).astype(np.uint8)
        want = np.packbits((dist >> 1) & 1, bitorder="little")
        for chunk in (8, 64, 1 << 27):
            assert (Z.pack_bits(dist, chunk) == want).all()


def test_8_puzzle_heuristic_admissible(cache):
    """h <= the true distance (breadth-first from the goal over all 181,440 8-puzzle positions) on
    the 1,000 farthest positions and 10,000 others drawn at random."""
    cat = Z.catalogue("zpdb-small3")
    dist = bfs_distances(3, 3, 31)
    assert len(dist) == 181440
    far = sorted(dist, key=dist.get)[-1000:]
    some = random.Random(3).sample(list(dist), 10000)
    worse = [s for s in far + some if cat.h(np.array(s, np.int64)) > dist[s]]
    assert not worse


@pytest.mark.parametrize("name", ["korf-079", "15-easy-30",
                                  pytest.param("korf-088", marks=pytest.mark.slow)])
def test_15_puzzle_optimal_with_the_zpdb_catalogue(cache, name):
    """native:ida -o pdb=zpdb-small4 (and with a move-pruning automaton) proves the published
    optimum; the solution passes the checker. The search kernel has one signature for both
    automata and for the 8-puzzle (each other one is a compile of ~7 s)."""
    inst = catalogue()[name]()
    for fsm in ("simple", "loops-12"):
        r = solve(FAM, inst, "native:ida", "optimize", options={"pdb": "zpdb-small4", "fsm": fsm},
                  time_limit=300, isolate=False)
        assert r.status is Status.OPTIMAL and r.checked == 1
        if inst.optimal is not None:
            assert r.objective == inst.optimal
    small = parse_inline(3, 3, [1, 2, 3, 4, 5, 6, 7, 0, 8])
    r = solve(FAM, small, "native:ida", "optimize", options={"pdb": "zpdb-small3"}, time_limit=300,
              isolate=False)
    assert r.status is Status.OPTIMAL and r.objective == 1
    if hasattr(Z.search, "signatures"):   # a numba dispatcher (not under NUMBA_DISABLE_JIT)
        assert len(Z.search.signatures) == 1, Z.search.signatures


def test_count_is_the_same_over_processes_and_without_pruning_automaton(cache):
    """A count finishes the last iteration: one process and a split over two give the same
    count, the same nodes generated and the same expansions (lookups depend on which partition
    pruned last, so they may differ); fsm is ignored (simple) by a count."""
    inst = catalogue()["15-easy-30"]()
    one = I.deepen(inst, "auto", True, pdb="zpdb-small4")
    two = I.deepen(inst, "auto", True, pdb="zpdb-small4", processes=2, split_depth=4)
    fsm = I.deepen(inst, "auto", True, pdb="zpdb-small4", fsm="loops-12")
    assert one[0] is two[0] is fsm[0] is Status.OPTIMAL
    assert len(one[1]) == len(two[1]) == len(fsm[1]) >= 1
    for k in ("nodes", "expanded"):
        assert one[2][k] == two[2][k] == fsm[2][k], k
    assert one[2]["lookups"] == fsm[2]["lookups"]
    for s in one[1]:
        assert check(inst, s) == 30


def test_optimize_over_two_processes_is_one_process(cache):
    """Both cores on one instance (processes=2: the two share every iteration's subtrees below the
    cut): the same first solution, nodes generated and expansions in every iteration as one
    process, whichever depth the tree is cut at."""
    for inst, fsm, depths in ((catalogue()["15-easy-30"](), "simple", (2, 9)),
                              (generate(4, 4, 11, walk=70), "loops-12", (5,))):
        one = I.deepen(inst, "auto", False, pdb="zpdb-small4", fsm=fsm)
        assert one[0] is Status.OPTIMAL and check(inst, one[1][0]) == len(one[1][0])
        for depth in depths:
            two = I.deepen(inst, "auto", False, pdb="zpdb-small4", fsm=fsm, processes=2, split_depth=depth)
            assert two[0] is Status.OPTIMAL and two[1] == one[1], depth
            for k in ("nodes", "expanded", "iterations"):
                assert two[2][k] == one[2][k], (depth, k)


def test_split_merge_counts_up_to_the_first_solution():
    """merge_split: the solution of the lowest subtree wins, whichever process found it first;
    its counts are those above the cut before it, the subtrees before it and its own up to the
    solution; a process's subtrees past it do not count."""
    rec = lambda s, g, e, tg, te: [s, g, e, 0, tg, te, 0]  # noqa: E731
    p0 = ([(1, 2)], [100, 60, 7, 0, 0], False, [3], [rec(0, 10, 5, 4, 2), rec(3, 7, 3, 9, 5)])
    p1 = ([(3, 4)], [90, 50, 8, 0, 0], False, [1], [rec(1, 20, 9, 5, 3), rec(2, 30, 11, 6, 4)])
    sols, cnt, expired = Z.merge_split([p0, p1], 40, True)
    assert sols == [(3, 4)] and not expired
    assert cnt[:3] == [5 + 10 + 20, 3 + 5 + 9, 15]
    with pytest.raises(RuntimeError, match="missing"):
        Z.merge_split([([(1, 2)], [1, 1, 1, 0, 0], False, [3], [rec(0, 1, 1, 0, 0), rec(3, 1, 1, 0, 0)])], 40, True)
    # no solution: every process walked the whole tree above the cut (the same counts there)
    p0 = ([], [50, 30, 7, 42, 0], False, [], [rec(0, 10, 5, 0, 0), rec(2, 12, 6, 0, 0)])
    p1 = ([], [48, 28, 8, 1 << 30, 0], False, [], [rec(1, 20, 9, 0, 0)])
    assert Z.merge_split([p0, p1], 40, True) == ([], [28 + 42, 19 + 20, 15, 42], False)
    p1[4][0][0] = 3  # subtree 1 searched by nobody
    with pytest.raises(RuntimeError, match="disagree"):
        Z.merge_split([p0, p1], 40, True)
    # a process past the deadline: the iteration is unfinished (no solution, expired)
    late = ([], [5, 3, 1, 42, 1], True, [], [])
    assert Z.merge_split([p0, late], 40, True)[1:] == ([55, 33, 8, 42], True)
    assert Z.merge_split([p0, late], 40, True)[0] == []


def test_goal_mapped_from_another_corner(cache):
    """A goal whose blank is in another corner is searched through a board symmetry; a goal whose
    blank is not in a corner is refused with a clear error."""
    inst = parse_inline(3, 3, [1, 2, 3, 4, 5, 6, 0, 7, 8])  # goal: blank last
    r = solve(FAM, inst, "native:ida", "optimize", options={"pdb": "zpdb-small3"}, time_limit=600)
    assert r.status is Status.OPTIMAL and r.objective == 2 and r.checked == 1
    mid = Sliding("mid", 3, 3, (1, 2, 3, 0, 4, 5, 6, 7, 8), (1, 2, 3, 4, 0, 5, 6, 7, 8))
    with pytest.raises(InputError, match="corner"):
        solve(FAM, mid, "native:ida", "optimize", options={"pdb": "zpdb-small3"}, time_limit=60)
    with pytest.raises(InputError, match="5x5"):
        solve(FAM, inst, "native:ida", "optimize", options={"pdb": "zpdb-small"}, time_limit=60)
    with pytest.raises(InputError, match="does not apply"):
        solve(FAM, inst, "native:ida", "optimize", options={"pdb": "zpdb-small3", "dual": "lookup"},
              time_limit=60)


def test_time_limit_during_the_build_is_unknown(cache):
    """A time limit that passes while the catalogue is built: UNKNOWN with the reason, and no
    database file is left behind half-written."""
    from puzzlesat.core.result import Context
    inst = catalogue()["15-easy-30"]()
    st, sols, stats, reason = I.deepen(inst, "auto", False, Context({}, time_limit=1e-3), pdb="zpdb-small4")
    assert st is Status.UNKNOWN and sols == [] and "pattern database build" in reason
    assert not [f for f in cache.iterdir() if f.name.startswith("zpdb-")]


def test_cache_rebuilds_damaged_or_foreign_files(cache):
    """A truncated, damaged or other-version database file is rebuilt, never read; the rebuilt
    file is identical."""
    key = Z.Key(3, 3, (1, 2, 4, 5))
    good = bytes(Z.database(key))
    f = Z.path(key)
    raw = f.read_bytes()
    for bad in (raw[:-1], raw[:-5] + bytes([raw[-5] ^ 1]) + raw[-4:],
                raw.replace(b'"version": 1', b'"version": 9', 1)):
        f.write_bytes(bad)
        Z._LOADED.clear()
        assert Z.read(key) is None
        assert bytes(Z.database(key)) == good
        assert f.read_bytes() == raw or Z.read(key) is not None


def test_sliding_pdb_command_builds_a_catalogue(tmp_path):
    """`puzzlesat sliding-pdb --catalogue zpdb-small3`: --estimate prints the cost and builds
    nothing; then every database is built into the user cache and listed; a second run reads
    them; an unknown catalogue: exit 2 with one line."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "puzzlesat", "sliding-pdb", *a], env=env,  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    folder = tmp_path / "puzzlesat" / "sliding"
    est = run("--catalogue", "zpdb-small3", "--estimate")
    assert est.returncode == 0 and "to build: 4 databases" in est.stdout and "min of CPU" in est.stdout
    assert not list(folder.glob("zpdb-*"))
    out = run("--catalogue", "zpdb-small3")
    assert out.returncode == 0, out.stderr
    assert len(list(folder.glob("zpdb-3x3-*.bits"))) == 4 == out.stdout.count("built in")
    again = run("--catalogue", "zpdb-small3")
    assert "every database is in the cache" in again.stdout and again.stdout.count("read from the cache") == 4
    bad = run("--catalogue", "zpdb-huge")
    assert bad.returncode == 2 and "no such zero-aware catalogue" in bad.stderr and "Traceback" not in bad.stderr


def test_rejected_pieces_have_smaller_equivalents():
    """Every rejected piece of the 3x4 board (at most 10 moves) leads where a shortlex-smaller
    path from the same cell leads (replayed on a board of distinct tiles), and no rejected piece
    is needed by a shortest path: breadth-first distances with and without the automaton agree."""
    rows, cols = 3, 4
    pieces = F.rejected(rows, cols, 10)
    assert pieces and all(len(p) >= 3 for p in pieces)

    def effect(path):
        board = list(range(rows * cols))
        board[path[0]], board[0] = 0, path[0]
        for a, b in zip(path, path[1:]):
            board[a], board[b] = board[b], 0
        return tuple(board)

    def smaller(path):
        """The shortlex-smallest path from path[0] with the same effect, by BFS."""
        start = effect(path[:1])
        seen = {start: (path[0],)}
        layer = [start]
        nbr, nnbr = sorted_tables(rows, cols)
        while layer:
            nxt = []
            for s in layer:
                p = seen[s]
                b = p[-1]
                for e in range(int(nnbr[b])):
                    c = int(nbr[b, e])
                    t = list(s)
                    t[b], t[c] = t[c], 0
                    t = tuple(t)
                    if t not in seen:
                        seen[t] = p + (c,)
                        nxt.append(t)
            layer = nxt
            if effect(path) in seen:
                return seen[effect(path)]
        raise AssertionError

    for p in random.Random(1).sample(pieces, 60):
        q = smaller(p)
        assert (len(q), q) < (len(p), p)
    nxt, start = F.automaton(rows, cols, pieces)
    # BFS over (position, automaton state): every position keeps its distance
    goal = tuple(range(rows * cols))
    plain = {goal: 0}
    pruned = {goal: 0}
    nbr, nnbr = sorted_tables(rows, cols)
    for dist, use in ((plain, False), (pruned, True)):
        layer = [(goal, int(start[0]))]
        seen = {(goal, int(start[0]))}
        for d in range(12):
            nl = []
            for s, st in layer:
                b = s.index(0)
                for e in range(int(nnbr[b])):
                    ns = int(nxt[st, e]) if use else 0
                    if use and ns < 0:
                        continue
                    c = int(nbr[b, e])
                    t = list(s)
                    t[b], t[c] = t[c], 0
                    t = tuple(t)
                    dist.setdefault(t, d + 1)
                    if (t, ns) not in seen:
                        seen.add((t, ns))
                        nl.append((t, ns))
            layer = nl
    assert plain == pruned


def test_no_jit_build_and_search(no_jit, tmp_path, cache):
    """The database build, the 1-bit walk and the catalogue kernel also run without numba: the
    same optimal solutions, nodes and expansions as compiled."""
    code = (
        "from puzzlesat.puzzles.sliding import generate\n"
        "from puzzlesat.native_search.sliding import ida as S\n"
        "r = S.deepen(generate(3, 3, 7, walk=30), 'auto', True, pdb='zpdb-small3')\n"
        "print(r[2]['heuristic'], sorted(r[1]), r[2]['nodes'], r[2]['expanded'])\n"
        "r = S.deepen(generate(3, 3, 7, walk=30), 'auto', False, pdb='zpdb-small3', processes=2, split_depth=3)\n"
        "print(r[1], r[2]['nodes'], r[2]['expanded'])\n")
    stdout = no_jit(code, env={"XDG_CACHE_HOME": str(tmp_path)})
    inst = generate(3, 3, 7, walk=30)
    r = I.deepen(inst, "auto", True, pdb="zpdb-small3")
    first = I.deepen(inst, "auto", False, pdb="zpdb-small3")
    assert stdout.strip().splitlines() == [f"{r[2]['heuristic']} {sorted(r[1])} {r[2]['nodes']} {r[2]['expanded']}",
                                           f"{first[1]} {first[2]['nodes']} {first[2]['expanded']}"]
    assert len(r[1][0]) >= 10 and all(check(inst, x) == len(x) for x in r[1])
    assert list((tmp_path / "puzzlesat" / "sliding").glob("zpdb-3x3-*.bits"))


@pytest.mark.slow
def test_24_puzzle_admissible_near_the_goal_and_on_korf_felner():
    """zpdb-small (built once, minutes): h <= BFS distance within 10 moves of the goal and
    h0 <= the published optimum of Korf & Felner's 50."""
    cat = Z.catalogue("zpdb-small")
    for s, d in bfs_distances(5, 5, 10).items():
        assert cat.h(np.array(s, np.int64)) <= d
    for name, f in catalogue().items():
        if name.startswith("kf24-"):
            inst = f()
            assert cat.h(np.array(inst.start, np.int64)) <= inst.optimal


def test_a_cache_that_cannot_be_written_keeps_the_database_in_memory(cache, monkeypatch):
    """The zero-aware database built where the cache cannot be written (a file in the way): used
    from memory, the same bits as a cached one, `info` says it was not kept."""
    key = Z.Key(3, 3, (1, 2, 4, 5))
    want = bytes(Z.database(key))
    Z._LOADED.clear()
    (cache / "file").write_text("mine\n")
    monkeypatch.setattr(Z, "cache_dir", lambda: cache / "file" / "sliding")
    info: dict = {}
    assert bytes(Z.database(key, info=info)) == want
    assert info[key.filename()]["source"].startswith("built, not cached (")
