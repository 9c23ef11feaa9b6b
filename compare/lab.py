"""Configurations side by side: the formulation report `puzzlesat lab` (and `bench`, its alias).

Vocabulary:

    configuration   an engine plus options, optionally named (core/config.py): the unit compared
    run             one checked engine run (plan.Run, executed by the runner) of one configuration
    record          the run's Result record (`Result.to_record`, solutions left out) plus the lab's
                    `repeat`, `seed` and `finished`; model size (vars, clauses or constraints, as
                    the engine reports the model it solved last) and solver effort (conflicts;
                    decisions for SAT, branches for CP-SAT) are read from its stats as numbers;
                    with certify, the certificate's verdict, proof bytes and checker CPU seconds
    finished        the run proved its answer within its time limit: a run that ends after the
                    limit (a solver that ignores interrupts runs into the grace period) counts as
                    unsolved in the table, as in campaign reports (`over_limit`); so does a run
                    whose answer the cross-check refutes (`wrong`: crossval.assess says why)
    verdict         crossval.judge over every run of every configuration on one instance (names
                    in reasons are configuration names; `#i` numbers repeats)
    best            per instance, the configuration with the smallest median time among those whose
                    every run finished (marked `*`); none when the verdict is DISAGREE
    seconds         engine seconds (Result.seconds): the engine's own work, its worker's start-up
                    (`startup_seconds`, its median in the table's `start-up s`) and the runner's
                    checking (`check_seconds`) apart

Every run goes through the runner, so every solution is checked by the family's checker.
"""
from __future__ import annotations

import dataclasses
import re
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.config import Config
from ..core.family import Family
from ..core.result import Result, Task
from .crossval import Verdict, assess, run_all
from .plan import Run, plan
from .tables import Column, Table, cell, status_text, to_html

SOLVER_HEADS = ("sat", "cpsat", "ext", "mip", "maxsat", "cpmpy")  # engines whose effort figures (conflicts...) are a solver's


@dataclass
class ConfigRow:
    """Every run of one configuration on one instance, and its summary."""

    config: str
    spec: str
    engine: str
    runs: list[dict] = field(default_factory=list)
    best: bool = False

    def summary(self) -> dict[str, Any]:
        secs = [r["seconds"] for r in self.runs]
        last = self.runs[-1]
        return {"config": self.config, "spec": self.spec, "engine": self.engine,
                "status": last["status"], "objective": last["objective"], "count": last["count"],
                "runs": len(self.runs), "finished": all(r["finished"] for r in self.runs),
                "over_limit": sum(bool(r["over_limit"]) for r in self.runs),
                "wrong": sum(bool(r.get("wrong")) for r in self.runs),
                "median_seconds": round(statistics.median(secs), 4),
                "startup_seconds": _fmedian(r.get("startup_seconds") for r in self.runs),
                "min_seconds": round(min(secs), 4), "max_seconds": round(max(secs), 4),
                "vars": last["vars"], "clauses": last["clauses"], "constraints": last["constraints"],
                "conflicts": _median(r["conflicts"] for r in self.runs),
                "decisions": _median(r["decisions"] for r in self.runs),
                "branches": _median(r["branches"] for r in self.runs),
                "certificate": last["certificate_verdict"],
                "proof_bytes": _median(r["proof_bytes"] for r in self.runs),
                "check_seconds": _fmedian(r["check_seconds"] for r in self.runs),
                "best": self.best}


def _median(xs) -> int | None:
    xs = [x for x in xs if x is not None]
    return int(statistics.median(xs)) if xs else None


def _fmedian(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 4) if xs else None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def record(r: Result, seed: int | None, repeat: int) -> dict[str, Any]:
    """The lab's record of one checked run: its Result record (no solutions) plus the lab's
    fields and the size and effort figures the engine reported."""
    st = r.stats
    solver = r.engine.split(":")[0] in SOLVER_HEADS
    rec = r.to_record(max_solutions=0)
    del rec["solutions"]
    rec.update(finished=r.finished() and not r.over_limit(), wrong=None, checked=r.checked, seed=seed,
               repeat=repeat, vars=_int(st.get("vars")), clauses=_int(st.get("clauses")),
               constraints=_int(st.get("constraints")),
               conflicts=_int(st.get("conflicts")) if solver else None,
               decisions=_int(st.get("sat_decisions", st.get("decisions"))) if solver else None,
               branches=_int(st.get("branches")) if solver else None, nodes=_int(st.get("nodes")))
    cert = r.certificate  # runs with certify: the verdict, proof bytes, checker CPU seconds
    rec.update(certificate_verdict=None if cert is None else str(cert.verdict),
               proof_bytes=None if cert is None else _int(cert.proof_bytes),
               check_seconds=None if cert is None else cert.checker_seconds)
    return rec


def lab_runs(runs: list[Run], *, repeat: int = 1, seeds: list[int] | None = None,
             on_run: Callable[[Run, dict], None] | None = None, jobs: int = 1) -> dict[str, Any]:
    """Every planned run (one instance), `repeat` times per seed (seeds go to runs whose engine
    has a `seed` option and whose configuration does not set one; others just repeat), each run
    checked; verdict and best marked. `jobs` > 1: that many runs side by side (their times then
    share the cores: not comparable with one-at-a-time times)."""
    first = runs[0]
    units: list[tuple[int, Run, int | None, int]] = []  # (row, run, seed recorded, repeat)
    rows = []
    seed_list: list[int | None] = list(seeds) if seeds else [None]
    for k, run in enumerate(runs):
        seeded = run.engine.option("seed") is not None and not re.search(r"[\[,]seed=", run.spec)
        rows.append(ConfigRow(run.label, run.spec, run.engine.name))
        for seed in seed_list:
            for i in range(repeat):
                unit = run.with_options(seed=seed) if seeded and seed is not None else run
                units.append((k, unit, seed if seeded else None, i))
    results = run_all([u[1] for u in units], jobs=jobs, on_each=None if on_run is None else (
        lambda j, r: on_run(units[j][1], record(r, units[j][2], units[j][3]))))
    named = []
    for (k, run, seed, i), r in zip(units, results):
        rows[k].runs.append(record(r, seed, i))
        named.append(dataclasses.replace(r, config=f"{run.label}#{len(rows[k].runs)}"))
    a = assess(named, first.family.sense, first.task)
    verdict, reasons = a.verdict, a.reasons
    at = {k: 0 for k in range(len(rows))}
    for (k, *_), why in zip(units, a.wrong):  # a refuted answer: wrong, never finished
        rec = rows[k].runs[at[k]]
        at[k] += 1
        rec["wrong"] = why
        if why:
            rec["finished"] = False
    done = [row for row in rows if all(r["finished"] for r in row.runs)]
    if verdict is Verdict.AGREE or done and verdict is Verdict.INCOMPLETE:
        best = min(done, key=lambda row: statistics.median(r["seconds"] for r in row.runs), default=None)
        if best is not None:
            best.best = True
    return LabReport({"instance": f"{first.family.name}/{getattr(first.instance, 'name', '?')}",
                      "task": str(first.task), "verdict": str(verdict), "reasons": reasons,
                      "repeat": repeat, "seeds": seeds, "time_limit": first.time_limit,
                      "memory_limit_mb": first.memory_limit_mb,
                      "configs": [row.summary() for row in rows],
                      "runs": {row.config: row.runs for row in rows}})


class LabReport(dict):
    """One instance's lab report: the JSON object `lab --json` prints (a dict), shown in
    Jupyter as its table."""

    def table_model(self) -> Table:
        return lab_table(self)

    def _repr_html_(self) -> str:
        return to_html(lab_table(self))


LAB_COLUMNS = [Column("config"), Column("engine"), Column("status", "status"), Column("obj", "int"),
               Column("count", "int"), Column("vars", "int"), Column("clauses/cons", "int"),
               Column("median s", "seconds"), Column("spread s"), Column("start-up s", "seconds"),
               Column("conflicts", "int"),
               Column("decisions/branches", "int"), Column("solved", "int"),
               Column("runs", "int", only=("csv",)), Column("over_limit", "int", only=("csv",)),
               Column("wrong", "int", only=("csv",)),
               Column("best", "mark")]


def lab_table(rep: dict[str, Any]) -> Table:
    """A lab report (one instance) as a table model: one row per configuration; `solved` counts
    its runs that finished within the time limit (a run past it says `over limit` in its status
    and is unsolved; a run whose answer the cross-check refuted says `wrong` and is unsolved);
    the best configuration's median time is marked."""
    def n(v):
        return cell(v, "int")
    certs = any(s.get("certificate") for s in rep["configs"])  # runs asked to certify
    cols = list(LAB_COLUMNS)
    if certs:
        cols[-1:-1] = [Column("certificate"), Column("proof bytes", "int"), Column("check s", "seconds")]
    t = Table("lab", cols,
              key={"instance": rep["instance"], "task": rep["task"], "verdict": rep["verdict"]},
              notes=list(rep["reasons"]))
    t.params = {"task": rep["task"], "time limit (s)": rep.get("time_limit"), "repeat": rep.get("repeat")}
    if rep.get("seeds"):
        t.params["seeds"] = rep["seeds"]
    if rep.get("memory_limit_mb") is not None:
        t.params["memory limit (MB)"] = round(rep["memory_limit_mb"])
    specs = {s["config"]: s["spec"] for s in rep["configs"] if s["spec"] and s["spec"] != s["config"]}
    if specs:
        t.params["configurations"] = specs
    for s in rep["configs"]:
        size = s["clauses"] if s["clauses"] is not None else s["constraints"]
        effort = s["decisions"] if s["decisions"] is not None else s["branches"]
        spread = f"{s['min_seconds']:.3f}–{s['max_seconds']:.3f}" if s["runs"] > 1 else ""
        late, wrong = s["over_limit"], s.get("wrong", 0)
        status = status_text(s["status"], bool(late), bool(wrong))
        if wrong and s["runs"] > 1:
            status = status.replace("(wrong)", f"({wrong} of {s['runs']} wrong)")
        solved = sum(bool(r["finished"]) for r in rep["runs"][s["config"]]) if "runs" in rep \
            else (s["runs"] if s["finished"] else None)
        t.add(cell(s["config"]), cell(s["engine"]), cell(s["status"], "status", status, wrong=bool(wrong)),
              n(s["objective"]), n(s["count"]), n(s["vars"]), n(size),
              cell(s["median_seconds"], "seconds", best=s["best"]), cell(spread),
              cell(s.get("startup_seconds"), "seconds"),
              n(s["conflicts"]), n(effort),
              cell(solved, "int", None if solved is None else f"{solved}/{s['runs']}"),
              n(s["runs"]), n(late), n(wrong),
              *((cell(s.get("certificate")), n(s.get("proof_bytes")),
                 cell(s.get("check_seconds"), "seconds")) if certs else ()),
              cell(s["best"], "mark"))
    return t


def lab_instance(fam: Family, inst: Any, configs: list[Config | str], task: Task | str | None = None, *,
                 repeat: int = 1, seeds: list[int] | None = None, time_limit: float | None = None,
                 options: dict[str, Any] | None = None, precheck: bool = True,
                 memory_limit_mb: Any = "default", jobs: int = 1,
                 on_run: Callable[[Run, dict], None] | None = None) -> dict[str, Any]:
    """Plan every configuration on `inst` (every option error before any run) and run the lab
    (`lab_runs`). `task` defaults to the family's first."""
    runs = plan(fam, inst, configs, task, options=options, time_limit=time_limit,
                memory_limit_mb=memory_limit_mb, precheck=precheck)
    return lab_runs(runs, repeat=repeat, seeds=seeds, on_run=on_run, jobs=jobs)
