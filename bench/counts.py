"""Published counts reproduced by two engines each (issue 36): the table of engine, count, engine
seconds, CPU seconds and peak memory, with the machine's load before and after.

    python bench/counts.py                    # the default rows (about 10-20 minutes on 2 cores)
    python bench/counts.py --rows domino-10,mdt-8 --time-limit 600
    python bench/counts.py --auto             # also count:auto against the counter and the SAT enumeration
    python bench/counts.py --all              # also n-queens 16 and 18

Each engine run is a fresh process (`--one ROW ENGINE`), so that its peak memory (the engine
worker's maximum resident set) is its own; "engine s" is the engine's own work (Result.seconds),
"process CPU s" the CPU time of that whole process tree (start-up, kernels, checking). A row AGREEs when at least two engines prove the same
count and it is the published one; a count only one engine reaches is `unchecked`. The n-queens
rows need the example plug-in: `pip install ./examples/nqueens`.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

ANY = '[pieces.{n}]\nshape = "{s}"\ncount = "any"\n'
DOMINO = ANY.format(n="D", s="##")
MDT = "".join(ANY.format(n=n, s=s) for n, s in (("M", "#"), ("D", "##"), ("I", "###"), ("L", "##\\n#.")))


def rect(name: str, n: int, pieces: str) -> str:
    return f'kind = "pentomino"\nname = "{name}"\nsize = [{n}, {n}]\n' + pieces


SYM = {"up_to_symmetry": True}
QUEENS = 'kind = "nqueens"\nname = "queens-{n}"\nn = {n}\n'
# The Bedlam cube (Bedlam Puzzles): 12 pentacubes and one tetracube into a 4x4x4 cube (layers of
# each shape bottom to top), read off a published solution; as Kurowski counts them, 7 pieces have
# 24 orientations, 5 have 12 and the cross (D) 3. Letters are the solution's labels.
BEDLAM = 'kind = "pentomino"\nname = "bedlam"\nsize = [4, 4, 4]\n' + "".join(
    f'[pieces.{n}]\nshape = {s}\n' for n, s in (
        ("A", '["#..\\n###", "...\\n#.."]'), ("B", '["#.\\n##\\n.#", "..\\n..\\n.#"]'),
        ("C", '["..\\n#.", ".#\\n##", "..\\n.#"]'), ("D", '[".\\n#\\n.", "#\\n#\\n#", ".\\n#\\n."]'),
        ("e", '["###\\n.#.", "...\\n.#."]'), ("f", '["..\\n..\\n#.", "#.\\n##\\n#."]'),
        ("g", '["...\\n.##", "##.\\n.#."]'), ("h", '["#\\n#\\n.", ".\\n#\\n#", ".\\n#\\n."]'),
        ("v", '["..#\\n..#", "###\\n..."]'), ("w", '["##\\n.#\\n.#", "..\\n..\\n.#"]'),
        ("x", '["...\\n.#.", ".#.\\n###"]'), ("y", '[".##", "##.", "#.."]'), ("z", '["##\\n..", ".#\\n.#"]')))
# row: (instance, options, engines, published count, source)
ROWS = {
    "domino-8": (rect("domino-8", 8, DOMINO), {}, ["native:count", "count:frontier", "count:auto"], 12_988_816, "OEIS A004003"),
    "domino-10": (rect("domino-10", 10, DOMINO), {}, ["native:count", "count:frontier", "count:auto"], 258_584_046_368, "OEIS A004003"),
    "domino-12": (rect("domino-12", 12, DOMINO), {}, ["native:count", "count:frontier", "count:auto"], 53_060_477_521_960_000, "OEIS A004003"),
    "mdt-8": (rect("mdt-8", 8, MDT), {}, ["native:count", "count:frontier", "count:auto"], 92_109_458_286_284_989_468_604, "Knuth, TAOCP 7.1.4"),
    "queens-12": ("nqueens/queens-12", {}, ["native:dfs", "count:frontier", "count:auto", "sat:cells"], 14_200, "OEIS A000170"),
    "queens-14": (QUEENS.format(n=14), {}, ["native:dfs", "count:frontier"], 365_596, "OEIS A000170"),
    "pentomino-6x10": ("pentomino/6x10", {}, ["native:count", "native:dfs"], 9_356, "Polyform Puzzler"),
    "pentomino-6x10-orbits": ("pentomino/6x10", SYM, ["native:count", "native:dfs"], 2_339, "Polyform Puzzler"),
    "bedlam-orbits": (BEDLAM, SYM, ["native:count", "native:dfs"], 19_186, "S. Kurowski (rotations)"),
}
# count:auto against the model counter and the SAT enumeration on rows where enumeration finishes
# (`--auto`); no published count: the engines' agreement is the check
AUTO = {
    "queens-8": ("nqueens/queens-8", {}, ["count:frontier", "count:auto", "sat:cells"], 92, "OEIS A000170"),
    "queens-10": (QUEENS.format(n=10), {}, ["count:frontier", "count:auto", "sat:cells"], 724, "OEIS A000170"),
    "mdt-3": (rect("mdt-3", 3, MDT), {}, ["count:frontier", "count:auto", "sat:cover"], None, ""),
    "pentomino-3x20": ("pentomino/3x20", {}, ["count:frontier", "count:auto", "sat:cover"], 8, "Polyform Puzzler"),
    "peg-hoppers": ("peg/hoppers", {}, ["count:frontier", "count:auto", "sat:time"], None, ""),
    "sliding-8-hardest": ("sliding/8-hardest", {}, ["count:frontier", "count:auto", "sat:time"], None, ""),
}
# The default count route (`solve INSTANCE --task count`, no engine named: compare/route.py)
# against the family's native counter, the model counter and the SAT enumeration, on every
# family's count instances both counters can count (`--route`); an engine left out of a row is
# one measured hopeless there: the enumeration of 10^13 and more tilings, count:frontier on keys
# outside the projection (peg, sliding: UNKNOWN 'memory' after 173-403 s, rows above) or on a
# frontier over 44 bits (pentomino 3x20: UNKNOWN after 600 s)
D, N, F = "default", "native", "count:frontier"
ROUTE = {
    **{f"domino-{n}": (rect(f"domino-{n}", n, DOMINO), {}, [D, "native:count", F], None, "OEIS A004003")
       for n in (8, 12, 16, 18, 20)},
    "mdt-3": (rect("mdt-3", 3, MDT), {}, [D, "native:count", F, "sat"], None, ""),
    **{f"mdt-{n}": (rect(f"mdt-{n}", n, MDT), {}, [D, "native:count", F], None, "")
       for n in (8, 9, 10)},
    "queens-8": ("nqueens/queens-8", {}, [D, N, F, "sat"], 92, "OEIS A000170"),
    "queens-12": ("nqueens/queens-12", {}, [D, N, F, "sat"], 14_200, "OEIS A000170"),
    "queens-13": (QUEENS.format(n=13), {}, [D, N, F], 73_712, "OEIS A000170"),
    **{f"pentomino-{n}": (f"pentomino/{n}", {}, [D, N, F, "sat"], None, "")
       for n in ("soma", "tetracubes-2x2x8", "8x8-holes-2-5")},
    "pentomino-3x20": ("pentomino/3x20", {}, [D, N, "sat"], 8, "Polyform Puzzler"),
    "pentomino-6x10-orbits": ("pentomino/6x10", SYM, [D, N, "native:count"], 2_339, "Polyform Puzzler"),
    "peg-hoppers": ("peg/hoppers", {}, [D, N, "sat"], None, ""),
    "sliding-8-hardest": ("sliding/8-hardest", {}, [D, N, "sat"], None, ""),
    "sudoku-two-solutions": ("sudoku/two-solutions", {}, [D, N, "sat"], 2, ""),
}
EXTRA = {
    "queens-16": (QUEENS.format(n=16), {}, ["native:dfs", "count:frontier"], 14_772_512, "OEIS A000170"),
    "queens-18": (QUEENS.format(n=18), {}, ["native:dfs", "count:frontier"], 666_090_624, "OEIS A000170"),
}
TABLE = {**ROWS, **AUTO, **ROUTE, **EXTRA}


def one(row: str, engine: str, time_limit: float) -> dict:
    import puzzlesat as ps
    spec, opts, _, published, _ = TABLE[row]
    inst = ps.load(spec)
    t0 = time.perf_counter()
    r = ps.solve(inst, engine, "count", time_limit=time_limit, **opts)
    wall = time.perf_counter() - t0
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
               resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
    return {"row": row, "engine": engine, "status": r.status.value, "count": r.count,
            "engine_s": None if r.seconds is None else round(r.seconds, 3),
            "jit_s": r.stats.get("jit_seconds"), "wall_s": round(wall, 2), "peak_mb": round(peak),
            "checked": r.checked, "route": r.stats.get("route"), "ran": r.engine,
            "route_reason": r.stats.get("route_reason"), "reason": (r.reason or "")[-160:]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=None)
    ap.add_argument("--all", action="store_true", help="also the n-queens 16 and 18 rows")
    ap.add_argument("--auto", action="store_true", help="also the count:auto rows")
    ap.add_argument("--route", action="store_true", help="only the default count route's rows")
    ap.add_argument("--time-limit", type=float, default=900)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("ROW", "ENGINE"))
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(*a.one, a.time_limit)))
        return
    table = ROUTE if a.route else {**ROWS, **(AUTO if a.auto else {}), **(EXTRA if a.all else {})}
    rows = a.rows.split(",") if a.rows else list(table)
    load0 = os.getloadavg()
    out = []
    for row in rows:
        spec, opts, engines, published, source = TABLE[row]
        results = []
        for eng in engines:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run([sys.executable, __file__, "--one", row, eng, "--time-limit", str(a.time_limit)],
                               capture_output=True, text=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = round(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, 2)
            try:
                res = json.loads(p.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                res = {"row": row, "engine": eng, "status": "ERROR", "count": None,
                       "reason": (p.stderr.strip().splitlines() or ["?"])[-1][:160]}
            res["process_cpu_s"] = cpu  # the whole run's process tree: start-up, JIT, checking
            results.append(res)
            if a.json:
                print(json.dumps(res), flush=True)
        proved = [r for r in results if r["status"] == "OPTIMAL"]
        counts = {r["count"] for r in proved}
        if len(counts) > 1 or (counts and published is not None and published not in counts):
            agree = "DISAGREE"
        elif len(proved) >= 2:
            agree = "AGREE"
        elif proved:
            agree = "unchecked"
        else:
            agree = "none finished"
        out.append((row, published, source, results, agree))
    load1 = os.getloadavg()
    if a.json:
        return
    print(f"load average before {load0[0]:.1f} / after {load1[0]:.1f} (1-minute), {os.cpu_count()} CPUs")
    print("| count | published | engine | status | count | engine s | process CPU s | peak MB | route | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row, published, source, results, agree in out:
        for i, r in enumerate(results):
            c = r.get("count")
            pub = "" if i or published is None else f"{published:,} ({source})"
            eng = r["engine"] + (f" -> {r['ran']}" if r.get("ran") and r["ran"] != r["engine"] else "")
            print(f"| {row if i == 0 else ''} | {pub} | {eng} | "
                  f"{r['status']} | {'' if c is None else f'{c:,}'} | {r.get('engine_s', '')} | "
                  f"{r.get('process_cpu_s', '')} | {r.get('peak_mb', '')} | {r.get('route') or ''} | "
                  f"{agree if i == 0 else ''} |")


if __name__ == "__main__":
    main()
