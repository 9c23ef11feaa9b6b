"""Peg layer expansions as chunk jobs on the campaign executors: the same layers as one process
(local pool and a Dask LocalCluster on 127.0.0.1), and a killed chunk is re-run, never lost or
merged twice."""
from __future__ import annotations

import numpy as np
import pytest

from puzzlesat.compare.campaign.executors import LocalExecutor
from puzzlesat.compare.peg.layers import ChunkPool
from puzzlesat.native_search.peg import bfs
from puzzlesat.native_search.peg.chunks import DIE_ONCE
from puzzlesat.native_search.peg.disk import Store
from puzzlesat.native_search.peg.table import least_by_bound
from puzzlesat.puzzles.peg import board, catalogue, check

CAT = catalogue()


def _layers(inst, backward, expander=None, store=None, limit=None):
    sp = bfs.Space(inst, bfs.group_for(inst, symmetry=True, with_finish=False))
    root = sp.canon([bfs._bits(inst.finish if backward else inst.start)])
    return [np.array(x) for x in bfs.layers(sp, root, backward, {"nodes": 0}, limit,
                                                store=store, expander=expander)]


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.fixture
def local_pool():
    pool = ChunkPool(LocalExecutor(2), chunk=10_000, retries=2)
    yield pool
    pool.executor.close()


@pytest.fixture
def dask_pool():
    pytest.importorskip("distributed")
    from puzzlesat.compare.campaign.executors import DaskExecutor
    pool = ChunkPool(DaskExecutor(2), chunk=5000, retries=3)
    yield pool
    pool.executor.close()


def test_local_chunks_equal_one_process(local_pool, tmp_path, monkeypatch):
    """Forward layers of triangle21 (the frontiers of more than 10,000 positions cut into chunk
    jobs: 15228, 21137 and 13893), merged with no memory (range files on disk), equal one
    process's in memory; a layer's jobs share the pool's job processes (at most 2 per layer for
    2 or 3 chunks), none is left running."""
    import puzzlesat.compare.peg.layers as pl
    started = []
    real = pl._Worker.__init__

    def count(self, *a, **k):
        real(self, *a, **k)
        started.append(self)
    monkeypatch.setattr(pl._Worker, "__init__", count)
    inst = CAT["triangle21"]()
    one = _layers(inst, False)
    split = _layers(inst, False, local_pool.expand, Store(tmp_path, {"t": 1}, memory=0))
    assert _same(one, split)
    assert local_pool.stats["chunks"] == 2 + 3 + 2 and local_pool.stats["reruns"] == 0
    assert 3 <= len(started) <= 2 * 3 < local_pool.stats["chunks"]
    assert all(w.proc.poll() is not None for w in started)


def test_search_and_least_over_chunks(local_pool):
    inst = CAT["triangle21-first146"]()
    a = bfs.search(inst)
    b = bfs.search(inst, expander=local_pool.expand)
    assert (a.moves, a.layers_forward, a.layers_backward, a.nodes) == \
        (b.moves, b.layers_forward, b.layers_backward, b.nodes)
    assert check(inst, b.solution) == 12
    r = least_by_bound(board("triangle5"), max_moves=9, expander=local_pool.expand)
    assert r.moves == 9


def test_killed_local_chunks_are_run_again(local_pool, monkeypatch, tmp_path):
    """Every chunk's first process is killed (SIGKILL, before it writes): each is run again and
    merged once; the layers equal one process's."""
    monkeypatch.setenv(DIE_ONCE, str(tmp_path))
    local_pool.chunk = 300
    inst = CAT["english33"]()
    one = _layers(inst, False, limit=7)   # the frontier of 1452 positions: 5 chunks of 300
    split = _layers(inst, False, local_pool.expand, limit=7)
    assert _same(one, split)
    assert local_pool.stats["reruns"] == local_pool.stats["chunks"] == len(list(tmp_path.iterdir()))


def test_a_chunk_that_always_dies_stops_the_search(local_pool, monkeypatch, tmp_path):
    from puzzlesat.compare.peg.layers import ChunkFailed
    monkeypatch.setenv(DIE_ONCE, str(tmp_path))
    local_pool.retries = 0
    local_pool.chunk = 1000
    with pytest.raises(ChunkFailed):
        _layers(CAT["english33"](), False, local_pool.expand, limit=7)


def test_dask_chunks_equal_one_process(dask_pool):
    inst = CAT["triangle21"]()
    for backward in (False, True):
        assert _same(_layers(inst, backward), _layers(inst, backward, dask_pool.expand))
    r = least_by_bound(board("triangle5"), max_moves=9, expander=dask_pool.expand)
    assert r.moves == 9


def test_killed_dask_workers_chunks_are_run_again(monkeypatch, tmp_path):
    """The first run of every chunk kills its Dask worker process: the scheduler (or the client)
    runs it again; the layers equal one process's."""
    pytest.importorskip("distributed")
    from puzzlesat.compare.campaign.executors import DaskExecutor
    monkeypatch.setenv(DIE_ONCE, str(tmp_path))   # before the workers start: they inherit it
    pool = ChunkPool(DaskExecutor(2), chunk=10_000, retries=4)
    try:
        inst = CAT["triangle21"]()
        one = _layers(inst, True)
        split = _layers(inst, True, pool.expand)
        assert _same(one, split)
        assert len(list(tmp_path.iterdir())) == pool.stats["chunks"] > 0   # each chunk died once
    finally:
        pool.executor.close()


def test_killed_dask_workers_that_restart_slowly_are_waited_for(monkeypatch, tmp_path):
    """The cause of the killed-workers failure at load 28, made deterministic: every worker start
    after the first takes 25 s (a Dask preload that sleeps), longer than Dask's default 15 s
    lost-worker timeout after which a LocalCluster closes the nanny of a worker that has not come
    back (the cluster shrank to no worker: ChunkFailed after 120 s). Local clusters wait for the
    restart (core/cluster.py), so every killed chunk runs again. Light sibling: the timeout check
    in test_hostile_dask."""
    pytest.importorskip("distributed")
    from puzzlesat.compare.campaign.executors import DaskExecutor
    marks = tmp_path / "die"
    marks.mkdir()
    started = tmp_path / "started"
    slow = tmp_path / "slow_start.py"
    slow.write_text(f"import os, time\nif os.path.exists({str(started)!r}):\n    time.sleep(25)\n"
                    f"else:\n    open({str(started)!r}, 'a').close()\n")
    monkeypatch.setenv(DIE_ONCE, str(marks))
    monkeypatch.setenv("DASK_DISTRIBUTED__WORKER__PRELOAD", repr([str(slow)]))  # read by the workers
    pool = ChunkPool(DaskExecutor(2), chunk=10_000, retries=4)
    try:
        inst = CAT["triangle21"]()
        assert _same(_layers(inst, True), _layers(inst, True, pool.expand))
        assert len(list(marks.iterdir())) == pool.stats["chunks"] > 0   # each chunk died once
    finally:
        pool.executor.close()
