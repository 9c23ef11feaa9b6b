"""Disk layers of the peg searches: the same layers as in memory, resuming, disk limits; and the
Merson bound that prunes them (admissible against exact distances on small boards)."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.peg import bfs, bound, disk
from puzzlesat.native_search.peg.disk import LayerBuilder, Store
from puzzlesat.core.result import Context, Status
from puzzlesat.puzzles.peg import PegInstance, board, catalogue, check

CAT = catalogue()


def _layers(inst: PegInstance, backward: bool, store: Store | None, limit: int | None = None,
            counters: dict | None = None):
    sp = bfs.Space(inst, bfs.group_for(inst, symmetry=True, with_finish=False))
    root = sp.canon([bfs._bits(inst.finish if backward else inst.start)])
    return [np.array(x) for x in bfs.layers(sp, root, backward, counters, limit, store=store,
                                                prefix="b" if backward else "f")]


# ---- the layer builder ------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5000), max_size=3000), min_size=1, max_size=12),
       st.lists(st.integers(0, 5000), max_size=2000), st.integers(0, 2))
def test_builder_on_disk_equals_the_sorted_set(tmp_path_factory, chunks, prev, skew):
    """Chunks through a builder with no memory (every range on disk, ranges cut again when they
    outgrow the budget) = the sorted union minus the earlier layers."""
    store = Store(tmp_path_factory.mktemp("b"), {"t": 1}, memory=0)
    prev_a = np.unique(np.array(prev, np.uint64))
    b = LayerBuilder(store, "x", bfs.merge_unique, bfs._minus)
    want: set[int] = set()
    for c in chunks:
        a = np.array(c, np.uint64)
        if skew:  # most values in one narrow range: forces ranges to be cut again
            a = np.where(a % 3 > 0, a % 7 + 100 * skew, a)
        want |= set(a.tolist())
        b.add(bfs._unique(a))
    got = b.finish([prev_a])
    assert np.array(got).tolist() == sorted(want - set(prev))
    assert not list(store.folder().glob("tmp-*"))          # the scratch files are gone
    assert store.disk == sum(p.stat().st_size for p in store.folder().glob("*.u64"))


# ---- disk layers = memory layers ----------------------------------------------------------------
@pytest.mark.parametrize("name, backward, limit", [("triangle21", False, None), ("triangle21", True, None),
                                                   ("english33", False, 8), ("hoppers", True, None)])
def test_disk_layers_equal_memory_layers(tmp_path, name, backward, limit):
    inst = CAT[name]()
    mem = _layers(inst, backward, None, limit)
    counters = {"nodes": 0}
    disk = _layers(inst, backward, Store(tmp_path, {"t": name}, memory=0), limit, counters)
    assert counters.get("spilled", 0) > 0  # the disk path ran
    assert len(mem) == len(disk) and all(np.array_equal(a, b) for a, b in zip(mem, disk))


@pytest.mark.parametrize("name", ["triangle21", "hoppers-first06", "triangle21-first146"])
def test_search_on_disk_equals_search_in_memory(tmp_path, name):
    inst = CAT[name]()
    a = bfs.search(inst)
    b = bfs.search(inst, memory=0, work_dir=str(tmp_path))
    assert b.spilled > 0 and b.disk_peak > 0
    assert (a.moves, a.layers_forward, a.layers_backward, a.meet) == \
        (b.moves, b.layers_forward, b.layers_backward, b.meet)
    assert check(inst, b.solution) == b.moves


def test_exhaust_on_disk_equals_memory():
    inst = CAT["triangle21"]()
    for direction in ("forward", "backward"):
        a = bfs.search(inst, exhaust=True, direction=direction)
        b = bfs.search(inst, exhaust=True, direction=direction, memory=0)
        assert (a.layers_forward, a.layers_backward, a.moves) == \
            (b.layers_forward, b.layers_backward, b.moves)
        assert b.spilled > 0


# ---- interrupted and resumed --------------------------------------------------------------------
class Stop(Exception):
    pass


def _stop_after(n: int):
    seen = []

    def progress(f):
        seen.append(f)
        if len(seen) == n:
            raise Stop
    return progress


@pytest.fixture(scope="module")
def english33_full():
    """The central game searched once in memory: (instance, search result) for the resume tests."""
    inst = CAT["english33"]()
    return inst, bfs.search(inst)


@pytest.mark.parametrize("memory", [None, 0])
def test_interrupted_search_resumes_from_its_last_layer(tmp_path, memory, english33_full):
    inst, full = english33_full
    with pytest.raises(Stop):
        bfs.search(inst, memory=memory, work_dir=str(tmp_path), ctx=Context(progress=_stop_after(9)))
    again = bfs.search(inst, memory=memory, work_dir=str(tmp_path))
    assert again.resumed >= 6                                  # the finished layers were read back
    assert (again.moves, again.layers_forward, again.layers_backward) == \
        (full.moves, full.layers_forward, full.layers_backward)
    assert check(inst, again.solution) == 18
    third = bfs.search(inst, memory=memory, work_dir=str(tmp_path))  # everything on disk now
    assert third.resumed == len(full.layers_forward) + len(full.layers_backward) - 2
    assert third.nodes == full.nodes


def test_interrupted_inside_a_layer_resumes(tmp_path, monkeypatch):
    """A crash while a spilled layer is being finished leaves its range files (its checkpoint was
    dropped when the merge began); the next run drops them and builds that layer again."""
    inst = CAT["triangle21"]()
    full = bfs.search(inst)
    calls = {"n": 0}
    real = LayerBuilder._finish_range

    def crash(self, *a):
        calls["n"] += 1
        if calls["n"] == 40:
            raise Stop
        return real(self, *a)
    monkeypatch.setattr(LayerBuilder, "_finish_range", crash)
    monkeypatch.setattr(Store, "drop_scratch", lambda self, d: None)  # as if the process died
    with pytest.raises(Stop):
        bfs.search(inst, memory=0, work_dir=str(tmp_path))
    assert list(tmp_path.glob("*/part-*"))   # a work folder's layer on disk: part-<layer>
    monkeypatch.undo()
    again = bfs.search(inst, memory=0, work_dir=str(tmp_path))
    assert not list(tmp_path.glob("*/tmp-*")) and not list(tmp_path.glob("*/part-*"))
    assert (again.moves, again.layers_forward, again.layers_backward) == \
        (full.moves, full.layers_forward, full.layers_backward)


def test_resume_of_a_pruned_search_skips_the_refuted_bounds(tmp_path):
    inst = CAT["triangle21"]()
    with pytest.raises(Stop):  # stopped inside the search for K = 11
        bfs.search(inst, prune=True, work_dir=str(tmp_path), ctx=Context(progress=_stop_after(12)))
    r = bfs.search(inst, prune=True, work_dir=str(tmp_path))
    assert r.moves == 12 and r.resumed > 0 and check(inst, r.solution) == 12


# ---- a full disk ----------------------------------------------------------------------------------
def test_disk_limit_gives_unknown_with_the_proved_bound(tmp_path):
    inst = CAT["english33"]()
    r = bfs.search(inst, memory=0, work_dir=str(tmp_path), disk_limit=200_000)
    assert r.moves is None and r.out_of_disk and not r.infeasible
    assert "disk limit" in r.reason
    done = len(r.layers_forward) + len(r.layers_backward) - 2
    assert 2 <= r.lower == done + 1 <= 18          # what the complete layers prove, no more
    assert not list(tmp_path.glob("*/tmp-*"))       # the unfinished layer's files are removed
    out = solve(family("peg"), inst, "native:bfs", "optimize",
                options={"memory_mb": 1, "disk_limit_mb": 1})
    assert out.status is Status.UNKNOWN and not out.solutions
    assert 2 <= out.stats["lower_bound"] <= 18


def test_disk_limit_in_a_pruned_search(tmp_path):
    inst = CAT["english33"]()
    r = bfs.search(inst, memory=0, disk_limit=300_000, prune=True, max_moves=17)
    assert r.moves is None and r.out_of_disk and r.lower <= 18


def test_real_full_disk_is_a_limit(tmp_path, monkeypatch):
    """ENOSPC from the file system is the same stop as the limit (no crash)."""
    import errno
    real = disk._write
    count = {"n": 0}

    def full(f, a):
        count["n"] += 1
        if count["n"] > 30:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(f, a)
    monkeypatch.setattr(disk, "_write", full)
    r = bfs.search(CAT["triangle21"](), memory=0, work_dir=str(tmp_path))
    assert r.moves is None and r.out_of_disk and "disk full" in r.reason and r.lower >= 1


# ---- the Merson bound -----------------------------------------------------------------------------
def _distances(inst: PegInstance, backward: bool) -> dict[int, int]:
    """Exact moves from the start (or to the finish, backward) of every position, by plain BFS."""
    sp = bfs.Space(inst, [tuple(range(inst.board.n))])
    src = bfs._bits(inst.finish if backward else inst.start)
    dist = {src: 0}
    todo = deque([src])
    while todo:
        p = todo.popleft()
        for q, _ in sp.chains(p, backward):
            if q not in dist:
                dist[q] = dist[p] + 1
                todo.append(q)
    return dist


@pytest.mark.parametrize("name", ["hoppers", "triangle5:0", "triangle5:3", "triangle21"])
def test_merson_bound_is_admissible(name):
    """On every position that reaches the finish, the forward bound <= the moves still needed;
    on every position reached from the start, the backward bound <= the moves made."""
    if ":" in name:
        bname, h = name.split(":")
        b = board(bname)
        inst = PegInstance(name, b, frozenset(range(b.n)) - {int(h)}, frozenset({int(h)}))
    else:
        inst = CAT[name]()
    b = inst.board
    to_finish = _distances(inst, backward=True)
    from_start = _distances(inst, backward=False)
    for fin, emp in ((inst.finish, frozenset(range(b.n)) - inst.start), (None, None)):
        fb = bound.forward_bound(b, fin)
        bb = bound.backward_bound(b, emp)
        ps = np.array(sorted(to_finish), np.uint64)
        assert (fb.of(ps) <= np.array([to_finish[int(p)] for p in ps])).all()
        ps = np.array(sorted(from_start), np.uint64)
        assert (bb.of(ps) <= np.array([from_start[int(p)] for p in ps])).all()
    assert int(bound.forward_bound(b, inst.finish).of([bfs._bits(inst.start)])[0]) > 0


@pytest.mark.parametrize("pegs,finish", [
    ((0, 1, 2, 3, 4, 5, 8, 17, 14, 9, 7), 1),   # found by Hypothesis: a 5-move position the old
])                                              # backward bound put at 6
def test_merson_bounds_are_admissible_from_other_starts(pegs, finish):
    """triangle21 from starts with few pegs (multi-jump moves): the backward bound <= the moves
    from the start on every position reached, the forward one <= the moves to the finish."""
    b = board("triangle21")
    inst = PegInstance("r", b, frozenset(pegs), frozenset({finish}))
    from_start = _distances(inst, backward=False)
    to_finish = _distances(inst, backward=True)
    bb = bound.backward_bound(b, frozenset(range(b.n)) - inst.start)
    fb = bound.forward_bound(b, inst.finish)
    ps = np.array(sorted(from_start), np.uint64)
    assert (bb.of(ps) <= np.array([from_start[int(p)] for p in ps])).all()
    ps = np.array(sorted(to_finish), np.uint64)
    assert (fb.of(ps) <= np.array([to_finish[int(p)] for p in ps])).all()
    assert max(bb.of(np.array(sorted(from_start), np.uint64))) > 0  # the bound is not vacuous


def test_merson_regions_of_the_boards():
    """Regions derived from the board: the English 8 corners, 4 L-trominoes and 12 2x2 blocks
    (models/peg/merson.py finds the same, by its own code); triangle9's 3 corners and 18 edge pairs."""
    from collections import Counter
    assert Counter(map(len, bound.regions(board("english33")))) == {1: 8, 3: 4, 4: 12}
    assert Counter(map(len, bound.regions(board("triangle9")))) == {1: 3, 2: 18}
    from puzzlesat.models.peg.merson import minimal_regions
    for name in ("english33", "french37", "triangle21", "triangle9", "diamond41"):
        assert set(bound.regions(board(name))) == set(minimal_regions(board(name)))


def test_merson_bound_best_family_exactly():
    """The table lookup = the best disjoint family by brute force, on random positions."""
    import itertools
    rng = np.random.default_rng(3)
    for name in ("english33", "french37", "triangle8"):
        b = board(name)
        regs = bound.regions(b)
        fb = bound.forward_bound(b, None)
        for p in rng.integers(0, 1 << b.n, 300, dtype=np.uint64):
            full = [r for r in regs if all(int(p) >> h & 1 for h in r)]
            best = 0
            big = [r for r in full if len(r) > 1]
            for k in range(len(big), -1, -1):
                if any(all(not (x & y) for x, y in itertools.combinations(c, 2))
                       for c in itertools.combinations(big, k)):
                    best = k
                    break
            singles = sum(len(r) == 1 for r in full)
            assert int(fb.of([p])[0]) == best + max(0, singles - 1), (name, int(p))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["hoppers", "triangle15", "triangle21", "english33"]), st.data())
def test_pruned_search_equals_plain_search(name, data):
    """Random positions to a single peg on the named boards: the pruned search finds the same
    optimum as the plain one, or the same impossibility."""
    b = board(name)
    full = frozenset(range(b.n))
    if name == "english33":  # a position deep in the central game: few pegs
        k = data.draw(st.integers(6, 10))
    else:
        k = data.draw(st.integers(4, b.n - 1))
    start = frozenset(data.draw(st.permutations(sorted(full)))[:k])
    fin = data.draw(st.sampled_from(sorted(full)))
    inst = PegInstance("r", b, start, frozenset({fin}))
    plain = bfs.search(inst)
    pruned = bfs.search(inst, prune=True)
    assert (plain.moves, plain.infeasible) == (pruned.moves, pruned.infeasible)
    if pruned.moves is not None:
        assert check(inst, pruned.solution) == pruned.moves
        assert all(k < pruned.moves for k in pruned.refuted)
