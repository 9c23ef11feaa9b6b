"""Start-up: the whole-process cost of a short `puzzlesat` command, and where a run's time goes.

    python bench/startup.py [--repeat 5] [--cases version,native,cpsat,sat] [--importtime]

Each case is a fresh `python -m puzzlesat ...` process, timed from outside: wall seconds and CPU
seconds (user + system of the process and its engine worker, from the kernel's accounting of
reaped children); the best of the warm runs (the least disturbed by other processes) and their
median. `cold`: numba's cache in a new empty folder (NUMBA_CACHE_DIR), so the run
compiles every kernel it calls; `warm`: the same folder again, the kernels loaded from it. The
solve cases also print the run's own split (`solve --json`): `startup_seconds` (the worker's
fork, imports and kernel loading, before the engine's clock), `seconds` (the engine's own work)
and `check_seconds` (the runner's checks after it). Python's bytecode cache is on, as in an
installed package (PYTHONDONTWRITEBYTECODE is removed from the children's environment; the first
run of a case writes it). `--importtime`: the heaviest imports of the parent process of each case
(`python -X importtime`, cumulative microseconds). Prints the load average before and after:
wall times on a loaded machine are longer, CPU seconds much less so.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "version": ["--version"],
    "native": ["solve", "peg/hoppers", "--json"],
    "cpsat": ["solve", "peg/hoppers", "-e", "cpsat", "--json"],
    "sat": ["solve", "peg/hoppers", "-e", "sat", "--json"],
    "cpsat-short": ["solve", "sliding/8-easy", "-e", "cpsat", "--json"],
}


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, dict | None]:
    """(wall, CPU user + system, the JSON record or None) of one `python -m puzzlesat` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "puzzlesat", *args], capture_output=True, text=True,
                       env=env, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"puzzlesat {' '.join(args)} failed ({p.returncode}): {p.stderr[-2000:]}")
    rec = json.loads(p.stdout) if "--json" in args else None
    return wall, cpu, rec


def importtime(args: list[str], env: dict[str, str], top: int = 12) -> list[tuple[int, str]]:
    """The `top` heaviest top-level imports (cumulative microseconds) of the parent process."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "puzzlesat", *args],
                       capture_output=True, text=True, env=env, timeout=600)
    rows = []
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cum, name = line.split("|")
        if cum.strip().isdigit() and len(name) - len(name.lstrip()) <= 3:  # depth 0 or 1
            rows.append((int(cum), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="warm runs per case (medians printed)")
    ap.add_argument("--cases", default="version,native,cpsat,sat,cpsat-short",
                    help="comma-separated: " + ", ".join(CASES))
    ap.add_argument("--importtime", action="store_true", help="also list each case's heaviest imports")
    args = ap.parse_args()
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    for c in cases:
        if c not in CASES:
            raise SystemExit(f"unknown case {c!r}; known: {', '.join(CASES)}")
    cache = tempfile.mkdtemp(prefix="puzzlesat-bench-numba-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NUMBA_CACHE_DIR"] = cache
    print(f"# start-up — {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for c in cases:  # bytecode written once, outside the timings
        run(CASES[c], {**env, "NUMBA_CACHE_DIR": tempfile.mkdtemp(dir=cache)})
    print(f"{'case':<12} {'cache':<5} {'wall best':>9} {'wall med':>8} {'CPU best':>8} {'CPU med':>7} "
          f"{'startup s':>9} {'engine s':>9} {'check s':>8}  (best and median of {args.repeat} warm "
          "runs, start-up/engine/check: medians; cold: one run)")
    try:
        for c in cases:
            fresh = tempfile.mkdtemp(dir=cache)  # an empty numba cache for this case
            e = {**env, "NUMBA_CACHE_DIR": fresh}
            rows = {"cold": [run(CASES[c], e)], "warm": [run(CASES[c], e) for _ in range(args.repeat)]}
            for kind, rs in rows.items():
                wall = statistics.median(r[0] for r in rs)
                cpu = statistics.median(r[1] for r in rs)
                wall_best, cpu_best = min(r[0] for r in rs), min(r[1] for r in rs)
                recs = [r[2] for r in rs if r[2] is not None]

                def med(key: str, recs: list = recs) -> str:
                    xs = [x[key] for x in recs if x.get(key) is not None]
                    return f"{statistics.median(xs):.3f}" if xs else "-"
                print(f"{c:<12} {kind:<5} {wall_best:9.3f} {wall:8.3f} {cpu_best:8.3f} {cpu:7.3f} "
                      f"{med('startup_seconds'):>9} "
                      f"{med('seconds'):>9} {med('check_seconds'):>8}", flush=True)
        if args.importtime:
            for c in cases:
                print(f"\n## heaviest imports of the parent process: puzzlesat {' '.join(CASES[c])}")
                for us, name in importtime(CASES[c], env):
                    print(f"{us / 1e6:8.3f} s  {name}")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
