"""Calculation maze benchmark: native:dfs and both CP-SAT formulations on the six shipped instances
and on random generated mazes.

Run: /tmp/venv/bin/python bench/maze.py [--cpsat-limit S] [--native-limit S] [--skip-cpsat]
                                        [--skip-random] [--ablation]
     bench/maze.py --models [--models-seeds N] [--models-limit S]   (cpsat:time vs cpsat:segments)
Every engine run goes through compare.runner.solve (a forked worker with a hard limit; every walk
is replayed by the independent checker); `run s` is its wall time (the worker is forked after the
kernels were loaded here; a cold `puzzlesat solve` adds ~1 s of numba import and cache load).
For native:dfs the search alone is also timed in this process (`cpu s`, process time after a
warm-up), comparable with the reference C++ solver's single-thread user time (results.json:
11_56 0.6 s, 12_57 25.5 s, 12_66 31 s, sample3 67 s). `#optimal walks` is task count, natively
(every walk checked). A wrong optimum or a disagreement prints MISMATCH and makes the exit status
1. Shared 2-core machine: wall times vary.
"""
from __future__ import annotations

import argparse
import sys
import time


from puzzlesat.families.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.native_search.maze import search as N  # noqa: E402
from puzzlesat.puzzles import maze as M  # noqa: E402
from puzzlesat.core.result import Status  # noqa: E402

FAM = family("maze")
REF_USER_S = {"11_56": 0.6, "12_57": 25.5, "12_66": 31.0, "sample3": 67.0, "sample1": 0.0, "sample2": 0.0}
ORDER = ("sample1", "sample2", "11_56", "12_57", "12_66", "sample3")
ok = True


def mismatch(what: str) -> None:
    global ok
    ok = False
    print(f"MISMATCH: {what}")


def cpu_native(m: M.Maze, **opts) -> tuple[float, int | None, int]:
    t = time.process_time()
    best, walk, st = N.optimize(m, **opts)
    return time.process_time() - t, best, st["nodes"]


def fmt(r, limit) -> str:
    if r is None:
        return f"{'-':>9} {'':>8}"
    tag = {Status.OPTIMAL: "", Status.FEASIBLE: "~", Status.UNKNOWN: "?"}.get(r.status, "!")
    obj = "-" if r.objective is None else f"{r.objective}{tag}"
    return f"{obj:>9} {r.seconds:>8.2f}"


def run(m, engine, limit, **opts):
    return solve(FAM, m, engine, "optimize", time_limit=limit, options=opts)


def table(rows, header):
    print(header)
    for row in rows:
        print(row)


def instances(args) -> None:
    print("\n== shipped instances (objective: ~ = FEASIBLE at the limit, ? = nothing proved)")
    print(f"{'instance':<9} {'opt':>6} {'ref C++ s':>9} | {'native cpu s':>12} {'nodes':>11} "
          f"{'run s':>6} | {'#optimal walks':>14} {'cpu s':>6} | {'cpsat:segments':>18} | "
          f"{'cpsat:time':>18}")
    for name in ORDER:
        m = M.catalogue()[name]()
        opt = M.reference_optimum(m)
        cpu, best, nodes = cpu_native(m)
        if best != opt:
            mismatch(f"{name}: native (in-process) {best} != {opt}")
        r = run(m, "native", args.native_limit)
        if (r.status, r.objective) != (Status.OPTIMAL, opt):
            mismatch(f"{name}: native {r.status} {r.objective} != {opt}")
        t = time.process_time()
        walks, complete, _ = N.count_optimal(m, opt)
        ccpu = time.process_time() - t
        if not complete or any(M.check(m, w) != opt for w in walks) or len(set(walks)) != len(walks):
            mismatch(f"{name}: counted walks fail the checker or repeat")
        cells = []
        for eng in ("cpsat:segments", "cpsat:time"):
            if args.skip_cpsat:
                cells.append(fmt(None, 0))
                continue
            c = run(m, eng, args.cpsat_limit)
            if c.status is Status.OPTIMAL and c.objective != opt:
                mismatch(f"{name}: {eng} claims {c.objective} != {opt}")
            if c.objective is not None and c.objective > opt:
                mismatch(f"{name}: {eng} found {c.objective} > optimum {opt}")
            cells.append(fmt(c, args.cpsat_limit))
        print(f"{name:<9} {opt:>6} {REF_USER_S[name]:>9.1f} | {cpu:>12.2f} {nodes:>11,} {r.seconds:>6.2f}"
              f" | {len(walks):>14,} {ccpu:>6.2f} | {cells[0]} | {cells[1]}", flush=True)


def ablation() -> None:
    print("\n== native:dfs ablation, in-process cpu s (nodes); plain = challerunF's rules with the"
          " corrected bound")
    configs = [("plain", dict(tt_bits=0, refine=False, probe=False, two_step=False)),
               ("+table", dict(tt_bits=20, refine=False, probe=False, two_step=False)),
               ("+refined bound", dict(tt_bits=20, refine=True, probe=False, two_step=False)),
               ("+probes", dict(tt_bits=20, refine=True, probe=True, two_step=False, warm=0)),
               ("+two-step", dict(tt_bits=20, refine=True, probe=True, two_step=True, warm=0)),
               ("+warm start (default)", dict(tt_bits=20, refine=True, probe=True, two_step=True))]
    print(f"{'instance':<9} " + " ".join(f"{c:>22}" for c, _ in configs))
    for name in ("11_56", "12_57", "12_66", "sample3"):
        m = M.catalogue()[name]()
        cells = []
        for label, o in configs:
            if label == "plain" and name != "11_56":
                cells.append("(minutes: skipped)")
                continue
            cpu, best, nodes = cpu_native(m, **o)
            if best != M.reference_optimum(m):
                mismatch(f"{name} {o}: {best}")
            cells.append(f"{cpu:>7.2f} ({nodes:>11,})")
        print(f"{name:<9} " + " ".join(f"{c:>22}" for c in cells), flush=True)


def random_mazes(args) -> None:
    print("\n== random mazes (puzzlesat generate maze --rows R --cols C --seed S); opt by native")
    print(f"{'maze':<18} {'edges':>5} {'opt':>7} | {'native cpu s':>12} {'nodes':>11} | "
          f"{'cpsat:segments':>18} | {'cpsat:time':>18}")
    for (R, C) in ((3, 4), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6)):
        for seed in (1, 2):
            m = M.generate(R, C, seed)
            cpu, best, nodes = cpu_native(m)
            r = run(m, "native", args.native_limit)
            if (r.status, r.objective) != (Status.OPTIMAL, best):
                mismatch(f"{m.name}: native run {r.status} {r.objective} != {best}")
            cells = []
            for eng in ("cpsat:segments", "cpsat:time"):
                if args.skip_cpsat or (eng == "cpsat:time" and R * C > 20):
                    cells.append(fmt(None, 0))
                    continue
                c = run(m, eng, args.random_cpsat_limit)
                if (c.status is Status.OPTIMAL and c.objective != best) or \
                        (c.objective is not None and c.objective > best):
                    mismatch(f"{m.name}: {eng} {c.status} {c.objective} vs native {best}")
                cells.append(fmt(c, args.random_cpsat_limit))
            print(f"{m.name:<18} {len(m.ops):>5} {best:>7} | {cpu:>12.2f} {nodes:>11,} | {cells[0]} | "
                  f"{cells[1]}", flush=True)


def models(args) -> None:
    """cpsat:time against cpsat:segments (which one `compare` runs by default) on random mazes,
    from few multipliers to multiplier-heavy ones; the optimum by native:dfs."""
    print(f"\n== cpsat:time vs cpsat:segments, limit {args.models_limit:g} s each: objective "
          "(~ FEASIBLE, ? nothing), wall s, CP-SAT deterministic time")
    print(f"{'maze':<26} {'muls':>4} {'opt':>9} | {'cpsat:time':>30} | {'cpsat:segments':>30}")
    won = {"cpsat:time": 0, "cpsat:segments": 0}
    total = {"cpsat:time": 0.0, "cpsat:segments": 0.0}
    for (R, C, rate) in ((4, 4, 0.08), (4, 4, 0.5), (4, 4, 0.8), (5, 5, 0.08), (5, 5, 0.5)):
        for seed in range(1, args.models_seeds + 1):
            m = M.generate(R, C, seed, mul_rate=rate)
            m = M.Maze(f"{R}x{C}-mul{rate}-s{seed}", m.width, m.height, m.ops, m.start, m.goal)
            best, _, st = N.optimize(m)
            cells = []
            for eng in ("cpsat:time", "cpsat:segments"):
                c = run(m, eng, args.models_limit)
                if (c.status is Status.OPTIMAL and c.objective != best) or \
                        (c.objective is not None and c.objective > best):
                    mismatch(f"{m.name}: {eng} {c.status} {c.objective} vs native {best}")
                solved = c.status is Status.OPTIMAL
                won[eng] += solved
                total[eng] += c.seconds if solved else args.models_limit
                cells.append(f"{fmt(c, args.models_limit)} {c.stats.get('deterministic_time', '-'):>11}")
            muls = sum(1 for o in m.ops if o[0] == "*")
            print(f"{m.name:<26} {muls:>4} {best:>9} | {cells[0]} | {cells[1]}", flush=True)
    for eng in won:
        print(f"{eng}: proved {won[eng]}, total {total[eng]:.1f} s (unproved counted at the limit)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpsat-limit", type=float, default=60.0)
    ap.add_argument("--random-cpsat-limit", type=float, default=20.0)
    ap.add_argument("--native-limit", type=float, default=300.0)
    ap.add_argument("--skip-cpsat", action="store_true")
    ap.add_argument("--skip-random", action="store_true")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--models", action="store_true", help="only the cpsat:time vs cpsat:segments table")
    ap.add_argument("--models-seeds", type=int, default=4)
    ap.add_argument("--models-limit", type=float, default=30.0)
    args = ap.parse_args()
    N.DFS(M.catalogue()["sample1"]()).run()  # compile / load the kernels before timing
    if args.models:
        models(args)
        print("\nall results as expected" if ok else "\nMISMATCHES above")
        return 0 if ok else 1
    instances(args)
    if args.ablation:
        ablation()
    if not args.skip_random:
        random_mazes(args)
    print("\nall results as expected" if ok else "\nMISMATCHES above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
