"""Formulation lab benchmarks (docs/lab.md): the lab's reports as Markdown tables.

    python bench/lab.py encodings [--time-limit S]   # (a) PySAT encodings of peg's moves <= K
    python bench/lab.py pentomino [--time-limit S]   # (b) 6x10 orbits: symmetry breaking, encodings
    python bench/lab.py sliding [--time-limit S]     # (c) SAT solvers on sliding korf-055
    python bench/lab.py peg [--time-limit S]         # (d) peg formulations: time, resource, merson, ordered
    python bench/lab.py all

Each run is checked by the family checker and cross-validated per instance (the verdict is
printed); a run stopped by its limit is UNKNOWN, never a number. Times are engine seconds
(Result.seconds: the engine's own work, wall clock; the worker's start-up and the checking apart)
of one run on a shared machine: read them as orders of magnitude.
"""
from __future__ import annotations

import argparse
import shutil
import sys

from puzzlesat.core.config import parse_many
from puzzlesat.families.instances import load_instance
from puzzlesat.compare.lab import lab_instance

ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk")
PEG = ("peg/triangle21", "peg/ipc-p02", "peg/ipc-p05", "peg/ipc-p12")


def md(rep: dict) -> str:
    head = ("| configuration | status | obj | count | vars | clauses/cons | seconds | conflicts | "
            "decisions/branches | best |\n|---|---|---:|---:|---:|---:|---:|---:|---:|:-:|")
    rows = []
    for s in rep["configs"]:
        size = s["clauses"] if s["clauses"] is not None else s["constraints"]
        eff = s["decisions"] if s["decisions"] is not None else s["branches"]
        f = (lambda v: "" if v is None else f"{v:,}")  # noqa: E731
        rows.append(f"| `{s['spec']}` | {s['status']} | {f(s['objective'])} | {f(s['count'])} | "
                    f"{f(s['vars'])} | {f(size)} | {s['median_seconds']:.2f} | {f(s['conflicts'])} | "
                    f"{f(eff)} | {'*' if s['best'] else ''} |")
    return (f"**{rep['instance']}** ({rep['task']}, verdict {rep['verdict']})\n\n" + head + "\n"
            + "\n".join(rows) + "\n")


def report(name: str, configs: str, task: str, limit: float, **kw) -> None:
    fam, inst = load_instance(name)
    rep = lab_instance(fam, inst, parse_many(configs), task, time_limit=limit, **kw)
    print(md(rep), flush=True)
    for r in rep["reasons"]:
        print(f"- {r}")


def encodings(limit: float) -> None:
    cfgs = ",".join(f"sat:time[encoding={e}]" for e in ENCODINGS)
    for name in PEG:
        report(name, cfgs, "optimize", limit)


def pentomino(limit: float) -> None:
    cfgs = ",".join(f"sat:cover[symmetry_breaking={sb},encoding={e}]" for sb in ("true", "false")
                    for e in ("pairwise", "seqcounter"))
    report("pentomino/6x10", cfgs + ",native", "count", limit, options={"up_to_symmetry": "true"})


def sliding(limit: float) -> None:
    cfgs = ["sat:time[solver=cadical195]", "sat:time[solver=kissat404]", "sat:time[solver=cadical300]"]
    fam, _ = load_instance("sliding/korf-055")
    if "ext:dimacs" in fam.engine_names() and shutil.which("cadical"):
        cfgs.append("ext:dimacs[cmd=cadical -q]")
    report("sliding/korf-055", ",".join(cfgs), "optimize", limit)


PEG_FORMULATIONS = ("time", "resource", "merson", "ordered")
PEG_MODELS = ("peg/hoppers", "peg/triangle15", "peg/ipc-p18", "peg/triangle21")


def peg(limit: float) -> None:
    cfgs = ",".join(f"{be}:{f}" for be in ("cpsat", "sat") for f in PEG_FORMULATIONS)
    for name in PEG_MODELS:
        report(name, cfgs, "optimize", limit)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", choices=("encodings", "pentomino", "sliding", "peg", "all"))
    ap.add_argument("--time-limit", type=float, default=120.0)
    a = ap.parse_args()
    for part, fn in (("encodings", encodings), ("pentomino", pentomino), ("sliding", sliding),
                     ("peg", peg)):
        if a.which in (part, "all"):
            fn(a.time_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
