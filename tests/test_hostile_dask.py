"""A local Dask cluster is not an open door, and never a reason to wait forever: the LocalCluster
of `--executor dask` speaks only TLS with a temporary certificate made for it (another local
process that connects without it is refused), serves no dashboard or other HTTP service, and a
run whose cluster has lost every worker stops after a bounded wait (the campaign stores those jobs
as killed, to run again; a peg layer search stops with ChunkFailed) instead of hanging.
Only 127.0.0.1 is ever connected to."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("distributed")
pytest.importorskip("cryptography")

from puzzlesat.compare.campaign import executors  # noqa: E402
from puzzlesat.compare.campaign.executors import DaskExecutor, NoWorkers, finished  # noqa: E402


@pytest.fixture(scope="module")
def ex():
    e = DaskExecutor(1)
    yield e
    e.close()


def _answers(port: int) -> bool:
    import socket
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            return True
    except OSError:
        return False


def test_the_local_cluster_speaks_only_tls_and_serves_no_http(ex):
    """The review reached the scheduler's dashboard on 127.0.0.1:8787; Dask starts an HTTP
    server in the scheduler and in every worker even with no dashboard asked for: stopped."""
    info = ex.client.scheduler_info()
    addr = info["address"]
    assert addr.startswith("tls://127.0.0.1:"), addr
    assert all(w.startswith("tls://127.0.0.1:") for w in info["workers"])
    assert ex.client.submit(sum, [1, 2, 3]).result(timeout=60) == 6
    ports = [ex.cluster.scheduler.http_server.port,
             *ex.client.run(lambda dask_worker: dask_worker.http_server.port).values()]
    assert ports and all(p for p in ports)
    assert not any(_answers(p) for p in ports), ports


@pytest.mark.parametrize("scheme", ["tcp", "tls"])
def test_another_process_without_the_certificate_is_refused(ex, scheme):
    """The review connected to the scheduler from another local process and ran code as the
    campaign's user; now neither plain TCP nor TLS without the cluster's certificate gets in."""
    from distributed import Client
    from distributed.security import Security
    host_port = ex.client.scheduler_info()["address"].split("://", 1)[1]
    kw = {"security": Security.temporary()} if scheme == "tls" else {}  # a certificate of its own
    with pytest.raises((OSError, TimeoutError, ValueError)):
        c = Client(f"{scheme}://{host_port}", timeout=3, set_as_default=False, **kw)
        try:  # a client that got in would run this as the campaign's user
            c.submit(sum, [1]).result(timeout=3)
        finally:
            c.close()


def test_a_cluster_without_workers_is_never_waited_on_forever(monkeypatch):
    e = DaskExecutor(1)
    try:
        e.cluster.scale(0)
        t = time.monotonic()
        while e.client.nthreads() and time.monotonic() - t < 60:
            time.sleep(0.2)
        assert not e.client.nthreads()
        from distributed import as_completed
        f = e.client.submit(sum, [1, 2], pure=False)
        t = time.monotonic()
        with pytest.raises(NoWorkers, match="no worker for 2 s"):
            list(finished(e.client, as_completed([f], loop=e.client.loop), no_workers=2.0))
        assert time.monotonic() - t < 30
        # a worker process that is alive but not joined yet (a nanny restarting a killed worker on
        # a loaded machine) is waited for past the no-worker grace, up to STARTING_SECONDS
        monkeypatch.setattr(executors, "STARTING_SECONDS", 4.0)
        t = time.monotonic()
        with pytest.raises(NoWorkers, match="none joined in 4 s"):
            list(finished(e.client, as_completed([f], loop=e.client.loop), no_workers=1.0,
                          starting=lambda: 1))
        assert time.monotonic() - t >= 4.0
        assert e.starting_workers() == 0   # scaled to 0: no nanny, nothing coming
        # a killed worker's restart is waited for: Dask's 15 s lost-worker timeout would close its
        # nanny for good on a loaded machine (the cause of the killed-workers failure at load 28)
        import dask
        from dask.utils import parse_timedelta
        assert parse_timedelta(dask.config.get("distributed.deploy.lost-worker-timeout")) >= 1800
        # a campaign's jobs on it: stored as killed (a later run runs them), not a hang
        monkeypatch.setattr(executors, "NO_WORKERS_SECONDS", 2.0)
        from puzzlesat.compare.campaign.execute import execute_on_worker  # noqa: F401
        payload = {k: None for k in ("campaign", "instance", "instance_hash", "family", "config",
                                     "config_spec", "engine", "options", "task", "repeat", "seed",
                                     "time_limit", "memory_limit_mb", "precheck", "user_code")}
        recs = list(e.run([{**payload, "key": "k1"}, {**payload, "key": "k2"}]))
        assert sorted(r["key"] for r in recs) == ["k1", "k2"]
        assert all(r["termination"] == "killed" and "no worker" in r["reason"] for r in recs)
    finally:
        e.close()


def test_a_peg_layer_on_a_cluster_without_workers_fails_in_bounded_time(monkeypatch):
    from puzzlesat.compare.peg.layers import ChunkFailed, ChunkPool
    monkeypatch.setattr(executors, "NO_WORKERS_SECONDS", 2.0)
    pool = ChunkPool(DaskExecutor(1), chunk=1000)
    try:
        pool.executor.cluster.scale(0)
        t = time.monotonic()
        while pool.executor.client.nthreads() and time.monotonic() - t < 60:
            time.sleep(0.2)
        specs = [{"id": 0, "tag": "t"}]
        t = time.monotonic()
        with pytest.raises(ChunkFailed, match="no worker"):
            list(pool._run_dask(specs, None))
        assert time.monotonic() - t < 30
    finally:
        pool.executor.close()
