"""The paradigm table of docs/paradigms.md: every family's main formulation on every paradigm
(CP-SAT, CDCL SAT, MaxSAT, MIP, and the CPMpy bridge's solvers), one lab run per instance and
configuration (every answer checked, the configurations cross-validated), then the table (answer
and engine CPU seconds per configuration), the verdicts and the lab's cactus plot (SVG, drawn by
the campaign report's plotter).

    python bench/paradigms.py --out DIR [--time-limit 30] [--families peg,sliding,maze,tiling]

Writes DIR/records.jsonl (one lab record per run, appended as they finish; a rerun skips the
(instance, config) pairs already there), DIR/table.md and DIR/cactus.svg. Prints the load
(`uptime`) before and after: the runs share the machine's cores with whatever else runs.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from puzzlesat.compare.lab import lab_instance
from puzzlesat.families.instances import load_instance

HERE = Path(__file__).resolve().parent.parent
P = str(HERE / "docs" / "paradigms")


def configs(form: str, cnf: bool = True, maxsat: bool = True) -> list[str]:
    """The paradigms on formulation `form` (the family's main one)."""
    out = ["native=native", f"cpsat=cpsat:{form}"]
    if cnf:
        out.append(f"sat=sat:{form}")
    if cnf and maxsat:
        out.append(f"maxsat=maxsat:{form}")
    out += [f"mip=mip:{form}", f"exact=cpmpy:{form}[solver=exact]", f"z3=cpmpy:{form}[solver=z3]",
            f"pumpkin=cpmpy:{form}[solver=pumpkin]"]
    return out


PLAN = {  # family: [(instance, task, configurations)]
    "peg": [(i, "optimize", configs("time")) for i in
            ("peg/ipc-p01", "peg/ipc-p11", "peg/ipc-p03", "peg/hoppers-first06", "peg/hoppers", "peg/triangle21")],
    "sliding": [(i, "optimize", configs("time")) for i in
                ("sliding/8-easy", f"{P}/8-walk40-s2.toml", "sliding/8-hardest",
                 f"{P}/15-walk20-s1.toml", f"{P}/15-walk30-s3.toml")],
    "maze": [(i, "optimize", configs("segments", cnf=False)) for i in
             ("maze/sample1", "maze/sample2", "maze/11_56")],
    "tiling": [(f"{P}/ILLO-4x4.toml", "count", configs("cover", maxsat=False)),
               ("pentomino/3x20", "count", configs("cover", maxsat=False)),
               ("pentomino/soma", "feasible", configs("cover")),
               ("pentomino/6x10", "feasible", configs("cover"))],
}


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--families", default=",".join(PLAN))
    ap.add_argument("--instances", default="", help="only these (comma separated, as in PLAN)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    recs_path = out / "records.jsonl"
    done = set()
    if recs_path.exists():
        for line in recs_path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["bench_instance"], r["config"]))
    print("load before:", load(), flush=True)
    with open(recs_path, "a") as fh:
        for famname in a.families.split(","):
            for inst_name, task, cfgs in PLAN[famname]:
                if a.instances and not any(inst_name.endswith(x) for x in a.instances.split(",")):
                    continue
                fam, inst = load_instance(inst_name)
                todo = [c for c in cfgs if (inst_name, c.split("=")[0]) not in done]
                if not todo:
                    continue
                rep = lab_instance(fam, inst, todo, task, time_limit=a.time_limit)
                for label, cfg_row in zip((c.split("=")[0] for c in todo), rep["configs"]):
                    for r in rep["runs"][cfg_row["config"]]:
                        r = {**r, "config": label, "bench_instance": inst_name, "family_name": famname,
                             "verdict": rep["verdict"], "time_limit": a.time_limit,
                             "config_spec": cfg_row["spec"], "load": load()}
                        fh.write(json.dumps(r, default=str) + "\n")
                        fh.flush()
                        print(f"{inst_name} {r['config']}: {r['status']} {r.get('objective')} "
                              f"{r.get('count')} {r['seconds']:.2f} s", flush=True)
    print("load after:", load(), flush=True)
    table(out)


def cpu(r: dict) -> float | None:
    st = r.get("stats") or {}
    return st.get("cpu_seconds")


def table(out: Path) -> None:
    """DIR/table.md and DIR/cactus.svg from DIR/records.jsonl."""
    recs = [json.loads(l) for l in (out / "records.jsonl").read_text().splitlines()]
    order = ["native", "cpsat", "sat", "maxsat", "mip", "exact", "z3", "pumpkin"]
    lines = ["| family | instance | task | verdict | " + " | ".join(order) + " |",
             "|---|---|---|---|" + "---|" * len(order)]
    by: dict = {}
    for r in recs:
        by.setdefault((r["family_name"], r["bench_instance"], r["task"]), {})[r["config"]] = r
    for (fam, inst, task), rs in by.items():
        verdict = next(iter(rs.values()))["verdict"]
        cells = []
        for c in order:
            r = rs.get(c)
            if r is None:
                cells.append("—")
                continue
            ans = r["count"] if task == "count" else r["objective"] if task == "optimize" else \
                ("found" if r["status"] == "FEASIBLE" else None)
            sec = cpu(r)
            t = f"{sec:.2f}" if sec is not None else f"{r['seconds']:.1f} wall"
            if r["finished"]:
                cells.append(f"{ans} ({t})")
            else:
                cells.append(f"{r['status']}" + (f" {ans}" if ans is not None else "") + f" ({t})")
        lines.append(f"| {fam} | {Path(inst).stem if inst.endswith('.toml') else inst} | {task} | "
                     f"{verdict} | " + " | ".join(cells) + " |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    from puzzlesat.compare.campaign.svgplot import cactus_svg
    rows = [{"instance": r["bench_instance"], "config": r["config"], "config_spec": r["config_spec"],
             "engine": r["engine"], "seconds": r["seconds"], "status": r["status"],
             "over_limit": 0 if r["finished"] else 1, "termination": "done" if r["finished"] else "time",
             "time_limit": r["time_limit"], "started": "", "family": r["family_name"],
             "objective": r.get("objective"), "count": r.get("count"), "repeat": 0, "seed": None,
             "task": r["task"], "stats": json.dumps(r.get("stats") or {}),
             "params": json.dumps(r.get("params") or {}), "reason": r.get("reason"),
             "count_lower_bound": None, "solutions_checked": r.get("solutions_checked") or r.get("checked")}
            for r in recs]
    (out / "cactus.svg").write_text(cactus_svg(rows, {"campaign": "paradigms (bench/paradigms.py)"}))


def ablation_md(paths: list[str]) -> str:
    """A markdown table of `puzzlesat lab ablate --json` outputs: per variant the answer, the
    median engine CPU seconds over the repeats (with their spread), conflicts or branches, size."""
    import statistics
    lines = ["| instance | configuration | variant | answer | CPU s (median, min–max) | conflicts | branches | vars | clauses/cons |",
             "|---|---|---|---|---|---:|---:|---:|---:|"]
    for p in paths:
        for line in Path(p).read_text().splitlines():
            rep = json.loads(line)
            for c in rep["configs"]:
                cpus = [r["stats"].get("cpu_seconds") or 0.0 for r in rep["runs"][c["config"]]]
                ans = c["objective"] if c["count"] is None else c["count"]
                variant = c["config"].split(":", 1)[1]
                answer = c["status"] if ans is None else f"{c['status']} {ans}"  # feasible: no number
                lines.append(f"| {rep['instance']} | {rep['ablated']} | {variant} | {answer} | "
                             f"{statistics.median(cpus):.2f} ({min(cpus):.2f}–{max(cpus):.2f}) | "
                             f"{c['conflicts'] if c['conflicts'] is not None else ''} | "
                             f"{c['branches'] if c['branches'] is not None else ''} | {c['vars']} | "
                             f"{c['clauses'] or c['constraints']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--table-only":
        table(Path(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--ablation":
        print(ablation_md(sys.argv[2:]))
    else:
        main()
