"""One job process: `python -m puzzlesat.compare.campaign.job RESULT.json < job.json`.

It sets its memory limit (RLIMIT_AS, inherited by the runner's engine worker) before importing
any solver, asks the kernel to end its process group when its supervisor dies, runs the job's
planned run through the runner (forked engine worker, hard time limit, every solution through
the family's checker) and writes the checked result's record (`Result.to_record`, the first
solution only) to RESULT.json, atomically: a killed job leaves no result file.
"""
from __future__ import annotations

import json
import os
import signal
import sys

from ...core.procs import die_with_parent, limit_memory

PARENT_ENV = "PUZZLESAT_JOB_PARENT"


def main(argv: list[str]) -> int:
    """Run the job read from stdin; write its result record to argv[0]."""
    job = json.loads(sys.stdin.read())
    # the supervisor's death: SIGTERM, whose handler ends this job's whole process group
    signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
    parent = os.environ.get(PARENT_ENV)
    die_with_parent(signal.SIGTERM, int(parent) if parent else None)
    limit_memory(job["memory_limit_mb"])
    import base64
    import pickle

    from ...core.files import write_atomic
    from ...families.registry import family
    from ..runner import solve

    fam = family(job["family"])
    inst = pickle.loads(base64.b64decode(job["blob"]))
    r = solve(fam, inst, job["engine"], job["task"], time_limit=job["time_limit"],
              options=json.loads(job["options"]), precheck=job["precheck"],
              memory_limit_mb=job["memory_limit_mb"])
    rec = {**r.to_record(max_solutions=1), "finished": r.finished()}
    write_atomic(argv[0], json.dumps(rec, default=str), "job result")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
