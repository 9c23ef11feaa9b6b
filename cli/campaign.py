"""`puzzlesat campaign run|status|report|plot|export`.

Bad input (spec, store of another campaign, a scheduler that does not answer) is one line on
stderr and exit status 2 before the store is touched; `report` exits 1 when an instance's
configurations DISAGREE; an interrupted `run` exits 130 with every finished job stored.
"""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.markup import escape
from rich.table import Table

from ..compare.tables import csv_text
from ..core.files import writable, write_atomic
from ..core.result import InputError
from .display import err, out, print_tables
from .options import format_option, output_format

from ..compare.campaign.store import NAMES, Store





@click.group()
def campaign() -> None:
    """Campaigns: instances x configurations under hard limits, stored in SQLite, cross-validated."""


def _executor(kind: str, jobs: int, scheduler: str | None, tls=None, insecure: bool = False):
    """The executor of that kind (`peg problems --store` runs its jobs on it too)."""
    from ..compare.campaign.run import executor
    return executor(kind, jobs, scheduler, tls, insecure)


def dask_options(f):
    """--scheduler, --tls-ca-file, --tls-cert, --tls-key, --insecure (campaign run, peg problems)."""
    for deco in reversed([
        click.option("--scheduler", default=None, metavar="tls://HOST:PORT",
                     help="an existing Dask scheduler (with --executor dask): tls:// with the "
                          "--tls-* files (or the distributed TLS config); tcp:// only on this "
                          "machine unless --insecure"),
        click.option("--tls-ca-file", default=None, type=click.Path(dir_okay=False),
                     help="the cluster's CA certificate (PEM) for a tls:// scheduler"),
        click.option("--tls-cert", default=None, type=click.Path(dir_okay=False),
                     help="this client's certificate (PEM), signed by the cluster's CA"),
        click.option("--tls-key", default=None, type=click.Path(dir_okay=False),
                     help="this client's private key (PEM; if not in --tls-cert)"),
        click.option("--insecure", is_flag=True,
                     help="allow a tcp:// scheduler on another machine (jobs and results in the "
                          "clear, no authentication)"),
    ]):
        f = deco(f)
    return f


def tls_files(ca, cert, key):
    """The TLS files of the --tls-* options."""
    from ..compare.campaign.executors import TlsFiles
    return TlsFiles(ca, cert, key)


@campaign.command()
@click.argument("spec_path", metavar="CAMPAIGN.toml", type=click.Path(dir_okay=False))
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite file (default: CAMPAIGN.db beside the spec)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="jobs at once (default: the CPU cores; dask: LocalCluster workers)")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@dask_options
@click.option("--allow-code", is_flag=True,
              help="run code not shipped with puzzlesat that the spec names (an external command, "
                   "a user engine file or module, a plug-in's engine or family); refused without it")
@click.option("--max-jobs", type=click.IntRange(min=1), default=None,
              help="run a spec that expands to more jobs than the limit of 10,000 (README, Limits)")
def run(spec_path, store_path, jobs, executor, scheduler, tls_ca_file, tls_cert, tls_key, insecure,
        allow_code, max_jobs) -> None:
    """Run every job of CAMPAIGN.toml not yet in the store (a second run executes nothing).

    A spec is data: a configuration that would run code not shipped with puzzlesat is refused
    (one line naming the file, line and the command or module; exit 2; nothing written) unless
    --allow-code is given; the store's `user_code` column records what such code each job ran.
    """
    from ..compare.campaign.run import run_campaign
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("failures {task.fields[failures]}"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn())
    state: dict[str, Any] = {"failures": 0, "plan": None}
    with Progress(*columns, console=err, disable=not err.is_terminal) as bar:
        def on_start(p):
            state["plan"] = p
            err.print(f"campaign {p.name}: task {p.task}; {p.planned} jobs, {p.stored} already stored, "
                      f"{p.todo} to run ({p.executor}, {p.workers} workers) -> {p.store}", markup=False)
            state["task"] = bar.add_task(p.name, total=p.todo, failures=0)

        def on_record(rec):
            if rec["status"] == "ERROR" or rec["termination"] in ("memory", "killed", "error"):
                state["failures"] += 1
            bar.update(state["task"], advance=1, failures=state["failures"])
        try:
            path = run_campaign(spec_path, store_path, jobs=jobs, kind=executor, scheduler=scheduler,
                                tls=tls_files(tls_ca_file, tls_cert, tls_key), insecure=insecure,
                                allow_code=allow_code, max_jobs=max_jobs,
                                on_start=on_start, on_record=on_record)
        except KeyboardInterrupt:
            bar.stop()
            p = state["plan"]
            n = 0
            if p is not None:
                store = Store.open_read(p.store)
                n = len(store.finished_keys())
                store.close()
            where = p.store if p is not None else store_path or Path(spec_path).with_suffix(".db")
            err.print(f"interrupted: running jobs killed; {n} jobs stored in {where}; run again to resume",
                      markup=False)
            sys.exit(130)
    p = state["plan"]
    err.print(f"done: {p.todo} jobs run, {state['failures']} failures (errors, memory, killed); "
              f"`puzzlesat campaign report --store {path}`", markup=False)


def _store_option(f):
    return click.option("--store", "store_path", required=True, type=click.Path(dir_okay=False),
                        help="the campaign's SQLite file")(f)


@campaign.command()
@_store_option
def status(store_path) -> None:
    """Jobs stored, by configuration and termination (done/time/memory/killed/error)."""
    store = Store.open_read(store_path)
    meta, rows = store.meta(), store.rows()
    t = Table(title=escape(f"campaign {meta.get('campaign')}: {len(rows)} of "
                           f"{meta.get('planned_jobs', '?')} planned jobs stored"), title_justify="left")
    terms = ("done", "time", "memory", "killed", "error")
    for col in ("config", "jobs", *terms, "last finished"):
        t.add_column(col, justify="left" if col in ("config", "last finished") else "right")
    by: dict[str, list] = {}
    for r in rows:
        by.setdefault(r["config"], []).append(r)
    for c, rs in by.items():
        t.add_row(escape(c), str(len(rs)), *(str(sum(r["termination"] == x for r in rs)) for x in terms),
                  escape(max((r["finished"] or "") for r in rs)))
    out.print(t)


@campaign.command()
@_store_option
@click.option("--json", "as_json", is_flag=True,
              help="print JSON: {\"configs\": {...}, \"instances\": [...]} (= --format json)")
@format_option
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="also write one self-contained HTML page: every run in a sortable, filterable "
                   "table, the verdicts, cactus and scatter plots, solution pictures, the spec")
def report(store_path, as_json, fmt, html_path) -> None:
    """Scores per configuration and the verdict per instance across all configurations.

    Exit status 1 if any instance's configurations DISAGREE (printed first).
    """
    from ..compare.campaign.report import report as make_report
    fmt = output_format(fmt, as_json)
    if html_path:
        writable(html_path, "HTML report")  # a missing folder fails before any work
    store = Store.open_read(store_path)
    rows = store.rows()
    meta = store.meta()
    rep = make_report(rows, meta)
    bad = any(i["verdict"] == "DISAGREE" for i in rep["instances"])
    if html_path:
        from ..compare.campaign.html import write_html
        write_html(html_path, store_path, rows, meta, rep)
        err.print(f"wrote {html_path}", markup=False)
    if fmt == "json":
        print(json.dumps(rep, default=str))
        sys.exit(1 if bad else 0)
    tables = rep.table_models()
    if fmt != "text":
        print_tables(tables, fmt, rep.machine())
        sys.exit(1 if bad else 0)
    for inst in rep["instances"]:
        if inst["verdict"] == "DISAGREE":
            out.print(f"[red]DISAGREE[/] {escape(inst['instance'])}: " + escape("; ".join(inst["reasons"])))
    out.print(f"task: {rep['task']}", markup=False, soft_wrap=True)
    print_tables(tables, "text")
    counts = {v: sum(i["verdict"] == v for i in rep["instances"])
              for v in ("AGREE", "UNCHECKED", "INCOMPLETE", "DISAGREE")}
    out.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in counts.items()
                                       if v or k != "UNCHECKED"), markup=False)
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
    writable(output, "plot")  # a missing folder fails now, before the store is read
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
    if output:
        writable(output, "export")
    rows = Store.open_read(store_path).rows()
    buf = io.StringIO(newline="")
    if fmt == "json":
        json.dump(rows, buf, default=str)
        buf.write("\n")
    else:
        extra = [k for k in dict.fromkeys(k for r in rows for k in r) if k not in NAMES]  # newer columns
        w = csv.DictWriter(buf, fieldnames=[*NAMES, *extra])
        w.writeheader()
        w.writerows({k: csv_text(v) for k, v in r.items()} for r in rows)  # no formulas
    if output:
        write_atomic(output, buf.getvalue(), "export")
    else:
        sys.stdout.write(buf.getvalue())
