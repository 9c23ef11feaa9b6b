"""Decision formulations for export and external solvers, and the `ext:dimacs` engine.

Vocabulary:

    Decision        one decision call of a family's model as data: the Formulation with the
                    task's bound already added, how to decode true keys into a solution, and the
                    bounds that make a sequence of calls an optimisation
    formulation hook  'module:function' named by a registry Engine (`Engine.formulation`), called
                    as hook(instance, task, options, bound) -> Decision; bound None means the
                    family's default for the task (the known optimum, else a proved lower bound,
                    for OPTIMIZE/COUNT; no bound for FEASIBLE where the model is complete without)
    DIMACS          the CNF as written for any solver: `c` comment header (instance, configuration,
                    bound, puzzlesat version), `p cnf V C`, one clause per line
    ext:dimacs      an engine that writes the CNF of each decision call, runs an external solver
                    (`cmd`, e.g. "cadical -q"; `{cnf}`/`{model}` placeholders, else the CNF path is
                    appended), reads `s SATISFIABLE` + `v ...` (or a MiniSat result file), checks the
                    model against every clause, and decodes it through the domain keys

Trust: a SAT answer is verified clause by clause before it is decoded (and the runner then checks
the decoded solution); an UNSAT answer is the external solver's word (no proof is checked), as for
every bundled solver. Anything unparseable, a crash, or a model that violates a clause is ERROR.
"""
from __future__ import annotations

import numbers
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Hashable, Iterable, Sequence

from ..core.procs import find_program, preexec_for_child
from ..core.result import CertificateClaim, Context, InputError, Outcome, ProofArtifact, Status, Task

from .formulation import Cnf, Formulation, to_cnf

Key = Hashable
SAT, UNSAT, UNKNOWN = "SAT", "UNSAT", "UNKNOWN"


@dataclass
class Decision:
    """One decision call of a model: `formulation` includes the bound (group named by the model);
    `decode(true projection keys)` -> a solution for the family's checker.

    `bound` is the bound enforced (None: none), `bound_text` says what it means ("moves <= 7").
    For optimisation by a sequence of calls: `lower` is a proved lower bound on the optimum,
    `upper` the largest bound worth a call (None: none; the time limit ends the search) and
    `upper_complete` whether UNSAT at `upper` proves the instance infeasible (else the search
    gives up there: UNKNOWN), `step` the stride between meaningful bounds, `value(solution)` (optional)
    the objective of a solution, so that calls can descend from a found solution; without it
    calls ascend from `lower` and the first SAT bound is the optimum. `objective` (optional) is the
    quantity the bound limits, for formats that carry one (wcnf, opb, lp, mps): value = offset +
    sum(coef * key).
    """

    formulation: Formulation
    decode: Callable[[set], Any]
    bound: int | None
    bound_text: str
    lower: int = 0
    upper: int | None = None
    upper_complete: bool = False
    step: int = 1
    value: Callable[[Any], int] | None = None
    objective: tuple[str, tuple[tuple[int, Key], ...], int] | None = None  # (min|max, terms, offset)
    note: str | None = None  # e.g. a bound below the proved lower bound (export says so)
    # the keys CP-SAT's fixed search (engine option search=fixed) decides, in this order, true
    # first, as the engine's own model does; () when the engine has no fixed search
    search_order: tuple[Key, ...] = ()


def call_hook(target: str, inst: Any, task: Task, options: dict[str, Any], bound: int | None) -> Decision:
    """The Decision that formulation hook `target` ('module:function') gives; a `bound` that is
    not a whole number of at least 0 is an InputError before any hook (a plug-in's too) runs."""
    import importlib
    if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Integral)
                              or bound < 0):
        raise InputError(f"--bound {bound!r}: expected an objective bound of 0 or more (a whole "
                         "number: the decision calls bound counts of moves, steps, presses)",
                         field="bound")
    mod, fn = target.split(":")
    d = getattr(importlib.import_module(mod), fn)(inst, Task(task), options, bound)
    if not isinstance(d, Decision):
        raise TypeError(f"formulation hook {target} returned {type(d).__name__}, not a Decision")
    return d


# ----------------------------------------------------------------------------------------------
# DIMACS

def header(lines: Iterable[str]) -> list[str]:
    """Comment lines (`c ...`), one per non-empty text line."""
    return ["c " + ln if ln else "c" for text in lines for ln in str(text).splitlines() or [""]]


def dimacs_text(cnf: Cnf, comments: Sequence[str] = ()) -> str:
    """The CNF in DIMACS: comment header, `p cnf V C`, clauses."""
    parts = header(comments)
    parts.append(f"p cnf {cnf.pool.top} {len(cnf.clauses)}")
    parts.extend(" ".join(map(str, c)) + " 0" for c in cnf.clauses)
    return "\n".join(parts) + "\n"


def violated(clauses: Sequence[Sequence[int]], model: Iterable[int]) -> int | None:
    """Index of the first clause no literal of `model` satisfies (None: the model satisfies all)."""
    true = set(model)
    for i, c in enumerate(clauses):
        if not any(l in true for l in c):
            return i
    return None


def parse_output(text: str) -> tuple[str, list[int]]:
    """(SAT | UNSAT | UNKNOWN, model literals) from competition output (`s ...`, `v ...` lines) or a
    MiniSat result file (`SAT` then the literals, or `UNSAT`). ValueError on anything else."""
    status, lits, saw_end = None, [], False
    lines = [ln.strip() for ln in text.splitlines()]
    body = [ln for ln in lines if ln and not ln.startswith("c")]
    if body and body[0] in ("SAT", "UNSAT", "INDET"):  # MiniSat's result file
        status = {"SAT": SAT, "UNSAT": UNSAT, "INDET": UNKNOWN}[body[0]]
        vals = " ".join(body[1:]).split()
        body = ["v " + " ".join(vals)] if vals else []
    for ln in body:
        if ln.startswith("s "):
            word = ln[2:].strip()
            st = {"SATISFIABLE": SAT, "UNSATISFIABLE": UNSAT, "UNKNOWN": UNKNOWN}.get(word)
            if st is None:
                raise ValueError(f"unknown status line '{ln[:60]}'")
            if status is not None and st != status:
                raise ValueError("two different status lines")
            status = st
        elif ln.startswith("v ") or ln == "v":
            for tok in ln[1:].split():
                try:
                    x = int(tok)
                except ValueError:
                    raise ValueError(f"value line with '{tok[:20]}', not an integer") from None
                if x == 0:
                    saw_end = True
                elif saw_end:
                    raise ValueError("literals after the terminating 0")
                else:
                    lits.append(x)
        elif status is None and ln in ("SATISFIABLE", "UNSATISFIABLE"):
            continue  # MiniSat's banner on stdout; the result file carries the answer
        else:
            continue  # other solver chatter is allowed (statistics without 'c')
    if status is None:
        raise ValueError("no status line ('s SATISFIABLE' / 's UNSATISFIABLE')")
    if status == SAT and not lits:
        raise ValueError("claims SATISFIABLE without a model ('v' lines)")
    return status, lits


def check_command(cmd: str, engine: str = "ext:dimacs") -> None:
    """InputError unless `cmd`'s program exists on PATH (or as a path) and is executable."""
    try:
        find_program(cmd, f"option cmd of engine {engine}")
    except InputError as e:
        raise InputError(e.message + (" (install a DIMACS solver, e.g. apt-get install cadical)"
                                      if "PATH" in e.message else "")) from None


def run_external(cmd: str, cnf_path: str, timeout: float | None,
                 proof_path: str | None = None) -> tuple[str, list[int], dict]:
    """Run `cmd` on the DIMACS file; (SAT | UNSAT | UNKNOWN, model, info). A time limit is UNKNOWN;
    ValueError with the reason for a crash or unparseable output. `proof_path`: where the program
    writes its DRAT proof (placeholder {proof}, else appended after the CNF path: `cadical CNF PROOF`)."""
    check_command(cmd)
    argv = shlex.split(cmd)
    if proof_path is not None:
        if any("{proof}" in a for a in argv):
            argv = [a.replace("{proof}", proof_path) for a in argv]
            proof_path = None
        elif any("{cnf}" in a for a in argv):
            raise InputError(f"certify: command {cmd!r} places the CNF with {{cnf}}; place the proof "
                             "file with {proof} too")
    model_path = None
    if any("{model}" in a for a in argv):
        model_path = cnf_path + ".model"
    if any("{cnf}" in a for a in argv):
        argv = [a.replace("{cnf}", cnf_path) for a in argv]
    else:
        argv.append(cnf_path)
    if proof_path is not None:
        argv.append(proof_path)
    if model_path:
        argv = [a.replace("{model}", model_path) for a in argv]
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=preexec_for_child)
    except OSError as e:
        raise ValueError(f"cannot run '{argv[0]}': {e.strerror or e}") from None
    try:
        out, errtext = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return UNKNOWN, [], {"seconds": round(time.perf_counter() - t0, 4), "reason": "time limit"}
    info = {"seconds": round(time.perf_counter() - t0, 4), "exit_code": p.returncode}
    if p.returncode < 0:
        raise ValueError(f"'{argv[0]}' died with signal {-p.returncode}")
    text = out
    if model_path:
        try:
            with open(model_path) as fh:
                text = fh.read()
        except OSError:
            text = out  # no result file: fall back to what it printed
    try:
        status, lits = parse_output(text)
    except ValueError as e:
        last = (errtext.strip().splitlines() or [""])[-1][:120]
        raise ValueError(f"'{argv[0]}' (exit {p.returncode}): {e}" + (f"; stderr: {last}" if last else "")) from None
    if p.returncode not in (0, 10, 20):
        raise ValueError(f"'{argv[0]}' exited with status {p.returncode}")
    if (status, p.returncode) in ((SAT, 20), (UNSAT, 10)):
        raise ValueError(f"'{argv[0]}' prints {status} but exits with {p.returncode}")
    return status, lits, info


# ----------------------------------------------------------------------------------------------
# the ext:dimacs engine

def run(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine `ext:dimacs`: the family's SAT formulation (option `formulation`, a hook) solved by
    the external program `cmd`, one DIMACS file per decision call."""
    opts = ctx.options
    hook, cmd, enc = opts["formulation"], opts["cmd"], opts.get("encoding", "seqcounter")
    check_command(cmd)
    params = {"cmd": cmd, "formulation": hook, "encoding": enc}
    stats: dict[str, Any] = {"decisions": []}
    tmp = tempfile.mkdtemp(prefix="puzzlesat-ext-")
    certifying = bool(opts.get("certify"))
    proofs: list[dict] = []
    folder = None
    if certifying:
        base = opts.get("proof_dir") or tempfile.gettempdir()
        folder = tempfile.mkdtemp(prefix=f"puzzlesat-proof-ext-{getattr(inst, 'name', 'run')}-", dir=base)

    def decide(bound: int | None) -> tuple[str, Any, Decision]:
        d = call_hook(hook, inst, task, opts, bound)
        cnf = to_cnf(d.formulation, enc)
        k = len(stats["decisions"]) + 1
        path = os.path.join(folder, f"{k}.cnf") if certifying else os.path.join(tmp, "model.cnf")
        proof = os.path.join(folder, f"{k}.drat") if certifying else None
        with open(path, "w") as fh:
            fh.write(dimacs_text(cnf, [f"puzzlesat ext:dimacs {getattr(inst, 'name', '?')}",
                                       f"bound {d.bound_text}"]))
        rem = ctx.remaining()
        if rem is not None and rem <= 0:
            return UNKNOWN, None, d
        status, lits, info = run_external(cmd, path, rem, proof)
        if certifying:
            if status == UNSAT:
                proofs.append({"claim": f"no solution with {d.bound_text}", "cnf": path, "proof": proof,
                               "format": "drat", "solver": cmd})
            else:  # only the refutations are kept
                for f in (path, proof):
                    if os.path.exists(f):
                        os.unlink(f)
        stats.update(vars=cnf.pool.top, clauses=len(cnf.clauses))
        stats["decisions"].append({"bound": d.bound_text, "result": status, **info})
        ctx.progress(bound=d.bound_text, result=status)
        if status != SAT:
            return status, None, d
        bad = violated(cnf.clauses, lits)
        if bad is not None:
            raise _Lie(f"external solver claims SAT for {d.bound_text}, but its model violates "
                       f"clause {bad + 1} of {len(cnf.clauses)}: {cnf.clauses[bad][:8]}")
        sol = d.decode(cnf.keys_true(lits, d.formulation.projection))
        return SAT, sol, d

    try:
        out = _search(task, ctx, decide, call_hook(hook, inst, task, opts, None), stats, certifying)
    except _Lie as e:  # the solver's answer is refuted (by its own model): a wrong answer, caught
        out = Outcome(Status.ERROR, stats={**stats, "termination": "refuted"}, reason=str(e))
    except ValueError as e:
        out = Outcome(Status.ERROR, stats=stats, reason=str(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cert = None
    if certifying:
        claim = {Status.INFEASIBLE: "no solution",
                 Status.OPTIMAL: f"optimum {out.objective}: the solution found, and no better one "
                                 "in the decision calls refuted"}.get(out.status, str(out.status))
        cert = CertificateClaim(claim, tuple(ProofArtifact.from_json(p) for p in proofs),
                                f"the CNF of the {hook} formulation states the puzzle; bounds below the "
                                "formulation's lower bound (ascending search) rest on that bound",
                                None if folder is None else str(folder))
        if not proofs and out.status is Status.OPTIMAL:
            cert = CertificateClaim.refusal(f"the optimum {out.objective} is the formulation's lower "
                                            "bound: no decision call was refuted (the bound is the argument)")
    return replace(out, params=params, certificate=cert)


class _Lie(Exception):
    """An external solver's SAT model violates the CNF."""


def _search(task: Task, ctx: Context, decide, d0: Decision, stats: dict,
            certifying: bool = False) -> Outcome:
    """FEASIBLE: one call when the unbounded model is complete, else ascending bounds. OPTIMIZE:
    descending from each found solution when the Decision has `value` and an `upper`, else
    ascending from `lower` (the first SAT bound is the optimum)."""
    lb, ub, step = d0.lower, d0.upper, max(1, d0.step)
    if task is Task.FEASIBLE and d0.bound is None:
        res, sol, _ = decide(None)
        if res == SAT:
            ctx.found(sol)
            return Outcome(Status.FEASIBLE, None, None, (sol,), stats)
        return Outcome(Status.INFEASIBLE if res == UNSAT else Status.UNKNOWN, stats=stats)
    if task is Task.OPTIMIZE and d0.value is not None and ub is not None:
        best, best_sol, k = None, None, ub
        # certifying: the bound just below the best is always a call (its refutation is the proof)
        while k >= lb or (certifying and best is not None and k == best - step and k >= 0):
            res, sol, _ = decide(k)
            if res == UNKNOWN:
                if best is None:
                    return Outcome(Status.UNKNOWN, stats=stats, reason="time limit")
                return Outcome(Status.FEASIBLE, best, None, (best_sol,), stats)
            if res == UNSAT:
                break
            best, best_sol = d0.value(sol), sol
            ctx.found(sol)
            k = best - step
        if best is None:
            return Outcome(Status.INFEASIBLE if d0.upper_complete else Status.UNKNOWN, stats=stats,
                           reason=None if d0.upper_complete else f"no solution up to {ub}")
        return Outcome(Status.OPTIMAL, best, None, (best_sol,), stats)
    k = lb
    while ub is None or k <= ub:
        res, sol, d = decide(k)
        if res == UNKNOWN:
            return Outcome(Status.UNKNOWN, stats=stats, reason="time limit")
        if res == SAT:
            ctx.found(sol)
            if task is Task.FEASIBLE:
                return Outcome(Status.FEASIBLE, None, None, (sol,), stats)
            return Outcome(Status.OPTIMAL, d0.value(sol) if d0.value else k, None, (sol,), stats)
        k += step
    if d0.upper_complete:
        return Outcome(Status.INFEASIBLE, stats=stats)
    return Outcome(Status.UNKNOWN, stats=stats, reason=f"no solution up to bound {ub}")
