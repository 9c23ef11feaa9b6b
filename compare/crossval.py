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
    DISAGREE = "DISAGREE"      # a mismatch, or an answer the checker refuted
    INCOMPLETE = "INCOMPLETE"  # no mismatch, but some engine stopped at its limit or crashed (ERROR)
    UNCHECKED = "UNCHECKED"    # all finished, no mismatch, but the count rests on one counter's
    #                            word alone (counted without listing solutions; no second engine)

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
    wrong: list[str | None] = field(default_factory=list)  # per result: why its answer is refuted

    def __post_init__(self) -> None:
        if len(self.wrong) != len(self.results):  # made without an assessment: nothing refuted
            self.wrong = [None] * len(self.results)

    def to_json(self, fam: Family | None = None, inst: Any = None, max_solutions: int | None = None) -> dict:
        """As `compare --json` prints it: the verdict and every result's record."""
        first = self.results[0] if self.results else None
        return {"instance": self.instance, "family": first.family if first else None,
                "task": str(self.task), "verdict": str(self.verdict), "reasons": self.reasons,
                "certified": self.certified,
                "results": [{**r.to_record(max_solutions), "wrong": w}
                            for r, w in zip(self.results, self.wrong)]}

    @property
    def certified(self) -> list[str]:
        """The configurations whose answer carries a VERIFIED certificate (runs with certify)."""
        return [r.label for r in self.results if r.certified]

    def verdict_text(self) -> str:
        """The verdict, with '+ certified (...)' when the engines agree and some answer is proved
        by a checked proof."""
        if self.verdict is Verdict.AGREE and self.certified:
            return f"AGREE + certified ({', '.join(self.certified)})"
        return str(self.verdict)

    def table_model(self) -> Table:
        """The comparison as a table model (compare/tables.py): one row per result (a refuted
        answer says `wrong` in its status), the fastest run that finished within its limit marked
        best unless the verdict is DISAGREE, the reasons as notes, task, limits and configurations
        as parameters."""
        first = self.results[0] if self.results else None
        name = f"{first.family}/{self.instance}" if first else self.instance
        params = run_params(self.results, self.task)
        specs = {k: v for k, v in self.specs.items() if v and v != k}
        if specs:
            params["configurations"] = specs
        t = results_table("compare", self.results,
                          key={"instance": name, "task": str(self.task), "verdict": str(self.verdict)},
                          params=params, best=self.verdict is not Verdict.DISAGREE, wrong=self.wrong)
        t.notes = list(self.reasons)
        return t

    def _repr_html_(self) -> str:
        """Jupyter: the comparison as a small HTML table (escaped, no script)."""
        return to_html(self.table_model())

    def table(self) -> list[dict[str, Any]]:
        """One plain row per result: config, engine, status, objective, count, checked (passed
        the checker), failed, seconds, reason, certificate, wrong (why its answer is refuted, or
        None)."""
        return [{"config": r.label, "engine": r.engine, "status": r.status.value, "objective": r.objective,
                 "count": r.count, "checked": r.checked, "failed": r.failed,
                 "seconds": round(r.seconds, 4), "reason": r.reason,
                 "certificate": None if r.certificate is None else str(r.certificate.verdict), "wrong": w}
                for r, w in zip(self.results, self.wrong)]


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
    a = assess(results, first.family.sense, first.task)
    return Comparison(getattr(first.instance, "name", "?"), first.task, a.verdict, a.reasons, results,
                      {run.label: run.spec for run in runs}, a.wrong)


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
    """AGREE / DISAGREE / INCOMPLETE with the reasons for anything but AGREE (`assess`)."""
    a = assess(results, sense, task)
    return a.verdict, a.reasons


@dataclass
class Assessment:
    """The verdict on several results of one instance, and which answers it refutes.

    `wrong[i]` says why result i's answer is refuted (None: it is not): its own solutions or
    claims failed the runner's checks, or another result's *checked* answer contradicts it — a
    checked solution refutes INFEASIBLE; a checked solution better than a claimed optimum refutes
    that optimum; more distinct checked solutions than a claimed count refute that count. Positive
    answers are backed by checked solutions and are never the culprit; a contradiction between
    answers of which neither is checked (a hand-edited store) leaves every answer unrefuted and
    says so in `reasons`. A crash (`failed`) is no answer: it is left out of the comparison."""

    verdict: Verdict
    reasons: list[str]
    wrong: list[str | None]


def crashed(r: Result) -> bool:
    """An ERROR that is the engine's own failure (it raised, died, gave up) — no answer at all —
    as opposed to an answer the runner's checks refuted (`Result.refuted`)."""
    return r.status is Status.ERROR and not r.refuted


def _backed_count(r: Result) -> int | None:
    """The number of distinct solutions the checker passed for `r` (a lower bound on the true
    count whatever `r` claims), where known."""
    if r.status is Status.OPTIMAL and r.count is not None and r.checked >= r.count:
        return r.count
    lb = r.stats.get("count_lower_bound")
    return lb if isinstance(lb, int) and not isinstance(lb, bool) else None


def assess(results: list[Result], sense: str | None, task: Task) -> Assessment:
    """The verdict over `results` (one instance, one task) and the refuted answers (Assessment).

    DISAGREE: an answer is refuted (by the checker, or by another result's checked answer), or
    two answers contradict each other; INCOMPLETE: no contradiction, but some engine stopped at a
    limit or crashed (a crash is ERROR, never DISAGREE: the verdict is the other results', and
    the reasons name the crash); AGREE: every engine finished with the same answer."""
    wrong: list[str | None] = [None] * len(results)
    reasons: list[str] = []
    crashes = [r for r in results if crashed(r)]
    live = [(i, r) for i, r in enumerate(results) if not crashed(r)]
    for i, r in live:
        if r.status is Status.ERROR:  # refuted by the runner's own checks
            wrong[i] = f"its answer failed the runner's checks: {_last_line(r.reason)}"
            reasons.append(f"{r.label}: answer refuted by the checker ({_last_line(r.reason)})")
    answers = [(i, r) for i, r in live if r.status is not Status.ERROR]
    found = [r for _, r in answers if r.solutions]
    infeasible = [(i, r) for i, r in answers if r.status is Status.INFEASIBLE]
    if found and infeasible:
        reasons.append(f"{', '.join(r.label for _, r in infeasible)} say INFEASIBLE but "
                       f"{', '.join(r.label for r in found)} found checked solutions")
        for i, _ in infeasible:
            wrong[i] = f"claimed INFEASIBLE, but {found[0].label} found a checked solution"
    if task is not Task.FEASIBLE:
        proved = [(i, r) for i, r in answers if r.status is Status.OPTIMAL]
        if sense is not None:
            checked = [(r.objective, r) for r in found if r.objective is not None]
            best_value, best = (min if sense == "min" else max)(
                checked, key=lambda vr: vr[0], default=(None, None))
            objs = {r.objective for _, r in proved}
            if len(objs) > 1:
                reasons.append("optima differ: " + ", ".join(f"{r.label}={r.objective}" for _, r in proved))
            for i, r in proved:
                if best is not None and best_value is not None and r.objective is not None and (
                        r.objective > best_value if sense == "min" else r.objective < best_value):
                    wrong[i] = (f"claimed optimum {r.objective}, but {best.label} found a checked "
                                f"solution of {best_value}")
            opt = next(iter(objs)) if len(objs) == 1 else None
            if opt is not None:
                for _, r in answers:
                    if r.status is Status.FEASIBLE and r.objective is not None and (
                            r.objective < opt if sense == "min" else r.objective > opt):
                        reasons.append(f"{r.label} found {r.objective}, better than the proved {opt}")
        if task is Task.UNIQUE:
            reasons += _unique_reasons([r for _, r in answers], proved, wrong)
        if task is Task.COUNT:
            counts = {r.count for _, r in proved}
            if len(counts) > 1:
                reasons.append("counts differ: " + ", ".join(f"{r.label}={r.count}" for _, r in proved))
            backed = [(b, r) for _, r in answers if (b := _backed_count(r)) is not None]
            most = max(backed, key=lambda x: x[0], default=None)
            for _, r in answers:
                lb = r.stats.get("count_lower_bound")
                if lb is not None and len(counts) == 1 and lb > next(iter(counts)):
                    reasons.append(f"{r.label} found {lb} solutions, more than the proved count")
            for i, r in proved:
                if most is not None and r.count is not None and r.count < most[0]:
                    wrong[i] = (f"counted {r.count}, but {most[1].label} found {most[0]} distinct "
                                "checked solutions")
    if reasons and not any(wrong):
        reasons.append("the culprit cannot be told: no answer is refuted by a checked one, so none "
                       "is scored wrong")
    notes = [f"{r.label}: ERROR ({_last_line(r.reason) or 'no reason given'}): no answer, left out "
             "of the comparison" for r in crashes]
    if reasons:
        return Assessment(Verdict.DISAGREE, reasons + notes, wrong)
    unfinished = [r for _, r in answers if not r.finished()]
    if unfinished or crashes:
        return Assessment(Verdict.INCOMPLETE, notes + [f"{r.label}: {r.status} ({r.reason or 'limit reached'})"
                                                       for r in unfinished], wrong)
    if task is Task.COUNT:
        counted = [r for _, r in answers if r.status is Status.OPTIMAL]
        claimed = [r for r in counted if r.stats.get("enumerated") is False]
        if claimed and len(counted) < 2:
            return Assessment(Verdict.UNCHECKED, [f"{r.label}: count {r.count} counted without "
                              "listing the solutions, and no second engine counted it" for r in claimed],
                              wrong)
    return Assessment(Verdict.AGREE, [], wrong)


def _last_line(text: str | None) -> str:
    """The last non-empty line of a reason (a traceback's exception line)."""
    lines = [x for x in (text or "").strip().splitlines() if x.strip()]
    return lines[-1].strip() if lines else ""


def _unique_reasons(results: list[Result], proved: list[tuple[int, Result]],
                    wrong: list[str | None]) -> list[str]:
    """Task unique: the proved answers (UNIQUE / MULTIPLE) agree, and no engine's checked
    solutions contradict a UNIQUE — a MULTIPLE (two checked solutions that differ on the
    projection), or two different checked solutions among all results (the family's solution_key:
    two engines that each say UNIQUE with different solutions), refute it (`wrong`)."""
    out = []
    answers = {r.answer for _, r in proved}
    if len(answers) > 1:
        out.append("answers differ: " + ", ".join(f"{r.label}={r.answer}" for _, r in proved))
    claims = [(i, r) for i, r in proved if r.answer == "UNIQUE"]
    if not claims:
        return out
    keys: dict = {}
    for r in results:
        if r.fam is None or r.inst is None or r.status is Status.ERROR:
            continue
        try:
            ident = r.fam.engine(r.engine).identity(r.params)
            for sol in r.solutions:
                keys.setdefault(r.fam.solution_key(r.inst, sol, **ident), r.label)
        except Exception:  # noqa: BLE001 - a record without its engine: its keys are not compared
            continue
    if len(keys) > 1 and len(answers) == 1:
        out.append(f"{', '.join(r.label for _, r in claims)} say UNIQUE, but the engines' checked "
                   f"solutions hold {len(keys)} different ones")
    witness = next((r for _, r in proved if r.answer == "MULTIPLE" and r.checked >= 2), None)
    for i, _ in claims:
        if witness is not None:
            wrong[i] = f"claimed UNIQUE, but {witness.label} found two different checked solutions"
        elif len(keys) > 1:
            wrong[i] = f"claimed UNIQUE, but the engines' checked solutions hold {len(keys)} different ones"
    return out
