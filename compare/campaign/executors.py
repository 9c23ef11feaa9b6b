"""Executors: where job processes run. Each yields store records as jobs finish; only the
campaign's client (the caller) writes them.

- LocalExecutor: `jobs` supervisor threads on this machine, each running one job process at a time.
- DaskExecutor: the same supervisor (`execute_on_worker`) as Dask tasks on a `distributed` cluster
  (an existing scheduler, or a LocalCluster on 127.0.0.1: TLS only, with a temporary
  certificate, and no HTTP server: core/cluster.py). A task whose worker dies is re-run on
  another worker by the scheduler, up to its `allowed-failures` (default 3); past that the job is
  recorded once as `killed` (a later `run` retries it).

Clusters talk over TLS: a `tls://` scheduler is reached with the certificates given (`TlsFiles`:
CA, certificate, key; mutual authentication, `distributed.security.Security` with encryption
required) or, without them, with the `distributed.comm.tls` security config. A plain `tcp://`
scheduler (or one with no scheme) must be on this machine — 127.0.0.0/8, ::1 or `localhost` —
unless `insecure` is given (`check_scheduler_address`: a pure check on the address text, made
before any connection; host names are not resolved).

No wait on a cluster is unbounded (`finished`): a cluster that has had no worker for
NO_WORKERS_SECONDS gives up its jobs (stored as killed: a later `run` runs them).
"""
from __future__ import annotations

import ipaddress
import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Iterator
from urllib.parse import urlsplit

from ...core.limits import WORKER_RESTART_SECONDS
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


SCHEMES = ("tcp", "tls")


def scheduler_parts(address: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a Dask scheduler address ('tls://10.0.0.5:8786'; no scheme: tcp);
    InputError when it cannot be read or names another protocol."""
    text = address.strip()
    if "://" not in text:
        text = "tcp://" + text
    try:
        u = urlsplit(text)
        port = u.port
    except ValueError as e:
        raise InputError(f"scheduler address {address!r}: {e}", field="--scheduler") from None
    if u.scheme not in SCHEMES:
        raise InputError(f"scheduler address {address!r}: protocol {u.scheme!r} (expected tls:// or "
                         "tcp://)", field="--scheduler")
    if not u.hostname or u.path not in ("", "/") or u.query or u.username:
        raise InputError(f"scheduler address {address!r}: expected PROTOCOL://HOST:PORT",
                         field="--scheduler")
    return u.scheme, u.hostname, port


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost` (names are never resolved: any other name is
    not on this machine as far as this check knows)."""
    if host.lower() in ("localhost", "localhost.", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_scheduler_address(address: str, insecure: bool = False) -> str:
    """The scheduler's scheme ('tls' or 'tcp') once the address passes the policy: tls:// anywhere;
    tcp:// (in the clear, no authentication) only to this machine unless `insecure`. InputError
    otherwise; pure: nothing is resolved or connected."""
    scheme, host, _ = scheduler_parts(address)
    if scheme == "tcp" and not insecure and not is_loopback(host):
        raise InputError(f"scheduler {address}: tcp:// sends jobs and results in the clear with no "
                         f"authentication to {host}, which is not this machine; use tls:// with "
                         "--tls-ca-file/--tls-cert/--tls-key (docs/campaigns.md), or pass --insecure",
                         field="--scheduler")
    return scheme


@dataclass(frozen=True)
class TlsFiles:
    """The client's TLS files for a tls:// scheduler (PEM): the cluster's CA, this client's
    certificate and key (the key may sit in the certificate file). All None: the
    `distributed.comm.tls` config."""

    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None

    def given(self) -> bool:
        return any((self.ca_file, self.cert, self.key))

    def security(self):
        """A distributed Security with encryption required; InputError on missing files."""
        from distributed.security import Security
        if self.given():
            missing = [n for n, v in (("--tls-ca-file", self.ca_file), ("--tls-cert", self.cert))
                       if not v]
            if missing:
                raise InputError("TLS needs the cluster's CA and this client's certificate: give "
                                 + " and ".join(missing))
            for n, v in (("--tls-ca-file", self.ca_file), ("--tls-cert", self.cert),
                         ("--tls-key", self.key)):
                if v is not None and not os.path.isfile(v):
                    raise InputError("no such file", file=v, field=n)
            return Security(tls_ca_file=self.ca_file, tls_client_cert=self.cert,
                            tls_client_key=self.key, require_encryption=True)
        sec = Security(require_encryption=True)  # reads distributed.comm.tls.* from the config
        if not sec.tls_ca_file or not sec.tls_client_cert:
            raise InputError("a tls:// scheduler needs --tls-ca-file and --tls-cert (and --tls-key), "
                             "or distributed.comm.tls.ca-file and .client.cert in the Dask config")
        return sec


class DaskExecutor:
    """Jobs as Dask tasks; `scheduler` 'tls://HOST:PORT' (or tcp:// on this machine, or anywhere
    with `insecure`), or None for a LocalCluster of `jobs` workers on 127.0.0.1."""

    name = "dask"

    def __init__(self, jobs: int, scheduler: str | None = None, connect_timeout: float = 5.0,
                 tls: TlsFiles = TlsFiles(), insecure: bool = False):
        scheme = check_scheduler_address(scheduler, insecure) if scheduler else None
        if tls.given() and scheme != "tls":
            raise InputError("--tls-ca-file/--tls-cert/--tls-key need a tls:// --scheduler")
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--executor dask needs the distributed package: pip install 'puzzlesat[dask]'") from None
        self.cluster = None
        if scheduler:
            security = tls.security() if scheme == "tls" else None
            try:
                self.client = Client(scheduler, timeout=connect_timeout, set_as_default=False,
                                     security=security)
            except (OSError, TimeoutError, ValueError) as e:
                raise InputError(f"Dask scheduler {scheduler} does not answer "
                                 f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
        else:
            from ...core.cluster import local_cluster
            self.client, self.cluster = local_cluster(jobs)  # TLS only, no HTTP server

    def starting_workers(self) -> int:
        """Worker processes of this executor's local cluster that are alive, joined or still
        starting (a nanny restarting a killed worker); 0 for a remote scheduler."""
        if self.cluster is None:
            return 0
        from ...core.cluster import live_worker_processes
        return live_worker_processes(self.cluster)

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
        seen: set[Any] = set()  # Dask keys: str or tuples
        try:
            try:
                for f in finished(self.client, as_completed(futures, loop=self.client.loop),
                                  starting=self.starting_workers):
                    if f.key in seen:
                        continue
                    seen.add(f.key)
                    try:
                        rec = f.result()
                    except KilledWorker as e:
                        rec = _killed(by_key[f.key], f"Dask workers died running it: {e}")
                    yield rec
                    f.release()
            except NoWorkers as e:  # every job not finished is stored as killed: a later run runs it
                for f in futures:
                    if f.key not in seen:
                        seen.add(f.key)
                        yield _killed(by_key[f.key], str(e))
        finally:
            for f in futures:
                if f.key not in seen:
                    f.cancel()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


NO_WORKERS_SECONDS = 120.0   # a cluster with no worker this long: the jobs waiting on it are given up
STARTING_SECONDS = WORKER_RESTART_SECONDS  # ... or with worker processes alive but never joining
POLL_SECONDS = 0.25


class NoWorkers(RuntimeError):
    """The Dask cluster has had no worker for NO_WORKERS_SECONDS: waiting longer could be forever."""


def finished(client, ac, deadline: float | None = None, what: str = "the Dask jobs",
             no_workers: float | None = None, starting=None) -> Iterator[Any]:
    """The futures of `ac` (a distributed.as_completed) as they finish, never waiting forever:
    polled every POLL_SECONDS; past `deadline` (time.monotonic) OutOfTime; when the cluster has
    had no worker for `no_workers` seconds (default NO_WORKERS_SECONDS), NoWorkers. `starting`
    (a local cluster's): () -> how many worker processes are alive; while one is (a nanny
    restarting a killed worker: on a loaded machine its start-up takes minutes of wall time),
    the cluster is waiting for it, not empty — up to STARTING_SECONDS."""
    import time
    from ...native_search.peg.disk import OutOfTime, past
    grace = NO_WORKERS_SECONDS if no_workers is None else no_workers
    empty_since = None
    starting_since = None
    last_look = 0.0
    while not ac.is_empty():
        if ac.has_ready():
            for f in ac.next_batch(block=False):
                yield f
            continue
        if past(deadline):
            raise OutOfTime(f"time limit while waiting for {what}")
        now = time.monotonic()
        if now - last_look >= 1.0:
            last_look = now
            try:
                workers = len(client.nthreads())
            except Exception:  # the scheduler itself does not answer: no workers either
                workers = 0
            coming = 0
            if not workers and starting is not None:
                try:
                    coming = starting()
                except Exception:  # the cluster is closing: nothing is coming
                    coming = 0
            if workers:
                empty_since = starting_since = None
            elif coming:
                empty_since = None
                starting_since = now if starting_since is None else starting_since
                if now - starting_since >= STARTING_SECONDS:
                    raise NoWorkers(f"{coming} Dask worker processes were started but none joined "
                                    f"in {STARTING_SECONDS:.0f} s while waiting for {what}")
            elif empty_since is None:
                empty_since = now
            elif now - empty_since >= grace:
                raise NoWorkers(f"the Dask cluster has had no worker for {grace:.0f} s while "
                                f"waiting for {what}")
        time.sleep(POLL_SECONDS)


def _killed(p: dict[str, Any], reason: str) -> dict[str, Any]:
    """The record of a job lost with its workers (re-run by a later `run`)."""
    from ...core import __version__
    rec = {k: p[k] for k in ("key", "campaign", "instance", "instance_hash", "family", "config",
                             "config_spec", "engine", "options", "task", "repeat", "seed",
                             "time_limit", "memory_limit_mb", "precheck", "user_code")}
    rec.update(status="UNKNOWN", termination=KILLED, reason=reason[:400], solutions_checked=0,
               stats="{}", params="{}", version=__version__)
    return rec
