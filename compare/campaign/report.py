"""What a store says: per-configuration scores, per-instance verdicts across all configurations
(the rules of `compare`: crossval.judge), cactus and scatter plots.

Vocabulary: a job is *solved* when it finished (Result.finished: OPTIMAL or INFEASIBLE, and
FEASIBLE for task feasible) within its time limit and its answer is not refuted: a job that ended
after the limit (`over_limit`: a solver that ignores interrupts ran into the grace period) is
unsolved in every table and plot, though its answer still counts for the verdict (it is checked
like any other). A job is *wrong* when the cross-check refutes its answer (crossval.assess: the
runner's checks refuted it, or another job's checked answer contradicts it — a checked solution
against its INFEASIBLE, a better checked solution against its optimum, more distinct checked
solutions against its count): it is unsolved, says `wrong` in every table, is off the cactus plot
and on the scatter plots' border, and its configuration is never marked best. PAR-2 is the mean
over a configuration's jobs of the job's engine seconds if solved, else (unsolved or wrong) twice
the time limit; the median time is over solved jobs. Times are engine seconds (the store's
`seconds`: start-up and checking apart); a store written before 0.4 holds the runner's wall
seconds there, start-up included (the report says how many such jobs it read).
"""
from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from ...core.files import write_atomic
from ...core.result import Certificate, InputError, Status, Task

from ..crossval import Verdict, assess
from ...families.registry import families
from ...core.result import Result
from ..tables import Column, Table, cell, to_html
from .store import loads, over_limit

VERDICT_ORDER = {Verdict.DISAGREE: 0, Verdict.INCOMPLETE: 1, Verdict.UNCHECKED: 2, Verdict.AGREE: 3}


def as_result(row: dict[str, Any]) -> Result:
    """A store row as the runner's Result, named by its configuration, for crossval.judge.

    judge reads only whether solutions exist, so `solutions` holds one placeholder when any
    solution was checked (the solutions themselves are not stored).
    """
    stats = loads(row["stats"])
    if row["count_lower_bound"] is not None:
        stats["count_lower_bound"] = row["count_lower_bound"]
    return Result(row["instance"], row["family"], row["config"], Task(row["task"]), Status(row["status"]),
                  row["objective"], row["count"], [None] if row["solutions_checked"] else [],
                  row["seconds"] or 0.0, loads(row["params"]), stats, row["reason"],
                  row["solutions_checked"] or 0)


def solved(row: dict[str, Any]) -> bool:
    """The job finished with a proved answer within its time limit, and the answer is not
    refuted (`wrong`, set by `mark_wrong`)."""
    return (row["termination"] == "done" and not over_limit(row) and not row.get("wrong")
            and as_result(row).finished())


def _judged(rows: list[dict[str, Any]]) -> list[tuple[tuple[str, str], list[dict[str, Any]], Any]]:
    """Per instance and task: (key, its rows, crossval.assess over them), repeats named `#i`."""
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by[(r["instance"], r["task"])].append(r)
    out = []
    for key, rs in by.items():
        fam = families().get(rs[0]["family"])
        results = []
        for r in rs:
            res = as_result(r)
            if len([x for x in rs if x["config"] == r["config"]]) > 1:
                res.engine = f"{r['config']}#{r['repeat']}"
            results.append(res)
        out.append((key, rs, assess(results, fam.sense if fam else None, Task(rs[0]["task"]))))
    return out


def mark_wrong(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row (in place) with `wrong`: why the cross-check refutes its answer, or None
    (crossval.assess over the rows of its instance and task; the parts of a split count take the
    verdict on their merged count). Returns `rows`."""
    merged, _ = merge_parts(rows)
    split: dict[tuple, str | None] = {}
    for _, rs, a in _judged(merged):
        for r, why in zip(rs, a.wrong):
            r["wrong"] = why
            if r.get("parts_merged"):
                split[_split_key(r)] = why
    for r in rows:
        if _parts(r)[1] > 1 and not r.get("parts_merged"):
            r["wrong"] = split.get(_split_key(r))
    return rows


def _marked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows`, marked by `mark_wrong` unless they are already."""
    return rows if all("wrong" in r for r in rows) else mark_wrong(rows)


def _split_key(r: dict[str, Any]) -> tuple:
    return (r["instance"], r["task"], r["config"], r["repeat"], _parts(r)[1])


def certificate_verdict(row: dict[str, Any]) -> str | None:
    """The verdict of a row's certificate (VERIFIED, REJECTED, UNKNOWN, NOT-CERTIFIABLE; None: not
    asked, or a stored certificate this version cannot read)."""
    c = row.get("certificate")
    if not c:
        return None
    try:
        return str(Certificate.from_json(loads(c)).verdict)
    except (InputError, ValueError):
        return None


def par2(row: dict[str, Any]) -> float:
    return row["seconds"] if solved(row) else 2.0 * row["time_limit"]


def config_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per configuration: spec, engine, jobs, solved, wrong, unknown, errors, by termination,
    PAR-2, median."""
    by: dict[str, list[dict]] = defaultdict(list)
    for r in _marked(rows):
        by[r["config"]].append(r)
    out = {}
    for name in sorted(by, key=lambda n: min(r["started"] or "" for r in by[n])):
        rs = by[name]
        times = [r["seconds"] for r in rs if solved(r)]
        terms: dict[str, int] = defaultdict(int)
        for r in rs:
            terms[r["termination"]] += 1
        out[name] = {
            "spec": rs[0]["config_spec"], "engines": sorted({r["engine"] for r in rs}), "jobs": len(rs),
            "solved": sum(map(solved, rs)),
            "wrong": sum(1 for r in rs if r.get("wrong")),
            "unknown": sum(1 for r in rs if r["status"] != "ERROR" and not solved(r) and not r.get("wrong")),
            "errors": sum(1 for r in rs if r["status"] == "ERROR" and not r.get("wrong")),
            "certified": sum(1 for r in rs if certificate_verdict(r) == "VERIFIED"),
            "over_limit": sum(map(over_limit, rs)),
            "termination": dict(sorted(terms.items())),
            "par2": round(sum(map(par2, rs)) / len(rs), 4),
            "median_seconds": round(statistics.median(times), 4) if times else None,
        }
    return out


def verdicts(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per instance (and task, if a spec changed its task): the verdict across every configuration
    and repeat, DISAGREE first; each job's `wrong` says why its answer is refuted (or None)."""
    out = []
    for (inst, task_name), rs, a in _judged(rows):
        out.append({"instance": inst, "family": rs[0]["family"], "task": task_name,
                    "verdict": str(a.verdict), "reasons": a.reasons,
                    "results": {f"{r['config']}" + (f"#{r['repeat']}" if r["repeat"] else ""):
                                {"status": r["status"], "objective": r["objective"], "count": r["count"],
                                 "seconds": r["seconds"], "termination": r["termination"],
                                 "over_limit": bool(over_limit(r)), "wrong": why}
                                for r, why in zip(rs, a.wrong)}})
    out.sort(key=lambda d: (VERDICT_ORDER[Verdict(d["verdict"])], d["instance"]))
    return out


def before_engine_time(rows: list[dict[str, Any]]) -> int:
    """How many finished jobs were stored before 0.4, whose `seconds` are the runner's wall
    (the worker's start-up included) rather than engine seconds: those without `startup_seconds`."""
    return sum(1 for r in rows if r["termination"] == "done" and r.get("startup_seconds") is None)


def _parts(row: dict[str, Any]) -> tuple[int, int]:
    """(part, parts) of a job that counts one part of a split search; (0, 1) otherwise."""
    opts = loads(row["options"]) if row.get("options") else {}
    return int(opts.get("part", 0) or 0), int(opts.get("parts", 1) or 1)


def merge_parts(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows, splits): the jobs of each split count (campaign `split`: one job per part, options
    parts/part) merged into one row per instance, task, configuration and repeat, and a summary
    per split. The merged count is the sum of the parts' exact counts, given only when every
    part is stored and finished OPTIMAL (the parts partition the search, so the sum is the
    count); otherwise the row is UNKNOWN (or ERROR if a part is), never a partial sum."""
    plain, groups = [], defaultdict(list)
    for r in rows:
        part, parts = _parts(r)
        if parts > 1 and r["task"] == "count" and not r.get("parts_merged"):
            groups[(r["instance"], r["task"], r["config"], r["repeat"], parts)].append(r)
        else:
            plain.append(r)
    merged, splits = [], []
    for (inst, task, config, repeat, parts), rs in groups.items():
        rs.sort(key=lambda r: _parts(r)[0])
        counted: dict[int, set] = defaultdict(set)  # part -> the exact counts stored for it
        for r in rs:
            if r["status"] == "OPTIMAL" and r["termination"] == "done" and r["count"] is not None:
                counted[_parts(r)[0]].add(r["count"])
        ok = {p for p, cs in counted.items() if 0 <= p < parts}
        twice = sorted(p for p, cs in counted.items() if len(cs) > 1)  # two runs, two counts
        complete = len(ok) == parts and not twice  # every part once: never sized by `parts`
        secs = [r["seconds"] or 0.0 for r in rs]
        row = dict(rs[0])
        row.update(count=sum(next(iter(counted[p])) for p in ok) if complete else None,
                   count_lower_bound=None, objective=None,
                   solutions_checked=sum(r["solutions_checked"] or 0 for r in rs),
                   seconds=round(sum(secs), 4),
                   startup_seconds=(None if any(r.get("startup_seconds") is None for r in rs)
                                    else round(sum(r["startup_seconds"] for r in rs), 4)),
                   check_seconds=(None if any(r.get("check_seconds") is None for r in rs)
                                  else round(sum(r["check_seconds"] for r in rs), 4)),
                   wall_seconds=round(sum(r["wall_seconds"] or 0.0 for r in rs), 4),
                   cpu_seconds=round(sum(r["cpu_seconds"] or 0.0 for r in rs), 4),
                   started=min((r["started"] or "") for r in rs),
                   finished=max((r["finished"] or "") for r in rs),
                   stats=json.dumps({"parts": parts}), params=rs[0]["params"],
                   over_limit=int(any(map(over_limit, rs))), parts_merged=parts)
        errors = [r for r in rs if r["status"] == "ERROR"]
        if twice:
            row.update(status="ERROR", termination="error",
                       reason=f"part {twice[0]} was counted twice with different counts "
                              f"({', '.join(map(str, sorted(counted[twice[0]])))})",
                       stats=json.dumps({"parts": parts, "termination": "refuted"}))
        elif complete:
            row.update(status="OPTIMAL", termination="done",
                       reason=f"sum of {parts} parts, each counted exactly")
        elif errors:
            refuted = as_result(errors[0]).refuted  # a part's answer refuted: so is the sum's
            row.update(status="ERROR", termination="error",
                       reason=f"part {_parts(errors[0])[0]}: {errors[0]['reason']}",
                       stats=json.dumps({"parts": parts, **({"termination": "refuted"} if refuted else {})}))
        else:
            row.update(status="UNKNOWN", termination="time",
                       reason=f"{len(ok)} of {parts} parts finished: the count is not known")
        merged.append(row)
        splits.append({"instance": inst, "task": task, "config": config, "repeat": repeat,
                       "parts": parts, "stored": len(rs), "finished": len(ok),
                       "count": row["count"],
                       "part_counts": [r["count"] for r in rs],
                       "solutions_checked": row["solutions_checked"],
                       "seconds_sum": row["seconds"], "seconds_min": round(min(secs), 4),
                       "seconds_max": round(max(secs), 4), "cpu_seconds": row["cpu_seconds"]})
    return plain + merged, splits


def report(rows: list[dict[str, Any]], meta: dict[str, str]) -> CampaignReport:
    """The JSON report: {"campaign", "jobs", "configs": {...}, "instances": [...], "splits":
    [...]} — a split count's parts counted as one job of its configuration (`merge_parts`)."""
    merged, splits = merge_parts(mark_wrong(rows))
    _marked(merged)
    rep = CampaignReport({"campaign": meta.get("campaign"), "task": task_of(rows, meta),
                          "jobs": len(rows), "configs": config_table(merged),
                          "instances": verdicts(merged), "splits": splits,
                          "before_engine_time": before_engine_time(rows)})
    rep.rows, rep.jobs_rows, rep.meta = merged, rows, dict(meta)
    return rep


class CampaignReport(dict):
    """The JSON report (a dict) with its stored rows (split counts merged) and meta at hand:
    its tables (`table_models`), and in Jupyter its tables as HTML and plots as SVG."""

    rows: list[dict[str, Any]] = []       # split counts merged
    jobs_rows: list[dict[str, Any]] = []  # one per stored job
    meta: dict[str, str] = {}
    store_path: str | None = None  # where the rows were read (open_report, campaign report)

    def write_html(self, path: str | Path) -> Path:
        """The self-contained HTML page of this report (`campaign report --html`), atomically."""
        from .html import write_html
        return write_html(path, self.store_path or ".", self.jobs_rows, self.meta, self)

    def table_models(self) -> list[Table]:
        return report_tables(self, self.rows, self.meta)

    def machine(self) -> dict[str, Any]:
        return machine_of(self.meta, self.rows)

    def cactus(self) -> "Svg":
        """The cactus plot as inline SVG (drawn here, no matplotlib)."""
        from .svgplot import cactus_svg
        return Svg(cactus_svg(self.rows, self.meta))

    def scatter(self, x: str | None = None, y: str | None = None) -> "Svg":
        """The scatter plot of two configurations (default: the first two) as inline SVG."""
        from .svgplot import scatter_svg
        configs = list(self["configs"])
        return Svg(scatter_svg(self.rows, self.meta, x or configs[0], y or configs[min(1, len(configs) - 1)]))

    def _repr_html_(self) -> str:
        return "".join(to_html(t) for t in self.table_models())


class Svg(str):
    """SVG text that Jupyter draws."""

    def _repr_svg_(self) -> str:
        return str(self)


def machine_of(meta: dict[str, str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The machine the campaign's latest run recorded (platform, CPUs, solver versions), with the
    hosts its jobs ran on; {hosts} alone for a store from before the record."""
    try:
        m = json.loads(meta["machine"]) if meta.get("machine") else {}
    except ValueError:
        m = {}
    hosts = sorted({r["host"] for r in rows if r.get("host")})
    return {**m, "hosts": hosts} if hosts else m


def report_params(rows: list[dict[str, Any]], meta: dict[str, str]) -> dict[str, Any]:
    """The parameters a report's footnote names: task, limits, repeats, seeds, configurations."""
    p: dict[str, Any] = {"task": task_of(rows, meta)}
    p["time limit (s)"] = sorted({r["time_limit"] for r in rows if r.get("time_limit") is not None})
    p["memory limit (MB)"] = sorted({r["memory_limit_mb"] for r in rows if r.get("memory_limit_mb")})
    p["repeats"] = len({r["repeat"] for r in rows})
    seeds = sorted({r["seed"] for r in rows if r.get("seed") is not None})
    if seeds:
        p["seeds"] = seeds
    p["configurations"] = {r["config"]: r["config_spec"] for r in rows}
    return p


def report_tables(rep: dict[str, Any], rows: list[dict[str, Any]], meta: dict[str, str]) -> list[Table]:
    """The report as table models: the configurations' scores (the lowest PAR-2 among those
    without a wrong answer in bold), the instances (verdict, then per configuration its value and
    seconds; a refuted answer says `wrong`; the fastest solved one in bold unless the verdict is
    DISAGREE; no answer at all: a dash in LaTeX), the split counts."""
    params = report_params(rows, meta)
    rows = _marked(rows)
    certs = any(c.get("certified") for c in rep["configs"].values())  # jobs run with certify
    ct = Table(f"campaign {rep['campaign']}: {rep['jobs']} jobs",
               [Column("config"), Column("spec"), Column("jobs", "int"), Column("solved", "int"),
                *((Column("certified", "int"),) if certs else ()), Column("wrong", "int"),
                Column("unknown", "int"), Column("errors", "int"), Column("over limit", "int"),
                Column("PAR-2 (s)", "seconds"), Column("median (s)", "seconds")], params=params)
    scored = [c for c in rep["configs"].values() if c["solved"] and not c.get("wrong")]
    best = min((c["par2"] for c in scored), default=None)
    for name, c in rep["configs"].items():
        wrong = c.get("wrong", 0)
        ct.add(cell(name), cell(c["spec"]), cell(c["jobs"], "int"), cell(c["solved"], "int"),
               *((cell(c["certified"], "int"),) if certs else ()), cell(wrong, "int", wrong=bool(wrong)),
               cell(c["unknown"], "int"), cell(c["errors"], "int"), cell(c["over_limit"], "int"),
               cell(c["par2"], "seconds", best=c["solved"] > 0 and not wrong and c["par2"] == best),
               cell(c["median_seconds"], "seconds"))
    if rep.get("before_engine_time"):
        ct.notes.append(f"{rep['before_engine_time']} finished jobs were stored before 0.4: their "
                        "seconds are the runner's wall, the worker's start-up included (newer jobs: "
                        "engine seconds, start-up apart)")
    if any(c.get("wrong") for c in rep["configs"].values()):
        ct.notes.append("wrong: an answer the cross-check refuted (see the verdicts); it counts as "
                        "unsolved (PAR-2: twice the limit) and its configuration is never marked best")
    configs = list(rep["configs"])
    it = Table("instances (value and seconds per configuration)",
               [Column("instance"), Column("verdict", "verdict"), *(Column(c) for c in configs)],
               params=params)
    by: dict[tuple, list] = defaultdict(list)
    for r in rows:
        by[(r["instance"], r["task"], r["config"])].append(r)
    times = per_instance_times(rows)
    for inst in rep["instances"]:
        mine = {c: times.get(c, {}).get(inst["instance"], math.inf) for c in configs
                if by.get((inst["instance"], inst["task"], c))}
        fastest = min(mine.values(), default=math.inf)
        cells = []
        for c in configs:
            rs = by.get((inst["instance"], inst["task"], c), [])
            text = " / ".join(dict.fromkeys(cell_text(r) for r in rs))
            none = bool(rs) and all(r["status"] == "UNKNOWN" and not r.get("count_lower_bound") for r in rs)
            wrong = any(r.get("wrong") for r in rs)
            cells.append(cell(text, unknown=none, wrong=wrong,
                              best=inst["verdict"] != "DISAGREE" and not wrong and math.isfinite(fastest)
                              and mine.get(c) == fastest))
        it.add(cell(inst["instance"]), cell(inst["verdict"], "verdict"), *cells)
    tables = [ct, it]
    if rep["splits"]:
        st = Table("split counts (one job per part; the count is the parts' sum)",
                   [Column("instance"), Column("config"), Column("parts", "int"), Column("finished", "int"),
                    Column("count", "int"), Column("checked", "int"), Column("job s min", "float"),
                    Column("job s max", "float"), Column("job s sum", "float"), Column("CPU s", "float")],
                   params=params)
        for s in rep["splits"]:
            st.add(cell(s["instance"]), cell(s["config"]), cell(s["parts"], "int"),
                   cell(s["finished"], "int"), cell(s["count"], "int", "—" if s["count"] is None else None),
                   cell(s["solutions_checked"], "int"), *(cell(s[k], "float", f"{s[k]:.2f}") for k in
                                                           ("seconds_min", "seconds_max", "seconds_sum",
                                                            "cpu_seconds")))
        tables.append(st)
    return tables


def task_of(rows: list[dict[str, Any]], meta: dict[str, str]) -> str | None:
    """The campaign's task in words: as the run recorded it (one task, or one per family when
    the spec gave none), else read off the stored jobs."""
    if meta.get("task"):
        return meta["task"]
    by: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        by[r["family"]].add(r["task"])
    if not by:
        return None
    return ", ".join(f"{f}={'/'.join(sorted(t))}" for f, t in sorted(by.items())) \
        if len({t for ts in by.values() for t in ts}) > 1 else next(iter(next(iter(by.values()))))


def cell_text(r: dict[str, Any]) -> str:
    """A short text for one job in the instance table (a proved answer that came after the time
    limit says `over limit`: it counts as unsolved; a refuted one says `wrong`)."""
    if r.get("wrong"):
        return "wrong (" + _answer_text(r).replace("ERROR", "refuted by the checker") + ")"
    return _answer_text(r)


def _answer_text(r: dict[str, Any]) -> str:
    if r["status"] == "ERROR":
        return "ERROR"
    if r["termination"] in ("memory", "killed"):
        return r["termination"]
    late = ", over limit" if over_limit(r) else ""
    if r["status"] == "INFEASIBLE":
        return f"infeasible ({r['seconds']:.2f}s{late})" if late else "infeasible"
    val = r["count"] if r["task"] == "count" else r["objective"]
    if r["status"] == "OPTIMAL" and r["task"] == "unique":
        answer = "unique" if r["count"] == 1 else "multiple"
        return f"{answer}{'' if val is None else f' {val}'} ({r['seconds']:.2f}s{late})"
    if r["status"] == "OPTIMAL":
        return f"{val if val is not None else 'ok'} ({r['seconds']:.2f}s{late})"
    if r["status"] == "FEASIBLE":
        if r["task"] == "optimize" and r["objective"] is not None:  # a bound on the optimum
            fam = families().get(r["family"])
            sense = fam.sense if fam else None
            return f"{'≤' if sense == 'min' else '≥'}{r['objective']} (feasible)"
        return (f"found ({r['seconds']:.2f}s{late})" if late else "found") if r["task"] == "feasible" \
            else "feasible"
    if r.get("count_lower_bound"):
        return f"≥{r['count_lower_bound']} found"
    return "timeout"


def per_instance_times(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """config -> instance -> median seconds over repeats (inf where the median job is unsolved)."""
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in _marked(rows):
        acc[r["config"]][r["instance"]].append(r["seconds"] if solved(r) else math.inf)
    return {c: {i: statistics.median_low(sorted(ts)) for i, ts in d.items()} for c, d in acc.items()}


def _text(s: Any) -> str:
    """A store's name as plain text in a plot (matplotlib reads $...$ as mathtext)."""
    return str(s).replace("$", r"\$")


def plot(rows: list[dict[str, Any]], meta: dict[str, str], kind: str, path: str,
         x: str | None = None, y: str | None = None) -> None:
    """Write a cactus plot (solved instances vs time) or a scatter of two configurations to `path`."""
    try:
        import matplotlib
    except ImportError:
        from ...core.result import InputError
        raise InputError("plots need matplotlib: pip install 'puzzlesat[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    times = per_instance_times(rows)
    limit = max(r["time_limit"] for r in rows)
    configs = list(config_table(rows))
    title = _text(f"campaign {meta.get('campaign')}: {len({r['instance'] for r in rows})} instances, "
                  f"time limit {limit:g} s")
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    if kind == "cactus":
        for c in configs:
            ts = sorted(t for t in times[c].values() if math.isfinite(t))
            ax.plot(ts, range(1, len(ts) + 1), marker=".", label=_text(f"{c} ({len(ts)})"))
        ax.set_xscale("log")
        ax.axvline(limit, color="grey", linestyle="--", linewidth=1)
        ax.set_xlabel("time (s, log)")
        ax.set_ylabel("instances solved")
        ax.legend(loc="lower right", fontsize="small")
    else:
        xs, ys = times[x], times[y]
        insts = sorted(set(xs) & set(ys))
        finite = [t for i in insts for t in (xs[i], ys[i]) if math.isfinite(t) and t > 0]
        lo = max(1e-3, min(finite) / 2) if finite else 1e-3
        border = limit * 1.5  # unsolved jobs sit on this border, beyond the time limit
        px = [min(max(xs[i], lo), border) for i in insts]
        py = [min(max(ys[i], lo), border) for i in insts]
        ax.scatter(px, py, s=18, alpha=0.8)
        ax.plot([lo, border], [lo, border], color="grey", linewidth=1)
        for v in (limit,):
            ax.axvline(v, color="grey", linestyle="--", linewidth=1)
            ax.axhline(v, color="grey", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, border * 1.15)
        ax.set_ylim(lo, border * 1.15)
        ax.set_xlabel(_text(f"{x} (s)"))
        ax.set_ylabel(_text(f"{y} (s)"))
        ax.text(0.02, 0.97, "unsolved: on the top/right border", transform=ax.transAxes, va="top",
                fontsize="small", color="grey")
    ax.set_title(title, fontsize="medium")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fmt = "svg" if str(path).lower().endswith(".svg") else "png"
    try:
        write_atomic(path, lambda tmp: fig.savefig(tmp, format=fmt,
                                                   metadata={"Date": None} if fmt == "svg" else None),
                     "plot", suffix="." + fmt)
    finally:
        plt.close(fig)
