"""The `puzzlesat` command line: list, show, engines, solve, compare, bench (+ family commands).

Bad input of any kind prints one line on stderr and exits with status 2; `compare` exits 1 on
DISAGREE. Every result is checked by the puzzle's independent checker before it is printed.
"""
from __future__ import annotations

import importlib
import json
import statistics
import sys
import time
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from puzzlesat.puzzles.core import InputError, Status, Task

from .crossval import Verdict, compare as run_compare
from .instances import load_instance
from .registry import Family, families, family
from .runner import Result, solve as run_solve

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


def _options(pairs: tuple[str, ...], up_to_symmetry: bool = False, exhaust: bool = False) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for p in pairs:
        if "=" not in p:
            raise InputError(f"option '{p}': expected key=value (e.g. -o encoding=totalizer)")
        k, _, v = p.partition("=")
        opts[k.strip()] = v.strip()
    if up_to_symmetry:
        opts["up_to_symmetry"] = "true"
    if exhaust:
        opts["exhaust"] = "true"
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get("direction"):
        opts["direction"] = ctx.meta["direction"]
    return opts


def _progress(label: str):
    """A live one-line status on stderr (only on a terminal) and its update callback."""
    if not err.is_terminal:
        return None, None
    status = err.status(f"{label} …")
    t0 = time.monotonic()

    def update(fields: dict) -> None:
        text = "  ".join(f"{k}={v}" for k, v in fields.items())
        status.update(f"{label}  {text}  [{time.monotonic() - t0:.1f} s]")
    return status, update


def _table(title: str, results: list[Result]) -> Table:
    t = Table(title=title, title_justify="left")
    for col, just in (("engine", "left"), ("status", "left"), ("objective", "right"), ("count", "right"),
                      ("checked", "right"), ("time (s)", "right"), ("model / search size", "left"),
                      ("note", "left")):
        t.add_column(col, justify=just)
    for r in results:
        size = r.stats.get("model_size") or (f"{r.stats['nodes']:,} nodes" if "nodes" in r.stats else "")
        note = (r.reason or "").strip().splitlines()[-1] if r.reason else ""
        if "count_lower_bound" in r.stats:
            note = (note + f"; ≥{r.stats['count_lower_bound']} found").strip("; ")
        color = {Status.OPTIMAL: "green", Status.INFEASIBLE: "green", Status.FEASIBLE: "yellow",
                 Status.UNKNOWN: "yellow", Status.ERROR: "red"}[r.status]
        t.add_row(r.engine, f"[{color}]{r.status}[/]", _s(r.objective), _s(r.count), str(r.checked),
                  f"{r.seconds:.3f}", size, note[:120])
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
def show(instance: str, as_json: bool) -> None:
    """Describe and draw an instance."""
    fam, inst = load_instance(instance)
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
        for e in fam.engines:
            t.add_row(fam.name, e.name, ", ".join(e.aliases), ", ".join(map(str, e.tasks)),
                      "\n".join(f"{o.name}={o.default!r}" for o in e.options), e.description)
    out.print(t)


_common = [
    click.option("--task", type=TASKS, default="optimize", show_default=True),
    click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
                 help="seconds per engine; a run cut short is UNKNOWN (or FEASIBLE with a checked solution)"),
    click.option("--json", "as_json", is_flag=True, help="print JSON"),
    click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
                 help="engine option (repeatable), e.g. -o encoding=totalizer; in compare, "
                      "ENGINE.KEY=VALUE targets one engine"),
    click.option("--up-to-symmetry", is_flag=True, help="count solutions up to the board's symmetries"),
    click.option("--exhaust", is_flag=True, help="(peg native:bfs) exhaust the search space (see --direction)"),
    click.option("--direction", type=click.Choice(["forward", "backward"]), default=None, expose_value=False,
                 callback=lambda ctx, _, v: ctx.meta.__setitem__("direction", v),
                 help="(peg native:bfs --exhaust) forward from the start, or backward from the finish"),
    click.option("--no-precheck", is_flag=True, help="skip the instant invariant checks (parity, position class)"),
    click.option("--max-solutions", type=click.IntRange(min=0), default=10, show_default=True,
                 help="solutions printed in JSON (all are checked)"),
]


def common(f):
    for deco in reversed(_common):
        f = deco(f)
    return f


@cli.command()
@click.argument("instance")
@click.option("--engine", "-e", default="native", show_default=True)
@common
def solve(instance, engine, task, time_limit, as_json, option_pairs, up_to_symmetry, exhaust,
          no_precheck, max_solutions) -> None:
    """Solve INSTANCE with one engine; every solution is checked before it is shown.

    Exit status: 0, or 1 if the result is ERROR, 2 on bad input.
    """
    fam, inst = load_instance(instance)
    opts = _options(option_pairs, up_to_symmetry, exhaust)
    status, update = _progress(f"{inst.name} {engine}")
    if status:
        status.start()
    try:
        r = run_solve(fam, inst, engine, task, time_limit=time_limit, options=opts,
                      precheck=not no_precheck, progress=update)
    finally:
        if status:
            status.stop()
    if as_json:
        print(json.dumps(r.to_json(fam, inst, max_solutions), default=str))
    else:
        out.print(_table(f"{fam.name}/{inst.name}  task={task}", [r]))
        if r.solutions:
            out.print(_render_solution(fam, inst, r.solutions[0]), markup=False)
        out.print(f"params: {json.dumps(r.params, default=str)}", markup=False)
    sys.exit(1 if r.status is Status.ERROR else 0)


def _render_solution(fam: Family, inst, sol) -> str:
    j = fam.puzzle.solution_json(inst, sol)
    return "solution: " + json.dumps(j)[:2000]


@cli.command()
@click.argument("instances", nargs=-1, required=True)
@click.option("--engines", "engine_list", default=None,
              help="comma-separated engines (default: the family's native, cpsat, sat)")
@common
def compare(instances, engine_list, task, time_limit, as_json, option_pairs, up_to_symmetry, exhaust,
            no_precheck, max_solutions) -> None:
    """Run several engines on each INSTANCE and check that they agree.

    Verdict AGREE (all finished, same objective and count, every solution checked), DISAGREE (exit
    status 1) or INCOMPLETE (an engine hit its limit). JSON: one object per instance per line.
    """
    loaded = [load_instance(i) for i in instances]  # all input errors before any work
    opts = _options(option_pairs, up_to_symmetry, exhaust)
    worst = 0
    for fam, inst in loaded:
        names = engine_list.split(",") if engine_list else \
            [n for n in fam.default_engines if n in fam.engine_names()]
        names = [n.strip() for n in names if n.strip()]
        label = f"{fam.name}/{inst.name}"
        status, update = _progress(label)
        if status:
            status.start()
        try:
            c = run_compare(fam, inst, names, task, time_limit=time_limit, options=opts,
                            precheck=not no_precheck,
                            progress_for=lambda e: (lambda f: update({"engine": e, **f})) if update else None)
        finally:
            if status:
                status.stop()
        if as_json:
            print(json.dumps(c.to_json(fam, inst, max_solutions), default=str))
        else:
            out.print(_table(f"{label}  task={task}", c.results))
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
def bench(instances, engine_list, task, time_limit, as_json, option_pairs, up_to_symmetry, exhaust,
          no_precheck, max_solutions, repeat) -> None:
    """Time engines on instances (each run checked); prints a table of times."""
    loaded = [load_instance(i) for i in instances]
    opts = _options(option_pairs, up_to_symmetry, exhaust)
    rows = []
    for fam, inst in loaded:
        names = engine_list.split(",") if engine_list else \
            [n for n in fam.default_engines if n in fam.engine_names()]
        from .crossval import split_options
        per = split_options([fam.engine(n) for n in names], opts)
        for n in names:
            e = fam.engine(n)
            times, last = [], None
            for _ in range(repeat):
                last = run_solve(fam, inst, e, task, time_limit=time_limit, options=per[e.name],
                                 precheck=not no_precheck)
                times.append(last.seconds)
            rows.append((fam, inst, last, times))
            if not as_json:
                err.print(f"{fam.name}/{inst.name} {e.name}: {last.status} {min(times):.3f} s", markup=False)
    if as_json:
        print(json.dumps([{"instance": f"{f.name}/{i.name}", "engine": r.engine, "status": str(r.status),
                           "objective": r.objective, "count": r.count, "seconds": ts,
                           "min_seconds": min(ts), "params": r.params, "stats": r.stats}
                          for f, i, r, ts in rows], default=str))
        return
    t = Table(title=f"bench  task={task}  repeat={repeat}", title_justify="left")
    for col in ("instance", "engine", "status", "objective", "count", "min (s)", "median (s)", "size"):
        t.add_column(col)
    for f, i, r, ts in rows:
        t.add_row(f"{f.name}/{i.name}", r.engine, str(r.status), _s(r.objective), _s(r.count),
                  f"{min(ts):.3f}", f"{statistics.median(ts):.3f}",
                  r.stats.get("model_size") or (f"{r.stats['nodes']:,} nodes" if "nodes" in r.stats else ""))
    out.print(t)


@cli.group()
def generate() -> None:
    """Generate random instances (per family)."""


def _add_generators() -> None:
    for fam in families().values():
        target = fam.extra.get("generate")
        if target:
            mod, attr = target.split(":")
            c = getattr(importlib.import_module(mod), attr)
            generate.add_command(c, fam.name)


def main() -> None:
    """Console entry point."""
    try:
        _add_generators()
        cli.main(prog_name="puzzlesat", standalone_mode=True)
    except InputError as e:
        _fail(e)


if __name__ == "__main__":
    main()
