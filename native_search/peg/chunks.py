"""One chunk of a peg layer expansion, run in its own process or on a cluster worker.

A chunk is a slice [lo, hi) of a layer file (sorted distinct uint64 positions, native_search/
peg/disk.py). Its job expands every position of the slice by one move (bfs.Space.expand:
canonical successors, pruned by the bound when one is given) and writes their sorted distinct set
to the chunk's output file atomically (a temporary name, then renamed): a chunk whose process dies
leaves no output, and a chunk that runs twice writes the same file again. The client merges each
chunk's output once (by chunk id) and subtracts the earlier layers (compare/peg/layers.py),
so the layer is the same set one process would build.

`python -m puzzlesat.native_search.peg.chunks SPEC RESULT` runs one chunk: SPEC a pickled spec
dict, RESULT the JSON summary written atomically at the end. Fault injection for tests: with the
environment variable PUZZLESAT_CHUNK_DIE_ONCE=DIR, the first run of each chunk leaves a marker in
DIR and kills its own process (SIGKILL) before writing anything.
"""
from __future__ import annotations

import json
import os
import pickle
import signal
import sys
from pathlib import Path

import numpy as np

DIE_ONCE = "PUZZLESAT_CHUNK_DIE_ONCE"


def expand_chunk(spec: dict) -> dict:
    """Run one chunk (see the module docstring); returns {"id", "count", "nodes", "path"}."""
    from .disk import Store
    marker_dir = os.environ.get(DIE_ONCE)
    if marker_dir:
        marker = Path(marker_dir) / f"{spec['tag']}-{spec['id']}"
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
    space = spec["space"]
    lo, hi = spec["lo"], spec["hi"]
    layer = np.memmap(spec["layer"], dtype=np.uint64, mode="c", shape=(spec["n"],))[lo:hi]
    store = Store(memory=spec.get("memory"))
    counters = {"nodes": 0}
    try:
        out = space.expand(layer, spec["backward"], [], counters, store=store,
                           name=f"chunk{spec['id']}", bound=spec["bound"], hmax=spec["hmax"])
        path = Path(spec["out"])
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        with open(tmp, "wb") as f:
            for i in range(0, len(out), 1 << 22):
                np.asarray(out[i:i + (1 << 22)]).tofile(f)
        os.replace(tmp, path)
        count = len(out)
        del out
    finally:
        store.close()
    return {"id": spec["id"], "count": count, "nodes": counters["nodes"], "path": str(path)}


def main(argv: list[str]) -> int:
    """Run the chunk pickled in argv[0]; write its summary as JSON to argv[1]."""
    with open(argv[0], "rb") as f:
        spec = pickle.load(f)
    res = expand_chunk(spec)
    tmp = argv[1] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
