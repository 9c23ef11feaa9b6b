"""Run one engine on one instance, with hard time and memory limits, and check everything it returns.

Each run happens in a forked worker process (core/procs.py: its own process group, killed when
puzzlesat dies, address space capped): the engine reports progress and streams solutions through
a pipe, and the parent kills the worker's whole process group when the hard limit (time limit +
grace) passes — this is what makes limits hold for solvers that ignore interrupts (python-sat's
cadical195) and for numba kernels. Every solution goes through the family's independent checker
in the parent before it is reported or counted; a solution that fails it turns the result into
ERROR. An engine that raises, returns something that is not an Outcome, lies about a count, or
dies is reported (ERROR / UNKNOWN with the reason); it never crashes the tool.
"""
from __future__ import annotations

import multiprocessing as mp
import threading
import os
import pickle
import signal
import time
import traceback
from array import array
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..core import procs
from ..core.config import Config
from ..core.family import Engine, Family
from ..core.result import (CertificateClaim, Certificate, CertVerdict, CheckError, Context, InputError,
                           Outcome, PluginError, ProofArtifact, ProofCheck, Result, Status, Task,
                           one_line)
from .plan import Run, plan_one


def grace(time_limit: float) -> float:
    """Extra seconds an engine gets to stop by itself before it is killed."""
    return 1.0 + 0.05 * time_limit


def validate(fam: Family, inst: Any, eng: Engine, options: dict[str, Any],
             task: Task | str | None = None) -> dict[str, Any]:
    """Every option of `eng` resolved and validated for `inst` and `task` (the engine's own check
    and what the options need on this machine included), before anything runs; InputError."""
    opts = eng.resolve_options(options, None if task is None else Task(task))
    eng.check_available(opts)
    if eng.validate is not None:
        eng.validator()(inst, opts)
    return opts


def solve(fam: Family, inst: Any, engine: str | Engine | Config | Callable, task: Task | str | None = None, *,
          time_limit: float | None = None, options: dict[str, Any] | None = None,
          precheck: bool = True, progress: Callable[[dict], None] | None = None,
          isolate: bool = True, memory_limit_mb: float | None | str = "default",
          config: str | None = None) -> Result:
    """Plan one run (`plan.plan_one`) and execute it: a checked Result.

    `task` defaults to the family's first task. `memory_limit_mb` caps the worker's address space
    (default: 80 % of physical memory; None: no cap); a run that hits it is UNKNOWN with reason
    'memory'. `config` names the configuration in results and tables.

    >>> from puzzlesat.families.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers")
    >>> r = solve(fam, inst, "native", "optimize")
    >>> (r.status.value, r.objective)
    ('OPTIMAL', 7)
    """
    run = plan_one(fam, inst, engine, task, options=options, time_limit=time_limit,
                   memory_limit_mb=memory_limit_mb, precheck=precheck)
    if config is not None:
        run = replace(run, label=config)
    return execute(run, progress=progress, isolate=isolate)


def execute(run: Run, *, progress: Callable[[dict], None] | None = None, isolate: bool = True) -> Result:
    """Run `run`'s engine on its instance (a forked worker under the hard limits, unless
    `isolate` is False) and return the checked Result: `seconds` the engine's own work,
    `startup_seconds` its worker's start-up, `check_seconds` the checking (core/result.py). A
    plug-in's code that raises where its contract allows no exception (its checker,
    solution_key, invariant: a PluginError) makes the result ERROR with that one-line reason."""
    t0 = time.perf_counter()
    try:
        res = _execute(run, progress, isolate)
    except PluginError as e:
        return Result(getattr(run.instance, "name", "?"), run.family.name, run.engine.name, run.task,
                      Status.ERROR, None, None, [], time.perf_counter() - t0, run.params(), {},
                      str(e), 0, run.config, 0, None, run.family, run.instance)
    return _routed(run, res, progress, isolate, time.perf_counter() - t0)


def _routed(run: Run, res: Result, progress: Callable[[dict], None] | None, isolate: bool,
            spent: float) -> Result:
    """`res` with the default route's choice in its stats (compare/route.py); a model counter
    that stopped at its memory budget gives way to the route's fallback run (the native), in the
    time left: that run's Result, its seconds and CPU including the stopped counter's."""
    route = run.extra.get("route")
    if not route:
        return res
    fallback = run.extra.get("fallback")
    if (fallback is not None and res.status is Status.UNKNOWN
            and (res.reason or "").startswith("memory")):
        left = None if run.time_limit is None else run.time_limit - spent
        if left is None or left > 0:
            after = Run(fallback.family, fallback.instance, fallback.engine, fallback.task,
                        fallback.options, left, fallback.memory_limit_mb, fallback.precheck,
                        fallback.label, fallback.spec, {}, fallback.user_code)
            first = res
            res = _execute(after, progress, isolate)
            res.seconds += first.seconds
            cpu = [float(c) for x in (first, res) if (c := x.stats.get("cpu_seconds")) is not None]
            if len(cpu) == 2:
                res.stats["cpu_seconds"] = round(cpu[0] + cpu[1], 4)
            route = {**route, "route": fallback.engine.name,
                     "fallback_after": f"{first.engine} stopped after {first.seconds:.2f} s: {first.reason}"}
    res.stats.update(route)
    return res


def _execute(run: Run, progress: Callable[[dict], None] | None, isolate: bool) -> Result:
    fam, inst, eng, task, opts = run.family, run.instance, run.engine, run.task, run.options
    params = run.params()
    config = run.config
    name = getattr(inst, "name", "?")
    if isolate:
        _load_kernels()  # kernels earlier workers used: inherited by this one at its fork
    if opts.get("certify"):
        _warm_checker()  # the checker's first compile (20-45 s) is not this run's time either
    t0 = time.perf_counter()
    reason = fam.infeasible_reason(inst) if run.precheck else None
    if reason is not None:
        seconds = time.perf_counter() - t0
        cert, status = None, Status.INFEASIBLE
        if opts.get("certify") or run.extra.get("certify_refused"):
            cert = invariant_certificate(fam, inst, reason)
            if cert.verdict is CertVerdict.REJECTED:
                status, reason = Status.ERROR, "certificate REJECTED: " + str(cert.reason)
        return Result(name, fam.name, eng.name, task, status, None,
                      0 if task in (Task.COUNT, Task.UNIQUE) and status is Status.INFEASIBLE else None, [],
                      seconds, params,
                      {"termination": "refuted"} if status is Status.ERROR else {}, reason, 0,
                      config, 0, cert, fam, inst, None, round(time.perf_counter() - t0 - seconds, 4))
    forked = isolate and fam.user  # a plug-in's checker runs in a killable process
    tally = (_StreamCount(fam, inst, eng.identity(opts))
             if task is Task.COUNT and fam.streamed_count and not forked and not eng.counter else None)
    unique = _unique_watch(fam, inst, eng, task, opts)
    if isolate:
        out, streamed, clock = _run_isolated(eng, inst, task, opts, run.time_limit, progress,
                                             run.memory_limit_mb, tally, unique)
    else:
        streamed = []
        sink = (lambda s: tally.extend([s])) if tally else streamed.append
        t_load = time.perf_counter()
        loaded = _load(eng)
        started = time.perf_counter()
        ctx = Context(opts, run.time_limit, progress, sink)
        out, clock = _call(eng, inst, task, ctx, fn=loaded, unique=unique)
        clock.update(startup=started - t_load, started=started)
    t_check = time.perf_counter()  # checking has its own bound: as long as the run's time limit
    deadline = None if run.time_limit is None else t_check + run.time_limit
    if out.status is Status.ERROR and not (isinstance(out.reason, str) and out.reason.strip()):
        out = replace(out, reason=f"engine {eng.name} reported ERROR without a reason")
    stats = dict(out.stats) if isinstance(out.stats, dict) else {}
    for k in ("count_lower_bound", "streamed_checked"):  # the runner's alone (RUNNER_STATS)
        stats.pop(k, None)
    params.update(stats.pop("params", {}))  # engines written before 0.3 put them in stats
    params.update(out.params if isinstance(out.params, dict) else {})
    stats.pop("engine_seconds", None)  # an engine's own figure of that name is Result.seconds now
    for k in ("cpu_seconds", "jit_seconds"):
        if clock.get(k) is not None:
            stats[k] = round(clock[k], 4)
    if clock.get("imports_in_call"):
        stats["imports_in_call"] = clock["imports_in_call"]
    seconds = max(0.0, clock["call"] - (clock.get("jit_seconds") or 0.0))
    if tally is not None and not out.solutions:
        res = _tallied(fam, inst, eng, task, out, tally, seconds, params, stats)
    else:
        if tally is not None:
            streamed = tally.kept  # the engine returned its solutions after all: check those
        elif fam.streamed_count and task is Task.COUNT and not out.solutions:
            out = replace(out, solutions=tuple(streamed))  # a plug-in's streamed count: check them all
        res = _checked(fam, inst, eng, task, out, streamed, seconds, params, stats, deadline, forked)
    res.config, res.fam, res.inst = config, fam, inst
    res.startup_seconds = None if clock.get("startup") is None else round(clock["startup"], 4)
    if run.extra.get("certify_refused"):
        res.certificate = Certificate.not_certifiable(run.extra["certify_refused"])
    elif opts.get("certify"):
        limits = None
        if isolate:  # the proofs share the checking's own bound, and the run's memory cap
            limits = CheckLimits(deadline, run.memory_limit_mb)
        res.certificate = check_certificate(out.certificate, res, eng.identity(opts), limits)
        if res.certificate.verdict is CertVerdict.REJECTED:
            res.status = Status.ERROR
            res.reason = "certificate REJECTED: " + str(res.certificate.reason)
            res.stats["termination"] = "refuted"
    res.check_seconds = round(time.perf_counter() - t_check, 4)
    return res


def _unique_watch(fam: Family, inst: Any, eng: Engine, task: Task, opts: dict) -> tuple | None:
    """For task unique on an engine that derives it from its count (`unique_from_count`): (the
    solution key of a streamed solution that passes the checker, else None; is the family an
    optimisation) for compare/unique.py. None otherwise."""
    if task is not Task.UNIQUE or not eng.unique_from_count:
        return None
    ident = eng.identity(opts)

    def key(s: Any):
        try:
            s = fam.solution_from_json(inst, s)
            fam.check(inst, s)
            return fam.solution_key(inst, s, **ident)
        except Exception:  # noqa: BLE001 - the runner's own check reports it
            return None
    return key, fam.sense is not None


def invariant_certificate(fam: Family, inst: Any, reason: str) -> Certificate:
    """The certificate of an INFEASIBLE answer an invariant gave (`reason`): the family's own
    check of that invariant (`check_infeasible`, beside its checker, sharing nothing with the
    solvers) says VERIFIED or REJECTED (with why); a family without one: NOT-CERTIFIABLE."""
    got = fam.check_infeasible(inst)
    if got is None:
        return Certificate.not_certifiable(f"proved by the family's invariant check before any "
                                           f"solver call ({reason}), not by a proof")
    fmt, why = got
    mod = fam.module
    return Certificate(CertVerdict.VERIFIED if why is None else CertVerdict.REJECTED, why, "invariant",
                       claim=f"no solution: {reason}", format=fmt,
                       trusted=f"the invariant, recomputed by {getattr(mod, '__name__', fam.name)}"
                               ".check_infeasible (no solver, no proof file)")


@dataclass(frozen=True)
class CheckLimits:
    """The limits the proof check runs under: `deadline` (time.perf_counter() value; None: none;
    the checking's own bound, shared with the solutions' check)
    and the worker's address-space cap in MB (None: none)."""

    deadline: float | None
    memory_mb: float | None


def check_certificate(claimed: CertificateClaim | dict | None, res: Result, identity: dict | None = None,
                      limits: CheckLimits | None = None) -> Certificate:
    """The engine's certificate claim checked by the runner after the engine returned: every
    proof against its CNF by `puzzlesat.certify` (VERIFIED only if all are), the claim matched to
    the result (a count's blocking clauses number the solutions counted). REJECTED makes the
    result ERROR (the caller's job); an answer no proof can back is NOT-CERTIFIABLE with the
    reason. A claim that is not one (not a CertificateClaim nor its JSON form) is REJECTED.
    `limits`: the proofs are checked in a killable worker under them (None: in this process, no
    limit); a check stopped by a limit leaves the verdict UNKNOWN (docs/certify.md)."""
    if res.status is Status.FEASIBLE or (res.status is Status.OPTIMAL and res.task is Task.FEASIBLE):
        return Certificate.not_certifiable("a FEASIBLE answer is backed by its solution (checked by "
                                           "the family's checker): there is nothing to refute")
    if res.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        return Certificate.not_certifiable(f"the answer is {res.status}: nothing was proved")
    if res.task is Task.UNIQUE and res.status is Status.OPTIMAL and res.count != 1:
        return Certificate.not_certifiable("MULTIPLE is backed by its two different solutions (each "
                                           "checked by the family's checker): there is nothing to refute")
    if claimed is None or (isinstance(claimed, dict) and not claimed):
        return Certificate.not_certifiable("the engine returned no certificate")
    try:
        c = CertificateClaim.from_json(claimed)
    except InputError as e:
        return Certificate.rejected(f"the engine's certificate is not a claim: {e}")
    if c.refused is not None:
        return Certificate.not_certifiable(c.refused)
    if c.invariant is not None:  # an engine's INFEASIBLE by an invariant, no solver call
        if res.status is not Status.INFEASIBLE:
            return Certificate.rejected(f"an invariant certificate for a {res.status} answer")
        return invariant_certificate(res.fam, res.inst, str(c.claim or c.invariant))
    claim = c.claim
    if res.task is Task.UNIQUE and claim:
        claim = f"unique: {claim}"
    problems = []
    if not c.proofs:
        problems.append("no proof for the claim")
    counted = res.task in (Task.COUNT, Task.UNIQUE)  # unique: the count of one, certified alike
    orbits = None
    if counted and c.orbits is not None:
        orbits = _orbit_count(c.orbits, c.blocking, res, identity or {}, problems)
    elif counted and c.blocking != res.count:
        problems.append(f"the refuted CNF blocks {c.blocking} solutions, the count is {res.count}")
    if limits is None:
        checked, stopped = [], None
        for p in c.proofs:
            try:
                checked.append(_check_proof(p))
            except MemoryError as e:
                stopped = f"memory limit ({e})" if str(e) else "memory limit"
                break
    else:
        checked, stopped = _check_isolated(list(c.proofs), limits)
    for i, (p, entry) in enumerate(zip(c.proofs, checked), 1):
        if not entry.verified:
            problems.append(f"proof {i} ({p.claim}): {entry.reason}")
    formats = sorted({e.format for e in checked if e.format})
    if len(checked) == 1:
        files, sha = dict(checked[0].files or {}), dict(checked[0].sha256 or {})
    else:
        files = {f"{i}.{k}": v for i, e in enumerate(checked, 1) for k, v in (e.files or {}).items()}
        sha = {f"{i}.{k}": v for i, e in enumerate(checked, 1) for k, v in (e.sha256 or {}).items()}
    lemmas = sum(e.lemmas or 0 for e in checked)
    verdict, reason = CertVerdict.VERIFIED, None
    if problems:
        verdict, reason = CertVerdict.REJECTED, "; ".join(problems)
    elif stopped:
        verdict, reason = CertVerdict.UNKNOWN, (f"{stopped}: checking stopped after {len(checked)} of "
                                                f"{len(c.proofs)} proofs ({lemmas} lemmas checked); the "
                                                "answer is not certified")
    return Certificate(verdict, reason, "proofs", claim=claim, trusted=c.trusted, folder=c.folder,
                       orbits=orbits, format="+".join(formats) or None, proofs=tuple(checked),
                       lemmas=lemmas, proof_bytes=sum(e.proof_bytes or 0 for e in checked),
                       checker_seconds=round(sum(e.checker_seconds or 0.0 for e in checked), 3),
                       files=files, sha256=sha)


def _check_proof(p: ProofArtifact) -> ProofCheck:
    """One proof checked by `puzzlesat.certify`: its entry (verdict, reason, files, SHA-256,
    lemmas, bytes, checker seconds; the producer's figures carried over)."""
    from ..certify import certify
    try:
        if p.cnf is None or p.proof is None:
            raise InputError("the proof names no " + ("CNF" if p.cnf is None else "proof") + " file")
        c = certify(p.cnf, p.proof, format=p.format or "auto")
    except MemoryError:   # this machine's limit (numba: 'Allocation failed'), not the proof's fault
        raise
    except Exception as e:  # malformed or missing files: the proof does not stand
        return ProofCheck(p.claim, p.solver, p.format, CertVerdict.REJECTED, str(e))
    extra: dict[str, Any] = {k: p.extra[k] for k in ("solve_seconds", "producer_check") if k in p.extra}
    return ProofCheck(p.claim, p.solver, p.format, CertVerdict(c.verdict), c.reason, dict(c.files),
                      dict(c.sha256), c.lemmas, c.checker_seconds, os.path.getsize(p.proof), extra)


def _check_child(conn, proofs: list[ProofArtifact], memory_mb: float | None, parent: int) -> None:
    procs.become_worker(None, parent)
    from ..certify import check  # noqa: F401  (numba and the kernels load before the cap)
    procs.limit_memory(memory_mb)
    try:
        for p in proofs:
            conn.send(("proof", _check_proof(p)))
        conn.send(("done", None))
    except MemoryError as e:
        conn.send(("memory", str(e)))
    conn.close()


def _check_isolated(proofs: list[ProofArtifact], limits: CheckLimits) -> tuple[list[ProofCheck], str | None]:
    """The proofs checked one by one in a forked worker (own process group, memory cap), killed
    at `limits.deadline`: (the entries of the proofs checked, None or why checking stopped)."""
    if limits.deadline is not None and time.perf_counter() >= limits.deadline:
        return [], "time limit (checking's own limit was spent on the solutions)"
    from ..certify.check import preload
    preload()  # the kernels loaded here once: every forked checker inherits them
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_check_child, args=(child, proofs, limits.memory_mb, os.getpid()))
    with procs.forking():
        proc.start()
    child.close()
    checked: list[ProofCheck] = []
    stopped = None
    try:
        while True:
            wait = 0.25 if limits.deadline is None else max(0.0, min(0.25, limits.deadline - time.perf_counter()))
            if parent.poll(wait):
                try:
                    kind, payload = parent.recv()
                except (EOFError, OSError):
                    stopped = f"the checking process died (exit code {proc.exitcode}; memory limit?)"
                    break
                if kind == "proof":
                    checked.append(payload)
                    continue
                if kind == "memory":
                    stopped = f"memory limit ({payload})" if payload else "memory limit"
                break
            if not proc.is_alive() and not parent.poll(0):
                stopped = f"the checking process died (exit code {proc.exitcode}; memory limit?)"
                break
            if limits.deadline is not None and time.perf_counter() >= limits.deadline:
                stopped = "time limit"
                break
    finally:
        _reap(proc, parent)
    return checked, stopped


def _reap(proc: Any, parent: Any) -> None:
    """A forked checker done with: killed with its process group if still alive, joined, its
    pipe closed."""
    if proc.is_alive():
        procs.kill_group(proc.pid)
    proc.join(5)
    parent.close()


def _orbit_count(orbits: dict, blocking: Any, res: Result, identity: dict, problems: list) -> dict:
    """An orbit count's derivation, redone here: the engine's N solutions (all of them; the proof
    says there are no others) each pass the family's checker, are distinct as solutions, number
    the blocking clauses, and fall in exactly `res.count` classes of the family's solution_key
    under the run's identity options (e.g. up_to_symmetry). Problems are appended."""
    fam, inst = res.fam, res.inst
    sols = orbits.get("solutions") or []
    plain = {k: (False if isinstance(v, bool) else v) for k, v in identity.items()}
    want = dict(identity) or dict(orbits.get("identity") or {})  # the run's meaning of "the same"
    keys, classes, bad = set(), set(), 0
    for i, data in enumerate(sols, 1):
        try:
            s = fam.solution_from_json(inst, data)
            fam.check(inst, s)
        except CheckError as e:
            bad += 1
            if bad == 1:
                problems.append(f"solution {i} of the full enumeration fails the checker: {e}")
            continue
        keys.add(fam.solution_key(inst, s, **plain))
        classes.add(fam.solution_key(inst, s, **want))
    if len(keys) != len(sols):
        problems.append(f"the full enumeration's {len(sols)} solutions hold {len(keys)} distinct ones")
    if blocking != len(sols):
        problems.append(f"the refuted CNF blocks {blocking} solutions, the full enumeration has {len(sols)}")
    if len(classes) != res.count:
        problems.append(f"the {len(sols)} solutions fall in {len(classes)} classes, the count is {res.count}")
    return {"solutions": len(sols), "checked": len(sols) - bad, "classes": len(classes),
            "enumeration": orbits.get("enumeration"),
            "identity": want, "derivation": "the runner: distinct solution_key values under the "
            "identity options over the full enumeration's checked solutions (whose completeness the proof "
            "certifies)"}


def _memory_outcome(what: str) -> Outcome:
    return Outcome(Status.UNKNOWN, reason=f"memory: {what} (memory limit)", stats={"termination": "memory"})


def _load(eng: Engine) -> "Callable | _LoadFailure":
    """The engine's run function with everything it declares loaded (its module, `preload`
    modules, their cached numba kernels: procs.prepare), or why it cannot be."""
    try:
        fn = eng.function()
        procs.prepare(_module_of(eng.target, fn), eng.preload)
        return fn
    except InputError:
        raise
    except Exception as e:  # reported by _call as the engine's failure
        what = eng.target if isinstance(eng.target, str) else eng.name
        return _LoadFailure(f"engine could not be loaded ({what}): " + one_line(e),
                            isinstance(e, MemoryError) or any(m in str(e) for m in procs.MEMORY_SIGNS),
                            str(e))


@dataclass(frozen=True)
class _LoadFailure:
    """Why an engine could not be loaded: the one-line reason, and whether it names an allocation."""

    reason: str
    memory: bool
    text: str


def _new_imports(before: set[str], after: set[str]) -> list[str]:
    """What a call imported: puzzlesat's modules by name, other packages by their top-level name
    when the package itself is new (a submodule of a package loaded before is left out)."""
    tops = {m.partition(".")[0] for m in before}
    out = set()
    for m in after - before:
        top = m.partition(".")[0]
        if top == "puzzlesat":
            out.add(m)
        elif top not in tops and not top.startswith("_"):
            out.add(top)
    return sorted(out)


def _module_of(target: Any, fn: Any) -> str | None:
    """The module of an engine's run function, if it can be named (and so imported) again."""
    import sys
    if isinstance(target, str) and ":" in target:
        return target.rpartition(":")[0]
    name = getattr(fn, "__module__", None)
    return name if name in sys.modules else None


def _call(eng: Engine, inst: Any, task: Task, ctx: Context, capped: bool = False,
          fn: "Callable | _LoadFailure | None" = None, jit: list[float] | None = None,
          unique: tuple | None = None) -> tuple[Outcome, dict]:
    """The engine's outcome and its clock: {"call": wall seconds of the call, "cpu_seconds",
    "jit_seconds" (with `jit`, the numba time inside the call), "imports_in_call" (modules the
    call imported itself: not declared in `preload`)}. `fn`: the loaded run function (`_load`;
    a _LoadFailure says why it could not be loaded). `capped`: a memory limit holds, so a failure that
    names an allocation (MemoryError, a library that cannot be mapped) is that limit (UNKNOWN
    'memory'), never ERROR. `unique` (`_unique_watch`): task unique answered from the engine's
    count (compare/unique.py)."""
    import sys
    if fn is None:
        fn = _load(eng)
    if isinstance(fn, _LoadFailure):
        clock: dict[str, Any] = {"call": 0.0}
        if capped and fn.memory:
            return _memory_outcome(f"the engine could not be loaded within the limit ({fn.text})"), clock
        return Outcome(Status.ERROR, reason=fn.reason), clock
    before = set(sys.modules)
    j0 = jit[0] if jit is not None else 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if unique is not None:
            from .unique import from_count
            out = from_count(fn, inst, ctx, *unique)
        else:
            out = fn(inst, task, ctx)
    except InputError:
        raise
    except MemoryError:
        out = _memory_outcome("the engine ran out of memory")
    except Exception as e:  # an engine failure is a result, not a crash of the tool
        text = traceback.format_exc(limit=6)
        if capped and any(m in str(e) or m in text for m in procs.MEMORY_SIGNS):
            out = _memory_outcome(f"an allocation failed ({type(e).__name__}: {e})")
        else:
            out = Outcome(Status.ERROR, reason="engine raised " + one_line(e))
    clock = {"call": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
             "jit_seconds": None if jit is None else jit[0] - j0,
             "imports_in_call": _new_imports(before, set(sys.modules))}
    if not isinstance(out, Outcome):
        out = Outcome(Status.ERROR, reason=f"engine returned {type(out).__name__}, not an Outcome "
                      "(puzzlesat.engine.Outcome)")
    elif not isinstance(out.status, Status):
        try:
            out = replace(out, status=Status(out.status), solutions=tuple(out.solutions or ()),
                          stats=dict(out.stats or {}))
        except (ValueError, TypeError):
            out = Outcome(Status.ERROR, reason=f"engine returned status {out.status!r}; one of "
                          + ", ".join(s.value for s in Status))
    if not isinstance(out.stats, dict):
        out = replace(out, stats={})
    if not isinstance(out.params, dict):
        out = replace(out, params={})
    out = replace(out, stats={k: v for k, v in out.stats.items() if k not in RUNNER_STATS})
    return out, clock


# Statistics only the runner writes: an engine's value for one of them is dropped (its clock is
# the runner's; a count's lower bound is the number of distinct solutions the checker passed).
RUNNER_STATS = frozenset({"engine_seconds", "cpu_seconds", "jit_seconds", "imports_in_call",
                          "count_lower_bound", "streamed_checked"})


class _FoundStream:
    """Sends found solutions to the parent in batches: at once when the last send is older than
    `every` seconds (a first solution, or a sparse stream, is never held back), else once
    `batch` have gathered. A hard kill loses at most `every` seconds of solutions. One message
    per solution cost the native 6x10 count (9356 tilings) 0.45 s of its 0.9 s."""

    def __init__(self, conn, batch: int = 512, every: float = 0.05):
        self.conn, self.batch, self.every = conn, batch, every
        self.buf: list = []
        self.last = float("-inf")

    def __call__(self, solution: Any) -> None:
        self.buf.append(solution)
        if len(self.buf) >= self.batch or time.monotonic() - self.last >= self.every:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.conn.send(("found", self.buf))
            self.buf = []
        self.last = time.monotonic()


class _StreamCount:
    """Checks streamed solutions as they arrive and keeps only a tally (for families whose engines
    stream a count, Family.extra["streamed_count"]): each solution goes through the checker, its
    key (canonical form up to symmetry) is kept as a 64-bit hash for the repeat test, and only
    the first `keep` solutions are kept. Exact: a count is accepted only if it equals the number
    of streamed solutions, all passed the checker, with distinct hashes; a true repeat always has
    an equal hash, and a hash collision can only reject a right count, never accept a wrong one."""

    def __init__(self, fam: Family, inst, ident: dict[str, Any], keep: int = 1000):
        self.fam, self.inst, self.ident, self.keep = fam, inst, ident, keep
        self.kept: list = []
        self.hashes = array("q")
        self.problems: list[str] = []
        self.n = 0

    def extend(self, sols: list) -> None:
        for s in sols:
            try:
                s = self.fam.solution_from_json(self.inst, s)
                self.fam.check(self.inst, s)
            except CheckError as e:
                self.problems.append(f"solution {self.n} fails the checker: {e}")
            else:
                self.hashes.append(hash(self.fam.solution_key(self.inst, s, **self.ident)))
                if len(self.kept) < self.keep:
                    self.kept.append(s)
            self.n += 1

    def distinct(self) -> int:
        import numpy as np
        return len(np.unique(np.frombuffer(self.hashes, dtype=np.int64))) if self.hashes else 0


def _child(conn, eng: Engine, inst: Any, task: Task, opts: dict, time_limit: float | None,
           memory_mb: float | None, parent: int, unique: tuple | None = None) -> None:
    procs.become_worker(None, parent)
    try:
        fn = _load(eng)  # before the memory cap (the cap is for the search) and before the clock
    except InputError as e:
        conn.send(("input_error", e))
        conn.close()
        return
    procs.limit_memory(memory_mb)
    conn.send(("ready", None))
    stream = _FoundStream(conn)
    ctx = Context(opts, time_limit, lambda f: conn.send(("progress", f)), stream)
    jit = _jit_clock()
    try:
        out, clock = _call(eng, inst, task, ctx, memory_mb is not None, fn, jit, unique)
        stream.flush()
        try:  # the kernels this run loaded, for the parent to hand on to its next worker: sent
            # pickled, so that a parent that forks no other worker never unpickles (imports) numba
            conn.send(("kernels", pickle.dumps(procs.loaded_kernels())))
        except Exception:  # noqa: BLE001 - an optimisation only
            pass
        conn.send(("done", (out, clock)))
    except InputError as e:
        conn.send(("input_error", e))
    except MemoryError:
        conn.send(("done", (Outcome(Status.UNKNOWN, reason="memory: the engine ran out of memory",
                                    stats={"termination": "memory"}), {})))
    except Exception as e:  # e.g. an outcome or solution that cannot be pickled
        conn.send(("done", (Outcome(Status.ERROR, reason=f"engine result could not be sent back: {e!r}"), {})))
    conn.close()


def _jit_clock() -> list[float] | None:
    """In a worker (never in the caller's process: it patches numba's dispatcher class): from
    now on, the seconds spent loading numba kernels from the cache or compiling them, in [0]
    (None without numba loaded). Started after the engine's kernels were loaded from numba's
    cache (`_load`), it measures what the call itself compiles or loads: the runner records it as
    `stats.jit_seconds` and leaves it out of the engine's `seconds`."""
    import sys
    if "numba" not in sys.modules:
        return None
    from numba.core.dispatcher import Dispatcher
    spent, depth = [0.0], [0]
    compile_ = Dispatcher.compile

    def timed(self, sig):
        depth[0] += 1
        t = time.perf_counter()
        try:
            return compile_(self, sig)
        finally:
            depth[0] -= 1
            if depth[0] == 0:  # nested compiles are inside the outer one's time
                spent[0] += time.perf_counter() - t
    Dispatcher.compile = timed  # type: ignore[method-assign]  # the worker times numba's compiles by wrapping the method
    return spent


_KERNELS: list[bytes] = []  # numba kernels earlier workers held (pickled), not yet loaded here
_KERNELS_LOCK = threading.Lock()


_CHECKER_WARM = False


def _warm_checker() -> None:
    """Load (or compile, once per install) the proof checker's kernels in this process, outside
    any run's clock: forked checkers inherit them."""
    global _CHECKER_WARM
    if not _CHECKER_WARM:
        from ..certify.check import preload
        preload()
        _CHECKER_WARM = True


def uncertified(r: Result) -> str | None:
    """Why a certified run's answer is not certified (None: it is, or it needs no proof): under
    `certify`, an OPTIMAL or INFEASIBLE answer (not a FEASIBLE one, which its checked solution
    backs) whose certificate is not VERIFIED. The command line exits 3 for it (README)."""
    c = r.certificate
    if c is None or r.status not in (Status.OPTIMAL, Status.INFEASIBLE) \
            or r.task is Task.FEASIBLE or c.verified:
        return None
    return (f"{r.status} of {r.engine} is not certified: certificate {c.verdict}"
            + (f" ({' '.join(str(c.reason).split())[:300]})" if c.reason else ""))


def _load_kernels() -> None:
    """Load what earlier workers reported (once), so that the next worker inherits it."""
    with _KERNELS_LOCK:
        todo = _KERNELS[:]
        _KERNELS.clear()
    for blob in todo:
        try:
            procs.load_kernels(pickle.loads(blob))
        except Exception:  # noqa: BLE001 - an optimisation only
            continue
    procs.index_kernels()  # the worker forked next looks for new kernels only where they can be


STARTUP_LIMIT = 60.0  # seconds a worker may take to start (fork, imports, kernels) on top of the hard limit


def _run_isolated(eng, inst, task, opts, time_limit, progress, memory_mb=None,
                  tally=None, unique=None) -> tuple[Outcome, list, dict]:
    """(outcome, streamed solutions, clock) of the engine run in a forked worker: clock holds
    "startup" (fork to the worker's "ready": its imports and kernels), "started" (when the
    engine's clock started, time.perf_counter), "call" (the engine's wall seconds, to the kill
    if killed) and the worker's "cpu_seconds", "jit_seconds", "imports_in_call". The hard limit
    (time limit + grace) runs from "started"; before it, the worker's start-up may take
    STARTUP_LIMIT seconds more."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, eng, inst, task, opts, time_limit, memory_mb,
                                            os.getpid(), unique))
    # not a daemon: an engine may run engines itself (ps.solve inside an engine); the worker
    # still never outlives us (its death signal) and is always killed or joined below
    t_fork = time.perf_counter()
    with procs.forking():
        proc.start()
    child.close()
    lim = None if time_limit is None else time_limit + grace(time_limit)
    hard = None if lim is None else t_fork + STARTUP_LIMIT + lim
    started: float | None = None
    streamed: list = []
    out: Outcome | None = None
    clock: dict[str, Any] = {}
    why = None  # why the parent killed the worker
    peak_vm = base_vm = 0.0
    try:
        while out is None:
            wait = 0.25 if hard is None else max(0.0, min(0.25, hard - time.perf_counter()))
            if parent.poll(wait):
                try:
                    kind, payload = parent.recv()
                except (EOFError, OSError):
                    break
                if kind == "progress" and progress is not None:
                    progress(payload)
                elif kind == "found":
                    (tally or streamed).extend(payload)
                elif kind == "ready":
                    started = time.perf_counter()
                    hard = None if lim is None else started + lim
                    if memory_mb is not None:  # what it inherited and loaded: not the engine's
                        base_vm = procs.vm_size_mb(proc.pid) or 0.0
                elif kind == "done":
                    out, clock = payload
                elif kind == "kernels":
                    with _KERNELS_LOCK:
                        _KERNELS.append(payload)
                elif kind == "input_error":
                    raise payload
            elif not proc.is_alive() and not parent.poll(0):
                break
            elif hard is not None and time.perf_counter() >= hard:
                why = "time"
                break
            if memory_mb is not None:
                peak_vm = max(peak_vm, procs.vm_size_mb(proc.pid) or 0.0)
    except BaseException:  # Ctrl-C, SIGTERM (as an exception), an InputError: the worker goes too
        procs.kill_group(proc.pid)
        raise
    finally:
        end = time.perf_counter()
        if out is None and proc.is_alive():
            procs.kill_group(proc.pid)
        proc.join(5)
        parent.close()
    clock = dict(clock)
    clock["startup"] = (started if started is not None else end) - t_fork
    clock["started"] = started if started is not None else end
    if out is not None:
        clock.setdefault("call", end - clock["started"])
        return out, streamed, clock
    clock["call"] = end - clock["started"]
    code = proc.exitcode
    if why == "time":
        if started is None:
            return Outcome(Status.UNKNOWN, reason=f"hard time limit: the engine's worker was still "
                           f"starting (imports, kernels) after {end - t_fork:.1f} s: killed",
                           stats={"killed": True, "termination": "time"}), streamed, clock
        return Outcome(Status.UNKNOWN, reason="hard time limit: engine killed",
                       stats={"killed": True, "termination": "time"}), streamed, clock
    if memory_mb is not None and peak_vm >= 0.9 * memory_mb and peak_vm > base_vm + 0.02 * memory_mb:
        return Outcome(Status.UNKNOWN, reason=f"memory: the engine died near its memory limit "
                       f"({peak_vm:.0f} of {memory_mb:.0f} MB, exit code {code})",
                       stats={"termination": "memory"}), streamed, clock
    if code is not None and code < 0:
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = f"signal {-code}"
        return Outcome(Status.UNKNOWN, reason=f"engine process killed by {sig} (not by puzzlesat)",
                       stats={"killed": True, "termination": "killed"}), streamed, clock
    return Outcome(Status.ERROR, reason=f"engine process died (exit code {code})",
                   stats={"termination": "error"}), streamed, clock


@dataclass
class _Checks:
    """What checking a list of solutions found: `done` of `total` went through the checker (a
    limit may stop it early: `stopped` says why), `passed` (decoded, in order) with their
    objective `values`, `problems` (failed checks, repeats), `distinct` keys among the passed."""

    total: int
    done: int = 0
    passed: list = field(default_factory=list)
    values: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    distinct: int = 0
    stopped: str | None = None
    plugin_error: bool = False  # `stopped` is a plug-in's PluginError, naming it (its whole reason)


def _check_solutions(fam: Family, inst: Any, ident: dict, sols: list, deadline: float | None,
                     emit: Callable[[list, int], None] | None = None) -> _Checks:
    """Every solution through the family's checker (decoded from JSON first), repeats found by
    `solution_key`, until `deadline` (time.perf_counter; None: none) — tested between solutions.
    `emit(entries, distinct)` gets each solution's entry (index, decoded solution or None, value,
    problem or None) in batches (a forked checker streams them to its parent)."""
    c = _Checks(len(sols))
    keys: set = set()
    batch: list = []
    last = time.perf_counter()
    for i, s in enumerate(sols):
        if deadline is not None and time.perf_counter() >= deadline:
            c.stopped = "time"
            break
        entry: tuple[int, Any, int | None, str | None] | None = None
        try:
            s = fam.solution_from_json(inst, s)
            v = fam.check(inst, s)
        except CheckError as e:
            c.problems.append(f"solution {i} fails the checker: {e}")
            entry = (i, None, None, c.problems[-1])
        else:
            c.passed.append(s)
            c.values.append(v)
            k = fam.solution_key(inst, s, **ident)
            problem = None
            if k in keys:
                problem = f"solution {i} repeats an earlier one"
                c.problems.append(problem)
            keys.add(k)
            entry = (i, s, v, problem)
        c.done += 1
        c.distinct = len(keys)
        if emit is not None:
            batch.append(entry)
            if len(batch) >= 256 or time.perf_counter() - last >= 0.1:
                emit(batch, c.distinct)
                batch, last = [], time.perf_counter()
    if emit is not None and batch:
        emit(batch, c.distinct)
    return c


def _solutions_child(conn, fam: Family, inst: Any, ident: dict, sols: list, parent: int) -> None:
    procs.become_worker(None, parent)
    try:
        _check_solutions(fam, inst, ident, sols, None, lambda b, d: conn.send(("checked", (b, d))))
        conn.send(("done", None))
    except BaseException as e:  # noqa: BLE001 - a plug-in's checker failing: reported, not raised
        conn.send(("failed", (str(e), True) if isinstance(e, PluginError) else (f"{type(e).__name__}: {e}", False)))
    conn.close()


def _check_forked(fam: Family, inst: Any, ident: dict, sols: list, deadline: float | None) -> _Checks:
    """`_check_solutions` in a forked process (own process group) killed at `deadline`: a
    plug-in family's checker, which may hang or crash, never holds up or breaks the run."""
    c = _Checks(len(sols))
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_solutions_child, args=(child, fam, inst, ident, sols, os.getpid()))
    with procs.forking():
        proc.start()
    child.close()
    try:
        while True:
            wait = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.perf_counter()))
            if parent.poll(wait):
                try:
                    kind, payload = parent.recv()
                except (EOFError, OSError):
                    c.stopped = f"the checking process died (exit code {proc.exitcode})"
                    break
                if kind == "checked":
                    entries, c.distinct = payload
                    for _, sol, value, problem in entries:
                        c.done += 1
                        if sol is not None:
                            c.passed.append(sol)
                            c.values.append(value)
                        if problem is not None:
                            c.problems.append(problem)
                    continue
                if kind == "failed":  # the checker raised: (why, whether a PluginError said it)
                    c.stopped, c.plugin_error = payload
                break
            if not proc.is_alive() and not parent.poll(0):
                c.stopped = f"the checking process died (exit code {proc.exitcode})"
                break
            if deadline is not None and time.perf_counter() >= deadline:
                c.stopped = "time"
                break
    finally:
        _reap(proc, parent)
    return c


def _checked(fam, inst, eng, task, out: Outcome, streamed: list, seconds, params, stats,
             deadline: float | None = None, forked: bool = False) -> Result:
    """Check every solution and every claim about them; an inconsistent claim becomes ERROR.
    Checking stops at `deadline`: the answer then rests on unchecked solutions, so the result
    is UNKNOWN, with the solutions that were checked (`forked`: in a killable process)."""
    status, objective, count, reason = out.status, out.objective, out.count, out.reason
    sols = list(out.solutions or ())
    if status in (Status.UNKNOWN, Status.ERROR) and not sols:
        sols = list(streamed)  # the run was cut short: keep what it had found
    ident = eng.identity(params)
    c = (_check_forked if forked and sols else _check_solutions)(fam, inst, ident, sols, deadline)
    values, problems = c.values, list(c.problems)
    if c.stopped is not None and c.stopped != "time":  # the checker itself failed: no verdict
        return Result(getattr(inst, "name", "?"), fam.name, eng.name, task, Status.ERROR, None, None,
                      [], seconds, params, {**stats, "termination": "error"},
                      (f"{c.stopped} (checking stopped after {c.done:,} of {c.total:,} solutions)"
                       if c.plugin_error else
                       f"checking failed after {c.done:,} of {c.total:,} solutions: {c.stopped}"),
                      len(c.passed), None, c.done - len(c.passed))
    sense = fam.sense
    if status is Status.INFEASIBLE and sols:
        problems.append("claims INFEASIBLE but returned a solution")
    if status in (Status.OPTIMAL, Status.FEASIBLE) and not sols and not (eng.counter and task is Task.COUNT):
        problems.append(f"claims {status} without a solution")
    if eng.counter and task is Task.COUNT:  # a count without the solutions: the engine's claim
        stats = {**stats, "enumerated": False}
        if status is Status.OPTIMAL and (not isinstance(count, int) or isinstance(count, bool)
                                         or count < max(1, len(sols))):
            problems.append(f"claims count {count!r} (with {len(sols)} solutions returned)")
    elif task is Task.COUNT and status is Status.OPTIMAL and count != len(sols):
        problems.append(f"claims count {count} but returned {len(sols)} solutions")
    failed = c.done - len(c.passed)
    sols = c.passed  # only solutions that passed the checker are reported
    if c.stopped == "time" and not problems:  # an answer on unchecked solutions is no answer
        limit = params.get("time_limit")
        status, objective, count = Status.UNKNOWN, None, None
        reason = (f"checking stopped at its time limit ({limit:g} s, the run's): checked "
                  f"{c.done:,} of {c.total:,} solutions; the engine's answer ({out.status}"
                  + (f", count {out.count}" if out.count is not None else "")
                  + (f", objective {out.objective}" if out.objective is not None else "")
                  + ") rests on solutions not checked, and is not accepted")
        stats = {**stats, "termination": "time", "check_stopped": True}
        if task is Task.COUNT and c.distinct:
            stats["count_lower_bound"] = c.distinct
        return Result(getattr(inst, "name", "?"), fam.name, eng.name, task, status, None, None,
                      sols, seconds, params, stats, reason, len(sols), None, failed)
    if sense is not None and values and not problems:
        best = min(values) if sense == "min" else max(values)
        if status is Status.OPTIMAL and task is not Task.FEASIBLE:
            if objective is not None and any(v != objective for v in values):
                problems.append(f"claims optimum {objective}, the checker finds "
                                + ", ".join(map(str, sorted(set(values)))))
            objective = values[0]
        else:
            objective = best
            if task is not Task.COUNT:  # the reported solution is the best checked one
                order = sorted(range(len(sols)), key=lambda i: values[i] if sense == "min" else -values[i])
                sols = [sols[i] for i in order]
    if task is Task.UNIQUE:
        first: dict = {}  # solution key -> index of its first passed solution
        for i, s in enumerate(sols):
            first.setdefault(fam.solution_key(inst, s, **ident), i)
        status, count, reason = _unique_answer(status, out.count, len(first), sense, reason, problems)
        if status is Status.OPTIMAL and count is None:  # MULTIPLE: its two witnesses
            two = sorted(first.values())[:2]
            sols, values = [sols[i] for i in two], [values[i] for i in two] if values else values
            stats = {**stats, "count_lower_bound": max(len(first), stats.get("count_lower_bound", 0))}
    if status is Status.UNKNOWN and sols and task is not Task.COUNT:
        status = Status.FEASIBLE  # a checked solution exists; optimality was not proved
    if task is Task.COUNT and status is not Status.OPTIMAL:
        if sols:
            stats = {**stats, "count_lower_bound": c.distinct}
        count = 0 if status is Status.INFEASIBLE else None
    if problems:
        status = Status.ERROR
        reason = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
        stats = {**stats, "termination": "refuted"}
    if task not in (Task.COUNT, Task.UNIQUE):
        count = None
    if status in (Status.UNKNOWN, Status.INFEASIBLE) or sense is None:
        objective = None if status is not Status.ERROR else objective
    return Result(getattr(inst, "name", "?"), fam.name, eng.name, task, status, objective, count,
                  sols, seconds, params, stats, reason, len(sols), None, failed)


def _unique_answer(status: Status, claimed: int | None, distinct: int, sense: str | None,
                   reason: str | None, problems: list) -> tuple[Status, int | None, str | None]:
    """Task unique: (status, count, reason) from the engine's status and claimed count and the
    number of distinct checked solutions (core/result.py: UNIQUE = OPTIMAL with count 1, MULTIPLE
    = OPTIMAL with count None and two witnesses). Two distinct checked solutions prove MULTIPLE
    whatever stopped the engine — for an optimisation family only with the optimum proved."""
    if status is Status.OPTIMAL:
        if distinct == 1:
            if claimed not in (None, 1):
                problems.append(f"claims {claimed} solutions but returned one")
            return status, 1, reason
        if distinct >= 2:
            if claimed == 1:
                problems.append(f"claims a unique solution but returned {distinct} different ones")
            return status, None, reason
        return status, None, reason  # no solution: the runner's other checks report it
    if status in (Status.UNKNOWN, Status.FEASIBLE) and distinct >= 2 and sense is None:
        return Status.OPTIMAL, None, ("MULTIPLE: two different checked solutions before the engine "
                                      f"stopped ({reason or 'limit'})")
    if status is Status.INFEASIBLE:
        return status, 0, reason
    return status, None, reason


def _tallied(fam, inst, eng, task, out: Outcome, tally: _StreamCount, seconds, params, stats) -> Result:
    """The Result of a streamed count: the engine's claimed count against the checked tally."""
    status, count, reason = out.status, out.count, out.reason
    distinct = tally.distinct()
    problems = list(tally.problems[:5])
    if distinct != len(tally.hashes):
        problems.append(f"{len(tally.hashes) - distinct} solutions repeat earlier ones")
    if status is Status.INFEASIBLE and tally.n:
        problems.append("claims INFEASIBLE but returned a solution")
    if task is Task.COUNT and status is Status.OPTIMAL and count != tally.n:
        problems.append(f"claims count {count} but streamed {tally.n} solutions")
    stats["streamed_checked"] = tally.n
    if status is not Status.OPTIMAL:
        if distinct:
            stats["count_lower_bound"] = distinct
        count = 0 if status is Status.INFEASIBLE else None
    if problems:
        status, reason = Status.ERROR, "; ".join(problems)
        stats["termination"] = "refuted"
    failed = tally.n - len(tally.hashes)
    return Result(getattr(inst, "name", "?"), fam.name, eng.name, task, status, None, count,
                  tally.kept, seconds, params, stats, reason, len(tally.hashes), None, failed)
