"""Configurations side by side: `compare --engines CONFIGS` and the formulation report `puzzlesat lab`.

Vocabulary:

    configuration   an engine plus options, optionally named (compare/config.py): the unit compared
    run             one checked engine run (compare/runner.solve) of one configuration
    record          what the lab keeps of a run: status, objective, count, seconds, model size
                    (vars, clauses or constraints, as the engine reports the model it solved last),
                    solver effort (conflicts; decisions for SAT, branches for CP-SAT) where reported
    verdict         crossval.judge over every run of every configuration on one instance (names
                    in reasons are configuration names; `#i` numbers repeats)
    best            per instance, the configuration with the smallest median time among those whose
                    every run finished (marked `*`); none when the verdict is not AGREE

Every run goes through the runner, so every solution is checked by the family's checker.
"""
from __future__ import annotations

import dataclasses
import json
import re
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from puzzlesat.puzzles.core import InputError, Task

from .config import Config, parse_many, parse_pairs
from .crossval import Verdict, judge, plan
from .instances import load_instance
from .registry import Family
from .runner import Result, solve

SIZE = re.compile(r"(\d+) vars?, (\d+) (clauses|cons)")


# ----------------------------------------------------------------------------------------------
# the lab

@dataclass
class ConfigRow:
    """Every run of one configuration on one instance, and its summary."""

    config: Config
    engine: str
    runs: list[dict] = field(default_factory=list)
    best: bool = False

    def summary(self) -> dict[str, Any]:
        secs = [r["seconds"] for r in self.runs]
        last = self.runs[-1]
        return {"config": self.config.name, "spec": self.config.spec, "engine": self.engine,
                "status": last["status"], "objective": last["objective"], "count": last["count"],
                "runs": len(self.runs), "finished": all(r["finished"] for r in self.runs),
                "median_seconds": round(statistics.median(secs), 4),
                "min_seconds": round(min(secs), 4), "max_seconds": round(max(secs), 4),
                "vars": last["vars"], "clauses": last["clauses"], "constraints": last["constraints"],
                "conflicts": _median(r["conflicts"] for r in self.runs),
                "decisions": _median(r["decisions"] for r in self.runs),
                "branches": _median(r["branches"] for r in self.runs),
                "best": self.best}


def _median(xs) -> int | None:
    xs = [x for x in xs if x is not None]
    return int(statistics.median(xs)) if xs else None


def record(r: Result, seed: int | None, repeat: int) -> dict[str, Any]:
    """The lab's record of one checked run."""
    solver = r.engine.split(":")[0] in ("sat", "cpsat", "ext")  # effort figures of a solver only
    m = SIZE.search(str(r.stats.get("model_size", "")))
    vars_, n, unit = (int(m.group(1)), int(m.group(2)), m.group(3)) if m else (None, None, None)
    return {"status": str(r.status), "objective": r.objective, "count": r.count,
            "finished": r.finished(), "checked": r.checked, "seconds": round(r.seconds, 4),
            "seed": seed, "repeat": repeat, "vars": vars_,
            "clauses": n if unit == "clauses" else None, "constraints": n if unit == "cons" else None,
            "conflicts": r.stats.get("conflicts") if solver else None,
            "decisions": r.stats.get("sat_decisions", r.stats.get("decisions")
                                     if isinstance(r.stats.get("decisions"), int) else None) if solver else None,
            "branches": r.stats.get("branches") if solver else None, "nodes": r.stats.get("nodes"),
            "reason": r.reason, "params": r.params}


def lab_instance(fam: Family, inst: Any, configs: list[Config], task: Task | str, *, repeat: int = 1,
                 seeds: list[int] | None = None, time_limit: float | None = None,
                 options: dict[str, Any] | None = None, precheck: bool = True,
                 on_run: Callable[[Config, dict], None] | None = None) -> dict[str, Any]:
    """Every configuration on `inst`, `repeat` times per seed (seeds go to configurations whose
    engine has a `seed` option; others just repeat), each run checked; verdict and best marked."""
    task = Task(task)
    runs = plan(fam, configs, task, options)  # every option error before any run
    rows, named = [], []
    for c, e, o in runs:
        seeded = any(op.name == "seed" for op in e.options) and "seed" not in c.opts
        row = ConfigRow(c, e.name)
        for seed in (seeds or [None]):
            for i in range(repeat):
                oo = {**o, "seed": seed} if seeded and seed is not None else o
                r = solve(fam, inst, e, task, time_limit=time_limit, options=oo, precheck=precheck,
                          config=c.name)
                rec = record(r, seed if seeded else None, i)
                row.runs.append(rec)
                named.append(dataclasses.replace(r, config=f"{c.name}#{len(row.runs)}"))
                if on_run:
                    on_run(c, rec)
        rows.append(row)
    verdict, reasons = judge(named, getattr(fam.puzzle, "SENSE", None), task)
    done = [row for row in rows if all(r["finished"] for r in row.runs)]
    if verdict is Verdict.AGREE or done and verdict is Verdict.INCOMPLETE:
        best = min(done, key=lambda row: statistics.median(r["seconds"] for r in row.runs), default=None)
        if best is not None:
            best.best = True
    return {"instance": f"{fam.name}/{getattr(inst, 'name', '?')}", "task": str(task),
            "verdict": str(verdict), "reasons": reasons, "repeat": repeat, "seeds": seeds,
            "time_limit": time_limit, "configs": [row.summary() for row in rows],
            "runs": {row.config.name: row.runs for row in rows}}


def _n(v) -> str:
    return "" if v is None else f"{v:,}"


def table(rep: dict[str, Any]):
    """A rich table of one instance's lab report."""
    from rich.table import Table
    t = Table(title=f"{rep['instance']}  task={rep['task']}  verdict={rep['verdict']}",
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
        t.add_row(s["config"], s["engine"], s["status"], _n(s["objective"]), _n(s["count"]),
                  _n(s["vars"]), _n(size), f"{s['median_seconds']:.3f}", spread, _n(s["conflicts"]),
                  _n(effort), "*" if s["best"] else "")
    return t


@click.command("lab")
@click.argument("instances", nargs=-1, required=True)
@click.option("--configs", "config_list", required=True,
              help="comma-separated configurations, e.g. 'seq=sat[encoding=seqcounter],tot=sat[encoding=totalizer]'")
@click.option("--task", type=click.Choice([t.value for t in Task]), default="optimize", show_default=True)
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="runs per configuration (per seed)")
@click.option("--seeds", default=None, help="comma-separated seeds for engines with a seed option")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="seconds per run; a run cut short is UNKNOWN")
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="option for every configuration whose engine has it (ENGINE.KEY=VALUE: one engine)")
@click.option("--no-precheck", is_flag=True, help="skip the instant invariant checks")
@click.option("--json", "as_json", is_flag=True, help="print the raw records: one JSON object per instance")
def lab_cmd(instances, config_list, task, repeat, seeds, time_limit, option_pairs, no_precheck, as_json) -> None:
    """Every configuration on every INSTANCE, each run checked and cross-validated: size, time
    (median and spread over repeats) and solver effort side by side, best per instance marked.

    Exit status 1 when a verdict is DISAGREE, 2 on bad input.
    """
    import sys

    from rich.console import Console
    configs = parse_many(config_list)
    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()] if seeds else None
    except ValueError:
        raise InputError(f"--seeds '{seeds}': expected comma-separated integers") from None
    opts = parse_pairs(option_pairs)
    loaded = [load_instance(i) for i in instances]
    for fam, _ in loaded:  # every configuration error before any run
        plan(fam, configs, task, opts)
    out, err = Console(highlight=False, width=200), Console(stderr=True, highlight=False)
    worst = 0
    for fam, inst in loaded:
        rep = lab_instance(fam, inst, configs, task, repeat=repeat, seeds=seed_list,
                           time_limit=time_limit, options=opts, precheck=not no_precheck,
                           on_run=None if as_json else (lambda c, r: err.print(
                               f"{fam.name}/{inst.name} {c.name}: {r['status']} {r['seconds']:.3f} s",
                               markup=False)))
        if as_json:
            print(json.dumps(rep, default=str))
        else:
            out.print(table(rep))
            for reason in rep["reasons"]:
                out.print(f"  - {reason}", markup=False)
        if rep["verdict"] == "DISAGREE":
            worst = 1
    sys.exit(worst)
