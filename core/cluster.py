"""Local Dask clusters that are not an open door (needs distributed; imported only to start one).

`local_cluster(workers)` starts a LocalCluster of single-threaded worker processes on 127.0.0.1
that speaks only TLS with a temporary self-signed certificate made for it
(`distributed.Security.temporary()`, encryption required: another local process cannot connect
to its scheduler or workers and run code as this user), and with no HTTP server: Dask starts one
in the scheduler (the dashboard, port 8787) and in every worker even when no dashboard is asked
for; they are stopped (workers restarted by their nanny too, by the `NoHTTP` worker plugin).

A killed worker is restarted by its nanny; on a loaded machine the new process takes longer than
Dask's `distributed.deploy.lost-worker-timeout` (15 s) to join, and the LocalCluster then closes
that nanny for good — the cluster shrinks to no worker and its jobs never finish (the cause of
test_peg_cluster's killed-workers failure at load 28). So local clusters set that timeout to
WORKER_RESTART_SECONDS (core/limits.py): the nanny's restart is waited for, as long as it takes.
"""
from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from .result import InputError


def local_security() -> Any:
    """TLS with a temporary certificate, encryption required; InputError without `cryptography`."""
    from distributed.security import Security
    try:
        return Security.temporary()  # type: ignore[no-untyped-call]  # distributed ships no annotations
    except ImportError:
        raise InputError("a local Dask cluster talks over TLS with a temporary certificate: it needs "
                         "the cryptography package (pip install 'puzzlesat[dask]')") from None


def local_cluster(workers: int) -> tuple[Any, Any]:
    """(client, cluster): `workers` single-threaded worker processes on 127.0.0.1, TLS only, no
    HTTP server (module docstring)."""
    import dask
    from distributed import Client, LocalCluster
    from .limits import WORKER_RESTART_SECONDS
    security = local_security()
    # read by the cluster when a worker leaves (module docstring); process-wide, as Dask's config is
    dask.config.set({"distributed.deploy.lost-worker-timeout": f"{WORKER_RESTART_SECONDS:.0f}s"})
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           protocol="tls://", security=security, dashboard_address=None,
                           worker_dashboard_address=None)  # type: ignore[no-untyped-call]  # distributed ships no annotations
    try:
        client = Client(cluster, set_as_default=False, security=security)  # type: ignore[no-untyped-call]  # distributed ships no annotations
        client.run_on_scheduler(stop_http)  # type: ignore[no-untyped-call]  # distributed ships no annotations
        client.register_plugin(NoHTTP())
    except BaseException:
        cluster.close()
        raise
    return client, cluster


def live_worker_processes(cluster: Any) -> int:
    """How many of a LocalCluster's worker processes are alive: joined, or being started by their
    nanny (a killed worker's restart); 0 when that cannot be told (the cluster is closing)."""
    try:
        return sum(1 for nanny in list(getattr(cluster, "workers", {}).values())
                   if callable(getattr(nanny, "is_alive", None)) and nanny.is_alive())
    except Exception:  # noqa: BLE001 - a cluster being torn down: nothing is coming
        return 0


class NoHTTP(WorkerPlugin):
    """Stops a worker's HTTP server when the worker starts (restarted workers too)."""

    name = "puzzlesat-no-http"

    def setup(self, worker: Any) -> None:
        stop_http(dask_worker=worker)


def stop_http(dask_scheduler: Any = None, dask_worker: Any = None, **_: Any) -> None:
    """Stop the HTTP server of a Dask scheduler or worker (client.run_on_scheduler / run)."""
    node = dask_scheduler if dask_scheduler is not None else dask_worker
    server = getattr(node, "http_server", None)
    if server is not None:
        server.stop()
