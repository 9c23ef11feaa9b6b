"""Run one job process in its own process group and turn what happened into a store record.

The job process (`job.py`) gets a new session (so its own process group), its memory limit and the
runner's hard time limit; this supervisor adds an outer wall limit (the runner's limit + grace +
slack for start-up and checking) and kills the whole group with SIGKILL when it passes, when the
campaign is cancelled, and after every job (no stray grandchild outlives its job).
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.procs import MEMORY_SIGNS  # signs, in an error's text, that an allocation failed
from .job import PARENT_ENV

# Termination reasons recorded with every job.
DONE, TIME, MEMORY, KILLED, ERROR = "done", "time", "memory", "killed", "error"
TERMINATIONS = (DONE, TIME, MEMORY, KILLED, ERROR)


def outer_limit(time_limit: float) -> float:
    """Seconds after which the supervisor kills the job's process group (runner limit + grace + slack)."""
    from ..runner import grace
    return time_limit + grace(time_limit) + 10.0 + 0.1 * time_limit


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (Linux /proc; [] elsewhere)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            out.extend(kids)
            todo.extend(kids)
    return out


def _killpg(pid: int) -> None:
    """SIGKILL the job's process group and the groups of all its descendants (the runner's engine
    worker leads its own group; it also dies with its parent by its death signal)."""
    groups = {pid}
    for d in descendants(pid):
        try:
            groups.add(os.getpgid(d))
        except OSError:
            pass
    for g in groups:
        try:
            os.killpg(g, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def execute(job: dict[str, Any], cancel: threading.Event | None = None,
            worker: str | None = None) -> dict[str, Any] | None:
    """The store record of `job` (a Job.payload()), or None if `cancel` was set while it ran."""
    from ...core import __version__
    started, t0 = _now(), time.monotonic()
    hard = t0 + outer_limit(job["time_limit"])
    with tempfile.TemporaryDirectory(prefix="puzzlesat-job-") as tmp:
        res_path = Path(tmp) / "result.json"
        with open(Path(tmp) / "stderr", "w+b") as errf:
            env = {**os.environ, PARENT_ENV: str(os.getpid())}
            proc = subprocess.Popen([sys.executable, "-m", "puzzlesat.compare.campaign.job", str(res_path)],
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errf,
                                    start_new_session=True, env=env)
            assert proc.stdin is not None  # stdin=PIPE
            try:
                proc.stdin.write(json.dumps(job).encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
            status, ru, why = _wait(proc, hard, cancel)
            _killpg(proc.pid)
            if why == "cancel":
                return None
            errf.seek(0, os.SEEK_END)
            errf.seek(max(0, errf.tell() - 4000))
            stderr_tail = errf.read().decode("utf-8", "replace")
        exit_code = os.waitstatus_to_exitcode(status)
        result = json.loads(res_path.read_text(encoding="utf-8")) if res_path.exists() else None
    rec = {k: job[k] for k in ("key", "campaign", "instance", "instance_hash", "family", "config",
                               "config_spec", "engine", "options", "task", "repeat", "seed",
                               "time_limit", "memory_limit_mb", "precheck", "user_code")}
    wall = time.monotonic() - t0
    rec.update(wall_seconds=round(wall, 4), cpu_seconds=round(ru.ru_utime + ru.ru_stime, 4),
               peak_memory_mb=round(ru.ru_maxrss / 1024, 1), exit_code=exit_code, version=__version__,
               host=socket.gethostname(), worker=worker, started=started, finished=_now())
    rec.update(_outcome(result, why, exit_code, stderr_tail, wall, job))
    return rec


def _wait(proc: subprocess.Popen, hard: float, cancel: threading.Event | None):
    """(wait status, rusage, 'exit' | 'time' | 'cancel'); the group is killed on 'time' and 'cancel'."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        fd = None
    why = "exit"
    try:
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if cancel is not None and cancel.is_set():
                why = "cancel"
            elif time.monotonic() >= hard:
                why = "time"
            if why != "exit":
                _killpg(proc.pid)
                _, status, ru = os.wait4(proc.pid, 0)
                break
            step = max(0.0, min(0.1, hard - time.monotonic()))
            if fd is not None:
                select.select([fd], [], [], step)
            else:
                time.sleep(min(step, 0.01))
    finally:
        if fd is not None:
            os.close(fd)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen consistent
    return status, ru, why


def _outcome(result: dict | None, why: str, exit_code: int, stderr_tail: str, wall: float,
             job: dict) -> dict[str, Any]:
    """status, objective, count, ..., termination and reason of a finished job process."""
    empty = {"objective": None, "count": None, "count_lower_bound": None, "solutions_checked": 0,
             "seconds": round(wall, 4), "stats": "{}", "params": "{}", "solution": None,
             "certificate": None}
    tail = " ".join(stderr_tail.strip().splitlines()[-3:])[-400:]
    if why == "time":
        return {**empty, "status": "UNKNOWN", "termination": TIME,
                "reason": f"hard limit: job process group killed after {wall:.1f} s"}
    if result is None:
        if any(s in stderr_tail for s in MEMORY_SIGNS):
            return {**empty, "status": "UNKNOWN", "termination": MEMORY,
                    "reason": f"memory limit {job['memory_limit_mb']} MB: {tail}"}
        if exit_code == -signal.SIGKILL:
            return {**empty, "status": "UNKNOWN", "termination": KILLED,
                    "reason": "job process killed (SIGKILL from outside the campaign)"}
        return {**empty, "status": "ERROR", "termination": ERROR,
                "reason": f"job process exited with code {exit_code}: {tail}"}
    stats = result.get("stats") or {}
    out = {"status": result["status"], "objective": result["objective"], "count": result["count"],
           "count_lower_bound": stats.get("count_lower_bound"),
           "solutions_checked": result["solutions_checked"], "seconds": round(result["seconds"], 4),
           "startup_seconds": result.get("startup_seconds"), "check_seconds": result.get("check_seconds"),
           "over_limit": int(result.get("over_limit", result["seconds"] > job["time_limit"])),
           "reason": result["reason"], "stats": json.dumps(stats, sort_keys=True, default=str),
           "params": json.dumps(result.get("params") or {}, sort_keys=True, default=str),
           "solution": (json.dumps(result["solutions"][0], default=str) if result.get("solutions")
                        else None),
           "certificate": (json.dumps(result["certificate"], sort_keys=True, default=str)
                           if result.get("certificate") else None)}
    reason = result["reason"] or ""
    term = stats.get("termination")  # the runner's own: time, memory, killed, error
    if term in (TIME, MEMORY, KILLED) and result["status"] != "ERROR":
        if term == MEMORY:
            out["reason"] = f"{reason} (memory_limit_mb={job['memory_limit_mb']})"
        return {**out, "termination": term}
    engine_failed = reason.startswith("engine raised") or reason.startswith("engine process died")
    if result["status"] == "ERROR" and engine_failed and any(s in reason + stderr_tail for s in MEMORY_SIGNS):
        # a limit, not a wrong answer: nothing is claimed (checked solutions stay counted)
        out.update(status="UNKNOWN", objective=None, count=None, termination=MEMORY,
                   reason=f"memory limit {job['memory_limit_mb']} MB: " + reason.strip().splitlines()[-1])
    elif result["status"] == "ERROR":
        out["termination"] = ERROR
    elif result["finished"]:
        out["termination"] = DONE
    else:
        out["termination"] = TIME
    return out


def execute_on_worker(job: dict[str, Any]) -> dict[str, Any]:
    """`execute` inside a Dask worker (records the worker's address)."""
    try:
        from distributed import get_worker
        where = get_worker().address
    except (ImportError, ValueError):
        where = None
    rec = execute(job, worker=where)
    assert rec is not None, "without a cancel event a job always ends in a record"
    return rec
