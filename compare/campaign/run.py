"""A campaign from Python: run a spec into its store and read the report back (what `puzzlesat
campaign run` and `campaign report` do, without printing).

    from puzzlesat.compare.campaign.run import run_campaign, open_report
    store = run_campaign("campaign.toml", jobs=2)     # resumable: stored jobs are not run again
    rep = open_report(store)                          # the JSON report; tables, HTML, SVG plots
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ...core.result import InputError
from .report import CampaignReport, report
from .store import Store


@dataclass(frozen=True)
class Plan:
    """What a run is about to do (given to `on_start`)."""

    name: str
    task: str
    planned: int
    stored: int
    todo: int
    executor: str
    workers: int | str
    store: Path


def executor(kind: str, jobs: int, scheduler: str | None = None, tls=None, insecure: bool = False):
    """The executor of that kind (local processes, or Dask: a LocalCluster on 127.0.0.1, or the
    `scheduler`: tls:// with the `tls` files, tcp:// on this machine unless `insecure`);
    InputError for a bad combination or a refused address."""
    from .executors import DaskExecutor, LocalExecutor, TlsFiles
    tls = tls or TlsFiles()
    if (scheduler or tls.given() or insecure) and kind != "dask":
        raise InputError("--scheduler, --tls-* and --insecure need --executor dask")
    if kind not in ("local", "dask"):
        raise InputError(f"executor {kind!r}: choose local or dask")
    if kind == "dask":
        return DaskExecutor(jobs, scheduler, tls=tls, insecure=insecure)
    return LocalExecutor(jobs)


def run_campaign(spec_path: str | Path, store_path: str | Path | None = None, *,
                 jobs: int | None = None, kind: str = "local", scheduler: str | None = None,
                 tls=None, insecure: bool = False, allow_code: bool = False,
                 max_jobs: int | None = None,
                 on_start: Callable[[Plan], None] | None = None,
                 on_record: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Run every job of the spec not yet in the store (default: the spec's name with .db beside
    it) and return the store's path. Every input error is raised before the store is touched;
    an interrupt (KeyboardInterrupt) kills the running jobs and keeps every finished one.

    A spec is data: a configuration naming code not shipped with puzzlesat (an external command,
    a user engine, a plug-in) is refused unless `allow_code` (the store's `user_code` column
    records what ran); a spec expanding past 10,000 jobs needs `max_jobs`. `scheduler`, `tls`
    (executors.TlsFiles) and `insecure` as `executor`."""
    from ...core.procs import default_workers
    from .spec import load_spec
    spec = load_spec(spec_path, allow_code=allow_code, max_jobs=max_jobs)
    if kind == "local":
        spec.check_available()  # e.g. ext:dimacs's program on PATH; Dask workers check their own
    store_path = Path(store_path) if store_path else Path(spec_path).with_suffix(".db")
    Store.check(store_path, spec.name)
    plan = spec.jobs()  # may fail (more jobs than allowed): before the store is created
    jobs = jobs or default_workers()
    ex = executor(kind, jobs, scheduler, tls, insecure)  # may fail (address, TLS, scheduler):
    # before the store is created
    store = None
    try:
        store = Store.open_for_run(store_path, spec.name, spec.text)  # one writer: locked
        have = store.finished_keys()
        todo = [j.payload() for j in plan if j.key not in have]
        store.set_meta("planned_jobs", len(plan))
        store.set_meta("task", spec.task_text())
        store.set_meta("spec_path", str(Path(spec_path).resolve()))  # the report finds instance files
        if on_start:
            on_start(Plan(spec.name, spec.task_text(), len(plan), len(plan) - len(todo), len(todo), ex.name,
                          jobs if kind == "local" or not scheduler else "cluster", store_path))
        for rec in ex.run(todo):
            store.put(rec)
            if on_record:
                on_record(rec)
    finally:
        ex.close()
        if store:
            store.close()
    return store_path


def open_report(store_path: str | Path) -> CampaignReport:
    """The report of a store (`campaign report --json`'s object, with its tables, HTML and
    plots at hand)."""
    store = Store.open_read(store_path)
    try:
        rep = report(store.rows(), store.meta())
    finally:
        store.close()
    rep.store_path = str(store_path)
    return rep
