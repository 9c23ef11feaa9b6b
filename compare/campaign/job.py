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

    from ...core.files import write_atomic
    from ...core.result import InputError
    from ...families.registry import family
    from ..plan import Origin, plan_one
    from ..runner import execute
    from .spec import job_instance

    try:
        fam = family(job["family"])
        inst = job_instance(fam, job)
        # planned again here: code not shipped with puzzlesat runs only if the campaign allowed it
        run = plan_one(fam, inst, job["engine"], job["task"], time_limit=job["time_limit"],
                       options=json.loads(job["options"]), precheck=job["precheck"],
                       memory_limit_mb=job["memory_limit_mb"],
                       origins=[Origin(f"job {job['key']}", field="engine")],
                       # a proof_dir was admitted by the campaign (a spec's needs --allow-code)
                       allow_code=bool(job.get("user_code"))
                       or bool(json.loads(job["options"]).get("proof_dir")))
        if run.user_code != job.get("user_code"):
            raise InputError(f"job payload: the run executes {run.user_code or 'no user code'}, "
                             f"the campaign allowed {job.get('user_code') or 'none'}")
    except InputError as e:
        print(f"puzzlesat job: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    r = execute(run)
    rec = {**r.to_record(max_solutions=1), "finished": r.finished()}
    write_atomic(argv[0], json.dumps(rec, default=str), "job result")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
