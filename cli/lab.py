"""`puzzlesat lab` and its alias `bench`: configurations x repeats side by side, each run checked."""
from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..compare.api import default_engines
from ..compare.lab import lab_runs, lab_table
from ..compare.plan import plan
from ..core.config import parse_pairs
from ..core.result import InputError, Task
from ..families.instances import load_instances
from .display import err, print_tables, rich_table
from .options import (ALLOW_CODE_HELP, DEFAULT_TIME_LIMIT, TIME_LIMIT_HELP, Seconds, family_option,
                      format_option, output_format, read_configs)


def table(rep: dict[str, Any]):
    """A rich table of one instance's lab report (its table model's text format)."""
    return rich_table(lab_table(rep))


def _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck,
         as_json, jobs=1, fmt=None, allow_code=False, what="--configs", family_name=None) -> None:
    fmt = output_format(fmt, as_json)
    as_json = fmt == "json"
    configs, origins = read_configs(config_list, what) if config_list is not None else (None, None)
    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()] if seeds else None
    except ValueError:
        raise InputError(f"--seeds '{seeds}': expected comma-separated integers") from None
    opts = parse_pairs(option_pairs)
    loaded = [(got.family, got.instance) for i in instances  # a collection file: each instance
              for got in load_instances(i, family=family_name)]
    planned = [plan(fam, inst, configs or default_engines(fam.name), task, options=opts,
                    time_limit=time_limit, precheck=not no_precheck,
                    origins=origins if configs else None, allow_code=allow_code)
               for fam, inst in loaded]  # every configuration error (and refusal) before any run
    worst = 0
    tables = []
    for runs in planned:
        rep = lab_runs(runs, repeat=repeat, seeds=seed_list, jobs=jobs,
                       on_run=None if as_json else (lambda run, r: err.print(
                           f"{run.family.name}/{run.instance.name} {run.label}: {r['status']} "
                           f"{r['seconds']:.3f} s", markup=False)))
        if as_json:
            print(json.dumps(rep, default=str))
        elif fmt == "text":
            print_tables([lab_table(rep)], "text")
        else:
            tables.append(lab_table(rep))
        if rep["verdict"] == "DISAGREE":
            worst = 1
    if tables:
        print_tables(tables, fmt)
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
                     help="print the raw records: one JSON object per instance (= --format json)"),
        format_option,
        click.option("--allow-code", is_flag=True, help=ALLOW_CODE_HELP),
        family_option,
    ]):
        f = deco(f)
    return f


@click.command("lab")
@click.option("--configs", "config_list", required=True,
              help="comma-separated configurations, e.g. 'seq=sat[encoding=seqcounter],tot=sat[encoding=totalizer]'; "
                   "@FILE: read them from FILE (one per line or comma separated, # comments)")
@_shared
def lab_cmd(config_list, instances, task, repeat, seeds, time_limit, option_pairs, no_precheck,
            jobs, as_json, fmt, allow_code, family_name) -> None:
    """Every configuration on every INSTANCE, each run checked and cross-validated: size, time
    (median and spread over repeats) and solver effort side by side, best per instance marked.

    `--configs @FILE` reads the configurations from FILE; one that would run code not shipped
    with puzzlesat (an external command, a user engine, a plug-in's engine) is refused unless
    --allow-code is given. Exit status 1 when a verdict is DISAGREE, 2 on bad input.
    """
    _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck, as_json,
         jobs, fmt, allow_code, family_name=family_name)


@click.command("bench")
@click.option("--engines", "config_list", default=None,
              help="comma-separated engines or configurations (default: the family's native, cpsat, sat); "
                   "@FILE: read them from FILE")
@_shared
def bench_cmd(config_list, instances, task, repeat, seeds, time_limit, option_pairs, no_precheck,
              jobs, as_json, fmt, allow_code, family_name) -> None:
    """Time engines or configurations on INSTANCES (the lab's table; each run checked)."""
    _lab(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck, as_json,
         jobs, fmt, allow_code, "--engines", family_name)
