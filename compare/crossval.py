"""Cross-validation: run several engines on one instance and judge whether they agree."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.family import Family
from ..core.result import InputError, Result, Status, Task
from .plan import Run, plan, split_options  # noqa: F401  (split_options: re-exported for callers)
from .runner import execute
from .tables import Table, results_table, run_params, to_html


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
    specs: dict[str, str] = field(default_factory=dict)  # configuration name -> canonical form

    def to_json(self, fam: Family | None = None, inst: Any = None, max_solutions: int | None = None) -> dict:
        """As `compare --json` prints it: the verdict and every result's record."""
        first = self.results[0] if self.results else None
        return {"instance": self.instance, "family": first.family if first else None,
                "task": str(self.task), "verdict": str(self.verdict), "reasons": self.reasons,
                "results": [r.to_record(max_solutions) for r in self.results]}

    def table_model(self) -> Table:
        """The comparison as a table model (compare/tables.py): one row per result, the fastest
        run that finished within its limit marked best unless the verdict is DISAGREE, the
        reasons as notes, task, limits and configurations as parameters."""
        first = self.results[0] if self.results else None
        name = f"{first.family}/{self.instance}" if first else self.instance
        params = run_params(self.results, self.task)
        specs = {k: v for k, v in self.specs.items() if v and v != k}
        if specs:
            params["configurations"] = specs
        t = results_table("compare", self.results,
                          key={"instance": name, "task": str(self.task), "verdict": str(self.verdict)},
                          params=params, best=self.verdict is not Verdict.DISAGREE)
        t.notes = list(self.reasons)
        return t

    def _repr_html_(self) -> str:
        """Jupyter: the comparison as a small HTML table (escaped, no script)."""
        return to_html(self.table_model())

    def table(self) -> list[dict[str, Any]]:
        """One plain row per result: config, engine, status, objective, count, checked (passed
        the checker), failed, seconds, reason."""
        return [{"config": r.label, "engine": r.engine, "status": r.status.value, "objective": r.objective,
                 "count": r.count, "checked": r.checked, "failed": r.failed,
                 "seconds": round(r.seconds, 4), "reason": r.reason}
                for r in self.results]


def compare_runs(runs: list[Run], *, on_result: Callable[[Result], None] | None = None,
                 progress_for: Callable[[str], Callable[[dict], None] | None] | None = None,
                 isolate: bool = True, jobs: int = 1) -> "Comparison":
    """Execute planned runs (one instance) and judge them: one at a time (`jobs` 1, the
    default: timings are honest), or `jobs` side by side (each run still in its own worker under
    its own limits; the runs share the machine's cores, so their times are not comparable).
    Results keep the order of `runs`; `on_result` sees each as it finishes.

    >>> from puzzlesat.families.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers-first06")
    >>> c = compare_runs(plan(fam, inst, ["native", "cpsat", "sat[encoding=totalizer]"], "count"))
    >>> c.verdict.value, [(r.label, r.count) for r in c.results]
    ('AGREE', [('native:auto', 18), ('cpsat:time', 18), ('sat[encoding=totalizer]', 18)])
    """
    results = run_all(runs, on_result=on_result, progress_for=progress_for, isolate=isolate,
                      jobs=jobs)
    first = runs[0]
    verdict, reasons = judge(results, first.family.sense, first.task)
    return Comparison(getattr(first.instance, "name", "?"), first.task, verdict, reasons, results,
                      {run.label: run.spec for run in runs})


def run_all(runs: list[Run], *, on_result: Callable[[Result], None] | None = None,
            progress_for: Callable[[str], Callable[[dict], None] | None] | None = None,
            isolate: bool = True, jobs: int = 1,
            on_each: Callable[[int, Result], None] | None = None) -> list[Result]:
    """Every run executed (one at a time, or `jobs` at once in threads, each run in its own
    worker process), results in the order of `runs`; `on_result(result)` and `on_each(index,
    result)` as each finishes."""
    if jobs < 1:
        raise InputError(f"jobs={jobs}: at least 1")
    if jobs == 1 or len(runs) == 1:
        out = []
        for run in runs:
            r = execute(run, progress=progress_for(run.label) if progress_for else None,
                        isolate=isolate)
            out.append(r)
            if on_result:
                on_result(r)
            if on_each:
                on_each(len(out) - 1, r)
        return out
    from concurrent.futures import ThreadPoolExecutor, as_completed
    results: list[Result | None] = [None] * len(runs)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(execute, run, isolate=isolate): i for i, run in enumerate(runs)}
        for f in as_completed(futures):
            r = results[futures[f]] = f.result()
            if on_result:
                on_result(r)
            if on_each:
                on_each(futures[f], r)
    return [r for r in results if r is not None]


def compare(fam: Family, inst: Any, configs: list, task: Task | str | None = None, *,
            time_limit: float | None = None, options: dict[str, Any] | None = None,
            precheck: bool = True, on_result: Callable[[Result], None] | None = None,
            progress_for: Callable[[str], Callable[[dict], None] | None] | None = None,
            memory_limit_mb: Any = "default", jobs: int = 1) -> Comparison:
    """Plan the configurations on `inst` (every option validated before the first run), run
    them and judge them (`plan` + `compare_runs`)."""
    runs = plan(fam, inst, configs, task, options=options, time_limit=time_limit,
                memory_limit_mb=memory_limit_mb, precheck=precheck)
    return compare_runs(runs, on_result=on_result, progress_for=progress_for, jobs=jobs)


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
