"""Campaigns on a real Dask cluster: a scheduler and two workers as separate processes on
127.0.0.1; one worker is killed mid-campaign and every job is still recorded exactly once."""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from helpers import boards, rows, spec  # noqa: E402

DASK = str(Path(sys.executable).parent / "dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def n_workers(address: str) -> int:
    from distributed import Client
    with Client(address, timeout=10) as c:
        return len(c.scheduler_info()["workers"])


def test_worker_killed_mid_campaign_every_job_recorded_once(tmp_path):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], **quiet)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny",
                                           "--no-dashboard", "--host", "127.0.0.1"], **quiet))
        wait_for(lambda: n_workers(address) == 2, 60, "two workers")
        boards(tmp_path / "boards", 8, seed=3)
        sp = spec(tmp_path, 'name = "dask"\ninstances = ["boards/*.toml"]\ntask = "count"\ntime_limit = 60\n'
                            '[configs]\ncpsat = "cpsat"\nnative = "native"\n')
        db = tmp_path / "d.db"
        run = subprocess.Popen([sys.executable, "-m", "puzzlesat", "campaign", "run", str(sp), "--store", str(db),
                                "--executor", "dask", "--scheduler", address],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def stored():
            try:
                return len(rows(db)) if db.exists() else 0
            except sqlite3.Error:
                return 0
        wait_for(lambda: stored() >= 2, 120, "the first jobs")
        victim = procs[1]
        os.kill(victim.pid, signal.SIGKILL)  # mid-campaign: each worker always has a job running
        victim.wait()
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
        got = rows(db)
        assert len(got) == len({r["key"] for r in got}) == 16
        assert all((r["status"], r["termination"]) == ("OPTIMAL", "done") for r in got)
        by = {}
        for r in got:
            by.setdefault(r["instance"], set()).add((r["objective"], r["count"]))
        assert all(len(v) == 1 for v in by.values())  # both configurations agree on every instance
        assert len({r["worker"] for r in got}) == 2  # both workers ran jobs before one was killed
        rep = subprocess.run([sys.executable, "-m", "puzzlesat", "campaign", "report", "--store", str(db), "--json"],
                             capture_output=True, text=True, timeout=120)
        assert rep.returncode == 0
        assert {i["verdict"] for i in json.loads(rep.stdout)["instances"]} == {"AGREE"}
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
