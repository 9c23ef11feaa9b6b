"""Cross-validation: run several engines on one instance and judge whether they agree."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable

from puzzlesat.puzzles.core import InputError, Status, Task

from .registry import Engine, Family
from .runner import Result, solve


class Verdict(str, enum.Enum):
    AGREE = "AGREE"            # every engine finished; same objective and count; all solutions checked
    DISAGREE = "DISAGREE"      # a mismatch, a failed check or an engine error
    INCOMPLETE = "INCOMPLETE"  # no mismatch, but some engine stopped at its limit

    def __str__(self) -> str:
        return self.value


@dataclass
class Comparison:
    instance: str
    task: Task
    verdict: Verdict
    reasons: list[str]
    results: list[Result] = field(default_factory=list)

    def to_json(self, fam: Family, inst: Any, max_solutions: int | None = None) -> dict:
        return {"instance": self.instance, "family": fam.name, "task": str(self.task),
                "verdict": str(self.verdict), "reasons": self.reasons,
                "results": [r.to_json(fam, inst, max_solutions) for r in self.results]}


def split_options(engines: list[Engine], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-engine options from `key=value` (every engine that has `key`) and `engine.key=value`."""
    per: dict[str, dict[str, Any]] = {e.name: {} for e in engines}
    for raw_key, v in options.items():
        target, _, key = raw_key.rpartition(".") if "." in raw_key else ("", "", raw_key)
        hit = False
        for e in engines:
            names = (e.name, *e.aliases)
            if target and target not in names:
                continue
            if any(o.name == key for o in e.options):
                per[e.name][key] = v
                hit = True
            elif target:
                raise InputError(f"engine {e.name} has no option '{key}'; its options: "
                                 + (", ".join(o.name for o in e.options) or "none"))
        if not hit:
            raise InputError(f"no engine among {', '.join(e.name for e in engines)} has option '{raw_key}'")
    return per


def compare(fam: Family, inst: Any, engine_names: list[str], task: Task | str, *,
            time_limit: float | None = None, options: dict[str, Any] | None = None,
            precheck: bool = True, on_result: Callable[[Result], None] | None = None,
            progress_for: Callable[[str], Callable[[dict], None] | None] | None = None) -> Comparison:
    """Run each engine in turn (one at a time, so timings are honest) and judge the results.

    >>> from puzzlesat.compare.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers-first06")
    >>> c = compare(fam, inst, ["native", "cpsat"], "count")
    >>> c.verdict.value, [r.count for r in c.results]
    ('AGREE', [18, 18])
    """
    task = Task(task)
    engines = [fam.engine(n) for n in engine_names]
    for e in engines:
        if task not in e.tasks:
            raise InputError(f"engine {e.name} does not do task '{task}'")
    per = split_options(engines, options or {})
    results = []
    for e in engines:
        prog = progress_for(e.name) if progress_for else None
        r = solve(fam, inst, e, task, time_limit=time_limit, options=per[e.name], precheck=precheck,
                  progress=prog)
        results.append(r)
        if on_result:
            on_result(r)
    verdict, reasons = judge(results, getattr(fam.puzzle, "SENSE", None), task)
    return Comparison(getattr(inst, "name", "?"), task, verdict, reasons, results)


def judge(results: list[Result], sense: str | None, task: Task) -> tuple[Verdict, list[str]]:
    """AGREE / DISAGREE / INCOMPLETE with the reasons for anything but AGREE."""
    reasons = [f"{r.engine}: ERROR ({r.reason})" for r in results if r.status is Status.ERROR]
    found = [r for r in results if r.solutions]
    infeasible = [r for r in results if r.status is Status.INFEASIBLE]
    if found and infeasible:
        reasons.append(f"{', '.join(r.engine for r in infeasible)} say INFEASIBLE but "
                       f"{', '.join(r.engine for r in found)} found checked solutions")
    if task is not Task.FEASIBLE:
        proved = [r for r in results if r.status is Status.OPTIMAL]
        if sense is not None:
            objs = {r.objective for r in proved}
            if len(objs) > 1:
                reasons.append("optima differ: " + ", ".join(f"{r.engine}={r.objective}" for r in proved))
            for r in results:
                if r.status is Status.FEASIBLE and r.objective is not None and objs and len(objs) == 1:
                    opt = next(iter(objs))
                    if (r.objective < opt) if sense == "min" else (r.objective > opt):
                        reasons.append(f"{r.engine} found {r.objective}, better than the proved {opt}")
        if task is Task.COUNT:
            counts = {r.count for r in proved}
            if len(counts) > 1:
                reasons.append("counts differ: " + ", ".join(f"{r.engine}={r.count}" for r in proved))
            for r in results:
                lb = r.stats.get("count_lower_bound")
                if lb is not None and counts and len(counts) == 1 and lb > next(iter(counts)):
                    reasons.append(f"{r.engine} found {lb} solutions, more than the proved count")
    if reasons:
        return Verdict.DISAGREE, reasons
    unfinished = [r for r in results if not r.finished()]
    if unfinished:
        return Verdict.INCOMPLETE, [f"{r.engine}: {r.status} ({r.reason or 'limit reached'})"
                                    for r in unfinished]
    return Verdict.AGREE, []
