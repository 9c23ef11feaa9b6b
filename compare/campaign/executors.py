"""Executors: where job processes run. Each yields store records as jobs finish; only the
campaign's client (the caller) writes them.

- LocalExecutor: `jobs` supervisor threads on this machine, each running one job process at a time.
- DaskExecutor: the same supervisor (`execute_on_worker`) as Dask tasks on a `distributed` cluster
  (an existing scheduler, or a LocalCluster). A task whose worker dies is re-run on another worker
  by the scheduler, up to its `allowed-failures` (default 3); past that the job is recorded once
  as `killed` (a later `run` retries it).
"""
from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Iterator

from ...core.result import InputError

from .execute import KILLED, execute


class LocalExecutor:
    """A pool of `jobs` job processes on this machine."""

    name = "local"

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.cancel = threading.Event()

    def run(self, payloads: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Records as jobs finish; closing the iterator (or Ctrl-C) kills the running jobs."""
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="puzzlesat-job")
        pending = {pool.submit(execute, p, self.cancel) for p in payloads}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for f in done:
                    rec = f.result()
                    if rec is not None:
                        yield rec
        finally:
            self.cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self.cancel.set()


class DaskExecutor:
    """Jobs as Dask tasks; `scheduler` 'tcp://HOST:PORT' or None for a LocalCluster of `jobs` workers."""

    name = "dask"

    def __init__(self, jobs: int, scheduler: str | None = None, connect_timeout: float = 5.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--executor dask needs the distributed package: pip install 'puzzlesat[dask]'") from None
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as e:
                raise InputError(f"Dask scheduler {scheduler} does not answer "
                                 f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
        else:
            self.cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address=None)
            self.client = Client(self.cluster, set_as_default=False)

    def run(self, payloads: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Records as tasks finish, each job exactly once (a worker's death re-runs its task)."""
        from distributed import as_completed
        from distributed.scheduler import KilledWorker
        from .execute import execute_on_worker
        by_key = {}
        futures = []
        for p in payloads:
            f = self.client.submit(execute_on_worker, p, key=f"puzzlesat-job-{p['key']}", pure=False)
            by_key[f.key] = p
            futures.append(f)
        seen: set[str] = set()
        try:
            for f in as_completed(futures, loop=self.client.loop):
                if f.key in seen:
                    continue
                seen.add(f.key)
                try:
                    rec = f.result()
                except KilledWorker as e:
                    rec = _killed(by_key[f.key], f"Dask workers died running it: {e}")
                yield rec
                f.release()
        finally:
            for f in futures:
                if f.key not in seen:
                    f.cancel()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _killed(p: dict[str, Any], reason: str) -> dict[str, Any]:
    """The record of a job lost with its workers (re-run by a later `run`)."""
    from ...core import __version__
    rec = {k: p[k] for k in ("key", "campaign", "instance", "instance_hash", "family", "config",
                             "config_spec", "engine", "options", "task", "repeat", "seed",
                             "time_limit", "memory_limit_mb", "precheck")}
    rec.update(status="UNKNOWN", termination=KILLED, reason=reason[:400], solutions_checked=0,
               stats="{}", params="{}", version=__version__)
    return rec
