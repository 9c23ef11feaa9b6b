"""`puzzlesat lab` and its alias `bench`: configurations x repeats side by side, each run checked."""
from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from ..compare.api import default_engines
from ..compare.lab import lab_runs, lab_table
from ..compare.plan import plan
from ..core.config import parse_pairs
from ..core.result import InputError, Task
from ..families.instances import load_instance, load_instances
from .display import err, print_tables, rich_table
from .options import (ALLOW_CODE_HELP, DEFAULT_TIME_LIMIT, TIME_LIMIT_HELP, Seconds, family_option,
                      WorkFolder, format_option, output_format, read_configs)


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


_TASK_HELP = "optimize | count | feasible | unique (default: the family's first task: optimize, or count for tilings)"


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


class _LabGroup(click.Group):
    """`lab INSTANCE... --configs ...` runs configurations (its `run` sub-command, the default);
    `lab core` and `lab ablate` are the sub-commands that ask why."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group("lab", cls=_LabGroup)
def lab_cmd() -> None:
    """Formulations side by side (`lab INSTANCE... --configs C1,C2`, the same as `lab run`), and
    why a model answers as it does: `lab core` (a minimal infeasible set of constraint groups)
    and `lab ablate` (each optional group dropped in turn)."""


@lab_cmd.command("run")
@click.option("--configs", "config_list", required=True,
              help="comma-separated configurations, e.g. 'seq=sat[encoding=seqcounter],tot=sat[encoding=totalizer]'; "
                   "@FILE: read them from FILE (one per line or comma separated, # comments)")
@_shared
def lab_run(config_list, instances, task, repeat, seeds, time_limit, option_pairs, no_precheck,
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


def _groups(names: Any) -> str:
    names = [names] if isinstance(names, str) else list(names)
    return ", ".join(f"'{g}'" for g in names)


def core_progress_line(fields: dict[str, Any]) -> str | None:
    """One line of `lab core`'s progress for a dict its search reports (None: nothing to say)."""
    if "testing" in fields:
        limit = fields.get("limit")
        return (f"call {fields['calls'] + 1}: without {_groups(fields['testing'])} "
                f"({fields['groups']} group{'s' if fields['groups'] != 1 else ''} stay{'s' if fields['groups'] == 1 else ''})"
                + (f", up to {limit:g} CPU s" if limit else "") + " …")
    if "last" in fields:
        e = fields["last"]
        single = isinstance(e["without"], str)
        what = {"SAT": "SAT: necessary, its witness kept" if single else "SAT: tried in halves",
                "UNSAT": "UNSAT: dropped",
                "UNKNOWN": "UNKNOWN at the limit" + (": undecided" if single else ": tried in halves")
                }.get(e["answer"], e["answer"])
        conflicts = f", {e['conflicts']:,} conflicts" if e.get("conflicts") is not None else ""
        return (f"call {fields['calls']}: without {_groups(e['without'])}: {what} "
                f"({e['cpu_seconds']:.1f} CPU s{conflicts}"
                + (", kept in the work folder" if e.get("reused") else "") + ")")
    if "recheck" in fields:
        n = len(fields["recheck"])
        return (f"re-check: the core's {n} group{'s' if n != 1 else ''} alone, a fresh "
                f"{fields.get('solver')} solve" + (", its proof logged" if fields.get("certify") else ""))
    return None


@lab_cmd.command("core")
@click.argument("instance")
@click.option("-e", "--engine", "config", required=True,
              help="a configuration whose engine has a formulation with a CNF (sat:…, cpsat:… of "
                   "peg, sliding, pentomino), e.g. 'sat:time'")
@click.option("--bound", type=int, default=None,
              help="the decision call's bound (peg: moves <= K; sliding: exactly K moves); default: "
                   "the family's default for the task (the known optimum, else a lower bound)")
@click.option("--task", type=click.Choice([t.value for t in Task]), default=None, help=_TASK_HELP)
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="option of the configuration's engine (its model options)")
@click.option("--solver", default=None, help="the re-check's solver (-e sat:…: also the core "
              "search's): a python-sat solver (default: the configuration's, else cadical195; with "
              "--certify one that logs proofs) or, with -e cpsat:…, cpsat (CP-SAT on the core's CNF, "
              "LRAT; the configuration's fixed search with search=fixed)")
@click.option("--certify", is_flag=True, help="the re-check of the core logs a proof (DRAT; LRAT "
              "with --solver cpsat), checked by puzzlesat.certify")
@click.option("--proof-dir", default="", help="with --certify: where the run folder is made")
@click.option("--call-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="CPU seconds per deletion call (default: none); a group whose "
              "call hits it stays in the core, marked undecided (the core is then not minimal)")
@click.option("--work-dir", type=WorkFolder(), default=None, metavar="DIR",
              help="keep every decided deletion call in DIR (made if missing): a rerun, or one with a "
              "longer --call-limit, continues instead of starting over")
@click.option("--order", type=click.Choice(["given", "largest"]), default="given", show_default=True,
              help="the order groups are tried in: the formulation's, or the largest (most clauses) "
              "first; it decides which minimal core is found, and so the cost")
@click.option("--witness-probe", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="with -e cpsat:…[search=fixed]: CPU seconds of CP-SAT's automatic search that go "
              "first in each deletion call (the fixed search refutes well but finds models badly); "
              "default 10, 0: none. Part of what a --work-dir is for")
@click.option("--within", "within", multiple=True, metavar="GROUP[,GROUP…]",
              help="search only these groups (repeat, or separate by commas): a set known to be "
              "infeasible, e.g. an earlier core, so its undecided groups cost one call each with a "
              "longer --call-limit; the others are left out untried. A --work-dir's records serve "
              "either search")
@click.option("--time-limit", type=Seconds(), default=DEFAULT_TIME_LIMIT, help=TIME_LIMIT_HELP)
@click.option("--status", is_flag=True,
              help="with --work-dir: where its run stands (the same command plus --status): the "
              "search replayed over the folder's records up to the first call it has none of — "
              "groups necessary, dropped and undecided so far, the next call; no solver runs and "
              "nothing is written. Exit status 0")
@click.option("--json", "as_json", is_flag=True, help="print the result record (JSON)")
@format_option
def lab_core(instance, config, bound, task, option_pairs, solver, certify, proof_dir, call_limit,
             work_dir, order, witness_probe, within, time_limit, status, as_json, fmt) -> None:
    """For an infeasible decision call of INSTANCE: a minimal set of the formulation's constraint
    groups that is still infeasible (deletion, groups tried together first; -e sat:…: one
    incremental solver, -e cpsat:…: CP-SAT per call), re-checked by a fresh
    solve of only those groups (UNSAT; with --certify, its proof checked) and, for each of them, a
    checked model of the others (the witness the search found without it). A feasible call has no
    core: its solution is checked and shown. Exit 0; 1 when the re-check fails; 2 on bad input."""
    from ..compare.api import model
    from .display import print_tables
    fmt = output_format(fmt, as_json)
    fam, inst = load_instance(instance)
    m = model(inst, config, task, bound=bound, **parse_pairs(option_pairs))
    if m.backend != "sat" and not m.formulation.is_cnf():
        raise InputError(f"lab core: the formulation of {config} has no CNF")
    from ..families.options import PROOF_SOLVERS
    chosen = solver or (m.options.get("solver") if m.backend == "sat" else None) or "cadical195"
    provers = PROOF_SOLVERS + (("cpsat",) if m.backend == "cpsat" else ())
    if certify and chosen not in provers:
        raise InputError(f"lab core --certify: solver '{chosen}' cannot log proofs; choose one of "
                         + ", ".join(provers))
    names = m.formulation.groups   # a value that is a group's whole name is that group
    groups = [g for w in within for g in ([w] if w in names else
                                          [x.strip() for x in w.split(",")])] if within else None
    if status:
        if work_dir is None:
            raise InputError("lab core --status reads the run in a --work-dir: give --work-dir")
        st = m.core_status(work_dir, solver=chosen, call_limit=call_limit, order=order,
                           witness_probe=witness_probe, within=groups)
        if fmt == "json":
            print(json.dumps(st, default=str))
        else:
            _print_core_status(instance, m.decision.bound_text, work_dir, st)
        return
    t0 = time.perf_counter()

    def say(fields: dict[str, Any]) -> None:  # progress on stderr (also with --json: runs are long)
        line = core_progress_line(fields)
        if line:
            click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {line}", err=True)
    res = m.core(time_limit=time_limit, certify=certify, proof_dir=proof_dir, solver=chosen,
                 call_limit=call_limit, work_dir=work_dir, order=order,
                 witness_probe=witness_probe, within=groups, progress=say)
    from ..compare.why import core_table
    if fmt == "json":
        print(json.dumps(res.to_json(), default=str))
    else:
        print_tables([core_table(res, m.decision)], fmt)
    hint = within_hint(res.stats, call_limit, work_dir)
    if hint and res.status.value == "INFEASIBLE":
        click.echo(hint, err=True)
    sys.exit(1 if res.status.value == "ERROR" else 0)


def within_hint(stats: dict[str, Any], call_limit: float | None, work_dir: str | None) -> str | None:
    """For a core not shown minimal: the options that try its undecided groups again, one call
    each (--within the core, a longer --call-limit, the same --work-dir); None otherwise."""
    import shlex
    core, undecided = stats.get("core") or [], stats.get("undecided") or []
    if not undecided:
        return None
    within = ([f"--within {shlex.quote(','.join(core))}"] if not any("," in g for g in core)
              else [f"--within {shlex.quote(g)}" for g in core])
    longer = f"--call-limit {2 * call_limit:g}" if call_limit else "a longer --call-limit"
    return ("undecided: " + ", ".join(undecided) + "; to try each again, one call each: the same "
            "command with " + " ".join(within) + f" {longer}"
            + (f" (--work-dir {shlex.quote(work_dir)} keeps every call decided so far)" if work_dir
               else ""))


def _print_core_status(instance: str, bound: str, work_dir: str, st: dict[str, Any]) -> None:
    """`lab core --status` in text: the state, the groups by what is known, the calls."""
    none = "none so far"
    click.echo(f"{instance} {bound}: lab core work folder {work_dir}: {st['status']} "
               f"({st['calls']} calls recorded)")
    click.echo("necessary (a checked witness each): " + (", ".join(st["necessary"]) or none))
    click.echo("dropped: " + (", ".join(st["dropped"]) or none))
    if st.get("left_out"):
        click.echo("left out (--within), not tried: " + ", ".join(st["left_out"]))
    click.echo("undecided at the call limit: " + (", ".join(st["undecided"]) or none))
    nxt = st.get("next_call")
    if nxt:
        click.echo(f"next call: without {_groups(nxt['without'])} ({nxt['groups']} groups stay)"
                   + (f", up to {nxt['call_limit']:g} CPU s" if nxt.get("call_limit") else ""))
    elif st.get("reason"):
        click.echo(st["reason"])
    for i, e in enumerate(st["log"], 1):
        conflicts = f", {e['conflicts']:,} conflicts" if e.get("conflicts") is not None else ""
        click.echo(f"  call {i}: without {_groups(e['without'])}: {e['answer']} "
                   f"({e['cpu_seconds']:.1f} CPU s{conflicts})")
    redone = (st.get("work_dir") or {}).get("redone_records") or []
    if redone:
        click.echo(f"{len(redone)} record{'s' if len(redone) != 1 else ''} the run would redo: "
                   + "; ".join(redone[:5]))


@lab_cmd.command("ablate")
@click.argument("instances", nargs=-1, required=True)
@click.option("-e", "--engine", "config", required=True,
              help="a configuration whose engine has a formulation (sat:…, cpsat:…, mip:…, maxsat:…, "
                   "cpmpy:…), e.g. 'cpsat:time'")
@click.option("--task", type=click.Choice([t.value for t in Task]), default=None, help=_TASK_HELP)
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="runs per variant")
@click.option("--time-limit", type=Seconds(), default=DEFAULT_TIME_LIMIT,
              help=TIME_LIMIT_HELP + "; a run that ends past it counts as unsolved")
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="option of the configuration's engine")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per instance (= --format json)")
@format_option
def lab_ablate(instances, config, task, repeat, time_limit, option_pairs, as_json, fmt) -> None:
    """The configuration's formulation on every INSTANCE with all its groups, then without each
    optional group in turn (implied constraints, symmetry breaking, dominance: the formulation
    marks them), then without all of them: answer, time, conflicts/branches/nodes and model size
    side by side, every run checked and cross-validated. The runs solve the formulation's decision
    calls on the configuration's backend (models/paradigm.py), the same way for every variant.
    Exit 1 when the variants disagree (a group that was not optional), 2 on bad input."""
    from ..compare.why import ablate
    from .display import print_tables
    fmt = output_format(fmt, as_json)
    opts = parse_pairs(option_pairs)
    loaded = [load_instance(i) for i in instances]
    worst, tables = 0, []
    for fam, inst in loaded:
        rep = ablate(fam, inst, config, task, repeat=repeat, time_limit=time_limit, options=opts)
        if fmt == "json":
            print(json.dumps(rep, default=str))
        else:
            t = lab_table(rep)
            t.params["ablated"] = rep["ablated"]
            t.params["optional groups"] = {g: r for g, r in rep["roles"].items()}
            tables.append(t)
        if rep["verdict"] == "DISAGREE":
            worst = 1
    if tables:
        print_tables(tables, fmt)
    sys.exit(worst)
