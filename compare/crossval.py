"""Cross-validation: run several engines on one instance and judge whether they agree."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable

from puzzlesat.puzzles.core import InputError, Status, Task

from .config import Config, parse as parse_config
from .registry import Engine, Family
from .runner import Result, solve, validate


class Verdict(str, enum.Enum):
    AGREE = "AGREE"            # every engine finished; same objective and count; all solutions checked
    DISAGREE = "DISAGREE"      # a mismatch, a failed check or an engine error
    INCOMPLETE = "INCOMPLETE"  # no mismatch, but some engine stopped at its limit

    def __str__(self) -> str:
        return self.value


@dataclass
class Comparison:
    """The results of several engines on one instance and the verdict on them."""

    instance: str
    task: Task
    verdict: Verdict
    reasons: list[str]
    results: list[Result] = field(default_factory=list)

    def to_json(self, fam: Family | None = None, inst: Any = None, max_solutions: int | None = None) -> dict:
        """As `compare --json` prints it."""
        first = self.results[0] if self.results else None
        fam = fam or (first.fam if first else None)
        inst = inst if inst is not None else (first.inst if first else None)
        return {"instance": self.instance, "family": fam.name if fam else None, "task": str(self.task),
                "verdict": str(self.verdict), "reasons": self.reasons,
                "results": [r.to_json(fam, inst, max_solutions) for r in self.results]}

    def table(self) -> list[dict[str, Any]]:
        """One plain row per result: config, engine, status, objective, count, checked, seconds, reason."""
        return [{"config": r.label, "engine": r.engine, "status": r.status.value, "objective": r.objective,
                 "count": r.count, "checked": r.checked, "seconds": round(r.seconds, 4), "reason": r.reason}
                for r in self.results]


def split_options(engines: list[Engine], options: dict[str, Any],
                  names: list[str] | None = None) -> list[dict[str, Any]]:
    """Per-engine options (one dict per entry of `engines`) from `key=value` (every engine that has
    `key`) and `target.key=value` (target = an engine name, alias or configuration name)."""
    names = names or [e.name for e in engines]
    per: list[dict[str, Any]] = [{} for _ in engines]
    for raw_key, v in options.items():
        target, _, key = raw_key.rpartition(".") if "." in raw_key else ("", "", raw_key)
        hit = False
        for i, e in enumerate(engines):
            if target and target not in (e.name, *e.aliases, names[i]):
                continue
            if any(o.name == key for o in e.options):
                per[i][key] = v
                hit = True
            elif target:
                raise InputError(f"engine {e.name} has no option '{key}'; its options: "
                                 + (", ".join(o.name for o in e.options) or "none"))
        if not hit and len(engines) == 1 and not target:
            per[0][key] = v  # one engine: its own validation names the option and the known ones
            hit = True
        if not hit:
            raise InputError(f"no engine among {', '.join(e.name for e in engines)} has option '{raw_key}'")
    return per


def plan(fam: Family, configs: list[str | Config], task: Task | str,
         options: dict[str, Any] | None = None) -> list[tuple[Config, Engine, dict[str, Any]]]:
    """(configuration, engine, its options) for each configuration, every option validated (and
    the engine's own validation run by `solve`) before anything runs; InputError otherwise."""
    task = Task(task)
    cfgs = [c if isinstance(c, Config) else parse_config(c) for c in configs]
    seen: set[str] = set()
    for c in cfgs:
        if c.name in seen:
            raise InputError(f"configuration '{c.name}' given twice; name one of them (name=engine[...])")
        seen.add(c.name)
    engines = [fam.engine(c.engine) for c in cfgs]
    for e in engines:
        if task not in e.tasks:
            raise InputError(f"engine {e.name} does not do task '{task}' (it does: "
                             + ", ".join(map(str, e.tasks)) + ")")
    per = split_options(engines, options or {}, [c.name for c in cfgs])
    out = []
    for c, e, shared in zip(cfgs, engines, per):
        opts = {**shared, **c.opts}
        e.resolve_options(opts, task)  # raises InputError naming the option (or solver for the task)
        out.append((c, e, opts))
    return out


def compare(fam: Family, inst: Any, engine_names: list[str | Config], task: Task | str, *,
            time_limit: float | None = None, options: dict[str, Any] | None = None,
            precheck: bool = True, on_result: Callable[[Result], None] | None = None,
            progress_for: Callable[[str], Callable[[dict], None] | None] | None = None,
            **solve_kw: Any) -> Comparison:
    """Run each configuration in turn (one at a time, so timings are honest) and judge the results.

    `engine_names` are engine names or configurations (`sat:time[encoding=totalizer]`,
    `tot=sat:time[encoding=totalizer]`); `options` apply to every engine that has them
    (`name.key` targets one). Every option is validated before the first run.

    >>> from puzzlesat.compare.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers-first06")
    >>> c = compare(fam, inst, ["native", "cpsat", "sat[encoding=totalizer]"], "count")
    >>> c.verdict.value, [(r.label, r.count) for r in c.results]
    ('AGREE', [('native:auto', 18), ('cpsat:time', 18), ('sat[encoding=totalizer]', 18)])
    """
    task = Task(task)
    runs = plan(fam, engine_names, task, options)
    for _, e, opts in runs:
        validate(fam, inst, e, opts)
    results = []
    for c, e, opts in runs:
        prog = progress_for(c.name) if progress_for else None
        r = solve(fam, inst, e, task, time_limit=time_limit, options=opts, precheck=precheck,
                  progress=prog, config=c.name, **solve_kw)
        results.append(r)
        if on_result:
            on_result(r)
    verdict, reasons = judge(results, getattr(fam.puzzle, "SENSE", None), task)
    return Comparison(getattr(inst, "name", "?"), task, verdict, reasons, results)


def judge(results: list[Result], sense: str | None, task: Task) -> tuple[Verdict, list[str]]:
    """AGREE / DISAGREE / INCOMPLETE with the reasons for anything but AGREE."""
    reasons = [f"{r.label}: ERROR ({r.reason})" for r in results if r.status is Status.ERROR]
    found = [r for r in results if r.solutions]
    infeasible = [r for r in results if r.status is Status.INFEASIBLE]
    if found and infeasible:
        reasons.append(f"{', '.join(r.label for r in infeasible)} say INFEASIBLE but "
                       f"{', '.join(r.label for r in found)} found checked solutions")
    if task is not Task.FEASIBLE:
        proved = [r for r in results if r.status is Status.OPTIMAL]
        if sense is not None:
            objs = {r.objective for r in proved}
            if len(objs) > 1:
                reasons.append("optima differ: " + ", ".join(f"{r.label}={r.objective}" for r in proved))
            for r in results:
                if r.status is Status.FEASIBLE and r.objective is not None and objs and len(objs) == 1:
                    opt = next(iter(objs))
                    if (r.objective < opt) if sense == "min" else (r.objective > opt):
                        reasons.append(f"{r.label} found {r.objective}, better than the proved {opt}")
        if task is Task.COUNT:
            counts = {r.count for r in proved}
            if len(counts) > 1:
                reasons.append("counts differ: " + ", ".join(f"{r.label}={r.count}" for r in proved))
            for r in results:
                lb = r.stats.get("count_lower_bound")
                if lb is not None and counts and len(counts) == 1 and lb > next(iter(counts)):
                    reasons.append(f"{r.label} found {lb} solutions, more than the proved count")
    if reasons:
        return Verdict.DISAGREE, reasons
    unfinished = [r for r in results if not r.finished()]
    if unfinished:
        return Verdict.INCOMPLETE, [f"{r.label}: {r.status} ({r.reason or 'limit reached'})"
                                    for r in unfinished]
    return Verdict.AGREE, []
