"""`puzzlesat peg problems --store`: the single-vacancy problems of a board as campaign jobs.

Each problem (one per symmetry orbit, as `native_search.peg.problems.orbit_pairs` picks them) is one
job: the instance "board:vacate->finish", engine `native:bfs` (bidirectional), task optimize, under
the campaign layer's hard time and memory limits, on the local executor (`jobs` at once) or a Dask
cluster. Every finished job is stored at once in the campaign's SQLite store (the same schema as
`puzzlesat campaign run`, so `puzzlesat campaign report/export --store` read it too); a second run
with the same store runs only the jobs not stored yet. The table is then read back from the store:
each stored solution is replayed by the checker once more here, and must have the stored number of
moves, before a minimum is reported.

Method bfs without a store (`problems(..., method="bfs")`) runs the problems one after another in
this process; given a work folder it records each settled problem there (`answers/`), so a run
that is stopped keeps the problems it settled and a second run reads them back (checked again).

Vocabulary:
  Pair = (vacate hole, finish hole); the campaign's name is "peg-problems-<board>".
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Sequence

from ...core.result import Status
from ...puzzles.peg import Board, check, hole_label, solution_from_json

ENGINE = "native:bfs"
TASK = "optimize"
DEFAULT_TIME_LIMIT = 3600.0      # seconds per problem when none is given
DEFAULT_MEMORY_MB = 8192         # per job process (RLIMIT_AS)


def campaign_name(b: Board) -> str:
    return f"peg-problems-{b.name}"


def problem_jobs(b: Board, pairs: Sequence[tuple[tuple[int, int], int]], time_limit: float,
                 memory_limit_mb: int) -> list[dict[str, Any]]:
    """One job payload per problem (the campaign layer's Job fields), keyed like a spec's jobs."""
    from ...families.registry import family
    from ...native_search.peg.problems import problem_instance
    from ..plan import plan_one
    from ..campaign.spec import content_hash, job_of
    fam = family("peg")
    out = []
    for (v, f), _ in pairs:
        inst = problem_instance(b, v, f)
        run = plan_one(fam, inst, f"bfs={ENGINE}", TASK, time_limit=time_limit,
                       memory_limit_mb=memory_limit_mb, machine=False)
        job = job_of(campaign_name(b), inst.name, content_hash(fam, inst), run, 0, None,
                     memory_limit_mb, fam.to_toml(inst))
        out.append(job.payload())
    return out


def run_problems(b: Board, pairs, store_path: str | Path, executor, time_limit: float | None,
                 memory_limit_mb: int = DEFAULT_MEMORY_MB, progress=None) -> Iterator[Any]:
    """Run the problems not yet in the store as jobs on `executor`, store each record as it
    finishes, then yield every problem's `Problem` row (in `pairs` order) from the store."""
    from ..campaign.store import Store
    store_path = Path(store_path)
    name = campaign_name(b)
    limit = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    jobs = problem_jobs(b, pairs, limit, memory_limit_mb)
    Store.check(store_path, name)
    spec_text = json.dumps({"board": b.name, "engine": ENGINE, "task": TASK, "time_limit": limit,
                            "memory_limit_mb": memory_limit_mb,
                            "problems": [list(p) for p, _ in pairs]})
    store = Store.open_for_run(store_path, name, spec_text)
    try:
        have = store.finished_keys()
        todo = [j for j in jobs if j["key"] not in have]
        store.set_meta("planned_jobs", len(jobs))
        if progress is not None:
            progress(f"campaign {name}: {len(jobs)} problems, {len(jobs) - len(todo)} already "
                     f"stored, {len(todo)} to run ({executor.name}) -> {store_path}")
        for rec in executor.run(todo):
            store.put(rec)
            if progress is not None:
                progress(f"{rec['instance']}: {rec['status']} {rec['objective'] or ''} "
                         f"({rec['wall_seconds']:.1f} s)")
        rows = {r["key"]: r for r in store.rows()}
    finally:
        store.close()
    for ((v, f), size), job in zip(pairs, jobs):
        yield as_problem(b, v, f, size, rows.get(job["key"]))


def as_problem(b: Board, v: int, f: int, size: int, row: dict | None):
    """A stored job record as a `Problem`; a stored solution is replayed by the checker again."""
    from ...native_search.peg.problems import Problem, problem_instance
    if row is None:  # interrupted before this job ran
        return Problem(v, f, Status.UNKNOWN, None, None, "not run", 0.0, size)
    sec = float(row["wall_seconds"] or 0.0)
    stats = json.loads(row["stats"]) if row.get("stats") else {}
    status = Status(row["status"])
    if status is Status.OPTIMAL:
        sol = json.loads(row["solution"]) if row.get("solution") else None
        if sol is None:
            return Problem(v, f, Status.ERROR, None, None, "stored without its solution", sec,
                           size, stats)
        inst = problem_instance(b, v, f)
        try:  # the JSON form ({"jumps": ...}); stores written before 0.3 kept the jump list
            sol = (solution_from_json(inst, sol) if isinstance(sol, dict)
                   else tuple(tuple(j) for j in sol))
            got = check(inst, sol)
        except Exception as e:  # the checker's verdict is final
            got = f"fails the checker: {e}"
        if got != row["objective"]:
            return Problem(v, f, Status.ERROR, None, None,
                           f"stored solution {got} != stored minimum {row['objective']}", sec,
                           size, stats)
        return Problem(v, f, status, row["objective"], sol, "search", sec, size, stats)
    if status is Status.INFEASIBLE:
        reason = row.get("reason") or ""
        proof = "position class" if "class" in reason else "search"
        return Problem(v, f, status, None, None, proof, sec, size, {"reason": reason})
    return Problem(v, f, status if status is Status.ERROR else Status.UNKNOWN, None, None,
                   row.get("reason") or str(status), sec, size, stats)


def problems(b: Board, vacate="all", finish="all", time_limit: float | None = None,
             limit: int | None = None, method: str = "table", progress=None,
             **table_options) -> Iterator[Any]:
    """Every single-vacancy problem of `b` (one per orbit) by `method`: table (the native shared
    layers, `native_search.peg.problems.problems`) or bfs (one runner call per problem)."""
    from ...native_search.peg import problems as native
    if method == "table":
        yield from native.problems(b, vacate, finish, time_limit, limit, "table", progress,
                                   **table_options)
        return
    if method != "bfs":
        raise ValueError(f"method {method!r}: one of {native.METHODS}")
    yield from by_runner(b, native.orbit_pairs(b, vacate, finish)[:limit], time_limit,
                         table_options.get("options"), progress)


def by_runner(b: Board, pairs, time_limit, options: dict | None = None,
              progress=None) -> Iterator[Any]:
    """Method bfs: each problem by `native:bfs` through the runner (a forked worker under a hard
    limit when a time limit is given), in `pairs` order; `options`: the engine's (e.g. prune).
    With options["work_dir"], each settled problem's answer is also recorded there (`answers/`)
    as soon as it is settled, and a problem with a record is not searched again: its solution is
    replayed by the checker and must have the recorded moves (else the record is ignored)."""
    import time

    from ...families.registry import family
    from ...native_search.peg.problems import Problem, problem_instance
    from ..runner import solve
    fam = family("peg")
    work_dir = (options or {}).get("work_dir") or None
    for (v, f), size in pairs:
        inst = problem_instance(b, v, f)
        if work_dir is not None:
            got = read_answer(b, v, f, size, work_dir)
            if isinstance(got, str):
                if progress is not None and got:
                    progress(got)
            else:
                if progress is not None:
                    progress(f"{b.name} {hole_label(b, v)} -> {hole_label(b, f)}: answer read back from "
                             f"{got.stats['answer_recorded']} (solution replayed)")
                yield got
                continue
        t0 = time.perf_counter()
        r = solve(fam, inst, "native:bfs", "optimize", time_limit=time_limit,
                  isolate=time_limit is not None, options=options or {})
        sec = time.perf_counter() - t0
        if r.status is Status.OPTIMAL:
            row = Problem(v, f, r.status, r.objective, tuple(map(tuple, r.solutions[0])), "search",
                          sec, size, r.stats)
        elif r.status is Status.INFEASIBLE:
            proof = "search" if r.stats else "position class"
            row = Problem(v, f, r.status, None, None, proof, sec, size, r.stats)
        else:
            row = Problem(v, f, r.status, None, None, r.reason or str(r.status), sec, size, r.stats,
                          r.stats.get("lower_bound") if r.stats else None)
        if work_dir is not None and row.status in (Status.OPTIMAL, Status.INFEASIBLE):
            write_answer(b, row, work_dir)
        yield row


ANSWER_VERSION = 1


def answer_path(b: Board, v: int, f: int, work_dir: str | Path) -> Path:
    """Where method bfs records the answer of problem (v, f) of board `b` in a work folder."""
    return Path(work_dir) / "answers" / f"{b.name}-{v}-{f}.json"


def write_answer(b: Board, row, work_dir: str | Path) -> Path:
    """Record a settled problem (OPTIMAL with its solution, or INFEASIBLE) atomically: a file is
    either absent or whole."""
    import os
    import tempfile
    path = answer_path(b, row.vacate, row.finish, work_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"version": ANSWER_VERSION, "board": b.name, "holes": b.n, "vacate": row.vacate,
           "finish": row.finish, "status": str(row.status), "min_moves": row.min_moves,
           "solution": None if row.solution is None else [list(j) for j in row.solution],
           "proof": row.proof, "seconds": row.seconds, "stats": _plain(row.stats)}
    from ...core.seal import STAMP, now, sign
    doc[STAMP] = now()
    doc = sign(doc, _answer_context(b, row.vacate, row.finish))  # settled by us: sealed
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(doc, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _answer_context(b: Board, v: int, f: int) -> str:
    return f"peg answer {ANSWER_VERSION} {b.name} {b.n} {v} {f}"


def read_answer(b: Board, v: int, f: int, size: int, work_dir: str | Path):
    """The recorded answer of (v, f) as a `Problem` (the solution replayed by the checker), or a
    string: "" when there is none, else why the record is not used (it is then searched again).
    A record is a claim: it counts only with the seal this user's puzzlesat put on it for this
    problem (core/seal.py), so a forged INFEASIBLE or a short solution called a minimum is
    searched again; a record used says so (stats verified_in "earlier run", verified_at its
    date: its minimum was proved by that run's search, its solution is replayed now); while
    rechecking (--recheck) no record is used."""
    from ...core.inputs import read_bytes
    from ...core.seal import EARLIER_RUN, STAMP, stamp_of, unsealed_why, verified
    from ...native_search.peg.problems import Problem, problem_instance
    path = answer_path(b, v, f, work_dir)
    if not (path.exists() or path.is_symlink()):
        return ""
    try:
        d = json.loads(read_bytes(path, 16 << 20, "answer record"))
        if not isinstance(d, dict) or (d.get("version"), d.get("board"), d.get("holes"), d.get("vacate"),
                                       d.get("finish")) != (ANSWER_VERSION, b.name, b.n, v, f):
            return f"{path}: a record of another problem or format; searched again"
        if not verified(d, _answer_context(b, v, f)):
            return f"{path}: {unsealed_why('this problem')}; searched again"
        status = Status(d["status"])
        stats = dict(d.get("stats") or {}, answer_recorded=str(path), verified_in=EARLIER_RUN)
        stats[STAMP] = stamp_of(d, path)
        sec = float(d.get("seconds") or 0.0)
        if status is Status.OPTIMAL:
            sol = tuple(tuple(int(x) for x in j) for j in d["solution"])
            got = check(problem_instance(b, v, f), sol)
            if got != d["min_moves"]:
                return f"{path}: the recorded solution has {got} moves, not {d['min_moves']}; searched again"
            return Problem(v, f, status, got, sol, str(d.get("proof") or "search"), sec, size, stats)
        if status is Status.INFEASIBLE:
            return Problem(v, f, status, None, None, str(d.get("proof") or "search"), sec, size, stats)
        return f"{path}: status {status} is not an answer; searched again"
    except Exception as e:  # a damaged record is never trusted
        return f"{path}: unreadable record ({type(e).__name__}: {e}); searched again"


def _plain(stats: dict) -> dict:
    """The JSON-serialisable part of a stats dict."""
    out = {}
    for k, val in (stats or {}).items():
        try:
            json.dumps(val)
        except (TypeError, ValueError):
            continue
        out[k] = val
    return out
