"""Why a decision call answers as it does: group cores and group ablation over a formulation's
named constraint groups (`puzzlesat lab core`, `puzzlesat lab ablate`, `Model.core()`).

Vocabulary:

    selector    one fresh Boolean per group; every clause of the group's CNF (its encoding's
                auxiliary clauses included) gets the selector's negation, so assuming the selector
                switches the whole group on and leaving it out switches the group off
    group core  a set of groups whose conjunction is INFEASIBLE. Found by deletion (Marques-Silva,
                "Minimal unsatisfiability: models, algorithms and applications", ISMVL 2010; groups
                as in Liffiton & Sakallah's group MUS), the groups tried together first
                (dichotomic, in the spirit of Junker's QuickXplain): largest first, try dropping
                half of the untested groups in one call — UNSAT: all dropped at once (the
                expensive kind of call, paid once for a run of unneeded groups); SAT or the
                call limit: split in halves, down to single groups; a single group's call SAT: it
                is necessary, the model is kept as its witness. The result is minimal: each group
                left is necessary, because the set it was tested against contained the final set,
                and a subset of a satisfiable set is satisfiable. No all-groups call: the final
                re-check is the decision (and covers every superset of the core).
    backends    'sat': ONE incremental python-sat solver (learnt clauses carry over; an UNSAT
                call's failed assumptions shrink the candidates further); 'cpsat': a fresh CP-SAT
                solve of the remaining groups per call, one worker, pinned parameters
    call limit  optional CPU seconds per deletion call (python-sat: slices of CHUNK conflicts,
                the limit checked between slices — cadical195 cannot be interrupted; CP-SAT: a
                watchdog thread). A group whose call hits it is *undecided*, tried again against
                the final core (smaller: usually far easier); still undecided, it is kept in the
                core (so the core stays infeasible) and reported as such — the core is then not
                claimed minimal, never wrongly so.
    witness probe  with CP-SAT's fixed search ('cpsat' backend, search=fixed): each call first
                runs CP-SAT's automatic search for a few CPU seconds (PROBE; CpsatCalls), since
                the fixed depth-first search finds models badly; its SAT or UNSAT is the call's
                answer, else the fixed search has the rest of the call's limit
    work folder optional: every decided call kept (CoreFolder), so a rerun continues
    re-check    what the answer rests on, checked apart from the search: the core's groups alone
                (the same clauses, no selectors) in a fresh solver must answer UNSAT — with
                `certify` that one solve logs a DRAT proof, checked by the runner with
                puzzlesat.certify (the search's own calls log nothing: a dropped group needs no
                proof, the final core's refutation covers every superset); and each necessary
                group's witness, the assignment found without it, must satisfy every constraint
                of the core's other groups as the formulation states it (`unmet`)
    ablation    the decision engine (models/paradigm.py) on a backend of the configuration's kind,
                every decision call's formulation with one optional group left out
                (Formulation.optional: implied constraints, symmetry breaking, dominance)
"""
from __future__ import annotations

import time
from typing import Any, Callable, NamedTuple, NoReturn, Sequence

from ortools.sat.python import cp_model

from ..core.result import Context, InputError, Outcome, Status, Task

from . import _cpsat, _sat
from ._ext import Decision
from .formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Formulation, Key, Xor,
                          to_cnf, to_cpsat)
from .paradigm import Answer, Backend, no_good
from .prooflog import ProofLog

SEL = "group selector"   # the domain key of a selector: (SEL, group name)
ORDERS = ("given", "largest")   # the order groups are tried in (group_core)
CHUNK = 20_000           # conflicts per slice of a budgeted call (~1-2 s of CDCL on the peg models)
PROBE = "witness_probe_cpu_seconds"  # CpsatCalls: the automatic search before the fixed one


def budgeted_solve(s: Any, ctx: Context, assumptions: Sequence[int], cpu_limit: float | None,
                   chunk: int = CHUNK) -> bool | None:
    """True/False, or None when `cpu_limit` CPU seconds of this call (None: no per-call limit) or
    the run's time limit passed first. Solved in slices of `chunk` conflicts (every python-sat
    solver here takes a conflict budget, cadical195 included, which cannot be interrupted), the
    limits checked before each slice; learnt clauses carry over from slice to slice."""
    t0 = time.process_time()
    while True:
        if ctx.expired() or (cpu_limit is not None and time.process_time() - t0 >= cpu_limit):
            return None
        try:
            s.conf_budget(chunk)
        except NotImplementedError:  # no budget (lingeling): one call, the run's limit stops it
            return _sat.solve_limited(s, ctx, assumptions)
        res = s.solve_limited(assumptions=list(assumptions))
        if res is not None:
            return res


def _conflicts(s: Any) -> int | None:
    try:
        return int((s.accum_stats() or {}).get("conflicts"))
    except Exception:
        return None


def unmet(constraints: Sequence[Any], true: set) -> int | None:
    """The index of the first of `constraints` (Boolean kinds: formulation.CNF_KINDS) that the
    assignment `true` (the set of true keys; every other key false) violates, else None. The
    witnesses' check: it reads the formulation's constraints, not any solver's encoding of them."""
    for i, c in enumerate(constraints):
        if isinstance(c, Clause):
            ok = any((k in true) == p for k, p in c.lits)
        else:
            n = sum(1 for k in c.keys if k in true)
            if isinstance(c, ExactlyOne):
                ok = n == 1
            elif isinstance(c, AtMostOne):
                ok = n <= 1
            elif isinstance(c, AtMost):
                ok = n <= c.k
            elif isinstance(c, AtLeast):
                ok = n >= c.k
            elif isinstance(c, Xor):
                ok = n % 2 == c.parity
            else:
                raise TypeError(f"not a Boolean constraint: {c!r}")
        if not ok:
            return i
    return None


class Call(NamedTuple):
    """One deletion call's answer: SAT (`witness`: the true keys), UNSAT (`core`: a subset of the
    call's groups that is already UNSAT, when the backend names one), UNKNOWN (a limit)."""
    answer: str
    cpu_seconds: float
    conflicts: int | None = None
    witness: frozenset | None = None
    core: tuple[str, ...] | None = None


class SatCalls:
    """Deletion calls in ONE incremental python-sat solver over the CNF with one selector per group
    (learnt clauses carry over; an UNSAT call names its failed-assumption core)."""

    def __init__(self, cnf: Any, groups: list[str], by_group: dict[str, list[list[int]]],
                 keys: list, solver: str, chunk: int = CHUNK):
        self.cnf, self.keys, self.chunk = cnf, keys, chunk
        self.sel = {g: cnf.id((SEL, g)) for g in groups}
        self.s = _sat.new_solver(solver, [c + [-self.sel[g]] for g in groups for c in by_group[g]])
        self.params = {"backend": "sat", "sat_solver": solver, "conflicts_per_slice": chunk}

    def __call__(self, cands: list[str], limit: float | None, ctx: Context) -> Call:
        c0, k0 = time.process_time(), _conflicts(self.s)
        res = budgeted_solve(self.s, ctx, [self.sel[g] for g in cands], limit, self.chunk)
        k1 = _conflicts(self.s)
        cpu, k = time.process_time() - c0, None if k0 is None or k1 is None else k1 - k0
        if res is None:
            return Call("UNKNOWN", cpu, k)
        if res:
            return Call("SAT", cpu, k, witness=frozenset(self.cnf.keys_true(self.s.get_model(), self.keys)))
        failed = set(self.s.get_core() or [self.sel[g] for g in cands])
        return Call("UNSAT", cpu, k, core=tuple(g for g in cands if self.sel[g] in failed))

    def close(self) -> None:
        self.s.delete()


class CpsatCalls:
    """Deletion calls as fresh CP-SAT solves of the formulation's remaining groups (CP-SAT's own
    model: cardinalities native, not the CNF), one worker and pinned parameters; the call limit
    counts this process's CPU seconds (a watchdog thread stops the search: CP-SAT's own time limit
    is wall time). With FIXED_SEARCH and a witness probe (`params[PROBE]` CPU seconds) each call
    first runs CP-SAT's automatic search for at most that long, then the fixed search for the
    rest of the call's limit: the fixed depth-first search refutes well but finds models badly
    (triangle21 <= 11 without move counting, start and finish and symmetric prefix: no model
    after 600 CPU s of the fixed search, one in 0.3 s by the automatic search)."""

    def __init__(self, f: Formulation, params: dict[str, Any], order: Sequence[Key] = ()):
        self.f = f
        p = dict(params)
        self.probe = float(p.pop(PROBE, 0) or 0)
        self.p = {**p, "num_workers": 1, "enumerate_all_solutions": False}
        self.params = {"backend": "cpsat", **self.p}
        self.order = tuple(order) if self.p.get("search_branching") == "FIXED_SEARCH" else ()
        if self.p.get("search_branching") == "FIXED_SEARCH":
            if not self.order:
                raise InputError("lab core: FIXED_SEARCH without a search order (the formulation "
                                 "names none)")
            self.params["decision_strategy"] = (f"{len(self.order)} keys in the formulation's search "
                                                "order, CHOOSE_FIRST, SELECT_MAX_VALUE")
            if self.probe > 0:
                self.params[PROBE] = self.probe
        else:
            self.probe = 0.0

    def _solve(self, model: Any, branching: str | None, limit: float | None, ctx: Context) -> Any:
        """(CP-SAT status, solver) of one solve of `model` with `branching` (None: the pinned
        parameters'), stopped after `limit` CPU seconds of this process or at the run's limit."""
        import threading
        c0 = time.process_time()
        solver = _cpsat.make_solver({k: v for k, v in self.p.items() if k != "search_branching"}, ctx)
        branching = branching or self.p.get("search_branching")
        if branching is not None:   # recorded by name
            solver.parameters.search_branching = getattr(solver.parameters, branching)
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.05):
                if ctx.expired() or (limit is not None and time.process_time() - c0 >= limit):
                    solver.stop_search()
                    return
        w = threading.Thread(target=watch, daemon=True)
        w.start()
        try:
            st = solver.solve(model)
        finally:
            stop.set()
            w.join()
        if st == cp_model.MODEL_INVALID:
            raise RuntimeError("CP-SAT: MODEL_INVALID: " + (solver.solution_info() or "no reason"))
        return st, solver

    def __call__(self, cands: list[str], limit: float | None, ctx: Context) -> Call:
        c0 = time.process_time()
        cp = to_cpsat(self.f.without(*[g for g in self.f.groups if g not in cands]))
        k = 0
        st, solver = None, None
        if self.order and self.probe > 0:   # the witness probe: CP-SAT's automatic search
            st, solver = self._solve(cp.model, "AUTOMATIC_SEARCH",
                                     self.probe if limit is None else min(self.probe, limit), ctx)
            k += int(solver.num_conflicts)
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE):
            left = None if limit is None else limit - (time.process_time() - c0)
            if (left is None or left > 0) and not ctx.expired():
                if self.order:   # the engine's fixed search (a key no remaining group uses is still a var)
                    cp.model.add_decision_strategy([cp.vars[key] for key in self.order if key in cp.vars],
                                                   cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
                st, solver = self._solve(cp.model, None, left, ctx)
                k += int(solver.num_conflicts)
        cpu = time.process_time() - c0
        if solver is not None and st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Call("SAT", cpu, k, witness=frozenset(
                key for key, v in cp.vars.items() if solver.boolean_value(v)))
        if st == cp_model.INFEASIBLE:
            return Call("UNSAT", cpu, k)
        return Call("UNKNOWN", cpu, k)

    def close(self) -> None:
        pass


class _Pending:
    """The deletion calls of a status: none is made; the first call without a record stops the
    replay (`_Pending.Call`, with the call's groups)."""

    class Call(Exception):
        def __init__(self, cands: list[str]):
            super().__init__(cands)
            self.cands = cands

    def __init__(self, params: dict[str, Any]):
        self.params = params

    def __call__(self, cands: list[str], limit: float | None, ctx: Context) -> NoReturn:
        raise _Pending.Call(list(cands))

    def close(self) -> None:
        pass


class CoreFolder:
    """A `lab core --work-dir` folder: every decided call of one core search, so a rerun (or a
    longer call limit) continues instead of starting over.

        DIR/core.json        what the folder is for: the fingerprint of the formulation (every
                             group's constraints), the bound and the backend with its parameters
        DIR/calls/H.json     one call (H: SHA-256 of the fingerprint and the call's groups):
                             {groups, answer, cpu_seconds, conflicts, limit, witness | core, seal}

    Records are claims, validated on read: a SAT record's witness must satisfy every constraint of
    its call's groups (checked again, not trusted); an UNSAT record counts only with this user's
    seal (core.seal: the answer cannot be re-checked cheaply) and an UNKNOWN one only with its
    seal and a limit at least the current one. A damaged, foreign or unsealed record is redone.
    (The core's answer rests on the final re-check and the witnesses in any case; a false UNSAT
    record could at worst make that re-check fail.) A folder made for another formulation, bound or
    backend is refused (InputError)."""

    def __init__(self, path: str, fingerprint: dict[str, Any], read_only: bool = False):
        import hashlib
        import json
        import os
        self.path = path
        self.fp = hashlib.sha256(json.dumps(fingerprint, sort_keys=True, default=str).encode()).hexdigest()
        head = os.path.join(path, "core.json")
        if read_only:   # a status: the folder as it is, nothing made or written
            if not os.path.lexists(head):
                raise InputError(f"{path}: no core.json: no lab core run has started in this folder")
        else:
            from ..core.files import make_folder
            make_folder(os.path.join(make_folder(path, "lab core work folder"), "calls"),
                        "lab core work folder")
        if os.path.lexists(head):
            from ..core.inputs import read_bytes
            try:
                have = json.loads(read_bytes(head, 1 << 20, "lab core work folder"))
            except (ValueError, InputError, RecursionError) as e:
                raise InputError(f"{head}: not a lab core work folder ({e})") from None
            if not isinstance(have, dict) or have.get("fingerprint") != self.fp:
                made_for = have.get("made_for") if isinstance(have, dict) else None
                made = made_for.get("backend") if isinstance(made_for, dict) else None
                mine = fingerprint.get("backend") or {}
                old = (isinstance(made, dict) and made.get("search_branching") == "FIXED_SEARCH"
                       and PROBE not in made and PROBE in mine)
                raise InputError(f"{head}: this work folder is for another core search (its "
                                 "formulation, bound or backend differ); give another --work-dir"
                                 + ("; it was made without a witness probe: --witness-probe 0 "
                                    "goes on with it" if old else ""))
        else:
            self._write(head, {"fingerprint": self.fp, "made_for": {
                k: fingerprint[k] for k in ("instance", "bound", "backend") if k in fingerprint}})
        self.reused = 0
        self.redone: list[str] = []

    def _write(self, path: str, record: dict[str, Any]) -> None:
        import json
        import os
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            json.dump(record, fh, default=str)
        os.replace(tmp, path)

    def _name(self, cands: list[str]) -> str:
        import hashlib
        import json
        import os
        h = hashlib.sha256(json.dumps([self.fp, sorted(cands)]).encode()).hexdigest()
        return os.path.join(self.path, "calls", f"{h[:40]}.json")

    def get(self, cands: list[str], limit: float | None, f: Formulation, keys: list) -> Call | None:
        """The recorded answer of this call, if there is a valid one (module doc)."""
        import json
        import os
        from ..core import seal
        path = self._name(cands)
        if not os.path.lexists(path):
            return None
        try:
            from ..core.inputs import read_bytes
            rec = json.loads(read_bytes(path, 64 << 20, "lab core call record"))
            ok = isinstance(rec, dict) and sorted(rec.get("groups") or ()) == sorted(cands)
            ans = rec.get("answer") if ok else None
            cpu, k = float(rec["cpu_seconds"]), rec.get("conflicts")
            if ans == "SAT":
                true = frozenset(keys[i] for i in rec["witness"])
                if unmet([c for g in cands for c in f.groups[g]], true) is not None:
                    raise ValueError("its witness violates a constraint of its groups")
                return self._used(Call("SAT", cpu, k, witness=true))
            if ans in ("UNSAT", "UNKNOWN") and seal.verified(rec, self.fp):
                if ans == "UNSAT":
                    core = rec.get("core")
                    return self._used(Call("UNSAT", cpu, k, core=None if core is None else
                                           tuple(g for g in cands if g in core)))
                if rec.get("limit") is not None and (limit is None or float(rec["limit"]) < limit):
                    return None      # a longer limit now: the call is tried again
                return self._used(Call("UNKNOWN", cpu, k))
            raise ValueError("no valid answer" if ans not in ("UNSAT", "UNKNOWN")
                             else seal.unsealed_why("this lab core work folder"))
        except (ValueError, TypeError, KeyError, IndexError, InputError, OSError, RecursionError) as e:
            self.redone.append(f"{os.path.basename(path)}: {e}")
            return None

    def _used(self, c: Call) -> Call:
        self.reused += 1
        return c

    def put(self, cands: list[str], limit: float | None, c: Call, keys: list) -> None:
        from ..core import seal
        rec: dict[str, Any] = {"groups": list(cands), "answer": c.answer,
                               "cpu_seconds": round(c.cpu_seconds, 3), "conflicts": c.conflicts,
                               "limit": limit}
        if c.witness is not None:
            index = {k: i for i, k in enumerate(keys)}
            rec["witness"] = sorted(index[k] for k in c.witness if k in index)
        if c.core is not None:
            rec["core"] = list(c.core)
        self._write(self._name(cands), seal.sign(rec, self.fp))


def group_core(f: Formulation, ctx: Context, solver: str = "cadical195",
               encoding: str = "seqcounter", call_limit: float | None = None,
               chunk: int = CHUNK, backend: str = "sat", cpsat_params: dict | None = None,
               work_dir: str | None = None, fingerprint: dict | None = None,
               order: str = "given", search_order: Sequence[Key] = (),
               status: bool = False, within: Sequence[str] | None = None) -> dict[str, Any]:
    """The group core of `f` (module doc): {'status': INFEASIBLE | FEASIBLE | UNKNOWN, 'core':
    [group...], 'necessary': [group...], 'undecided': [group...], 'witnesses': {group: true keys},
    'log': one entry per solver call, 'by_group': the CNF's clauses by group, 'cnf'}.
    'INFEASIBLE' here means: every deletion call is done and the core is what is left — it still
    rests on the re-check (`recheck`: the core alone UNSAT), since no call of the search needs to
    have had the whole core (there is no separate all-groups call). Each group in 'necessary' has
    a witness, a model of the core's other groups; a group in 'undecided' hit `call_limit` (CPU
    seconds per call) also when tried again against the final core, so the core is minimal only
    when 'undecided' is empty. UNKNOWN: the run's time limit came first ('core': the smallest set
    answered UNSAT so far, if any). `backend`: 'sat' (one incremental `solver`) or 'cpsat' (fresh
    CP-SAT solves, `cpsat_params`). `work_dir`: decided calls are kept there and reused
    (CoreFolder; `fingerprint`: what else identifies the search, e.g. instance and bound).
    `search_order`: the keys CP-SAT's FIXED_SEARCH decides in order (cpsat_params with
    search_branching FIXED_SEARCH: the engine's search=fixed, Decision.search_order).
    `order`: the order groups are tried in — 'given' (the formulation's) or 'largest' (most
    clauses first). Which is faster depends on the model: the order decides WHICH minimal core is
    found (ipc-p01 <= 2: given 0.5 s CPU, core without one jump per step and the invariants;
    largest 7 s, core without jump preconditions and effects, a harder refutation).
    `status`: where the search in `work_dir` stands — the search replayed over the folder's
    records alone (validated as a run validates them), up to the first call it has no record
    of: status 'RUNNING' with that call in 'next_call' (or the run's answer when every call is
    recorded), 'necessary', 'undecided' and 'dropped' so far; no solver call, nothing written.
    `within`: search only these groups (a set known to be infeasible, e.g. an earlier core whose
    undecided groups a longer call limit should settle); the others are left out untried
    ('left_out'). The search takes the set's infeasibility on trust, as it does the whole
    formulation's: the re-check decides it."""
    if order not in ORDERS:
        raise InputError(f"lab core: order '{order}': one of " + ", ".join(ORDERS))
    inside = within_groups(f, within)
    if not f.is_cnf():
        raise InputError(f"lab core: formulation {f.name} has integer variables or Linear "
                         "constraints; group cores are computed on its CNF (the formulations of the "
                         "sat: engines)")
    cnf = to_cnf(f, encoding)
    groups = list(f.groups)
    # the CNF holds each group's clauses consecutively, in group order (Cnf compiles group by group)
    by_group: dict[str, list[list[int]]] = {}
    at = 0
    for g in groups:
        n = cnf.group_stats.get(g, {}).get("clauses", 0)
        by_group[g] = cnf.clauses[at:at + n]
        at += n
    assert at == len(cnf.clauses)
    keys = f.bool_keys()
    if status and not work_dir:
        raise InputError("lab core: a status reads a work folder: give work_dir")
    calls: Any = (SatCalls(cnf, groups, by_group, keys, solver, chunk) if backend == "sat"
                  else CpsatCalls(f, cpsat_params or _cpsat.params({}), search_order))
    if status:   # the same parameters (the folder's fingerprint), no solver
        calls.close()
        calls = _Pending(calls.params)
    folder = None
    if work_dir:
        import hashlib
        digest = hashlib.sha256()
        for g in groups:
            digest.update(repr((g, f.groups[g])).encode())
        folder = CoreFolder(work_dir, {**(fingerprint or {}), "formulation": f.name,
                                       "groups": digest.hexdigest(), "backend": calls.params,
                                       "encoding": encoding if backend == "sat" else None},
                            read_only=status)
    log: list[dict[str, Any]] = []
    out: dict[str, Any] = {"groups": groups, "vars": cnf.pool.top,
                           "clauses": sum(len(c) for c in by_group.values()),
                           "encoding": encoding, "solver": solver, "call_limit": call_limit,
                           "backend": calls.params,
                           "group_clauses": {g: len(by_group[g]) for g in groups},
                           "log": log, "by_group": by_group, "nvars": cnf.pool.top, "cnf": cnf}
    if inside != groups:
        out["left_out"] = [g for g in groups if g not in inside]
    t0 = time.process_time()
    cands = list(inside)        # the groups not dropped
    unsat_seen = False          # whether some call answered UNSAT on a superset of `cands`
    necessary: list[str] = []
    undecided: list[str] = []
    witnesses: dict[str, frozenset] = {}
    tried: dict[str, frozenset] = {}   # an undecided group: the groups its call was tried against
    testing: list[str] = []            # the groups of the call under way

    def call(without: list[str]) -> Call | None:
        """The call on `cands` minus `without` (None: the run's time limit, nothing decided)."""
        rest = [g for g in cands if g not in without]
        if ctx.expired():
            return None
        if not rest:   # no group at all: the empty conjunction is satisfiable, no call needed
            return Call("SAT", 0.0, 0, witness=frozenset())
        c = folder.get(rest, call_limit, f, keys) if folder else None
        reused = c is not None
        if c is None:
            ctx.progress(calls=len(log), testing=list(without), groups=len(rest), limit=call_limit)
            c = calls(rest, call_limit, ctx)
            if c.answer == "UNKNOWN" and ctx.expired() and (call_limit is None
                                                            or c.cpu_seconds < call_limit):
                c = c._replace(answer="TIME")   # the run's limit, not the call's: not recorded
            elif folder:
                folder.put(rest, call_limit, c, keys)
        e = {"without": without[0] if len(without) == 1 else list(without), "groups": len(rest),
             "answer": c.answer if c.answer != "TIME" else "UNKNOWN",
             "cpu_seconds": round(c.cpu_seconds, 3), "conflicts": c.conflicts}
        if reused:
            e["reused"] = True
        log.append(e)
        ctx.progress(calls=len(log), last=e)
        return None if c.answer == "TIME" else c

    def drop(part: list[str]) -> bool:
        """Try to drop the groups of `part` together, else halves of it, down to single groups
        (each then necessary, dropped or undecided). False when the run's time limit stopped it."""
        nonlocal cands, unsat_seen, testing
        part = [g for g in part if g in cands and g not in necessary]
        if not part:
            return True
        testing = part
        c = call(part)
        if c is None:
            return False
        if c.answer == "UNSAT":
            rest = [g for g in cands if g not in part]
            cands = [g for g in rest if c.core is None or g in c.core or g in necessary]
            unsat_seen = True
            return True
        if len(part) == 1:
            if c.answer == "SAT":
                necessary.append(part[0])
                witnesses[part[0]] = c.witness or frozenset()
                if part[0] in undecided:
                    undecided.remove(part[0])
            else:
                tried[part[0]] = frozenset(cands)
                if part[0] not in undecided:
                    undecided.append(part[0])
            return True
        half = (len(part) + 1) // 2
        return drop(part[:half]) and drop(part[half:])

    pending: _Pending.Call | None = None
    try:
        finished = drop(sorted(inside, key=lambda g: -len(by_group[g])) if order == "largest"
                        else list(inside))
        # a group undecided against a larger set may be decided against the final one (smaller,
        # so its calls are easier): each is tried again while that changes anything
        while finished and undecided:
            before = (list(cands), list(undecided))
            for g in list(undecided):
                if g in cands and tried.get(g) != frozenset(cands) and not (finished := drop([g])):
                    break
            undecided[:] = [g for g in undecided if g in cands]
            if before == (cands, undecided):
                break
    except _Pending.Call as e:   # a status: the first call without a record
        pending, finished = e, False
    finally:
        calls.close()
    done = {**out, "calls": len(log), "search_cpu_seconds": round(time.process_time() - t0, 3),
            "dropped": [g for g in inside if g not in cands]}   # by an UNSAT call
    if folder:
        done["work_dir"] = {"path": folder.path, "reused_calls": folder.reused,
                            "redone_records": folder.redone}
    core = [g for g in groups if g in cands]
    if pending is not None:
        without = [g for g in cands if g not in pending.cands]
        return {**done, "status": "RUNNING", "core": core if unsat_seen else [],
                "necessary": list(necessary), "undecided": list(undecided),
                "next_call": {"without": without, "groups": len(pending.cands),
                              "call_limit": call_limit},
                "reason": f"{len(log)} calls recorded; the next one: without "
                + ", ".join(f"'{g}'" for g in without) + f" ({len(pending.cands)} groups stay)"}
    if not finished:
        return {**done, "status": "UNKNOWN", "core": core if unsat_seen else [],
                "necessary": [g for g in core if g in necessary],
                "undecided": [g for g in core if g not in necessary],
                "reason": "time limit while testing " + ", ".join(f"'{g}'" for g in testing) + ": "
                + (f"the {len(core)} groups left answered UNSAT together, " if unsat_seen else
                   "no call has answered UNSAT yet, ") + f"{len(necessary)} shown necessary so far"}
    return {**done, "status": "INFEASIBLE", "core": core,
            "necessary": [g for g in core if g in necessary],
            "undecided": [g for g in core if g in undecided], "witnesses": witnesses}


def within_groups(f: Formulation, within: Sequence[str] | None) -> list[str]:
    """The groups of `f` a core search tries: all of them, or those named in `within` (in the
    formulation's order; a str is one name); InputError for a name `f` has not, or an empty
    `within`."""
    if within is None:
        return list(f.groups)
    if isinstance(within, str):   # one group's name, not its characters
        within = [within]
    names = [w for w in within if isinstance(w, str)]
    if len(names) != len(within):
        raise InputError("lab core --within: group names, not " + repr(list(within)))
    unknown = [w for w in names if w not in f.groups]
    if unknown:
        raise InputError("lab core --within: no group " + ", ".join(f"'{w}'" for w in unknown)
                         + f" in {f.name}; its groups: " + ", ".join(f"'{g}'" for g in f.groups))
    if not names:
        raise InputError("lab core --within: no group given")
    return [g for g in f.groups if g in names]


def recheck(r: dict[str, Any], f: Formulation, ctx: Context, log: ProofLog,
            search_order: Sequence[Key] = ()) -> dict[str, Any]:
    """What a core's claims rest on, checked apart from the search: the core's groups alone (the
    same clauses, no selectors) UNSAT in a fresh solver (proof-logged with `log`: with certify,
    its proof — DRAT, or LRAT from solver 'cpsat', which follows `search_order` as a fixed search
    when given — goes to the runner's check; 'model': the solver's model when it answers SAT);
    each necessary group's witness, the assignment the search found without it, checked against
    every constraint of the core's other groups as the formulation states them."""
    core, by_group = r["core"], r["by_group"]
    clauses = [c for g in core for c in by_group[g]]
    out: dict[str, Any] = {"core_vars": len({abs(x) for c in clauses for x in c}),
                           "core_clauses": len(clauses)}
    c0 = time.process_time()
    claim = "the groups " + ", ".join(f"'{g}'" for g in core) + " alone are infeasible"
    if log.solver_name == "cpsat":   # CP-SAT on the core's CNF (LRAT when certifying)
        cnf = r["cnf"]
        known = cnf.pool.obj2id   # only keys the CNF has (id() would allocate new variables)
        order = [known[k] for k in search_order if k in known] or None
        run = log.prove(clauses, claim, r["nvars"], order=order, time_limit=ctx.remaining())
        res = {"SAT": True, "UNSAT": False}.get(run.status)
        if res:
            out["model"] = run.model
        out["recheck_solver"] = {"solver": "cpsat", **run.params}
    else:
        with log.solver(clauses) as s:   # in slices, so the run's time limit stops it with a report
            res = budgeted_solve(s, ctx, [], None)
            if res is False:
                log.unsat(s, clauses, claim, r["nvars"])
            elif res:
                out["model"] = s.get_model()
    out["core_recheck"] = {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[res]
    out["recheck_cpu_seconds"] = round(time.process_time() - c0, 3)
    witnesses = {}
    for g in core:
        if g not in r["witnesses"]:
            witnesses[g] = "UNKNOWN (call limit)"
            continue
        rest = [c for h in core if h != g for c in f.groups[h]]
        bad = unmet(rest, r["witnesses"][g])
        witnesses[g] = ("SAT (model checked)" if bad is None
                        else f"SAT, but the model violates {rest[bad]}")
    out["without_each"] = witnesses
    return out


def _fixed_order(decision: Decision, backend: str, cpsat_params: dict | None) -> Sequence[Key]:
    """The keys CP-SAT's fixed search decides in order (none unless FIXED_SEARCH on cpsat)."""
    return (decision.search_order if backend == "cpsat" and (cpsat_params or {}).get(
        "search_branching") == "FIXED_SEARCH" else ())


def _search(decision: Decision, inst: Any, ctx: Context, solver: str, encoding: str,
            call_limit: float | None, backend: str, cpsat_params: dict | None,
            work_dir: str | None, order: str, status: bool = False,
            within: Sequence[str] | None = None) -> dict[str, Any]:
    """group_core of `decision` on `inst` as lab core runs it (its work folder's fingerprint:
    `within` is not part of it, since a call is the same call whichever search makes it)."""
    return group_core(decision.formulation, ctx, solver, encoding, call_limit, backend=backend,
                      cpsat_params=cpsat_params, work_dir=work_dir,
                      fingerprint={"instance": getattr(inst, "name", None),
                                   "bound": decision.bound_text}, order=order,
                      search_order=_fixed_order(decision, backend, cpsat_params), status=status,
                      within=within)


def core_status(decision: Decision, inst: Any, work_dir: str, solver: str = "cadical195",
                encoding: str = "seqcounter", call_limit: float | None = None,
                backend: str = "sat", cpsat_params: dict | None = None,
                order: str = "given", within: Sequence[str] | None = None) -> dict[str, Any]:
    """Where the lab core run in `work_dir` (the same decision, backend, call limit, order and
    `within`) stands: group_core(status=True), without its CNF (JSON-able)."""
    r = _search(decision, inst, Context(), solver, encoding, call_limit, backend, cpsat_params,
                work_dir, order, status=True, within=within)
    if r["status"] == "INFEASIBLE":   # the search is done; the run's answer rests on its re-check
        r["status"] = "RECHECK"
        r["reason"] = (f"every deletion call is recorded ({r['calls']}); the core: "
                       + ", ".join(f"'{g}'" for g in r["core"]) + "; left: the run's re-check "
                       "(the core alone, a fresh solve)")
    return {k: v for k, v in r.items() if k not in ("cnf", "by_group", "witnesses")}


def core_engine(decision: Decision, solver: str = "cadical195", encoding: str = "seqcounter",
                call_limit: float | None = None, backend: str = "sat",
                cpsat_params: dict | None = None,
                work_dir: str | None = None,
                order: str = "given",
                within: Sequence[str] | None = None) -> Callable[[Any, Task, Context], Outcome]:
    """An engine (instance, task, ctx) -> Outcome for the runner: the group core of `decision`'s
    formulation (deletion calls on `backend`: 'sat' or 'cpsat'; the re-check on `solver`, with
    'cpsat' on the core's CNF — a fixed search in decision.search_order when `cpsat_params` has
    FIXED_SEARCH).
    INFEASIBLE with the core in stats['core'] (and, with ctx.options['certify'], the proof of the
    re-check for the runner to check; stats['undecided'] non-empty: the core is not shown
    minimal); FEASIBLE with the decoded solution when the decision call is feasible (then every
    group tested necessary and the re-check of all of them answers SAT: no core; the runner checks
    the solution); UNKNOWN at the run's time limit, with what is known, and when the groups of
    `within` (group_core) admit a solution: there is no core among them, and the decision call
    itself is not decided."""
    def run(inst: Any, task: Task, ctx: Context) -> Outcome:
        f = decision.formulation
        log = ProofLog(ctx, solver, f"core-{getattr(inst, 'name', 'instance')}")
        fixed = _fixed_order(decision, backend, cpsat_params)
        r = _search(decision, inst, ctx, solver, encoding, call_limit, backend, cpsat_params,
                    work_dir, order, within=within)
        params = {"core_backend": backend, "sat_solver": solver, "encoding": encoding,
                  "bound": decision.bound_text, "call_limit_cpu_seconds": call_limit,
                  "conflicts_per_slice": CHUNK, "order": order}
        if r.get("left_out"):
            params["within"] = [g for g in r["groups"] if g not in r["left_out"]]
        if backend == "cpsat":
            params["cpsat_parameters"] = r["backend"]
        stats = {k: v for k, v in r.items() if k not in ("cnf", "by_group", "witnesses")}
        stats["group_sizes"] = {g: len(cs) for g, cs in f.groups.items()}
        if r["status"] == "UNKNOWN":
            return Outcome(Status.UNKNOWN, stats=stats, params=params, reason=r.get("reason"))
        ctx.progress(recheck=list(r["core"]), solver=solver, certify=log.on)
        stats.update(recheck(r, f, ctx, log, fixed))
        model = stats.pop("model", None)
        if model is not None and r["core"] == r["groups"]:
            sol = decision.decode(r["cnf"].keys_true(model, f.projection))
            return Outcome(Status.FEASIBLE, solutions=(sol,), stats=stats, params=params,
                           reason=f"{decision.bound_text} is feasible: there is no core")
        if model is not None and r.get("left_out"):
            return Outcome(Status.UNKNOWN, stats=stats, params=params,
                           reason="the groups searched (within) admit a solution: there is no core "
                           "among them; the groups left out (" + ", ".join(
                               f"'{g}'" for g in r["left_out"]) + ") were not tried")
        problems = [g for g, w in stats["without_each"].items()
                    if g not in r["undecided"] and not w.startswith("SAT (")]
        if stats["core_recheck"] != "UNSAT" or problems:
            why = (f"the core re-check answered {stats['core_recheck']}" if stats["core_recheck"] != "UNSAT"
                   else "without " + ", ".join(f"'{g}': {stats['without_each'][g]}" for g in problems))
            st = Status.UNKNOWN if stats["core_recheck"] == "UNKNOWN" and not problems else Status.ERROR
            return Outcome(st, stats=stats, params=params, reason=f"re-check: {why}")
        stats["minimal"] = not r["undecided"]
        reason = None
        if r["undecided"]:   # each group with its longest call (a folder's record may be longer)
            ran = {g: max((e["cpu_seconds"] for e in r["log"] if e["without"] == g
                           and e["answer"] == "UNKNOWN"), default=call_limit or 0)
                   for g in r["undecided"]}
            one = len(ran) == 1
            reason = ("a core, not shown minimal: whether " + ", ".join(f"'{g}'" for g in ran)
                      + f" {'is' if one else 'are'} needed is unknown (the call without "
                      + ("it" if one else "each") + " ran out of its CPU limit: "
                      + ", ".join(f"'{g}' {t:.0f} s" for g, t in ran.items()) + ")")
        cert = log.certificate(f"{decision.bound_text} is infeasible: the groups "
                               + ", ".join(f"'{g}'" for g in r["core"]) + " alone admit no solution",
                               f"the CNF of the {f.name} formulation's groups states those rules "
                               f"(cardinality constraints in the {encoding} encoding)")
        return Outcome(Status.INFEASIBLE, stats=stats, params=params, certificate=cert, reason=reason)
    return run


# ---- the families' own backends for the decision engine (ablation) -------------------------------
class SatModel:
    """A formulation's CNF in a python-sat solver (blocking clauses added incrementally)."""

    def __init__(self, f: Formulation, solver: str, encoding: str):
        self.cnf = to_cnf(f, encoding)
        self.s = _sat.new_solver(solver, self.cnf.clauses)
        self.st: dict[str, Any] = {}
        self.proj = [(k, self.cnf.id(k)) for k in f.projection]
        self.blocks = 0

    def solve(self, ctx: Context) -> Answer:
        res = _sat.solve_limited(self.s, ctx)
        _sat.add_stats(self.st, self.s, self.cnf.pool.top, len(self.cnf.clauses) + self.blocks)
        if res is None:
            return Answer(Status.UNKNOWN, reason="time limit")
        if not res:
            return Answer(Status.INFEASIBLE)
        return Answer(Status.OPTIMAL, self.cnf.keys_true(self.s.get_model(), (k for k, _ in self.proj)))

    def block(self, true: set) -> None:
        self.s.add_clause([v if p else -v for (k, p), (_, v) in zip(no_good(true, (k for k, _ in self.proj)), self.proj)])
        self.blocks += 1

    def stats(self) -> dict[str, Any]:
        return dict(self.st)


class CpsatModel:
    """A formulation in CP-SAT (pinned parameters; blocking clauses added between calls)."""

    def __init__(self, f: Formulation, objective: tuple | None, params: dict):
        self.cp = to_cpsat(f)
        self.params = params
        self.objective = objective
        if objective is not None:
            sense, terms, offset = objective
            expr = sum(c * self.cp.var(k) for c, k in terms) + offset
            (self.cp.model.minimize if sense == "min" else self.cp.model.maximize)(expr)
        self.totals = {"conflicts": 0, "branches": 0, "solver_calls": 0}

    def solve(self, ctx: Context) -> Answer:
        st, solver = _cpsat.solve(self.cp.model, self.params, ctx)
        self.totals["conflicts"] += solver.num_conflicts
        self.totals["branches"] += solver.num_branches
        self.totals["solver_calls"] += 1
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            true = {k for k in self.cp.formulation.projection if solver.value(self.cp.vars[k])}
            value = solver.objective_value if self.objective is not None else None
            return Answer(st if self.objective is not None else Status.OPTIMAL, true, value)
        return Answer(st, reason="time limit" if st is Status.UNKNOWN else None)

    def block(self, true: set) -> None:
        keys = self.cp.formulation.projection
        self.cp.model.add_bool_or([self.cp.lit(k, p) for k, p in no_good(true, keys)])

    def stats(self) -> dict[str, Any]:
        return {**_cpsat.model_size(self.cp.model), **self.totals}


def family_backend(kind: str, options: dict[str, Any]) -> Backend:
    """The decision engine's backend for a configuration of kind sat | cpsat (its solver options);
    mip, maxsat, cpmpy: theirs."""
    if kind == "sat":
        solver, enc = options.get("solver", "cadical195"), options.get("encoding", "seqcounter")
        return Backend(f"python-sat {solver}", lambda f, obj: SatModel(f, solver, enc),
                       {"sat_solver": solver, "encoding": enc}, objective=False)
    if kind == "cpsat":
        p = _cpsat.params(options)
        return Backend("CP-SAT", lambda f, obj: CpsatModel(f, obj, p), p, objective=False)
    if kind == "mip":
        from .mip import backend
        return backend(options)
    if kind == "maxsat":
        from .maxsat import backend
        return backend(options)
    if kind == "cpmpy":
        from .cpmpy_bridge import backend
        return backend(options)
    raise InputError(f"lab ablate: no decision backend for engines of kind '{kind}' (sat, cpsat, "
                     "mip, maxsat, cpmpy)")


def ablation_engine(kind: str, drop: tuple[str, ...]) -> Callable[[Any, Task, Context], Outcome]:
    """An engine running the configuration's formulation hook (ctx.options['formulation']) on
    the `kind` backend, every decision call without the groups `drop`."""
    from .paradigm import run as drive

    def run(inst: Any, task: Task, ctx: Context) -> Outcome:
        out = drive(inst, task, ctx, family_backend(kind, ctx.options), drop=drop)
        return out
    return run


__all__ = ["group_core", "recheck", "core_engine", "ablation_engine", "family_backend",
           "SatModel", "CpsatModel"]
