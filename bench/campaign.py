"""Campaign benchmark: per-job overhead of the local and Dask executors, and the --jobs 2 speed-up.

Run: python bench/campaign.py [--trivial N] [--cpu-jobs N] [--skip-dask]   (needs puzzlesat[dask])

1. N trivial jobs (peg/hoppers, native, optimize: 7 moves), --jobs 2, with each executor
   (`--executor local`; `--executor dask` on a LocalCluster of 2 workers). Reported: the
   campaign's wall time end to end (cluster start-up included for Dask), jobs per second, and
   per job: the runner's own seconds (what `solve` reports: fork + engine import + search +
   check), the job process's wall seconds, and their difference (the job process: interpreter
   start, limits, result file; the supervisor's wait). For reference, the same job by
   `runner.solve` in this process (a fork of a process that has loaded the kernels).
2. A CPU-bound campaign (maze/sample3 native: ~3 s of search each, N repeats) with --jobs 1 and
   --jobs 2: the speed-up is the ratio of the two wall times.
Every job is checked by the runner as always; a status other than OPTIMAL prints MISMATCH and
makes the exit status 1. The machine is shared (2 cores): the load average is printed with the
times.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from puzzlesat.families.instances import load_instance
from puzzlesat.compare.runner import solve

ok = True


def campaign(folder: Path, name: str, instance: str, config: str, repeat: int, jobs: int,
             executor: str) -> tuple[float, list[dict]]:
    """(wall seconds of `puzzlesat campaign run`, the stored rows)."""
    spec = folder / f"{name}.toml"
    spec.write_text(f'name = "{name}"\ninstances = ["{instance}"]\ntask = "optimize"\ntime_limit = 600\n'
                    f'repeat = {repeat}\n[configs]\nc = "{config}"\n')
    db = folder / f"{name}.db"
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "puzzlesat", "campaign", "run", str(spec), "--store", str(db),
                        "--jobs", str(jobs), "--executor", executor], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"campaign {name} failed: {p.stderr}")
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute("SELECT * FROM runs")]
    con.close()
    return wall, rows


def check(rows: list[dict], objective: int, what: str) -> None:
    global ok
    bad = [r for r in rows if (r["status"], r["objective"]) != ("OPTIMAL", objective)]
    if bad:
        ok = False
        print(f"MISMATCH {what}: {len(bad)} jobs not OPTIMAL {objective}: {bad[0]['status']} {bad[0]['reason']}")


def line(label: str, n: int, wall: float, rows: list[dict]) -> None:
    sec = statistics.median(r["seconds"] for r in rows)
    jw = statistics.median(r["wall_seconds"] for r in rows)
    over = statistics.median(r["wall_seconds"] - r["seconds"] for r in rows)
    print(f"| {label} | {n} | {wall:.1f} | {n / wall:.2f} | {2 * wall / n:.3f} | {sec:.3f} | {jw:.3f} | {over:.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trivial", type=int, default=200, help="trivial jobs per executor")
    ap.add_argument("--cpu-jobs", type=int, default=6, help="jobs of the CPU-bound campaign")
    ap.add_argument("--skip-dask", action="store_true")
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}")
    fam, inst = load_instance("peg/hoppers")
    solve(fam, inst, "native", "optimize", isolate=False)  # warm: kernels loaded here, forks inherit them
    ref = statistics.median(solve(fam, inst, "native", "optimize").seconds for _ in range(20))
    print(f"reference: runner.solve of the same job in this process (warm fork): {ref:.3f} s (median of 20)\n")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        print("| executor (--jobs 2) | jobs | campaign wall (s) | jobs/s | wall x 2 workers / job (s) "
              "| runner seconds / job (median) | job process wall (median) | job process overhead (median) |")
        print("|---|---|---|---|---|---|---|---|")
        for ex in ("local",) + (() if a.skip_dask else ("dask",)):
            wall, rows = campaign(d, f"trivial-{ex}", "peg/hoppers", "native", a.trivial, 2, ex)
            check(rows, 7, f"trivial {ex}")
            line(ex, a.trivial, wall, rows)
        print(f"\nload average after: {os.getloadavg()[0]:.2f}\n")
        print("| CPU-bound campaign (maze/sample3 native) | jobs | wall (s) | median job seconds |")
        print("|---|---|---|---|")
        walls = {}
        for jobs in (1, 2):
            wall, rows = campaign(d, f"cpu-{jobs}", "maze/sample3", "native", a.cpu_jobs, jobs, "local")
            check(rows, 854, f"cpu --jobs {jobs}")
            walls[jobs] = wall
            print(f"| --jobs {jobs} | {a.cpu_jobs} | {wall:.1f} | {statistics.median(r['seconds'] for r in rows):.2f} |")
        print(f"\nspeed-up --jobs 2 over --jobs 1: {walls[1] / walls[2]:.2f}x "
              f"(load average after: {os.getloadavg()[0]:.2f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
