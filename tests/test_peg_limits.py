"""Peg searches stop at their time limit inside a layer (expansion, merge, chunk jobs): UNKNOWN
with what the finished layers prove, the unfinished layer's files removed, and a search with a work
folder resumed to the same answer as one never stopped. The clock of the in-layer checks
(disk.past) is replaced by one that passes the limit at a chosen check, so the stop lands
inside a layer on every machine."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from puzzlesat.core.result import Context
from puzzlesat.native_search.peg import bfs, disk
from puzzlesat.native_search.peg.disk import LayerBuilder, OutOfTime, Store
from puzzlesat.native_search.peg.problems import problem_instance
from puzzlesat.native_search.peg.table import least_by_bound, solve_table
from puzzlesat.puzzles.peg import board, catalogue, check

CAT = catalogue()
A127500 = {5: 9, 6: 9}   # OEIS A127500: least moves over all single-vacancy problems, triangle n


def _late_at(monkeypatch, n: int) -> dict:
    """From the n-th in-layer check on, the time limit has passed (the checks are counted)."""
    calls = {"n": 0}

    def past(deadline):
        if deadline is None:
            return False
        calls["n"] += 1
        return calls["n"] >= n
    monkeypatch.setattr(disk, "past", past)
    return calls


def _layer_files(tmp_path) -> dict[str, int]:
    out = {}
    for m in tmp_path.glob("*/manifest.json"):
        out.update(json.loads(m.read_text())["layers"])
    return out


@pytest.mark.parametrize("memory", [None, 0])
def test_search_stops_inside_a_layer_and_resumes(tmp_path, monkeypatch, memory):
    """triangle21 (12): small kernel buffers give many checks a layer; the 30th check stops the
    search inside a layer; the next run, without a limit, resumes and gives the uninterrupted
    answer."""
    inst = CAT["triangle21"]()
    full = bfs.search(inst)
    monkeypatch.setattr(bfs, "CHUNK", 64)
    calls = _late_at(monkeypatch, 30)
    r = bfs.search(inst, memory=memory, work_dir=str(tmp_path), ctx=Context(time_limit=1e6))
    assert calls["n"] == 30
    assert r.moves is None and r.out_of_time and not r.infeasible
    assert "time limit inside the expansion of layer" in r.reason or \
        "time limit inside the merge of layer" in r.reason
    done = len(r.layers_forward) + len(r.layers_backward) - 2   # the finished layers, no more
    assert r.lower == done + 1 <= 12
    assert len(_layer_files(tmp_path)) == done
    assert not list(tmp_path.glob("*/tmp-*"))                   # the unfinished layer is gone
    monkeypatch.undo()
    again = bfs.search(inst, memory=memory, work_dir=str(tmp_path))
    assert again.resumed == done
    assert (again.moves, again.layers_forward, again.layers_backward) == \
        (full.moves, full.layers_forward, full.layers_backward)
    assert check(inst, again.solution) == 12


def test_least_by_bound_stops_inside_a_layer_and_resumes(tmp_path, monkeypatch):
    """triangle5 (A127500: 9) with every layer on disk: stopped inside a layer of a K search it is
    UNKNOWN with the proved bound (every K refuted before it, plus one); resumed, the minimum."""
    b = board("triangle5")
    monkeypatch.setattr(bfs, "CHUNK", 64)
    calls = _late_at(monkeypatch, 60)
    r = least_by_bound(b, memory=0, work_dir=str(tmp_path), time_limit=1e6)
    assert calls["n"] == 60
    assert r.moves is None and "time limit inside" in r.stats["reason"]
    assert r.lower == max(r.stats["refuted"], default=0) + 1 <= A127500[5]
    assert not list(tmp_path.glob("*/tmp-*"))
    monkeypatch.undo()
    again = least_by_bound(b, memory=0, work_dir=str(tmp_path))
    assert again.moves == again.lower == A127500[5] and again.stats["layers_resumed"] > 0
    assert check(problem_instance(b, *again.pair), again.solution) == A127500[5]


def test_the_merge_of_a_spilled_layer_stops_at_the_limit(tmp_path):
    """A layer merged from range files on disk stops between ranges past the deadline: nothing
    committed, its files removed; with no deadline the same chunks give their sorted union."""
    store = Store(tmp_path, {"t": 1}, memory=0)
    rng = np.random.default_rng(7)
    chunks = [np.unique(rng.integers(0, 1 << 40, 3000).astype(np.uint64)) for _ in range(6)]
    b = LayerBuilder(store, "f001", bfs.merge_unique, bfs._minus)
    for c in chunks:
        b.add(c)
    assert b.spilled
    with pytest.raises(OutOfTime):
        b.finish([], deadline=time.monotonic() - 1)
    assert store.saved("f001") is None and not list(tmp_path.glob("*/tmp-*"))
    b = LayerBuilder(store, "f001", bfs.merge_unique, bfs._minus)
    for c in chunks:
        b.add(c)
    assert np.array_equal(np.asarray(b.finish([])), np.unique(np.concatenate(chunks)))


def test_table_stops_inside_a_layer(monkeypatch):
    """The problem table (triangle5) past its limit inside a layer: every answer is UNKNOWN with a
    sound lower bound or a checked optimum, never a wrong minimum."""
    b = board("triangle5")
    exact = solve_table(b, [(0, 0), (3, 3)])
    monkeypatch.setattr(bfs, "CHUNK", 16)
    _late_at(monkeypatch, 5)
    got = solve_table(b, [(0, 0), (3, 3)], time_limit=1e6)
    for pair, a in got.items():
        assert a.status.name in ("UNKNOWN", "OPTIMAL")
        if a.status.name == "OPTIMAL":
            assert a.moves == exact[pair].moves
        else:
            assert a.lower <= exact[pair].moves


def test_chunk_jobs_stop_at_the_limit(tmp_path, monkeypatch):
    """Chunk jobs on the local pool: past the limit while the client waits for chunks or merges
    one, the jobs are stopped (their threads end) and OutOfTime raised, no file of the layer left behind. (The
    layers chunk jobs build equal one process's: tests/test_peg_cluster.py.)"""
    import threading
    from puzzlesat.compare.campaign.executors import LocalExecutor
    from puzzlesat.compare.peg.layers import ChunkPool
    pool = ChunkPool(LocalExecutor(2), chunk=20, retries=0)
    try:
        inst = CAT["triangle21"]()
        sp = bfs.Space(inst, bfs.group_for(inst, symmetry=True, with_finish=False))
        layer = list(bfs.layers(sp, sp.canon([bfs._bits(inst.start)]), False, limit=4))
        assert len(layer[-1]) > 2 * 20                # more than one chunk job
        store = Store(tmp_path, {"t": 1}, memory=0)
        _late_at(monkeypatch, 1)
        # the first check past the limit stops the layer: the client's wait for chunks or, when
        # a chunk is back within the wait's 0.5 s (a fast, quiet machine), the merge of it
        with pytest.raises(OutOfTime, match="inside (a layer's chunk jobs|the merge of layer f005)"):
            pool.expand(sp, layer[-1], False, layer, {"nodes": 0}, store=store, name="f005",
                        deadline=1e18)
        assert store.saved("f005") is None
        assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "manifest.json"]
        assert not [t for t in threading.enumerate() if t.name.startswith("puzzlesat-chunk")]
    finally:
        pool.executor.close()


def test_a_layer_on_disk_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """With a work folder and the layers on disk, a layer stopped inside keeps its range files and
    checkpoint (part-<layer>); the next run skips the positions already expanded and still gives
    exactly the uninterrupted layers, nodes and answer (triangle21: 12)."""
    inst = CAT["triangle21"]()
    full = bfs.search(inst)
    monkeypatch.setattr(bfs, "CHUNK", 64)
    monkeypatch.setattr(bfs, "SLICE_IN", 256)
    monkeypatch.setattr(bfs, "CHECKPOINT_SECONDS", 0.0)
    _late_at(monkeypatch, 80)
    r = bfs.search(inst, memory=0, work_dir=str(tmp_path), ctx=Context(time_limit=1e6))
    assert r.moves is None and r.out_of_time and "inside the expansion" in r.reason
    (part,) = tmp_path.glob("*/part-*")
    prog = json.loads((part / "progress.json").read_text())
    assert prog["state"]["next"] > 0
    monkeypatch.setattr(disk, "past", lambda deadline: False)
    monkeypatch.setattr(bfs, "CHECKPOINT_SECONDS", 60.0)
    again = bfs.search(inst, memory=0, work_dir=str(tmp_path))
    assert again.resumed_inside == prog["state"]["next"]
    assert (again.moves, again.layers_forward, again.layers_backward, again.nodes) == \
        (full.moves, full.layers_forward, full.layers_backward, full.nodes)
    assert check(inst, again.solution) == 12
    assert not list(tmp_path.glob("*/part-*")) and not list(tmp_path.glob("*/tmp-*"))
