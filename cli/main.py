"""The `puzzlesat` command line: list, show, engines, solve, compare (+ lab, bench, export, stats,
campaign, and the families' own commands).

A client of the public API: `solve` and `compare` call `puzzlesat.solve` / `puzzlesat.compare`
with their progress and per-result hooks, so a request takes the one path the library takes
(plan, run, check). Bad input of any kind prints one line on stderr and exits with status 2;
`compare` exits 1 on DISAGREE. Every result is checked by the family's independent checker
before it is printed.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import signal
import sys
from typing import Any

import click
from rich.table import Table

from ..compare import api
from ..compare.crossval import Comparison, Verdict, assess, compare_runs
from ..compare.plan import plan
from ..compare.runner import execute, uncertified
from ..compare.tables import Table as TableModel
from ..core import __version__
from ..core.config import parse_pairs
from ..core.family import Family
from ..core.result import InputError, Result, Status, Task
from ..families.instances import load_instance, load_instances
from ..families.registry import families, family, family_commands, flag_options, plugins
from .display import _live, _table, err, escape, out, print_tables
from .options import (ALLOW_CODE_HELP, DEFAULT_TIME_LIMIT, TIME_LIMIT_HELP, Seconds, family_option,
                      format_option, output_format, read_configs)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that workers are killed and results printed."""


def _on_sigterm(signum, frame):
    raise Terminated()


INTERRUPTED = {KeyboardInterrupt: 130, Terminated: 143}


TASKS = click.Choice([t.value for t in Task])


class _Warnings(logging.Handler):
    """The library's warnings (a plug-in skipped, a route two families claim) as one line each on
    stderr: `puzzlesat: warning: ...`."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"puzzlesat: warning: {' '.join(record.getMessage().split())}", file=sys.stderr)


def _show_warnings() -> None:
    """Print the library's warnings on stderr (installed when the command line is imported: the
    engine-option flags of its commands already look at every family)."""
    log = logging.getLogger("puzzlesat")
    if not any(isinstance(h, _Warnings) for h in log.handlers):
        log.addHandler(_Warnings(logging.WARNING))


_show_warnings()


class Group(click.Group):
    """Adds the families' own commands and turns InputError into one line + exit 2."""

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(_family_commands()))

    def get_command(self, ctx, name):
        return super().get_command(ctx, name) or _family_commands().get(name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except InputError as e:
            _fail(e)


def _fail(e: InputError) -> None:
    """Bad input: one line on stderr, exit status 2."""
    print(f"puzzlesat: error: {' '.join(str(e).split())}", file=sys.stderr)
    sys.exit(2)


def _family_commands() -> dict[str, click.Command]:
    """The commands the families add (a plug-in's that cannot be loaded: skipped, one warning)."""
    return {c.name: c for _, kind, c in family_commands() if kind == "command"}


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="puzzlesat",
                      message="%(prog)s %(version)s")
def cli() -> None:
    """puzzlesat: puzzle models in CP-SAT and SAT, cross-validated against native searches."""


def _options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`-o key=value` options plus the engine-option flags given on this command line
    (`--up-to-symmetry`, ...: declared by the engines' options with flag=True)."""
    opts: dict[str, Any] = parse_pairs(pairs)
    ctx = click.get_current_context(silent=True)
    for name, value in ((ctx.meta.get("engine_flags") or {}) if ctx else {}).items():
        opts[name] = value
    return opts


def _flag_decorators() -> list:
    """One click option per engine option declared as a flag by any family (registry.flag_options)."""

    def remember(ctx, param, value):
        if value not in (None, False):
            ctx.meta.setdefault("engine_flags", {})[param.name] = "true" if value is True else value
    decos = []
    for name, o in flag_options().items():
        dashed = "--" + name.replace("_", "-")
        if isinstance(o.default, bool):
            decos.append(click.option(dashed, name, is_flag=True, expose_value=False, callback=remember,
                                      help=f"engine option {name}: {o.help}"))
        else:
            decos.append(click.option(dashed, name, default=None, expose_value=False, callback=remember,
                                      type=click.Choice([str(c) for c in o.choices]) if o.choices else str,
                                      help=f"engine option {name}: {o.help}"))
    return decos


@cli.command("list")
@click.argument("family_name", required=False, metavar="[FAMILY]")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--verbose", "-v", is_flag=True,
              help="also the families (built in or plug-in, and where from) and every plug-in "
                   "skipped or route disabled, with why (as `puzzlesat plugins`)")
def list_cmd(family_name: str | None, as_json: bool, verbose: bool) -> None:
    """List the built-in instances (of one family, or all)."""
    fams = [family(family_name)] if family_name else list(families().values())
    rows = []
    for fam in fams:
        for short, make in fam.catalogue().items():
            d = fam.describe(make())
            rows.append({"instance": f"{fam.name}/{short}", **d})
    if as_json:
        if verbose:
            print(json.dumps({"instances": rows, "families": [_family_row(f) for f in fams],
                              "plugins": [p.to_json() for p in plugins()]}, indent=1, default=str))
        else:
            print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title="instances", title_justify="left")
    t.add_column("instance")
    t.add_column("summary")
    for r in rows:
        summary = ", ".join(f"{k}={v}" for k, v in r.items()
                            if k not in ("instance", "kind", "name", "source") and v not in (None, "", []))
        t.add_row(escape(r["instance"]), escape(summary[:150]))
    out.print(t)
    if verbose:
        ft = Table(title="families", title_justify="left")
        for col in ("family", "kind", "reads", "instances", "from"):
            ft.add_column(col)
        for f in fams:
            row = _family_row(f)
            ft.add_row(*(escape(str(row[k])) for k in ("family", "kind", "reads", "instances", "from")))
        out.print(ft)
        _print_plugins([p for p in plugins() if p.error is not None], "plug-ins skipped, routes disabled")


def _family_row(f: Family) -> dict[str, Any]:
    return {"family": f.name, "kind": f.kind,
            "reads": ", ".join([".toml", *f.suffixes, *(f"{s} (one a line)" for s in f.collections)]),
            "instances": len(f.catalogue()), "from": f.code if f.user else "built in"}


def _print_plugins(infos: list, title: str) -> None:
    t = Table(title=title, title_justify="left")
    for col in ("group", "name", "entry point", "distribution", "provides", "status"):
        t.add_column(col)
    for p in infos:
        j = p.to_json()
        status = j["status"] + (f": {p.error}" if p.error else "")
        t.add_row(*(escape(x) for x in (p.group, p.name, p.target, p.dist, ", ".join(p.provides), status)))
    out.print(t if infos else f"{title}: none", markup=False)


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="print JSON (one object per entry)")
def plugins_cmd(as_json: bool) -> None:
    """List the installed plug-ins (the `puzzlesat.families` and `puzzlesat.engines` entry points),
    what each adds, and every one skipped with why; and every kind or file suffix that two
    families read (such a file needs --family)."""
    infos = plugins()
    if as_json:
        print(json.dumps([p.to_json() for p in infos], indent=1))
        return
    _print_plugins(infos, "plug-ins")


@cli.command()
@click.argument("instance")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--svg", "picture", default=None, metavar="FILE",
              help="also draw the instance into FILE (.svg; .png with puzzlesat[png])")
@family_option
def show(instance: str, as_json: bool, picture: str | None, family_name: str | None) -> None:
    """Describe and draw an instance (one line of a collection file: FILE#LINE)."""
    fam, inst = load_instance(instance, family=family_name)
    if picture is not None:
        _check_picture(picture, fam)
        _save_picture(picture, fam, inst)
    d = fam.describe(inst)
    if as_json:
        print(json.dumps(d, indent=1, default=str))
        return
    for k, v in d.items():
        out.print(f"{k}: {v}", markup=False)
    out.print()
    out.print(fam.render(inst), markup=False)


@cli.command()
@click.argument("family_name", required=False, metavar="[FAMILY]")
@click.option("--verbose", "-v", is_flag=True, help="also each option's allowed values and help")
@click.option("--json", "as_json", is_flag=True, help="print JSON (every field, allowed values too)")
def engines(family_name: str | None, verbose: bool, as_json: bool) -> None:
    """List the engines, their tasks and options (with defaults)."""
    infos = api.engines(family_name)
    if as_json:
        print(json.dumps([e.to_json() for e in infos], default=str))
        return
    t = Table(title="engines", title_justify="left")
    cols = ("family", "engine", "aliases", "tasks", "options (default)")
    for col in cols + (("allowed values",) if verbose else ()) + ("what",):
        t.add_column(col)
    for e in infos:
        row = [e.family, e.name, ", ".join(e.aliases), ", ".join(e.tasks),
               "\n".join(f"{k}={v!r}" for k, v in e.options.items())]
        if verbose:
            row.append("\n".join(f"{k}: {a}" for k, a in (e.allowed or {}).items()))
        t.add_row(*(escape(x) for x in row + [e.description]))
    out.print(t)


_common = [
    click.option("--task", type=TASKS, default=None,
                 help="optimize | count | feasible | unique (default: the family's first task: "
                      "optimize, or count for tilings); unique: is there exactly one (optimal) "
                      "solution — UNIQUE, MULTIPLE (two checked solutions), INFEASIBLE, UNKNOWN"),
    click.option("--time-limit", type=Seconds(), default=DEFAULT_TIME_LIMIT, help=TIME_LIMIT_HELP),
    click.option("--memory-limit", "memory_limit", type=click.FloatRange(min=64), default=None,
                 metavar="MB", help="address-space cap per engine worker, in MB (default: 80% of "
                 "physical memory); a run that hits it is UNKNOWN with reason 'memory'"),
    click.option("--json", "as_json", is_flag=True, help="print JSON"),
    click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
                 help="engine option (repeatable), e.g. -o encoding=totalizer; in compare, "
                      "ENGINE.KEY=VALUE targets one engine"),
    click.option("--no-precheck", is_flag=True, help="skip the instant invariant checks (parity, position class)"),
    click.option("--max-solutions", type=click.IntRange(min=0), default=10, show_default=True,
                 help="solutions printed in JSON (all are checked)"),
]


def common(f):
    for deco in reversed(_common + _flag_decorators()):
        f = deco(f)
    return f


def _memory(memory_limit):
    return "default" if memory_limit is None else memory_limit


def _save_picture(path: str, fam: Family, inst, solution=None) -> None:
    """Draw into `path` (.svg or .png); bad paths were rejected before any work (check_target)."""
    from ..puzzles.draw import save
    p = save(path, fam.svg(inst, solution))
    err.print(f"picture: {p}", markup=False)


def _check_picture(path: str | None, fam: Family) -> None:
    """A picture path and the family's ability to draw, checked before any work."""
    if path is None:
        return
    from ..puzzles.draw import check_target
    if not fam.has_svg():
        raise InputError(f"family {fam.name} draws no pictures (its puzzle has no svg)")
    check_target(path)


@cli.command()
@click.argument("instance")
@click.option("--engine", "-e", default="default", show_default=True,
              help="engine or configuration (sat:time[encoding=totalizer]), or your own "
                   "path/to/file.py:function / package.module:function; @FILE: the one "
                   "configuration in FILE; default: the family's native engine, and for task "
                   "count the faster of it and the model counter count:frontier, chosen per "
                   "instance (stats route, route_reason)")
@click.option("--picture", default=None, metavar="FILE",
              help="draw the first solution (or, without one, the instance) into FILE "
                   "(.svg; .png with puzzlesat[png])")
@click.option("--allow-code", is_flag=True, help=ALLOW_CODE_HELP)
@family_option
@common
def solve(instance, engine, picture, allow_code, family_name, task, time_limit, memory_limit, as_json,
          option_pairs, no_precheck, max_solutions) -> None:
    """Solve INSTANCE with one engine; every solution is checked before it is shown. A
    collection file (one instance a line) solves each instance in turn: one result per instance
    (named FILE#LINE; --json: one record per line), then a summary.

    Exit status: 0, or 1 if a result is ERROR, 2 on bad input, 3 if --certify was asked and an
    OPTIMAL or INFEASIBLE answer is not certified (its certificate not VERIFIED), 130 when
    interrupted.
    """
    loaded = load_instances(instance, family=family_name)
    opts = _options(option_pairs)
    configs, origins = read_configs(engine, "--engine")
    if len(configs) != 1:
        raise InputError(f"--engine {engine}: expected one configuration, got {len(configs)}")
    if len(loaded) > 1:
        if picture is not None:
            raise InputError(f"--picture draws one instance, and {instance} is a collection of "
                             f"{len(loaded)}: name one as {instance}#LINE")
        _solve_collection(instance, loaded, configs, origins, allow_code, task, time_limit,
                          memory_limit, as_json, opts, no_precheck, max_solutions)
    fam, inst = loaded[0].family, loaded[0].instance
    _check_picture(picture, fam)  # a bad path fails now, not after a long search
    [run] = plan(fam, inst, configs, task, options=opts, time_limit=time_limit,
                 memory_limit_mb=_memory(memory_limit), precheck=not no_precheck,
                 origins=origins, allow_code=allow_code)  # input errors now
    if run.extra.get("certify_refused"):  # asked to certify what no proof can back: bad input
        raise InputError("NOT-CERTIFIABLE: " + run.extra["certify_refused"])
    try:
        with _live(f"{inst.name} {run.label}") as live:
            r = execute(run, progress=live.update)  # the run planned above, not planned again
    except tuple(INTERRUPTED) as e:
        print(f"puzzlesat: interrupted; {run.label} did not finish", file=sys.stderr)
        sys.exit(INTERRUPTED[type(e)])
    if as_json:
        print(json.dumps(r.to_record(max_solutions), default=str))
    else:
        out.print(_table(f"{fam.name}/{inst.name}  task={r.task}", [r]))
        if r.solutions:
            out.print(_render_solution(fam, inst, r.solutions[0]), markup=False)
        out.print(f"params: {json.dumps(r.params, default=str)}", markup=False)
        if r.stats.get("route"):  # the default count route: which engine and why
            out.print(f"route: {r.stats['route']} ({r.stats.get('route_reason')})"
                      + (f"; after {r.stats['fallback_after']}" if r.stats.get("fallback_after") else ""),
                      markup=False)
        out.print(times_text(r), markup=False)
        if r.certificate:
            c = r.certificate
            line = f"certificate: {c.verdict}"
            if c.proofs:
                line += (f" ({len(c.proofs)} proof(s), {c.lemmas} lemmas, "
                         f"{c.proof_bytes} bytes, checked in {c.checker_seconds} s CPU; "
                         f"folder {c.folder})")
            out.print(line, markup=False)
            for k, v in (("claim", c.claim), ("reason", c.reason), ("trusted", c.trusted)):
                if v:
                    out.print(f"  {k}: {v}", markup=False)
    if picture is not None:
        if not r.solutions:
            err.print(f"no solution ({r.status}): the picture shows the instance", markup=False)
        _save_picture(picture, fam, inst, r.solutions[0] if r.solutions else None)
    sys.exit(_exit_status([r]))


def _exit_status(results: list[Result]) -> int:
    """1 if a result is ERROR; else 3 if a certified run's answer is not certified (one line on
    stderr says which and why); else 0."""
    if any(r.status is Status.ERROR for r in results):
        return 1
    why = [w for w in map(uncertified, results) if w]
    if why:
        print(f"puzzlesat: uncertified: {why[0]}" + (f" (+{len(why) - 1} more)" if len(why) > 1 else ""),
              file=sys.stderr)
        return 3
    return 0


def _solve_collection(name, loaded, configs, origins, allow_code, task, time_limit, memory_limit,
                      as_json, opts, no_precheck, max_solutions) -> None:
    """`solve` over a collection: every instance planned first (all input errors before any
    run), then one result per instance as it finishes, a summary, exit 1 if any is ERROR."""
    runs = [plan(got.family, got.instance, configs, task, options=opts, time_limit=time_limit,
                 memory_limit_mb=_memory(memory_limit), precheck=not no_precheck, origins=origins,
                 allow_code=allow_code)[0] for got in loaded]
    if runs[0].extra.get("certify_refused"):
        raise InputError("NOT-CERTIFIABLE: " + runs[0].extra["certify_refused"])
    done: list[Result] = []
    try:
        for got, run in zip(loaded, runs):
            with _live(f"{got.ref} {run.label}") as live:
                r = execute(run, progress=live.update)
            done.append(r)
            if as_json:
                print(json.dumps(r.to_record(max_solutions), default=str), flush=True)
            else:
                line = (f"{got.ref}  {r.status}"
                        + (f"  objective {r.objective}" if r.objective is not None else "")
                        + (f"  count {r.count}" if r.count is not None else "")
                        + f"  {r.seconds:.3f} s" + (f"  ({r.reason})" if r.reason else ""))
                out.print(line, markup=False)
    except tuple(INTERRUPTED) as e:
        print(f"puzzlesat: interrupted; {len(done)} of {len(loaded)} instances of {name} finished",
              file=sys.stderr)
        sys.exit(INTERRUPTED[type(e)])
    label = runs[0].engine.name + (f" ({runs[0].config})" if runs[0].config else "")
    summary = collection_summary(name, label, done)
    print(summary, file=sys.stderr if as_json else sys.stdout)
    sys.exit(_exit_status(done))


def collection_summary(name: str, label: str, results: list[Result]) -> str:
    """One line: how many instances ended in each status, and their seconds."""
    by: dict[str, int] = {}
    for r in results:
        by[str(r.status)] = by.get(str(r.status), 0) + 1
    secs = sorted(r.seconds for r in results)
    mid = secs[len(secs) // 2] if secs else 0.0
    return (f"{name}: {len(results)} instances, {label}: "
            + ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
            + f"; {sum(secs):.3f} s in all (median {mid:.3f} s, max {max(secs, default=0.0):.3f} s)")


def times_text(r: Result) -> str:
    """Where a run's time went: the engine's own work (the table's time), its worker's start-up,
    the checking, and numba's JIT inside the call where there was any."""
    parts = [f"engine {r.seconds:.3f} s"]
    jit = r.stats.get("jit_seconds")
    if isinstance(jit, (int, float)) and jit >= 0.0005:
        parts[0] += f" (+ {jit:.3f} s numba JIT in the call, not counted)"
    if r.startup_seconds is not None:
        parts.append(f"start-up {r.startup_seconds:.3f} s (worker fork, imports, kernels)")
    if r.check_seconds is not None:
        parts.append(f"checking {r.check_seconds:.3f} s")
    return "times: " + "; ".join(parts)


def _render_solution(fam: Family, inst, sol) -> str:
    return "solution: " + json.dumps(fam.solution_json(inst, sol))[:2000]


@cli.command()
@click.argument("instances", nargs=-1, required=True)
@click.option("--engines", "engine_list", default=None,
              help="comma-separated engines or configurations, e.g. 'sat[encoding=seqcounter]',"
                   "'tot=sat[encoding=totalizer]',native (default: the family's native, cpsat, sat)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="engines run side by side (each in its own worker; they then share the cores, "
                   "so their times are not comparable: keep 1 for timings)")
@format_option
@click.option("--allow-code", is_flag=True, help=ALLOW_CODE_HELP)
@family_option
@common
def compare(instances, engine_list, jobs, fmt, allow_code, family_name, task, time_limit, memory_limit,
            as_json, option_pairs, no_precheck, max_solutions) -> None:
    """Run several engines on each INSTANCE and check that they agree.

    Engines may be configurations: `--engines 'sat[encoding=seqcounter]','tot=sat[encoding=totalizer]',native`,
    or `--engines @FILE`: a configuration list (one per line or comma separated, # comments), whose
    code not shipped with puzzlesat runs only with --allow-code.
    Verdict AGREE (all finished, same objective and count, every solution checked), DISAGREE (exit
    status 1), INCOMPLETE (an engine hit its limit) or UNCHECKED (a count that one counter, which
    lists no solutions, reached alone). JSON: one object per instance per line.
    Ctrl-C prints what finished and exits 130. `--format csv|markdown|latex` writes the tables
    (one per instance; CSV: one table with the instance, task and verdict first).
    """
    fmt = output_format(fmt, as_json)
    as_json = fmt == "json"
    tables: list[TableModel] = []  # csv, markdown, latex: written at the end (what finished, when interrupted)
    loaded = [(got.family, got.instance) for i in instances  # all input errors before any work
              for got in load_instances(i, family=family_name)]  # a collection: each instance
    opts = _options(option_pairs)
    configs, origins = read_configs(engine_list, "--engines") if engine_list is not None else (None, None)
    planned = []
    for fam, inst in loaded:
        cfgs = configs or api.default_engines(fam.name)
        runs = plan(fam, inst, cfgs, task, options=opts, time_limit=time_limit,
                    memory_limit_mb=_memory(memory_limit), precheck=not no_precheck,
                    origins=origins if configs else None, allow_code=allow_code)
        planned.append((fam, inst, runs))
    worst = 0
    uncertain = False  # --certify, and an agreed answer no engine certified: exit 3
    verdicts: dict[str, int] = {}
    for fam, inst, runs in planned:
        ftask, n = runs[0].task, len(runs)
        label = f"{fam.name}/{inst.name}"
        done: list[Result] = []
        try:
            with _live(label) as live:
                def progress_for(name, live=live):
                    if live.engine is None:
                        return None
                    live.engine(name)
                    return live.update
                c = compare_runs(runs, on_result=done.append,  # the runs planned above
                                 progress_for=progress_for if jobs == 1 else None, jobs=jobs)
        except tuple(INTERRUPTED) as e:
            if done:
                a = assess(done, fam.sense, ftask)
                partial = Comparison(inst.name, ftask, a.verdict, a.reasons, done, wrong=a.wrong)
                if as_json:
                    print(json.dumps({**partial.to_json(max_solutions=max_solutions), "interrupted": True},
                                     default=str))
                elif fmt == "text":
                    out.print(_table(f"{label}  task={ftask}  (interrupted)", done, partial.wrong))
                else:
                    t = partial.table_model()
                    t.title += " (interrupted)"
                    print_tables(tables + [t], fmt)
            print(f"puzzlesat: interrupted; {len(done)} of {n} engines on {label} finished",
                  file=sys.stderr)
            sys.exit(INTERRUPTED[type(e)])
        if as_json:
            print(json.dumps(c.to_json(max_solutions=max_solutions), default=str))
        elif fmt != "text":
            tables.append(c.table_model())
        else:
            out.print(_table(f"{label}  task={ftask}", c.results, c.wrong))
            color = {"AGREE": "green", "DISAGREE": "red", "INCOMPLETE": "yellow",
                     "UNCHECKED": "yellow"}[c.verdict.value]
            out.print(f"verdict: [{color}]{escape(c.verdict_text())}[/]")
            for reason in c.reasons:
                out.print(f"  - {reason}", markup=False)
            out.print()
        if c.verdict is Verdict.DISAGREE:
            worst = 1
        elif (c.verdict is Verdict.AGREE and not c.certified and ftask is not Task.FEASIBLE
              and any(r.certificate for r in c.results)
              and any(r.status in (Status.OPTIMAL, Status.INFEASIBLE) for r in c.results)):
            print(f"puzzlesat: uncertified: {label}: the engines agree, and no answer is certified "
                  "(no certificate VERIFIED)", file=sys.stderr)
            uncertain = True
        verdicts[c.verdict.value] = verdicts.get(c.verdict.value, 0) + 1
    if tables:
        print_tables(tables, fmt)
    if len(planned) > 1 and fmt == "text":
        out.print(f"verdicts of {len(planned)} instances: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())), markup=False)
    sys.exit(worst or (3 if uncertain else 0))


@cli.group()
def generate() -> None:
    """Generate random instances (per family)."""


from .certify import certify_cmd  # noqa: E402  (proof checking)
from .export import export_cmd, stats_cmd  # noqa: E402  (formulation lab commands)
from .lab import bench_cmd, lab_cmd  # noqa: E402

cli.add_command(certify_cmd)
cli.add_command(export_cmd)
cli.add_command(stats_cmd)
cli.add_command(lab_cmd)
cli.add_command(bench_cmd)


def _add_generators() -> None:
    for fam, kind, c in family_commands():
        if kind == "generate":
            generate.add_command(c, fam.name)


from .campaign import campaign as _campaign  # noqa: E402  (the campaign command group)
cli.add_command(_campaign)


OUTPUT_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)  # writing out


def _quiet_stdout() -> None:
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> None:
    """Console entry point: every error is one line `puzzlesat: error: ...` on stderr, exit 2
    (click's usage errors too)."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        _add_generators()
        cli.main(argv, prog_name="puzzlesat", standalone_mode=False)
    except InputError as e:
        _fail(e)
    except click.UsageError as e:
        where = f" (see `{e.ctx.command_path} --help`)" if e.ctx is not None else ""
        print(f"puzzlesat: error: {' '.join(e.format_message().split())}{where}", file=sys.stderr)
        sys.exit(2)
    except click.ClickException as e:
        print(f"puzzlesat: error: {' '.join(e.format_message().split())}", file=sys.stderr)
        sys.exit(e.exit_code)
    except click.Abort:
        print("puzzlesat: interrupted", file=sys.stderr)
        sys.exit(130)
    except OSError as e:
        if e.errno not in OUTPUT_ERRORS:
            raise
        _quiet_stdout()  # nothing more can go there: no second error at exit
        if e.errno == errno.EPIPE:  # the reader went away (`| head`): as a shell tool does
            sys.exit(141)
        print(f"puzzlesat: error: cannot write the output ({e.strerror or e})", file=sys.stderr)
        sys.exit(2)
    except tuple(INTERRUPTED) as e:  # a command that does not report what it finished itself
        print("puzzlesat: interrupted", file=sys.stderr)
        sys.exit(INTERRUPTED[type(e)])
    sys.exit(0)


if __name__ == "__main__":
    main()
