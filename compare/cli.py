"""The `puzzlesat` command line: list, show, engines, solve, compare, bench (+ family commands).

Bad input of any kind prints one line on stderr and exits with status 2; `compare` exits 1 on
DISAGREE. Every result is checked by the puzzle's independent checker before it is printed.
"""
from __future__ import annotations

import importlib
import json
import math
import signal
import statistics
import sys
import textwrap
import threading
import time
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from puzzlesat.puzzles.core import InputError, Status, Task

from .crossval import Verdict, compare as run_compare
from .instances import load_instance
from .registry import Family, families, family
from .runner import Result, solve as run_solve


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that workers are killed and results printed."""


def _on_sigterm(signum, frame):
    raise Terminated()


INTERRUPTED = {KeyboardInterrupt: 130, Terminated: 143}

out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False)

TASKS = click.Choice([t.value for t in Task])


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
    cmds = {}
    for fam in families().values():
        for target in fam.extra.get("commands", ()):
            mod, attr = target.split(":")
            c = getattr(importlib.import_module(mod), attr)
            cmds[c.name] = c
    return cmds


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """puzzlesat: puzzle models in CP-SAT and SAT, cross-validated against native searches."""


def _options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`-o key=value` options plus the engine-option flags given on this command line
    (`--up-to-symmetry`, ...: declared by the engines' options with flag=True)."""
    from .config import parse_pairs
    opts: dict[str, Any] = parse_pairs(pairs)
    ctx = click.get_current_context(silent=True)
    for name, value in ((ctx.meta.get("engine_flags") or {}) if ctx else {}).items():
        opts[name] = value
    return opts


def _flag_decorators() -> list:
    """One click option per engine option declared as a flag by any family (registry.flag_options)."""
    from .registry import flag_options

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


class _Live:
    """A live one-line status on stderr (only on a terminal): label, the latest progress fields and
    the elapsed time, redrawn twice a second even when the engine reports nothing."""

    def __init__(self, label: str):
        self.label, self.fields, self.t0 = label, {}, time.monotonic()
        self.status = err.status(escape(f"{label} …"))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self):
        self.status.start()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(1)
        self.status.stop()

    def engine(self, name: str) -> None:
        """A new engine starts: its name, fresh fields and clock."""
        self.fields, self.t0 = {"engine": name}, time.monotonic()
        self._draw()

    def update(self, fields: dict) -> None:
        self.fields = {**({"engine": self.fields["engine"]} if "engine" in self.fields else {}), **fields}
        self._draw()

    def _draw(self) -> None:
        text = "  ".join(f"{k}={v}" for k, v in self.fields.items())
        self.status.update(escape(f"{self.label}  {text}  [{time.monotonic() - self.t0:.1f} s]"))

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            self._draw()


class _NoLive:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    update = engine = None


def _live(label: str):
    return _Live(label) if err.is_terminal else _NoLive()


def _note(r: Result, width: int = 160) -> str:
    """The last line of the result's reason, shortened at a word boundary."""
    note = (r.reason or "").strip().splitlines()[-1] if r.reason else ""
    if "count_lower_bound" in r.stats:
        note = (note + f"; ≥{r.stats['count_lower_bound']} found").strip("; ")
    return textwrap.shorten(note, width, placeholder=" …") if note else ""


def _table(title: str, results: list[Result]) -> Table:
    t = Table(title=title, title_justify="left")
    for col, just in (("engine", "left"), ("status", "left"), ("objective", "right"), ("count", "right"),
                      ("checked", "right"), ("time (s)", "right"), ("model / search size", "left"),
                      ("note", "left")):
        t.add_column(col, justify=just)
    for r in results:
        size = r.stats.get("model_size") or (f"{r.stats['nodes']:,} nodes" if "nodes" in r.stats else "")
        color = {Status.OPTIMAL: "green", Status.INFEASIBLE: "green", Status.FEASIBLE: "yellow",
                 Status.UNKNOWN: "yellow", Status.ERROR: "red"}[r.status]
        t.add_row(escape(r.label), f"[{color}]{r.status}[/]", _s(r.objective), _s(r.count), str(r.checked),
                  f"{r.seconds:.3f}", escape(str(size)), escape(_note(r)))
    return t


def _s(v) -> str:
    return "" if v is None else str(v)


@cli.command("list")
@click.argument("family_name", required=False, metavar="[FAMILY]")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def list_cmd(family_name: str | None, as_json: bool) -> None:
    """List the built-in instances (of one family, or all)."""
    fams = [family(family_name)] if family_name else list(families().values())
    rows = []
    for fam in fams:
        for short, make in fam.puzzle.catalogue().items():
            d = fam.puzzle.describe(make())
            rows.append({"instance": f"{fam.name}/{short}", **d})
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title="instances", title_justify="left")
    t.add_column("instance")
    t.add_column("summary")
    for r in rows:
        summary = ", ".join(f"{k}={v}" for k, v in r.items()
                            if k not in ("instance", "kind", "name", "source") and v not in (None, "", []))
        t.add_row(r["instance"], summary[:150])
    out.print(t)


@cli.command()
@click.argument("instance")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--svg", "picture", default=None, metavar="FILE",
              help="also draw the instance into FILE (.svg; .png with puzzlesat[png])")
def show(instance: str, as_json: bool, picture: str | None) -> None:
    """Describe and draw an instance."""
    fam, inst = load_instance(instance)
    if picture is not None:
        _save_picture(picture, inst)
    d = fam.puzzle.describe(inst)
    if as_json:
        print(json.dumps(d, indent=1, default=str))
        return
    for k, v in d.items():
        out.print(f"{k}: {v}", markup=False)
    out.print()
    out.print(fam.puzzle.render(inst), markup=False)


@cli.command()
@click.argument("family_name", required=False, metavar="[FAMILY]")
def engines(family_name: str | None) -> None:
    """List the engines, their tasks and options (with defaults)."""
    fams = [family(family_name)] if family_name else list(families().values())
    t = Table(title="engines", title_justify="left")
    for col in ("family", "engine", "aliases", "tasks", "options (default)", "what"):
        t.add_column(col)
    for fam in fams:
        for e in fam.all_engines():
            t.add_row(*(escape(x) for x in (
                fam.name, e.name, ", ".join(e.aliases), ", ".join(map(str, e.tasks)),
                "\n".join(f"{o.name}={o.default!r}" for o in e.options), e.description)))
    out.print(t)


class _Seconds(click.ParamType):
    """A positive, finite number of seconds (nan, inf and negatives are refused)."""
    name = "SECONDS"

    def convert(self, value, param, ctx):
        try:
            v = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(v) or v <= 0:
            self.fail(f"{value!r} is not a positive finite number", param, ctx)
        return v


_common = [
    click.option("--task", type=TASKS, default=None,
                 help="optimize | count | feasible (default: the family's first task: optimize, "
                      "or count for tilings)"),
    click.option("--time-limit", type=_Seconds(), default=None,
                 help="seconds per engine; a run cut short is UNKNOWN (or FEASIBLE with a checked solution)"),
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


def _save_picture(path: str, inst, solution=None) -> None:
    """Draw into `path` (.svg or .png); bad paths were rejected before any work (check_target)."""
    from puzzlesat.puzzles.draw import save, svg
    p = save(path, svg(inst, solution))
    err.print(f"picture: {p}", markup=False)


@cli.command()
@click.argument("instance")
@click.option("--engine", "-e", default="native", show_default=True,
              help="engine or configuration (sat:time[encoding=totalizer]), or your own "
                   "path/to/file.py:function / package.module:function")
@click.option("--picture", default=None, metavar="FILE",
              help="draw the first solution (or, without one, the instance) into FILE "
                   "(.svg; .png with puzzlesat[png])")
@common
def solve(instance, engine, picture, task, time_limit, memory_limit, as_json, option_pairs,
          no_precheck, max_solutions) -> None:
    """Solve INSTANCE with one engine; every solution is checked before it is shown.

    Exit status: 0, or 1 if the result is ERROR, 2 on bad input, 130 when interrupted.
    """
    from .crossval import plan
    from .runner import validate
    fam, inst = load_instance(instance)
    task = task or fam.tasks[0].value
    if picture is not None:
        from puzzlesat.puzzles.draw import check_target
        check_target(picture)  # a bad path fails now, not after a long search
    opts = _options(option_pairs)
    [(cfg, eng, eopts)] = plan(fam, [engine], task, opts)
    validate(fam, inst, eng, eopts)
    try:
        with _live(f"{inst.name} {cfg.name}") as live:
            r = run_solve(fam, inst, eng, task, time_limit=time_limit, options=eopts,
                          precheck=not no_precheck, progress=live.update,
                          memory_limit_mb=_memory(memory_limit), config=cfg.name)
    except tuple(INTERRUPTED) as e:
        print(f"puzzlesat: interrupted; {cfg.name} did not finish", file=sys.stderr)
        sys.exit(INTERRUPTED[type(e)])
    if as_json:
        print(json.dumps(r.to_json(fam, inst, max_solutions), default=str))
    else:
        out.print(_table(f"{fam.name}/{inst.name}  task={task}", [r]))
        if r.solutions:
            out.print(_render_solution(fam, inst, r.solutions[0]), markup=False)
        out.print(f"params: {json.dumps(r.params, default=str)}", markup=False)
    if picture is not None:
        if not r.solutions:
            err.print(f"no solution ({r.status}): the picture shows the instance", markup=False)
        _save_picture(picture, inst, r.solutions[0] if r.solutions else None)
    sys.exit(1 if r.status is Status.ERROR else 0)


def _render_solution(fam: Family, inst, sol) -> str:
    j = fam.puzzle.solution_json(inst, sol)
    return "solution: " + json.dumps(j)[:2000]


@cli.command()
@click.argument("instances", nargs=-1, required=True)
@click.option("--engines", "engine_list", default=None,
              help="comma-separated engines or configurations, e.g. 'sat[encoding=seqcounter]',"
                   "'tot=sat[encoding=totalizer]',native (default: the family's native, cpsat, sat)")
@common
def compare(instances, engine_list, task, time_limit, memory_limit, as_json, option_pairs,
            no_precheck, max_solutions) -> None:
    """Run several engines on each INSTANCE and check that they agree.

    Engines may be configurations: `--engines 'sat[encoding=seqcounter]','tot=sat[encoding=totalizer]',native`.
    Verdict AGREE (all finished, same objective and count, every solution checked), DISAGREE (exit
    status 1) or INCOMPLETE (an engine hit its limit). JSON: one object per instance per line.
    Ctrl-C prints what finished and exits 130.
    """
    from .config import parse_many
    from .crossval import judge, plan
    from .runner import validate
    loaded = [load_instance(i) for i in instances]  # all input errors before any work
    opts = _options(option_pairs)
    configs = parse_many(engine_list) if engine_list else None
    jobs = []
    for fam, inst in loaded:
        ftask = task or fam.tasks[0].value
        cfgs = configs or [n for n in fam.default_engines if n in fam.engine_names()]
        runs = plan(fam, cfgs, ftask, opts)
        for _, e, eopts in runs:
            validate(fam, inst, e, eopts)
        jobs.append((fam, inst, ftask, [c for c, _, _ in runs]))
    worst = 0
    for fam, inst, ftask, cfgs in jobs:
        label = f"{fam.name}/{inst.name}"
        done: list[Result] = []
        try:
            with _live(label) as live:
                def progress_for(name, live=live):
                    if live.engine is None:
                        return None
                    live.engine(name)
                    return live.update
                c = run_compare(fam, inst, cfgs, ftask, time_limit=time_limit, options=opts,
                                precheck=not no_precheck, progress_for=progress_for,
                                on_result=done.append, memory_limit_mb=_memory(memory_limit))
        except tuple(INTERRUPTED) as e:
            if done:
                verdict, reasons = judge(done, getattr(fam.puzzle, "SENSE", None), Task(ftask))
                if as_json:
                    from .crossval import Comparison
                    print(json.dumps({**Comparison(inst.name, Task(ftask), verdict, reasons, done)
                                      .to_json(fam, inst, max_solutions), "interrupted": True},
                                     default=str))
                else:
                    out.print(_table(f"{label}  task={ftask}  (interrupted)", done))
            print(f"puzzlesat: interrupted; {len(done)} of {len(cfgs)} engines on {label} finished",
                  file=sys.stderr)
            sys.exit(INTERRUPTED[type(e)])
        if as_json:
            print(json.dumps(c.to_json(fam, inst, max_solutions), default=str))
        else:
            out.print(_table(f"{label}  task={ftask}", c.results))
            color = {"AGREE": "green", "DISAGREE": "red", "INCOMPLETE": "yellow"}[c.verdict.value]
            out.print(f"verdict: [{color}]{c.verdict}[/]")
            for reason in c.reasons:
                out.print(f"  - {reason}", markup=False)
            out.print()
        if c.verdict is Verdict.DISAGREE:
            worst = 1
    sys.exit(worst)


@cli.command()
@click.argument("instances", nargs=-1, required=True)
@click.option("--engines", "engine_list", default=None, help="comma-separated engines")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True)
@common
def bench(instances, engine_list, task, time_limit, memory_limit, as_json, option_pairs, no_precheck,
          max_solutions, repeat) -> None:
    """Time engines or configurations on instances (each run checked); prints a table of times."""
    from .config import parse_many
    from .crossval import plan
    from .runner import validate
    loaded = [load_instance(i) for i in instances]
    opts = _options(option_pairs)
    configs = parse_many(engine_list) if engine_list else None
    jobs = []
    for fam, inst in loaded:
        ftask = task or fam.tasks[0].value
        runs = plan(fam, configs or [n for n in fam.default_engines if n in fam.engine_names()], ftask, opts)
        for _, e, eopts in runs:
            validate(fam, inst, e, eopts)
        jobs.append((fam, inst, ftask, runs))
    rows = []
    try:
        for fam, inst, ftask, runs in jobs:
            for c, e, eopts in runs:
                times, last = [], None
                for _ in range(repeat):
                    last = run_solve(fam, inst, e, ftask, time_limit=time_limit, options=eopts,
                                     precheck=not no_precheck, memory_limit_mb=_memory(memory_limit),
                                     config=c.name)
                    times.append(last.seconds)
                rows.append((fam, inst, last, times))
                if not as_json:
                    err.print(f"{fam.name}/{inst.name} {last.label}: {last.status} {min(times):.3f} s",
                              markup=False)
    except tuple(INTERRUPTED) as e:
        print(f"puzzlesat: interrupted after {len(rows)} runs", file=sys.stderr)
        sys.exit(INTERRUPTED[type(e)])
    if as_json:
        print(json.dumps([{"instance": f"{f.name}/{i.name}", "engine": r.engine, "config": r.label,
                           "status": str(r.status), "objective": r.objective, "count": r.count,
                           "seconds": ts, "min_seconds": min(ts), "params": r.params, "stats": r.stats}
                          for f, i, r, ts in rows], default=str))
        return
    t = Table(title=f"bench  repeat={repeat}", title_justify="left")
    for col in ("instance", "engine", "status", "objective", "count", "min (s)", "median (s)", "size"):
        t.add_column(col)
    for f, i, r, ts in rows:
        t.add_row(f"{f.name}/{i.name}", escape(r.label), str(r.status), _s(r.objective), _s(r.count),
                  f"{min(ts):.3f}", f"{statistics.median(ts):.3f}",
                  escape(str(r.stats.get("model_size") or (f"{r.stats['nodes']:,} nodes" if "nodes" in r.stats else ""))))
    out.print(t)


@cli.group()
def generate() -> None:
    """Generate random instances (per family)."""


from .config import parse_many  # noqa: E402
from .export import export_cmd, stats_cmd  # noqa: E402  (formulation lab commands)
from .lab import lab_cmd  # noqa: E402

cli.add_command(export_cmd)
cli.add_command(stats_cmd)
cli.add_command(lab_cmd)


def _add_generators() -> None:
    for fam in families().values():
        target = fam.extra.get("generate")
        if target:
            mod, attr = target.split(":")
            c = getattr(importlib.import_module(mod), attr)
            generate.add_command(c, fam.name)


from .campaign.cli import campaign as _campaign  # noqa: E402  (the campaign command group)
cli.add_command(_campaign)


def main() -> None:
    """Console entry point."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        _add_generators()
        cli.main(prog_name="puzzlesat", standalone_mode=True)
    except InputError as e:
        _fail(e)


if __name__ == "__main__":
    main()
