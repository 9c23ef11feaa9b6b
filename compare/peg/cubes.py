"""Peg decisions "moves <= K" (and counts) by cube-and-conquer on the campaign executors.

models/peg/cubes.py says what a cube is, why the cubes cover the decision and what a certificate
covers. Here the cubes become jobs: the base CNF is written once (the engine's export, with its
variable map), each job is that file plus the cube's clauses (`solve_cube`), run `jobs` at once
on this machine (each in its own process) or as Dask tasks (`pool_for`, as the peg layer chunks;
a job whose process or worker dies is run again). A first job checks the cover (base + "not
cube" for every cube: UNSAT, else some model escapes the cubes and nothing is claimed).

Splitting (`split_after` S): a cube job not answered within S CPU seconds is killed (its process:
python-sat's CaDiCaL ignores interrupts) and the cube is split into its children, one per legal
next jump, each a job with the same limit (recursively, down to whole jump sequences, which run
without one); deciding, each split adds a cover job of its own (base + the cube + "not this
child" per child: UNSAT), so a certificate covers the splits too. Jobs run in rounds: the splits
of one round are the next round's jobs.

The work folder is the checkpoint: `plan.json` (what is decided, the base CNF's SHA-256) and one
`results/NAME.json` per finished job; a run with the same folder and the same plan runs only the
jobs without a result, and a folder that holds another plan is refused — but for the jobs'
settings (solver, search, split limit) with `switch`: the jobs without a result then run with the
new ones, each result recording its solver and search. The folder's base CNF is kept when this
code writes the same formula with other comments (an earlier version's). A result file is a claim,
not a fact: it counts only with the seal (core/seal.py) this user's puzzlesat put on it, bound to
this plan, when it wrote it (after replaying its solution, after verifying its proof); a SAT
record without a seal counts once its model is decoded and replayed by the checker again; an
UNSAT record without one whose proof was kept (`keep`: a folder from another machine, or a lost
key) counts once our checker verifies that proof in this run, as `recheck` does, which costs a
fraction of solving it again; any other file (no seal, another plan's, garbage, a FIFO or device,
too large) is set aside and its job runs again. So a certificate says VERIFIED only for proofs our
checker verified — in this run, or in an earlier one whose sealed record says so: the report tells them apart (`provenance`:
verified_in "this run" or "earlier run" with the records' dates, core/seal.py).

`recheck` (the skeptic's resume) ignores seals: a SAT record's model is replayed (as always); an
UNSAT record whose proof was kept (`keep`) counts only once our checker verifies that proof again,
in this run, against the job's CNF written afresh from the base CNF; every other UNSAT or COUNTED
record (its proof deleted, or rejected now) has its job solved again. A split record stays (it
claims nothing: the cube's children and its cover job are solved in its place).

Answers (`status`): INFEASIBLE = no solution with at most K moves (every cube left unsplit and
every cover refuted: the optimum is at least K + 1); FEASIBLE = a cube had a model, decoded and
replayed by the checker (its moves are at most K); OPTIMAL with `count` = the exact number of
solutions with at most K moves; UNKNOWN = the time limit came first (`refuted` says how many
cubes were done); ERROR = a proof was rejected or could not be checked (never an uncertified
INFEASIBLE when `certify` was asked).
"""
from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from ...core.config import Config, parse
from ...core.files import file_sha256, make_folder, write_atomic
from ...core.inputs import read_bytes
from ...core.result import CertVerdict, Certificate, CheckError, InputError, Status, Task

SAT_ENGINES = ("sat:ordered", "sat:merson", "sat:time", "sat:resource")
MAX_RECORD_BYTES = 64 * 1024 * 1024   # one result file (a SAT record holds the model: a value per variable)
STATUSES = {False: ("SAT", "UNSAT", "UNKNOWN"), True: ("COUNTED", "UNKNOWN")}  # deciding, counting


def _proof_of(res: dict) -> Any:
    """A cube record's checked proof (`puzzlesat.certify.Certificate`), or None: none, or not one."""
    c = res.get("certificate")
    if c is None:
        return None
    from ...certify import Certificate as ProofCertificate
    try:
        return ProofCertificate.from_json(c)
    except InputError:
        return None


def _proof_verified(res: dict) -> bool:
    """True when a cube record's proof was checked VERIFIED by our checker."""
    c = _proof_of(res)
    return c is not None and c.verified


def _proof_text(res: dict) -> str:
    """', proof VERDICT, check S s' for a progress line (empty without a proof)."""
    c = _proof_of(res)
    return "" if c is None else f", proof {c.verdict}, check {c.checker_seconds or 0:.1f} s"


def _sat_solvers() -> tuple[str, ...]:
    from ...models._sat import SOLVERS
    return SOLVERS


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"sum": round(sum(values), 3), "max": round(max(values), 3),
            "median": round(statistics.median(values), 3), "min": round(min(values), 3)}


class InlinePool:
    """Jobs one after another in this process (no process start; the time limit is checked
    between jobs only): the default of `run_cubes`, for small decisions and the tests."""

    def run(self, specs: list[dict], folder: Path, deadline: float | None = None):
        from ...models.peg.cubes import solve_cube
        from ...native_search.peg.disk import check_time
        for s in specs:
            check_time(deadline, "the cube jobs")
            yield solve_cube(s)


def run_cubes(fam, inst, cfg: Config | str, bound: int, depth: int, *, symmetry: bool = True,
              certify: bool = False, count: bool = False, solver: str | None = None,
              pool=None, work_dir: str | Path | None = None, time_limit: float | None = None,
              split_after: float | None = None, search: str = "auto", keep: bool = False,
              recheck: bool = False, switch: bool = False, split_depth: int | None = None,
              status: bool = False, progress: Callable[[str], None] | None = None
              ) -> dict[str, Any]:
    """Decide "moves <= `bound`" on peg instance `inst` (or, with `count`, count the solutions with
    at most `bound` moves) by the cubes of depth `depth` (module docstring). `cfg`: a SAT engine
    configuration of the peg family (default options filled in; with symmetry it must be
    sat:ordered, whose `prefix` is set to the depth). `pool`: a layers.ChunkPool running
    models/peg/cubes jobs (`pool_for(..., job="puzzlesat.models.peg.cubes:solve_cube")`; default:
    InlinePool, the jobs in this process). `split_after`: a cube not answered within this many
    CPU seconds is stopped and split into its children (every legal next jump; deciding, with a cover
    job of its own), recursively. `recheck`: ignore the seals of earlier runs' records (module
    docstring). `search`: 'fixed' makes CP-SAT (solver 'cpsat') branch on the
    jump variables in time order, true first (as cpsat:* search=fixed). `switch`: a work folder
    whose plan differs from this call only in the jobs' settings (`solver`, `search`,
    `split_after`) goes on with this call's settings for the jobs without a result (else it is
    refused as another plan). `split_depth` D: every cube without a result that fixes fewer than
    D jumps is split (as at `split_after`, with its cover job) before it is solved, down to D.
    Each result records its job's solver and search. `status`: where the run in `work_dir`
    stands, from its plan and its records as a run would take them (the jobs answered, split and
    still to run, CPU so far): no job runs and nothing in the folder is written, so it can be
    asked while that run goes on (the job settings are the folder's; the decision — instance,
    formulation, bound, depth, symmetry, count, certify — must be the folder's). Returns the
    report (JSON-able).

    >>> from puzzlesat.families.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers")                 # optimum 7 moves
    >>> r = run_cubes(fam, inst, "sat:ordered", 6, 2)            # certify=True: checked proofs
    >>> r["status"], r["lower_bound"], r["cubes"], r["cover"]["status"]
    ('INFEASIBLE', 7, 2, 'UNSAT')
    >>> run_cubes(fam, load_instance("peg/hoppers-first06")[1], "sat:ordered", 7, 3, count=True)["count"]
    18
    """
    from ...models.peg import cubes as pc
    from ...puzzles.peg import check
    from ..export import export
    from ...native_search.peg.disk import OutOfTime
    from ...core.seal import STAMP, now, rechecking, sign, unsealed_why
    t0 = time.monotonic()
    recheck = recheck or rechecking()
    say = progress or (lambda s: None)
    cfg = parse(cfg) if isinstance(cfg, str) else cfg
    eng = fam.engine(cfg.engine)
    if eng.name not in SAT_ENGINES:
        raise InputError(f"peg cubes run a SAT formulation ({', '.join(SAT_ENGINES)}); not "
                         f"{eng.name}", field="engine")
    if split_after is not None and not split_after > 0:
        raise InputError(f"split_after {split_after!r}: expected seconds above 0", field="split_after")
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 0:
        raise InputError(f"bound {bound!r}: expected a number of moves, 0 or more", field="bound")
    opts = dict(cfg.opts)
    if eng.name == "sat:ordered":
        if count:
            pass  # counts run over peg:merson: no symmetry breaking in the CNF
        else:
            opts["prefix"] = str(depth if symmetry else 0)
    elif symmetry and not count:
        raise InputError(f"cubes up to symmetry need the symmetric prefix of sat:ordered; "
                         f"{eng.name} has none: use --no-symmetry or -e sat:ordered", field="symmetry")
    cfg = parse(eng.name + ("[" + ",".join(f"{k}={v}" for k, v in sorted(opts.items())) + "]"
                            if opts else ""))
    resolved = eng.resolve_options(opts)
    solver = solver or resolved["solver"]  # the jobs' solver (any proof-logging one with certify)
    if certify:
        from ...models.proofs import proof_capable
        if count:
            raise InputError("counts by cubes are not certified (a count certificate needs the "
                             "blocking clauses of every cube's solutions); drop --certify",
                             field="certify")
        why = proof_capable(solver)
        if why:
            raise InputError(why, field="solver")
    from ...models.proofs import proof_capable
    if solver not in _sat_solvers() and proof_capable(solver):
        raise InputError(f"unknown solver {solver!r}: a python-sat solver or a proof-logging one "
                         "(cpsat, ext:CMD)", field="solver")
    if search not in ("auto", "fixed"):
        raise InputError(f"search {search!r}: expected auto or fixed", field="search")
    if split_depth is not None and (isinstance(split_depth, bool) or not isinstance(split_depth, int)
                                    or not depth < split_depth <= inst.jumps_needed):
        raise InputError(f"split_depth {split_depth!r}: expected more jumps than the cubes' depth "
                         f"{depth} and at most the {inst.jumps_needed} of a whole solution",
                         field="split_depth")
    if search == "fixed" and solver != "cpsat":
        raise InputError(f"search=fixed is CP-SAT's fixed search: it needs --solver cpsat, not "
                         f"{solver}", field="search")
    if count and solver not in _sat_solvers():
        raise InputError(f"counts enumerate with python-sat solvers; not {solver}", field="solver")
    if status and work_dir is None:
        raise InputError("a status reads a work folder: give work_dir", field="status")
    if status and recheck:
        raise InputError("a status takes the folder's sealed records as a run would and checks no "
                         "proof again: drop recheck", field="recheck")
    all_cubes = pc.cubes(inst, depth, symmetry)
    legal = sum(1 for _ in pc.legal_prefixes(inst, depth))
    perms = pc.line_perms(inst)
    weights = [len(pc.orbit(perms, c)) if symmetry else 1 for c in all_cubes]
    assert not symmetry or sum(weights) == legal, "the canonical cubes' orbits miss a prefix"

    tmp = None
    if work_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="puzzlesat-cubes-")
        folder = Path(tmp.name)
    else:
        folder = Path(work_dir)
        if folder.exists() and not folder.is_dir():
            raise InputError("not a folder", file=folder)
        if status and not folder.is_dir():
            raise InputError("no such folder: nothing has run there", file=folder)
        if not status:
            make_folder(folder, "cube work folder")
    if status:  # this code's export goes to a folder of its own: nothing is written in work_dir
        tmp = tempfile.TemporaryDirectory(prefix="puzzlesat-cubes-status-")
    try:
        base = folder / "base.cnf"
        task = Task.COUNT if count else Task.OPTIMIZE
        plan_path = folder / "plan.json"
        old = _read_plan(plan_path) if plan_path.exists() or plan_path.is_symlink() else None
        if status and old is None:
            raise InputError("no plan.json: no cube run has started in this folder", file=folder)
        fresh = (Path(tmp.name) if status and tmp else folder) / ".base.new.cnf"
        fresh_map = Path(str(fresh) + ".map.json")
        info = export(fam, inst, cfg, "dimacs", str(fresh), task, bound)
        # the folder's base CNF stays when it states the same formula as this code writes (the
        # same clauses and variables, other comments: an earlier version's): its proofs and this
        # run's jobs rest on that file; it is replaced only once the plan is accepted
        adopt = old is not None and _same_formula(base, fresh, old.get("base_sha256"))
        meta = json.loads(fresh_map.read_text())
        keys = {int(n): tuple(k) for n, k in meta["variables"].items()}
        ids = {k: n for n, k in keys.items()}
        projection = [ids[tuple(k)] for k in meta["projection"]]
        plan = {"instance": f"{fam.name}/{inst.name}", "config": str(cfg), "bound": bound,
                "depth": depth, "symmetry": symmetry, "count": count, "certify": certify,
                "solver": solver, "search": search, "cubes": len(all_cubes), "split_after": split_after,
                "base_sha256": old["base_sha256"] if adopt and old else file_sha256(fresh)}
        switched = None
        try:
            if old is not None:
                diff = sorted(k for k in plan if old.get(k) != plan[k])
                if status:  # the folder's job settings are the status's
                    plan = {**plan, **{k: old.get(k) for k in SETTINGS}}
                    diff = [k for k in diff if k not in SETTINGS]
                    switch = False
                if diff and (not switch or not set(diff) <= set(SETTINGS) or set(old) != set(plan)):
                    raise InputError(
                        f"the work folder holds another plan (differs in {', '.join(diff)}); use a "
                        "new folder" + (", or --switch to go on with these job settings for the "
                                        "jobs not yet done" if set(diff) <= set(SETTINGS) else ""),
                        file=plan_path)
                if diff:
                    switched = {k: old[k] for k in SETTINGS}
                    say("--switch: this plan's jobs ran with " + ", ".join(
                        f"{k} {old[k]}" for k in SETTINGS) + "; the jobs not yet done run with "
                        + ", ".join(f"{k} {plan[k]}" for k in diff) + " (each result records its own)")
        except InputError:
            fresh.unlink(missing_ok=True)
            fresh_map.unlink(missing_ok=True)
            raise
        if adopt or status:
            fresh.unlink()
            fresh_map.unlink()
        else:
            fresh.replace(base)
            fresh_map.replace(str(base) + ".map.json")
        if old is not None:
            plan_file = old  # the seals of its records are bound to the plan as first written
        else:
            write_atomic(plan_path, json.dumps(plan, indent=1), "plan")
            plan_file = plan
        results = folder / "results"
        jobs_dir = folder / "jobs"
        if not status:
            results.mkdir(exist_ok=True)
            jobs_dir.mkdir(exist_ok=True)

        common = {"base": str(base), "solver": solver, "search": search, "certify": certify,
                  "folder": str(jobs_dir),
                  "keep": keep, "count": count, "projection": projection, "bound": bound}
        if count:
            common |= {"inst": inst, "keys": {str(n): list(k) for n, k in keys.items()
                                              if k[0] == "j"}}
        tag = plan["base_sha256"][:8]
        J = inst.jumps_needed

        verify: dict[str, str] = {}  # recheck: job name -> the kept proof to verify again

        def spec(name: str, cube, extra: list, weight: int = 1) -> dict:
            limit = split_after if cube is not None and len(cube) < J else None
            return {"tag": tag, "name": name, "cube": None if cube is None else list(cube),
                    "extra": extra, "weight": weight, "time_limit": limit, **common}

        def to_run(s: dict) -> dict:
            """A job as it runs now: checking a kept proof (recheck) has no split limit; a
            proof that does not verify sends the job back to be solved."""
            if s["name"] in verify:
                return {**s, "time_limit": None, "verify_proof": verify[s["name"]]}
            return s

        top = [] if count else [spec("cover", None, pc.cover_clauses(all_cubes, ids))]
        top += [spec(f"cube-{i:06d}", c, pc.units(c, ids), w)
                for i, (c, w) in enumerate(zip(all_cubes, weights))]

        def children(s: dict) -> list[dict]:
            """A split cube's jobs: every legal one-jump extension, and (deciding) its cover."""
            cube = tuple(s["cube"])
            kids = pc.extensions(inst, cube)
            out = [] if count else [spec(f"{s['name']}.cover", None,
                                         pc.units(cube, ids) + pc.cover_clauses(kids, ids))]
            return out + [spec(f"{s['name']}.{k}", kid, pc.units(kid, ids), s["weight"])
                          for k, kid in enumerate(kids)]

        def tree() -> tuple[list[dict], list[dict]]:
            """(every job of the current tree, those without a result): split cubes give way to
            their children."""
            jobs, stack = [], list(reversed(top))
            while stack:
                s = stack.pop()
                jobs.append(s)
                r = done.get(s["name"])
                if r is not None and r.get("split"):
                    stack.extend(reversed(children(s)))
            return jobs, [to_run(s) for s in jobs if s["name"] not in done]

        context = "peg cubes " + json.dumps(plan_file, sort_keys=True)  # a seal binds a record to its plan

        def replay(res: dict) -> dict:
            """The solution of a SAT record's model, replayed by the checker (CheckError)."""
            try:
                seq = pc.decode(res["model"], keys, inst.board.lines)
            except Exception as e:  # a model that is not one of this CNF's
                raise CheckError(f"its model cannot be decoded ({type(e).__name__})") from None
            m = check(inst, seq)  # CheckError: never reported
            if m > bound:
                raise CheckError(f"a model of {m} moves at moves <= {bound}")
            return {"jumps": [list(j) for j in seq], "moves": m}

        done: dict[str, dict] = {}
        set_aside = rechecked = unsealed_kept = 0
        for p in sorted(results.glob("*.json")) if results.is_dir() else ():
            res, why = _load_record(p, context, count, replay, recheck)
            if why in (RECHECK, UNSEALED):
                proof = _kept_proof(jobs_dir, p.stem) if certify and not count else None
                if proof is not None:
                    verify[p.stem] = str(proof)
                if why == RECHECK:
                    rechecked += 1
                    continue
                if proof is not None:  # a claim with its proof: checking it is the cheaper way
                    unsealed_kept += 1
                    continue
                why = unsealed_why("this plan")
            if res is None:
                set_aside += 1
                if set_aside <= 5:
                    say(f"  {p.name}: {why}: its job runs again")
                continue
            done[p.stem] = res
        if set_aside > 5:
            say(f"  ... {set_aside} result files set aside in all: their jobs run again")
        if unsealed_kept:
            say(f"  {unsealed_kept} UNSAT records without this user's seal (another machine's or "
                "user's, or a lost key) have their kept proofs: verified by the checker now, "
                "not solved again (a proof that fails: its job is solved)")
        if recheck:
            say(f"  --recheck: {rechecked} UNSAT/COUNTED records not taken on trust: {len(verify)} "
                f"kept proofs to verify again, {rechecked - len(verify)} jobs to solve again")
        jobs, todo = tree()
        say(f"{inst.name}: {'count' if count else 'decide'} moves <= {bound}: {len(all_cubes)} cubes "
            f"of depth {depth} ({legal} legal prefixes{', up to symmetry' if symmetry else ''}); "
            f"{len(jobs) - len(todo)} jobs done before, {len(todo)} to run; base CNF {info['vars']} "
            f"vars, {info['clauses']} clauses")
        if status:
            sat = [r for r in done.values() if r["status"] == "SAT" and "solution" in r]
            return _status_report(_report(plan, jobs, legal, done, {"sat": sat[0]} if sat else {},
                                          False, folder, work_dir,
                                          resolved, time.monotonic() - t0, count, certify, info),
                                  jobs, todo, done, set_aside, _job_settings(done, plan_file))
        if pool is None:
            pool = InlinePool()
        deadline = None if time_limit is None else t0 + time_limit
        stop: dict[str, Any] = {}
        timed_out = False

        def accept(s: dict, res: dict) -> None:
            """Record one job's result (and stop at a model, a bad proof)."""
            if res["status"] == "RECHECK_FAILED":  # its kept proof did not verify: solve it again
                verify.pop(s["name"], None)
                return
            verify.pop(s["name"], None)
            if s["cube"] is not None:
                res["cube"] = s["cube"]
            if res["status"] == "SAT" and s["cube"] is None:
                raise CheckError(f"the cover CNF {s['name']} has a model: some solution of the base "
                                 "CNF is in no cube (a bug in the cubes; nothing is claimed)")
            if res["status"] == "SAT":
                try:
                    res["solution"] = replay(res)
                except CheckError as e:
                    raise CheckError(f"{s['name']}: {e}") from None
                stop.setdefault("sat", res)
            if res["status"] == "UNKNOWN" and s["time_limit"]:
                res["split"] = True  # its children replace it (tree())
            res["solver"], res["search"] = s["solver"], s["search"]
            if certify and res["status"] == "UNSAT" and not _proof_verified(res):
                stop.setdefault("rejected", res)
            res[STAMP] = now()
            res = sign(res, context)  # written by us, checked by us: sealed
            write_atomic(results / f"{s['name']}.json", json.dumps(res), "cube result")
            done[s["name"]] = res

        for res in done.values():
            if res["status"] == "SAT" and "solution" in res:
                stop.setdefault("sat", res)
        def presplit() -> int:
            """Split the cubes to run that fix fewer than `split_depth` jumps (no solve)."""
            n = 0
            for s in todo:
                if s["cube"] is not None and len(s["cube"]) < (split_depth or 0) \
                        and s["name"] not in verify:
                    accept(s, {"name": s["name"], "status": "UNKNOWN", "solve_seconds": 0.0,
                               "split": True, "reason": f"split to depth {split_depth} before "
                                                        "solving (split_depth)"})
                    n += 1
            return n

        while todo and not stop and not timed_out:  # rounds: a round's splits make the next one
            if split_depth and presplit():
                jobs, todo = tree()
                say(f"  split to depth {split_depth}: {len(todo)} jobs to run")
                continue
            by_id = {}
            for i, s in enumerate(todo):
                s["id"] = i
                by_id[i] = s
            it = pool.run(todo, jobs_dir, deadline)
            try:
                for res in it:
                    accept(by_id[res["id"]], res)
                    say(f"  {res['name']}: " + ("split" if res.get("split") else res["status"])
                        + (f" ({res['reason']}): solved again" if res["status"] == "RECHECK_FAILED"
                           else f" [{res['rechecked']}]" if res.get("rechecked") else "")
                        + (f" {res['count']}" if "count" in res else "")
                        + f" ({res['solve_seconds']:.1f} s"
                        + _proof_text(res)
                        + f")  [{len(done)} jobs done]")
                    if stop:
                        break
            except OutOfTime:
                timed_out = True
            finally:
                it.close()
            jobs, todo = tree()
        rep = _report(plan, jobs, legal, done, stop, timed_out, folder, work_dir,
                      resolved, time.monotonic() - t0, count, certify, info)
        rep["recheck"] = recheck
        rep["split_depth"] = split_depth
        if switched is not None:
            rep["switched_from"] = switched
        rep["job_settings"] = _job_settings(done, plan_file)
        return rep
    finally:
        if tmp is not None:
            tmp.cleanup()
        if work_dir is not None and not status:
            _tidy(folder / "jobs", keep)


def _read_plan(path: Path) -> dict:
    """The plan.json of a work folder (InputError naming it: not a regular file, too large, not
    a JSON object)."""
    data = read_bytes(path, 1 << 20, "plan")
    try:
        old = json.loads(data)
    except (ValueError, RecursionError):
        raise InputError("the work folder's plan is not JSON (not written by puzzlesat, or edited); "
                         "use a new folder", file=path) from None
    if not isinstance(old, dict):
        raise InputError("the work folder's plan is not a JSON object; use a new folder", file=path)
    return old


RECHECK = "not taken on trust (--recheck)"
UNSEALED = "an UNSAT record without this user's seal"
SETTINGS = ("solver", "search", "split_after")  # a plan's job settings (`switch` changes them)


def _same_formula(base: Path, fresh: Path, sha: str | None) -> bool:
    """Whether the folder's base CNF `base` is the plan's (SHA-256 `sha`) and states the same
    formula as `fresh`, this code's export: the same lines but comments, the same variable map
    (numbers, keys, projection). Anything else (missing, not a regular file, another formula)
    is False: the fresh export replaces it."""
    import os
    import stat
    try:
        if not all(stat.S_ISREG(os.lstat(p).st_mode) for p in (base, Path(str(base) + ".map.json"))):
            return False
        if sha is None or file_sha256(base) != sha:
            return False
        maps = [json.loads(read_bytes(Path(str(p) + ".map.json"), MAX_RECORD_BYTES, "variable map"))
                for p in (base, fresh)]
        if any(not isinstance(m, dict) for m in maps) or any(
                maps[0].get(k) != maps[1].get(k) for k in ("variables", "projection")):
            return False
        with open(base, "rb") as a, open(fresh, "rb") as b:
            from itertools import zip_longest
            lines = [(ln for ln in f if not ln.startswith(b"c")) for f in (a, b)]
            return all(x == y for x, y in zip_longest(*lines))
    except (OSError, ValueError, InputError, RecursionError):
        return False


def _kept_proof(jobs_dir: Path, name: str) -> Path | None:
    """The proof an earlier run kept for job `name` (a regular file, not a link), or None."""
    import os
    import stat
    for ext in (".lrat", ".drat"):
        p = jobs_dir / f"{name}{ext}"
        try:
            if stat.S_ISREG(os.lstat(p).st_mode):
                return p
        except OSError:
            continue
    return None


def _load_record(path: Path, context: str, count: bool, replay,
                 recheck: bool = False) -> tuple[dict | None, str]:
    """(record, '') for a result file that counts (module docstring), else (None, why not);
    (None, RECHECK) for an UNSAT or COUNTED record when `recheck`; (None, UNSEALED) for an
    unsealed UNSAT record (the caller verifies its kept proof, or else sets it aside). A sealed
    record read back carries "_earlier": when its run verified it."""
    from ...core.seal import stamp_of, unsealed_why, verified
    try:
        data = read_bytes(path, MAX_RECORD_BYTES, "cube result")
        rec = json.loads(data)
    except InputError as e:
        return None, e.message
    except (ValueError, RecursionError):
        return None, "not JSON"
    if not isinstance(rec, dict) or rec.get("name") != path.stem or rec.get("status") not in STATUSES[count]:
        return None, "not a result record of this folder"
    sealed = verified(rec, context)
    if rec["status"] == "SAT":
        try:
            solution = replay(rec)
        except CheckError as e:
            return None, f"its solution fails the checker ({e})"
        return {**rec, "solution": solution}, ""
    if recheck and rec["status"] in ("UNSAT", "COUNTED"):
        return None, RECHECK
    if not sealed:
        return None, UNSEALED if rec["status"] == "UNSAT" and not count else unsealed_why("this plan")
    if rec["status"] == "COUNTED" and (isinstance(rec.get("count"), bool) or not isinstance(rec.get("count"), int)
                                       or rec["count"] < 0):
        return None, "no count"
    return {**rec, "_earlier": stamp_of(rec, path)}, ""


def _tidy(jobs_dir: Path, keep: bool) -> None:
    """What stopped or killed jobs leave in the jobs folder: temporary files, CP-SAT's scratch
    folders, the job specs; the CNFs and proofs too unless `keep`."""
    import shutil
    if not jobs_dir.is_dir():
        return
    for p in jobs_dir.iterdir():
        if p.is_dir() and p.name.endswith(".scratch"):
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.startswith((".", "spec-", "result-")) or p.name.endswith(".result.json") or (
                not keep and p.suffix in (".cnf", ".drat", ".lrat")):
            p.unlink(missing_ok=True)


def _status_report(rep: dict[str, Any], jobs: list[dict], todo: list[dict], done: dict[str, dict],
                   set_aside: int, settings: dict[str, int]) -> dict[str, Any]:
    """A status (run_cubes(status=True)): the report a run would start from, and what is left
    (`settings`: _job_settings)."""
    ran = [done[s["name"]] for s in jobs if s["name"] in done]
    rep["status_only"] = True
    rep["job_settings"] = settings
    rep["jobs_done"] = len(jobs) - len(todo)
    rep["jobs_to_run"] = len(todo)
    rep["set_aside"] = set_aside
    top = [s for s in jobs if s["cube"] is not None and "." not in s["name"]]
    rep["cubes_answered"] = sum(1 for s in top if _answered(s["name"], jobs, done))
    rep["split_seconds"] = round(sum(r["solve_seconds"] for r in ran if r.get("split")), 3)
    if rep["status"] == Status.UNKNOWN.value:
        rep["reason"] = (f"status (no job run): {rep['jobs_done']} jobs done, {len(todo)} to run; "
                         f"{rep['cubes_answered']} of {rep['cubes']} cubes answered"
                         + (f", {set_aside} result files the run would set aside" if set_aside else ""))
    return rep


def _job_settings(done: dict[str, dict], plan: dict) -> dict[str, int]:
    """How many answered jobs ran with each solver and search ('cpsat fixed': 12); records from
    before per-job settings ran with the plan's first ones."""
    used: dict[str, int] = {}
    for r in done.values():
        if not r.get("split") and r["status"] != "RECHECK_FAILED":
            k = f"{r.get('solver', plan['solver'])} {r.get('search', plan['search'])}"
            used[k] = used.get(k, 0) + 1
    return used


def _answered(name: str, jobs: list[dict], done: dict[str, dict]) -> bool:
    """Whether job `name` is answered: a result that is not a split, or every job below it is."""
    r = done.get(name)
    if r is None:
        return False
    if not r.get("split"):
        return True
    return all(_answered(c["name"], jobs, done) for c in jobs
               if c["name"].startswith(name + ".") and "." not in c["name"][len(name) + 1:])


def _report(plan, jobs, legal, done, stop, timed_out, folder, work_dir, params, seconds, count,
            certify, info) -> dict[str, Any]:
    covers = [s for s in jobs if s["cube"] is None]
    splits = {s["name"] for s in jobs if (done.get(s["name"]) or {}).get("split")}
    leaves = [s for s in jobs if s["cube"] is not None and s["name"] not in splits]
    leaf_res = [done.get(s["name"]) for s in leaves]
    finished = [r for r in leaf_res if r is not None]
    ran = [r for r in (done.get(s["name"]) for s in jobs) if r is not None]
    cover = done.get("cover")
    rep: dict[str, Any] = {
        "instance": plan["instance"], "config": plan["config"],
        # the formulation's options, and the settings the jobs ran with (not the engine's
        # defaults for them: a cube run's solver and certification are its own)
        "params": {**{k: v for k, v in params.items() if k != "proof_dir"},
                   **{k: plan[k] for k in ("solver", "search", "certify")}},
        "claim": (f"solutions with moves <= {plan['bound']}" if count else f"moves <= {plan['bound']}"),
        "bound": plan["bound"], "depth": plan["depth"], "symmetry": plan["symmetry"],
        "cubes": plan["cubes"], "legal_prefixes": legal, "split_after": plan["split_after"],
        "splits": len(splits), "leaves": len(leaves), "finished": len(finished),
        "base": {"vars": info["vars"], "clauses": info["clauses"], "sha256": plan["base_sha256"]},
        "solve_seconds": _summary([r["solve_seconds"] for r in ran]),
        "wall_seconds": round(seconds, 3), "work_dir": None if work_dir is None else str(folder)}
    from ...core.seal import provenance
    behind = finished if count else [r for r in [*(done.get(s["name"]) for s in covers), *finished]
                                      if r is not None and r["status"] == "UNSAT"]
    prov = provenance(sum(1 for r in behind if "_earlier" not in r),
                      [r["_earlier"] for r in behind if "_earlier" in r])
    rep["provenance"] = prov
    if count:
        complete = len(finished) == len(leaves)
        rep["count"] = sum(r["count"] * s["weight"] for s, r in zip(leaves, leaf_res) if r is not None)
        rep["status"] = (Status.OPTIMAL if complete else Status.UNKNOWN).value
        if not complete:
            rep["reason"] = (f"{'time limit' if timed_out else 'stopped'}: {len(finished)} of "
                             f"{len(leaves)} cubes counted; the count is at least {rep['count']}")
        return rep
    if cover is not None:
        rep["cover"] = {k: cover.get(k) for k in ("status", "solve_seconds", "certificate")}
    cover_res = [done.get(s["name"]) for s in covers]
    covered = all(r is not None and r["status"] == "UNSAT" for r in cover_res)
    refuted = [r for r in finished if r["status"] == "UNSAT"]
    rep["refuted"] = len(refuted)
    if "sat" in stop:
        r = stop["sat"]
        rep["status"] = Status.FEASIBLE.value
        rep["solution"] = r["solution"]
        rep["found_in"] = r["name"]
        return rep
    if certify:
        certs = [_proof_of(r) for r in [*cover_res, *finished] if r is not None]
        checked = [c for c in certs if c is not None]
        rep["certificate"] = Certificate(
            CertVerdict.REJECTED if "rejected" in stop else (
                CertVerdict.VERIFIED if len(refuted) == len(leaves) and covered else CertVerdict.UNKNOWN),
            kind="cubes", proof_count=len(certs), format=certs[0].format if certs and certs[0] else None,
            lemmas=sum(c.lemmas or 0 for c in checked),
            proof_bytes=sum(c.stats.get("proof_bytes", 0) for c in checked),
            checker_seconds=round(sum(c.checker_seconds or 0 for c in checked), 3),
            trusted="that the base CNF states the decision (the formulation and its encoding; "
                    "peg:ordered's symmetry breaking is valid for decisions, "
                    "models/peg/ordered.py) and the checker (docs/certify.md)",
            extra={"verified_in": prov["verified_in"], "provenance": prov}).to_json()
        if "rejected" in stop:
            r = stop["rejected"]
            c = _proof_of(r)
            rep["status"] = Status.ERROR.value
            rep["reason"] = f"{r['name']}: its proof was not verified: {None if c is None else c.reason}"
            return rep
    if len(refuted) == len(leaves) and covered:
        rep["status"] = Status.INFEASIBLE.value
        rep["lower_bound"] = plan["bound"] + 1
        return rep
    rep["status"] = Status.UNKNOWN.value
    rep["reason"] = (f"{'time limit' if timed_out else 'stopped'}: {len(refuted)} of "
                     f"{len(leaves)} cubes refuted" + ("" if covered else ", a cover not checked"))
    return rep
