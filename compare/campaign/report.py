"""What a store says: per-configuration scores, per-instance verdicts across all configurations
(the rules of `compare`: crossval.judge), cactus and scatter plots.

Vocabulary: a job is *solved* when it finished (Result.finished: OPTIMAL or INFEASIBLE, and
FEASIBLE for task feasible); PAR-2 is the mean over a configuration's jobs of the job's seconds
if solved, else twice the time limit; the median time is over solved jobs.
"""
from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from typing import Any

from ...core.result import Status, Task

from ..crossval import Verdict, judge
from ...families.registry import families
from ...core.result import Result
from .store import loads

VERDICT_ORDER = {Verdict.DISAGREE: 0, Verdict.INCOMPLETE: 1, Verdict.AGREE: 2}


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
    """The job finished with a proved answer."""
    return row["termination"] == "done" and as_result(row).finished()


def par2(row: dict[str, Any]) -> float:
    return row["seconds"] if solved(row) else 2.0 * row["time_limit"]


def config_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per configuration: spec, engine, jobs, solved, unknown, errors, by termination, PAR-2, median."""
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
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
            "unknown": sum(1 for r in rs if r["status"] != "ERROR" and not solved(r)),
            "errors": sum(1 for r in rs if r["status"] == "ERROR"),
            "termination": dict(sorted(terms.items())),
            "par2": round(sum(map(par2, rs)) / len(rs), 4),
            "median_seconds": round(statistics.median(times), 4) if times else None,
        }
    return out


def verdicts(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per instance (and task, if a spec changed its task): the verdict across every configuration
    and repeat, DISAGREE first."""
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by[(r["instance"], r["task"])].append(r)
    out = []
    for (inst, task_name), rs in by.items():
        fam = families().get(rs[0]["family"])
        sense = fam.sense if fam else None
        task = Task(rs[0]["task"])
        results = []
        for r in rs:
            res = as_result(r)
            if len([x for x in rs if x["config"] == r["config"]]) > 1:
                res.engine = f"{r['config']}#{r['repeat']}"
            results.append(res)
        v, reasons = judge(results, sense, task)
        out.append({"instance": inst, "family": rs[0]["family"], "task": task_name, "verdict": str(v),
                    "reasons": reasons,
                    "results": {f"{r['config']}" + (f"#{r['repeat']}" if r["repeat"] else ""):
                                {"status": r["status"], "objective": r["objective"], "count": r["count"],
                                 "seconds": r["seconds"], "termination": r["termination"]} for r in rs}})
    out.sort(key=lambda d: (VERDICT_ORDER[Verdict(d["verdict"])], d["instance"]))
    return out


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
        if parts > 1:
            groups[(r["instance"], r["task"], r["config"], r["repeat"], parts)].append(r)
        else:
            plain.append(r)
    merged, splits = [], []
    for (inst, task, config, repeat, parts), rs in groups.items():
        rs.sort(key=lambda r: _parts(r)[0])
        ok = {_parts(r)[0] for r in rs if r["status"] == "OPTIMAL" and r["termination"] == "done"}
        complete = ok == set(range(parts))
        secs = [r["seconds"] or 0.0 for r in rs]
        row = dict(rs[0])
        row.update(count=sum(r["count"] for r in rs) if complete else None,
                   count_lower_bound=None, objective=None,
                   solutions_checked=sum(r["solutions_checked"] or 0 for r in rs),
                   seconds=round(sum(secs), 4),
                   wall_seconds=round(sum(r["wall_seconds"] or 0.0 for r in rs), 4),
                   cpu_seconds=round(sum(r["cpu_seconds"] or 0.0 for r in rs), 4),
                   started=min((r["started"] or "") for r in rs),
                   finished=max((r["finished"] or "") for r in rs),
                   stats=json.dumps({"parts": parts}), params=rs[0]["params"])
        errors = [r for r in rs if r["status"] == "ERROR"]
        if complete:
            row.update(status="OPTIMAL", termination="done",
                       reason=f"sum of {parts} parts, each counted exactly")
        elif errors:
            row.update(status="ERROR", termination="error",
                       reason=f"part {_parts(errors[0])[0]}: {errors[0]['reason']}")
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


def report(rows: list[dict[str, Any]], meta: dict[str, str]) -> dict[str, Any]:
    """The JSON report: {"campaign", "jobs", "configs": {...}, "instances": [...], "splits":
    [...]} — a split count's parts counted as one job of its configuration (`merge_parts`)."""
    merged, splits = merge_parts(rows)
    return {"campaign": meta.get("campaign"), "jobs": len(rows), "configs": config_table(merged),
            "instances": verdicts(merged), "splits": splits}


def cell(r: dict[str, Any]) -> str:
    """A short text for one job in the instance table."""
    if r["status"] == "ERROR":
        return "ERROR"
    if r["termination"] in ("memory", "killed"):
        return r["termination"]
    if r["status"] == "INFEASIBLE":
        return "infeasible"
    val = r["count"] if r["task"] == "count" else r["objective"]
    if r["status"] == "OPTIMAL":
        return f"{val if val is not None else 'ok'} ({r['seconds']:.2f}s)"
    if r["status"] == "FEASIBLE":
        if r["task"] == "optimize" and r["objective"] is not None:  # a bound on the optimum
            fam = families().get(r["family"])
            sense = fam.sense if fam else None
            return f"{'≤' if sense == 'min' else '≥'}{r['objective']} (feasible)"
        return "found" if r["task"] == "feasible" else "feasible"
    if r.get("count_lower_bound"):
        return f"≥{r['count_lower_bound']} found"
    return "timeout"


def per_instance_times(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """config -> instance -> median seconds over repeats (inf where the median job is unsolved)."""
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        acc[r["config"]][r["instance"]].append(r["seconds"] if solved(r) else math.inf)
    return {c: {i: statistics.median_low(sorted(ts)) for i, ts in d.items()} for c, d in acc.items()}


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
    title = f"campaign {meta.get('campaign')}: {len({r['instance'] for r in rows})} instances, " \
            f"time limit {limit:g} s"
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    if kind == "cactus":
        for c in configs:
            ts = sorted(t for t in times[c].values() if math.isfinite(t))
            ax.plot(ts, range(1, len(ts) + 1), marker=".", label=f"{c} ({len(ts)})")
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
        ax.set_xlabel(f"{x} (s)")
        ax.set_ylabel(f"{y} (s)")
        ax.text(0.02, 0.97, "unsolved: on the top/right border", transform=ax.transAxes, va="top",
                fontsize="small", color="grey")
    ax.set_title(title, fontsize="medium")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.endswith(".svg") else None)
    plt.close(fig)
