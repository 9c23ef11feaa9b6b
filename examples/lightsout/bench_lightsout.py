"""Time the Lights Out engines: for each instance, every engine through `puzzlesat.compare` (each
run checked, verdict judged), one line per instance with the answer (fewest presses, number of
minimum solutions) and each engine's CPU seconds inside its worker (stats cpu_seconds: the
engine call, solver imports excluded). Prints the machine load first and last.

Run: nice -n 15 python examples/lightsout/bench_lightsout.py [INSTANCE ...] [--task count]
     [--time-limit 300] [--engines native,cpsat,sat]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import puzzlesat as ps

DEFAULT = ([f"allon-{n}" for n in range(1, 16)] + ["allon-19", "allon-20"]
           + ["allon-3x7", "allon-4x5", "allon-5x6", "allon-6x9", "random-4x7", "random-6x6",
              "random-7x9", "random-5x5", "random-8x8", "corner-5", "centre-5"])


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="*", default=DEFAULT)
    ap.add_argument("--task", default="count", choices=("optimize", "count", "feasible"))
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--engines", default="native,cpsat,sat")
    ap.add_argument("--no-precheck", action="store_true", help="run the engines on unsolvable starts too")
    args = ap.parse_args()
    try:
        import puzzlesat_lightsout  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
    if "lightsout" not in [e.family for e in ps.engines()]:
        from puzzlesat_lightsout import FAMILY
        ps.register_family(FAMILY)
    engines = args.engines.split(",")
    print(f"# {load()}; task {args.task}; time limit {args.time_limit} s; CPU seconds per engine")
    print(f"{'instance':<22} {'verdict':<10} {'min':>5} {'count':>6}  "
          + "  ".join(f"{e:>10}" for e in engines), flush=True)
    worst = 0
    for name in args.instances:
        inst = ps.load(name if "/" in name or name.endswith(".toml") else f"lightsout/{name}")
        c = ps.compare(inst, engines, args.task, time_limit=args.time_limit,
                       precheck=not args.no_precheck)
        ok = [r for r in c.results if r.status is ps.Status.OPTIMAL]
        obj = ok[0].objective if ok else "inf" if all(r.status is ps.Status.INFEASIBLE for r in c.results) else "?"
        cnt = ok[0].count if ok and args.task == "count" else ""
        secs = []
        for r in c.results:
            cpu = r.stats.get("cpu_seconds")
            secs.append(f"{cpu:10.3f}" if r.finished() and cpu is not None
                        else f"{str(r.status):>10}" if not r.finished() else f"{'precheck':>10}")
        print(f"{inst.name:<22} {c.verdict.value:<10} {obj!s:>5} {cnt!s:>6}  " + "  ".join(secs), flush=True)
        worst = max(worst, c.verdict is ps.Verdict.DISAGREE)
    print(f"# {load()}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
