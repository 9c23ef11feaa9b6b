"""One job process: `python -m puzzlesat.compare.campaign.job RESULT.json < job.json`.

It sets its memory limit (RLIMIT_AS, inherited by the runner's engine worker) before importing
any solver, asks the kernel to end its process group when its supervisor dies, runs the runner's
`solve` (forked engine worker, hard time limit, every solution through the family's checker) and
writes the checked result to RESULT.json (atomically: a killed job leaves no result file).
"""
from __future__ import annotations

import json
import os
import resource
import signal
import sys

PARENT_ENV = "PUZZLESAT_JOB_PARENT"


def _limit_memory(mb: int) -> None:
    lim = int(mb) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))


def _die_with_parent() -> None:
    """SIGTERM on the supervisor's death; the handler kills this job's whole process group."""
    signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    parent = os.environ.get(PARENT_ENV)
    if parent and os.getppid() != int(parent):  # the supervisor died before prctl took effect
        os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Run the job read from stdin; write its result to argv[0]."""
    job = json.loads(sys.stdin.read())
    _die_with_parent()
    _limit_memory(job["memory_limit_mb"])
    import base64
    import pickle

    from puzzlesat.compare.registry import family
    from puzzlesat.compare.runner import solve

    fam = family(job["family"])
    inst = pickle.loads(base64.b64decode(job["blob"]))
    r = solve(fam, inst, job["engine"], job["task"], time_limit=job["time_limit"],
              options=json.loads(job["options"]), precheck=job["precheck"],
              memory_limit_mb=job["memory_limit_mb"])
    out = {"status": str(r.status), "objective": r.objective, "count": r.count,
           "solutions_checked": r.checked, "seconds": r.seconds, "reason": r.reason,
           "finished": r.finished(), "stats": r.stats, "params": r.params,
           "solution": r.solutions[0] if r.solutions else None}
    tmp = argv[0] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(out, f, default=str)
    os.replace(tmp, argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
