"""IDA* iterations of `native:ida` split into jobs on a Dask cluster (`-o dask=local|tcp://...`).

(It lives beside the search it drives: the engine runs in this layer, which may not import the
campaign layer; it needs only `distributed`.)

Korf's work split (the fork pool of `native_search.sliding.ida` does the same on one machine): an
iteration's tree is cut at a shallow depth (`ida.frontier`), the subtrees below the cut are
dealt round-robin into `per_worker` tasks per worker (thousands of tiny tasks swamp a scheduler),
and each task is searched to the iteration's bound by a worker (`subtree_job`), which builds the
same `ida.Problem` once per worker process (pattern databases from that machine's cache,
built there on first use). Iterations are split only once the previous one generated at least
`split_nodes` nodes (the first ones are cheap; the last, most expensive ones run on the cluster).

- Results: every task returns its solutions (path from the root), nodes and the smallest f above
  the bound; the iteration's node total is their sum plus the nodes above the cut, its next bound
  the smallest over all; optimize stops at the first solution (the others are cancelled), so its
  node total varies with the order in which workers finish, as in any parallel IDA*; count
  waits for every task (the same tree, the same count and node total as one process).
- Lost workers: a task whose worker dies is re-run by the scheduler on another worker (its
  `allowed-failures`, default 3); past that this driver submits it again, up to `RESUBMIT` times,
  before the iteration is given up (UNKNOWN, with the last completed bound as lower bound); a
  lost connection to the scheduler gives the iteration up the same way.
- Time: each task gets the deadline as wall-clock time (the cluster's clocks are assumed
  synchronised, as NTP keeps them) and stops there; an expired task, or no answer within `GRACE`
  seconds past the deadline, makes the iteration UNKNOWN (the optimum is then at least its bound)
  and the tasks still queued are cancelled.
"""
from __future__ import annotations

import time
from typing import Any, Callable

RESUBMIT = 3
GRACE = 5.0  # seconds past the deadline a job may take to answer before the iteration is given up
_PROBLEMS: dict[tuple, Any] = {}  # per worker process: the Problem of a job spec


def _problem(spec: dict):
    """The worker's Problem for `spec` (instance and heuristic options), built once per process."""
    from .ida import problem
    inst = spec["instance"]
    memo = (inst.rows, inst.cols, tuple(inst.start), tuple(inst.goal), spec["heuristic"], spec["pdb"],
            spec["mirror"], spec["dual"], spec["fill"] is True, spec["fill"], spec.get("order", "board"),
            spec.get("fsm", "simple"))
    if memo not in _PROBLEMS:
        _PROBLEMS[memo] = problem(inst, spec["heuristic"], spec["pdb"], spec["mirror"], dual=spec["dual"],
                                  fill=spec["fill"], order=spec.get("order", "board"),
                                  fsm=spec.get("fsm", "simple"))
    return _PROBLEMS[memo]


def subtree_job(spec: dict, jobs: list, bound: int, find_first: bool, until: float) -> dict:
    """Subtrees of an IDA* iteration, each (board, blank's previous cell, path from the root),
    one after another: their solutions (paths from the root, kernel labels), nodes, the smallest f
    above `bound` (from the root) and whether the wall clock passed `until` (seconds since the
    epoch, inf: no limit) first; optimize stops at the first solution."""
    from .ida import NO_BOUND, add_counts
    pr = _problem(spec)
    deadline = time.monotonic() + (until - time.time())
    out = {"solutions": [], "nodes": 0, "next": NO_BOUND, "expired": False, "extra": {}}
    for board, prev, path in jobs:
        sols, nodes, nxt, expired, extra = pr.run(board, bound - len(path), find_first, prev, deadline,
                                                  path=path)
        out["solutions"] += [tuple(path) + tuple(x) for x in sols]
        out["nodes"] += nodes
        add_counts(out["extra"], extra)
        if nxt < NO_BOUND:
            out["next"] = min(out["next"], nxt + len(path))
        if expired:
            out["expired"] = True
            break
        if sols and find_first:
            break
    return out


class DaskSplit:
    """Splits IDA* iterations into Dask tasks on `client` (see the module docstring)."""

    def __init__(self, client, spec: dict, depth: int, split_nodes: int = 1_000_000,
                 task: Callable = subtree_job, per_worker: int = 64):
        self.client = client
        self.spec = spec
        self.depth = depth
        self.split_nodes = split_nodes
        self.task = task
        self.per_worker = per_worker  # tasks per worker and iteration (subtrees dealt round-robin)
        self.stats = {"split_iterations": 0, "jobs": 0, "resubmitted": 0}

    def wants(self, bound: int, last_nodes: int) -> bool:
        """Whether the iteration with `bound` goes to the cluster."""
        return bound > self.depth and last_nodes >= self.split_nodes

    def __call__(self, pr, bound: int, find_first: bool, deadline: float):
        """One iteration on the cluster: (solutions, nodes, next bound, expired)."""
        from distributed import as_completed
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError
        from distributed.scheduler import KilledWorker
        LOST = (FutureCancelledError, CommClosedError, OSError)

        from .ida import NO_BOUND, SplitLost, add_counts, frontier
        subtrees, nodes, nxt, extra = frontier(pr, bound, self.depth)
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        k = max(1, min(len(subtrees), self.per_worker * workers))
        jobs = [subtrees[i::k] for i in range(k)] if subtrees else []
        self.stats["split_iterations"] += 1
        self.stats["jobs"] += len(jobs)
        self.stats["subtrees"] = self.stats.get("subtrees", 0) + len(subtrees)
        sols: list = []
        expired = False
        tries: dict = {}

        def submit(i: int):
            until = time.time() + (deadline - time.monotonic())  # inf stays inf
            f = self.client.submit(self.task, self.spec, jobs[i], bound, find_first, until, pure=False)
            owner[f.key] = i
            return f

        owner: dict = {}
        pending = [submit(i) for i in range(len(jobs))]
        grace = None if deadline == float("inf") else max(deadline - time.monotonic(), 0.0) + GRACE
        ac = as_completed(pending, loop=self.client.loop, timeout=grace)
        try:
            for f in _until_timeout(ac):
                if f is None:  # past the deadline and its grace, some job never answered
                    expired = True
                    break
                i = owner.pop(f.key)
                try:
                    res = f.result()
                except LOST as e:  # the connection to the scheduler, not the job, failed
                    raise SplitLost(f"the cluster failed during the iteration with bound {bound} "
                                    f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
                except KilledWorker:
                    tries[i] = tries.get(i, 0) + 1
                    if tries[i] > RESUBMIT:
                        raise SplitLost(f"a subtree job of the iteration with bound {bound} was "
                                        f"lost with its workers {tries[i]} times") from None
                    self.stats["resubmitted"] += 1
                    g = submit(i)
                    pending.append(g)
                    ac.add(g)
                    continue
                f.release()
                sols.extend(res["solutions"])
                nodes += res["nodes"]
                add_counts(extra, res.get("extra", {}))
                nxt = min(nxt, res["next"])
                expired |= res["expired"]
                if (sols and find_first) or expired:
                    break
        finally:
            for f in pending:
                if f.key in owner:
                    f.cancel()
        return sols, nodes, nxt if nxt < NO_BOUND else NO_BOUND, expired, extra


def _until_timeout(ac):
    """The futures of `ac` as they finish, then None if its timeout passed first."""
    try:
        yield from ac
    except TimeoutError:
        yield None


def open_client(address: str, workers: int):
    """(client, cluster): a LocalCluster of `workers` single-threaded worker processes on 127.0.0.1
    for address 'local', else a client of the scheduler at `address` (cluster None)."""
    from distributed import Client

    from ...core.result import InputError
    if address == "local":
        from ...core.cluster import local_cluster
        return local_cluster(workers)  # TLS only, no HTTP server
    try:
        return Client(address, timeout=10, set_as_default=False), None
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"option dask={address} of engine native:ida: the scheduler does not answer "
                         f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
