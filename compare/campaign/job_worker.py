"""A job process that runs many jobs: `python -m puzzlesat.compare.campaign.job_worker MODULE`.

ChunkPool's local runs (peg layer chunks, peg cubes) start one of these per running job slot
instead of one process per job, so a job does not pay the interpreter's start, the imports and
the loading of compiled kernels again (about 2–3 s each for a CP-SAT cube job). Protocol, one
line each way: the client writes `["SPEC", "RESULT"]` (JSON) on stdin; the worker runs MODULE's
`main([SPEC, RESULT])` (which writes RESULT atomically) and answers `ok` or `error <text>` on its
own copy of the original stdout (the job's prints go to stderr). End of stdin ends the worker. A
job that kills its process (or is killed: the client kills the worker's process group to stop a
job) ends the worker; the client then starts another one.
"""
from __future__ import annotations

import importlib
import json
import os
import sys


def main(argv: list[str]) -> int:
    from ...core.procs import die_with_parent
    die_with_parent()
    module = importlib.import_module(argv[0])
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                  # what a job prints cannot mix with the answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        spec, result = json.loads(line)
        try:
            module.main([spec, result])
            answers.write("ok\n")
        except Exception as e:  # noqa: BLE001 - the job's failure, reported to the client
            import traceback
            traceback.print_exc()
            text = f"{type(e).__name__}: {e}".replace("\n", " ")[-300:]
            answers.write(f"error {text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
