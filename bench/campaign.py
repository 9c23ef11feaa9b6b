"""Campaign benchmark: per-job overhead of the local and Dask executors, and the --jobs 2 speed-up.

Run: python bench/campaign.py [--trivial N] [--cpu-jobs N] [--skip-dask] [--tls N [--only-tls]]
     (needs puzzlesat[dask]; --tls needs openssl on PATH)

1. N trivial jobs (peg/hoppers, native, optimize: 7 moves), --jobs 2, with each executor
   (`--executor local`; `--executor dask` on a LocalCluster of 2 workers). Reported: the
   campaign's wall time end to end (cluster start-up included for Dask), jobs per second, and
   per job: the engine seconds (what `solve` reports: the search alone), the engine worker's
   start-up (fork, imports, kernel loading), the job process's wall seconds, and the rest of it
   (the job process: interpreter start, limits, checking, result file; the supervisor's wait). For reference, the same job by
   `runner.solve` in this process (a fork of a process that has loaded the kernels).
2. A CPU-bound campaign (maze/sample3 native: ~3 s of search each, N repeats) with --jobs 1 and
   --jobs 2: the speed-up is the ratio of the two wall times.
3. With --tls N: N trivial jobs on an external cluster of a scheduler and two workers on 127.0.0.1
   (one thread each), once over plain tcp:// and once over tls:// with certificates from a
   throw-away CA made here (openssl, EC P-256, mutual authentication): campaign wall, wall x 2
   workers per job, and the TLS overhead per job against TCP (cluster start-up not included).
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
    up = statistics.median(r["startup_seconds"] or 0.0 for r in rows)
    jw = statistics.median(r["wall_seconds"] for r in rows)
    over = statistics.median(r["wall_seconds"] - r["seconds"] - (r["startup_seconds"] or 0.0) for r in rows)
    print(f"| {label} | {n} | {wall:.1f} | {n / wall:.2f} | {2 * wall / n:.3f} | {sec:.3f} | {up:.3f} | "
          f"{jw:.3f} | {over:.3f} |")


def make_ca(d: Path) -> list[str]:
    """A throw-away CA and one certificate for every member: the --tls-* arguments."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for args in (["req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
                  "-subj", "/CN=bench-ca"],
                 ["req", *ec, "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=bench"],
                 ["x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                  "-CAcreateserial", "-out", "node.pem", "-days", "1"]):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / "node.pem"),
            "--tls-key", str(d / "node.key")]


def round_trips(address: str, sec, m: int = 200) -> tuple[float, float]:
    """(ms per no-op task one at a time, ms per no-op task in a batch of 10 m) on the cluster:
    the protocol's own cost per task, without a job process."""
    from distributed import Client
    with Client(address, security=sec, timeout=10) as c:
        c.submit(abs, -1, pure=False).result()  # warm
        t0 = time.perf_counter()
        for i in range(m):
            c.submit(abs, -i, pure=False).result()
        one = (time.perf_counter() - t0) / m * 1000
        t0 = time.perf_counter()
        c.gather(c.map(abs, range(-10 * m, 0), pure=False))
        batch = (time.perf_counter() - t0) / (10 * m) * 1000
    return one, batch


def cluster_campaign(folder: Path, n: int, tls: list[str]) -> tuple[float, list[dict]]:
    """N trivial jobs on a scheduler and two workers on 127.0.0.1 (tls:// when `tls` gives the
    certificate arguments, else tcp://): (campaign wall seconds, rows); the no-op round trips
    (`round_trips`) are printed first."""
    import socket
    dask = str(Path(sys.executable).parent / "dask")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proto = "tls" if tls else "tcp"
    address = f"{proto}://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--protocol", proto, "--no-dashboard", *tls], **quiet)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-nanny",
                                           "--no-dashboard", "--host", "127.0.0.1", *tls], **quiet))
        from distributed import Client
        from distributed.security import Security
        sec = (Security(tls_ca_file=tls[1], tls_client_cert=tls[3], tls_client_key=tls[5],
                        require_encryption=True) if tls else None)
        deadline = time.monotonic() + 120
        while True:
            try:
                with Client(address, security=sec, timeout=10) as c:
                    if len(c.scheduler_info()["workers"]) == 2:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                sys.exit(f"the {proto} cluster did not come up")
            time.sleep(0.5)
        one, batch = round_trips(address, sec)
        print(f"| {proto} no-op tasks | 200 one at a time: {one:.2f} ms each; 2000 in a batch: "
              f"{batch:.2f} ms each | | | | | |")
        name = f"cluster-{proto}"
        spec = folder / f"{name}.toml"
        spec.write_text(f'name = "{name}"\ninstances = ["peg/hoppers"]\ntask = "optimize"\n'
                        f'time_limit = 600\nrepeat = {n}\n[configs]\nc = "native"\n')
        db = folder / f"{name}.db"
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "puzzlesat", "campaign", "run", str(spec),
                            "--store", str(db), "--executor", "dask", "--scheduler", address, *tls],
                           capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"campaign {name} failed: {p.stderr}")
        con = sqlite3.connect(db)
        con.row_factory = sqlite3.Row
        rows = [dict(r) for r in con.execute("SELECT * FROM runs")]
        con.close()
        if {r["worker"].split("://")[0] for r in rows} != {proto}:
            sys.exit(f"MISMATCH: jobs of the {proto} campaign ran on workers {sorted({r['worker'] for r in rows})}")
        return wall, rows
    finally:
        for q in reversed(procs):
            q.terminate()
            try:
                q.wait(10)
            except subprocess.TimeoutExpired:
                q.kill()
                q.wait()


def tls_against_tcp(n: int) -> None:
    print(f"\nTLS against plain TCP: {n} trivial jobs on a scheduler and two workers on 127.0.0.1 "
          f"(load average before: {os.getloadavg()[0]:.2f})\n")
    print("| protocol | jobs | campaign wall (s) | wall x 2 workers / job (s) | engine seconds / job "
          "(median) | job process wall (median) | CPU s / job (median) |")
    print("|---|---|---|---|---|---|---|")
    walls = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        tls = make_ca(d)
        for proto, args in (("tcp", []), ("tls", tls), ("tcp", []), ("tls", tls)):
            run_dir = d / f"{proto}-{sum(map(len, walls.values()))}"
            run_dir.mkdir()
            wall, rows = cluster_campaign(run_dir, n, args)
            check(rows, 7, f"cluster {proto}")
            walls.setdefault(proto, []).append(wall)
            print(f"| {proto} | {n} | {wall:.1f} | {2 * wall / n:.3f} | "
                  f"{statistics.median(r['seconds'] for r in rows):.3f} | "
                  f"{statistics.median(r['wall_seconds'] for r in rows):.3f} | "
                  f"{statistics.median(r['cpu_seconds'] for r in rows):.3f} |")
    tcp, tls_ = statistics.mean(walls["tcp"]), statistics.mean(walls["tls"])
    print(f"\nTLS overhead per job (mean of 2 campaigns each, wall x 2 workers / job): "
          f"{2 * (tls_ - tcp) / n:+.3f} s ({100 * (tls_ - tcp) / tcp:+.1f} % of the TCP campaign's wall); "
          f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trivial", type=int, default=200, help="trivial jobs per executor")
    ap.add_argument("--cpu-jobs", type=int, default=6, help="jobs of the CPU-bound campaign")
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--tls", type=int, default=0, help="trivial jobs per protocol on a local TLS / TCP cluster")
    ap.add_argument("--only-tls", action="store_true", help="run only the --tls comparison")
    a = ap.parse_args()
    if a.only_tls:
        tls_against_tcp(a.tls or 100)
        return 0 if ok else 1
    print(f"load average before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}")
    fam, inst = load_instance("peg/hoppers")
    solve(fam, inst, "native", "optimize", isolate=False)  # warm: kernels loaded here, forks inherit them
    ref = statistics.median(solve(fam, inst, "native", "optimize").seconds for _ in range(20))
    print(f"reference: runner.solve of the same job in this process (warm fork): {ref:.3f} s (median of 20)\n")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        print("| executor (--jobs 2) | jobs | campaign wall (s) | jobs/s | wall x 2 workers / job (s) "
              "| engine seconds / job (median) | worker start-up / job (median) | job process wall (median) "
              "| job process overhead (median) |")
        print("|---|---|---|---|---|---|---|---|---|")
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
    if a.tls:
        tls_against_tcp(a.tls)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
