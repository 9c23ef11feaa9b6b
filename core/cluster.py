"""Local Dask clusters that are not an open door (needs distributed; imported only to start one).

`local_cluster(workers)` starts a LocalCluster of single-threaded worker processes on 127.0.0.1
that speaks only TLS with a temporary self-signed certificate made for it
(`distributed.Security.temporary()`, encryption required: another local process cannot connect
to its scheduler or workers and run code as this user), and with no HTTP server: Dask starts one
in the scheduler (the dashboard, port 8787) and in every worker even when no dashboard is asked
for; they are stopped (workers restarted by their nanny too, by the `NoHTTP` worker plugin).
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
    from distributed import Client, LocalCluster
    security = local_security()
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
