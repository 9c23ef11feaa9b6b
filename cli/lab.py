"""`puzzlesat lab` and its alias `bench`: configurations x repeats side by side, each run checked."""
from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..compare.api import default_engines
from ..compare.lab import lab_runs
from ..compare.plan import plan
from ..core.config import parse_many, parse_pairs
from ..core.result import InputError, Task
from ..families.instances import load_instance
from .display import err, escape, out
from .options import DEFAULT_TIME_LIMIT, TIME_LIMIT_HELP, Seconds


def _n(v) -> str:
    return "" if v is None else f"{v:,}"


def table(rep: dict[str, Any]):
    """A rich table of one instance's lab report."""
    from rich.table import Table
    t = Table(title=escape(f"{rep['instance']}  task={rep['task']}  verdict={rep['verdict']}"),
              title_justify="left")
    for col, just in (("config", "left"), ("engine", "left"), ("status", "left"), ("obj", "right"),
                      ("count", "right"), ("vars", "right"), ("clauses/cons", "right"),
                      ("median s", "right"), ("spread s", "right"), ("conflicts", "right"),
                      ("decisions/branches", "right"), ("best", "center")):
        t.add_column(col, justify=just)
    for s in rep["configs"]:
        size = s["clauses"] if s["clauses"] is not None else s["constraints"]
        effort = s["decisions"] if s["decisions"] is not None else s["branches"]
        spread = f"{s['min_seconds']:.3f}–{s['max_seconds']:.3f}" if s["runs"] > 1 else ""
        status = s["status"] + (" (over limit)" if s["over_limit"] else "")
        t.add_row(escape(s["config"]), escape(s["engine"]), status, _n(s["objective"]),
                  _n(s["count"]), _n(s["vars"]), _n(size), f"{s['median_seconds']:.3f}", spread,
                  _n(s["conflicts"]), _n(effort), "*" if s["best"] else "")
    return t


def _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck,
         as_json, jobs=1) -> None:
    configs = parse_many(config_list) if config_list is not None else None
    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()] if seeds else None
    except ValueError:
        raise InputError(f"--seeds '{seeds}': expected comma-separated integers") from None
    opts = parse_pairs(option_pairs)
    loaded = [load_instance(i) for i in instances]
    planned = [plan(fam, inst, configs or default_engines(fam.name), task, options=opts,
                    time_limit=time_limit, precheck=not no_precheck)
               for fam, inst in loaded]  # every configuration error before any run
    worst = 0
    for runs in planned:
        rep = lab_runs(runs, repeat=repeat, seeds=seed_list, jobs=jobs,
                       on_run=None if as_json else (lambda run, r: err.print(
                           f"{run.family.name}/{run.instance.name} {run.label}: {r['status']} "
                           f"{r['seconds']:.3f} s", markup=False)))
        if as_json:
            print(json.dumps(rep, default=str))
        else:
            out.print(table(rep))
            for reason in rep["reasons"]:
                out.print(f"  - {reason}", markup=False)
        if rep["verdict"] == "DISAGREE":
            worst = 1
    sys.exit(worst)


_TASK_HELP = "optimize | count | feasible (default: the family's first task: optimize, or count for tilings)"


def _shared(f):
    for deco in reversed([
        click.argument("instances", nargs=-1, required=True),
        click.option("--task", type=click.Choice([t.value for t in Task]), default=None, help=_TASK_HELP),
        click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
                     help="runs per configuration (per seed)"),
        click.option("--seeds", default=None, help="comma-separated seeds for engines with a seed option"),
        click.option("--time-limit", type=Seconds(), default=DEFAULT_TIME_LIMIT,
                     help=TIME_LIMIT_HELP + "; a run that ends past it counts as unsolved"),
        click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
                     help="option for every configuration whose engine has it (ENGINE.KEY=VALUE: one engine)"),
        click.option("--no-precheck", is_flag=True, help="skip the instant invariant checks"),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
                     help="runs side by side (they share the cores: times are then not "
                          "comparable with one-at-a-time runs; keep 1 for timings)"),
        click.option("--json", "as_json", is_flag=True,
                     help="print the raw records: one JSON object per instance"),
    ]):
        f = deco(f)
    return f


@click.command("lab")
@click.option("--configs", "config_list", required=True,
              help="comma-separated configurations, e.g. 'seq=sat[encoding=seqcounter],tot=sat[encoding=totalizer]'")
@_shared
def lab_cmd(config_list, instances, task, repeat, seeds, time_limit, option_pairs, no_precheck,
            jobs, as_json) -> None:
    """Every configuration on every INSTANCE, each run checked and cross-validated: size, time
    (median and spread over repeats) and solver effort side by side, best per instance marked.

    Exit status 1 when a verdict is DISAGREE, 2 on bad input.
    """
    _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck, as_json,
         jobs)


@click.command("bench")
@click.option("--engines", "config_list", default=None,
              help="comma-separated engines or configurations (default: the family's native, cpsat, sat)")
@_shared
def bench_cmd(config_list, instances, task, repeat, seeds, time_limit, option_pairs, no_precheck,
              jobs, as_json) -> None:
    """Time engines or configurations on INSTANCES (the lab's table; each run checked)."""
    _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck, as_json,
         jobs)
