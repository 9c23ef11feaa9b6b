"""`puzzlesat campaign run|status|report|plot|export`.

Bad input (spec, store of another campaign, a scheduler that does not answer) is one line on
stderr and exit status 2 before the store is touched; `report` exits 1 when an instance's
configurations DISAGREE; an interrupted `run` exits 130 with every finished job stored.
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import click
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.markup import escape
from rich.table import Table

from ..core.result import InputError
from .display import err, out

from ..compare.campaign.store import NAMES, Store





@click.group()
def campaign() -> None:
    """Campaigns: instances x configurations under hard limits, stored in SQLite, cross-validated."""


def _executor(kind: str, jobs: int, scheduler: str | None):
    from ..compare.campaign.executors import DaskExecutor, LocalExecutor
    if scheduler and kind != "dask":
        raise InputError("--scheduler needs --executor dask")
    return DaskExecutor(jobs, scheduler) if kind == "dask" else LocalExecutor(jobs)


@campaign.command()
@click.argument("spec_path", metavar="CAMPAIGN.toml", type=click.Path(dir_okay=False))
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite file (default: CAMPAIGN.db beside the spec)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="jobs at once (default: the CPU cores; dask: LocalCluster workers)")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="an existing Dask scheduler (with --executor dask)")
def run(spec_path, store_path, jobs, executor, scheduler) -> None:
    """Run every job of CAMPAIGN.toml not yet in the store (a second run executes nothing)."""
    from ..core.procs import default_workers
    from ..compare.campaign.spec import load_spec
    spec = load_spec(spec_path)
    if executor == "local":
        spec.check_available()  # e.g. ext:dimacs's program on PATH; Dask workers check their own
    store_path = Path(store_path) if store_path else Path(spec_path).with_suffix(".db")
    Store.check(store_path, spec.name)
    jobs = jobs or default_workers()
    ex = _executor(executor, jobs, scheduler)  # may fail (scheduler): before the store is created
    store = None
    try:
        store = Store.open_for_run(store_path, spec.name, spec.text)
        plan = spec.jobs()
        have = store.finished_keys()
        todo = [j.payload() for j in plan if j.key not in have]
        store.set_meta("planned_jobs", len(plan))
        err.print(f"campaign {spec.name}: {len(plan)} jobs, {len(plan) - len(todo)} already stored, "
                  f"{len(todo)} to run ({ex.name}, {jobs if executor == 'local' or not scheduler else 'cluster'}"
                  f" workers) -> {store_path}", markup=False)
        failures = 0
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("failures {task.fields[failures]}"), TimeElapsedColumn(), TextColumn("ETA"),
                   TimeRemainingColumn())
        with Progress(*columns, console=err, disable=not err.is_terminal) as bar:
            task = bar.add_task(spec.name, total=len(todo), failures=0)
            for rec in ex.run(todo):
                store.put(rec)
                if rec["status"] == "ERROR" or rec["termination"] in ("memory", "killed", "error"):
                    failures += 1
                bar.update(task, advance=1, failures=failures)
        err.print(f"done: {len(todo)} jobs run, {failures} failures (errors, memory, killed); "
                  f"`puzzlesat campaign report --store {store_path}`", markup=False)
    except KeyboardInterrupt:
        ex.close()
        n = len(store.finished_keys()) if store else 0
        err.print(f"interrupted: running jobs killed; {n} jobs stored in {store_path}; run again to resume",
                  markup=False)
        sys.exit(130)
    finally:
        ex.close()
        if store:
            store.close()


def _store_option(f):
    return click.option("--store", "store_path", required=True, type=click.Path(dir_okay=False),
                        help="the campaign's SQLite file")(f)


@campaign.command()
@_store_option
def status(store_path) -> None:
    """Jobs stored, by configuration and termination (done/time/memory/killed/error)."""
    store = Store.open_read(store_path)
    meta, rows = store.meta(), store.rows()
    t = Table(title=f"campaign {meta.get('campaign')}: {len(rows)} of {meta.get('planned_jobs', '?')} "
                    "planned jobs stored", title_justify="left")
    terms = ("done", "time", "memory", "killed", "error")
    for col in ("config", "jobs", *terms, "last finished"):
        t.add_column(col, justify="left" if col in ("config", "last finished") else "right")
    by: dict[str, list] = {}
    for r in rows:
        by.setdefault(r["config"], []).append(r)
    for c, rs in by.items():
        t.add_row(escape(c), str(len(rs)), *(str(sum(r["termination"] == x for r in rs)) for x in terms),
                  max((r["finished"] or "") for r in rs))
    out.print(t)


@campaign.command()
@_store_option
@click.option("--json", "as_json", is_flag=True, help="print JSON: {\"configs\": {...}, \"instances\": [...]}")
def report(store_path, as_json) -> None:
    """Scores per configuration and the verdict per instance across all configurations.

    Exit status 1 if any instance's configurations DISAGREE (printed first).
    """
    from ..compare.campaign.report import cell, merge_parts, report as make_report
    store = Store.open_read(store_path)
    rows = store.rows()
    rep = make_report(rows, store.meta())
    rows = merge_parts(rows)[0]
    bad = any(i["verdict"] == "DISAGREE" for i in rep["instances"])
    if as_json:
        print(json.dumps(rep, default=str))
        sys.exit(1 if bad else 0)
    for inst in rep["instances"]:
        if inst["verdict"] == "DISAGREE":
            out.print(f"[red]DISAGREE[/] {escape(inst['instance'])}: " + escape("; ".join(inst["reasons"])))
    t = Table(title=f"campaign {rep['campaign']}: {rep['jobs']} jobs", title_justify="left")
    for col in ("config", "spec", "jobs", "solved", "unknown", "errors", "PAR-2 (s)", "median (s)"):
        t.add_column(col, justify="left" if col in ("config", "spec") else "right")
    for name, c in rep["configs"].items():
        t.add_row(escape(name), escape(c["spec"]), str(c["jobs"]), str(c["solved"]), str(c["unknown"]), str(c["errors"]),
                  f"{c['par2']:.3f}", "" if c["median_seconds"] is None else f"{c['median_seconds']:.3f}")
    out.print(t)
    configs = list(rep["configs"])
    it = Table(title="instances (value and seconds per configuration)", title_justify="left")
    for col in ("instance", "verdict", *configs):
        it.add_column(escape(col))
    by: dict[tuple, list] = {}
    for r in rows:
        by.setdefault((r["instance"], r["task"], r["config"]), []).append(r)
    colors = {"AGREE": "green", "DISAGREE": "red", "INCOMPLETE": "yellow"}
    for inst in rep["instances"]:
        cells = [" / ".join(dict.fromkeys(cell(r) for r in by.get((inst["instance"], inst["task"], c), [])))
                 for c in configs]
        it.add_row(escape(inst["instance"]), f"[{colors[inst['verdict']]}]{inst['verdict']}[/]",
                   *map(escape, cells))
    out.print(it)
    if rep["splits"]:
        st = Table(title="split counts (one job per part; the count is the parts' sum)",
                   title_justify="left")
        for col in ("instance", "config", "parts", "finished", "count", "checked", "job s min",
                    "job s max", "job s sum", "CPU s"):
            st.add_column(col, justify="left" if col in ("instance", "config") else "right")
        for s in rep["splits"]:
            st.add_row(escape(s["instance"]), escape(s["config"]), str(s["parts"]),
                       str(s["finished"]), "—" if s["count"] is None else str(s["count"]),
                       str(s["solutions_checked"]), f"{s['seconds_min']:.2f}",
                       f"{s['seconds_max']:.2f}", f"{s['seconds_sum']:.2f}", f"{s['cpu_seconds']:.2f}")
        out.print(st)
    counts = {v: sum(i["verdict"] == v for i in rep["instances"]) for v in ("AGREE", "INCOMPLETE", "DISAGREE")}
    out.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in counts.items()), markup=False)
    sys.exit(1 if bad else 0)


@campaign.command()
@_store_option
@click.option("--kind", type=click.Choice(["cactus", "scatter"]), default="cactus", show_default=True)
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="FILE.png or FILE.svg")
@click.option("--x", "x", default=None, help="scatter: configuration on the x axis (default: the first)")
@click.option("--y", "y", default=None, help="scatter: configuration on the y axis (default: the second)")
def plot(store_path, kind, output, x, y) -> None:
    """Cactus plot (solved instances vs time) or scatter of two configurations (log-log)."""
    if Path(output).suffix.lower() not in (".png", ".svg"):
        raise InputError("expected a .png or .svg file", field="-o")
    from ..compare.campaign.report import config_table, plot as make_plot
    store = Store.open_read(store_path)
    rows = store.rows()
    if not rows:
        raise InputError("the store holds no jobs yet", file=store_path)
    configs = list(config_table(rows))
    if kind == "scatter":
        x = x or configs[0]
        y = y or (configs[1] if len(configs) > 1 else None)
        for c, opt in ((x, "--x"), (y, "--y")):
            if c not in configs:
                raise InputError(f"no configuration '{c}' in the store; it has: " + ", ".join(configs),
                                 field=opt)
    make_plot(rows, store.meta(), kind, output, x, y)
    err.print(f"wrote {output}", markup=False)


@campaign.command()
@_store_option
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None,
              help="file (default: standard output)")
def export(store_path, fmt, output) -> None:
    """The raw records, one per job (every column of the `runs` table)."""
    rows = Store.open_read(store_path).rows()
    f = open(output, "w", newline="", encoding="utf-8") if output else sys.stdout
    try:
        if fmt == "json":
            json.dump(rows, f, default=str)
            f.write("\n")
        else:
            w = csv.DictWriter(f, fieldnames=list(NAMES))
            w.writeheader()
            w.writerows(rows)
    finally:
        if output:
            f.close()
