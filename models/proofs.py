"""Proof production: run a proof-logging solver on a DIMACS file and write its refutation beside it.

    prove(cnf, proof=None, solver=...)  -> ProofRun (status, proof file, format, solve CPU seconds,
                                          the pinned parameters); run.certify() checks the proof

Solvers (PROOF_SOLVERS; anything else is refused with the list):

    cadical195, glucose4, lingeling   python-sat with `with_proof=True`. The solver streams its
            proof into a temporary file as it runs; it is copied byte for byte (binary DRAT from
            CaDiCaL, text DRUP from Glucose and Lingeling) beside the CNF, `proof` (default
            CNF.drat). (python-sat's `get_proof()` rewrites the binary into Python strings, slower
            than the solve; it is used only when the temporary file is not reachable.)
    cpsat   OR-tools CP-SAT on the CNF as BoolOr constraints, presolve off, one worker, seed 0,
            `output_lrat_proof` and its own LRAT check (`check_lrat_proof`; VALID / INVALID is
            recorded as `producer_check`). CP-SAT writes one binary file per sub-solver at the
            absl flag `cp_model_lrat_output_prefix` (default /tmp/lrat: fixed names shared by every
            run); each run gets its own folder by setting that flag (through absl's flag
            reflection, under a lock, since the flag is process-wide). The sub-solver file that
            derives the empty clause is converted to text LRAT (default CNF.lrat): imported
            clauses are matched to the CNF's clauses by their literals (ids 1..C), lemmas are
            numbered on. A clause CP-SAT imports that is not in the CNF gets an id no clause has,
            so a proof using it is REJECTED.
    ext:CMD external solver writing DRAT, e.g. `ext:cadical` (Debian's CaDiCaL) runs
            `cadical -q CNF PROOF` (`binary=False` adds `--binary=false`); exit 20 = UNSAT,
            10 = SAT. CPU seconds are the child's (getrusage).

A SAT answer has no proof (status SAT, proof None). Solve seconds are CPU seconds.
"""
from __future__ import annotations

import ctypes
import glob
import os
import re
import resource
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.files import write_atomic
from ..core.result import InputError
from ..certify import Certificate, Verdict, certify

PYSAT_PROOF_SOLVERS = ("cadical195", "glucose4", "lingeling")
PROOF_SOLVERS = PYSAT_PROOF_SOLVERS + ("cpsat", "ext:CMD")
SAT, UNSAT = "SAT", "UNSAT"


@dataclass
class ProofRun:
    """One solver call on one CNF file: its answer and, for UNSAT, the proof it wrote."""

    status: str                    # SAT or UNSAT
    solver: str
    cnf: Path
    proof: Path | None             # None for SAT
    format: str | None             # drat or lrat
    solve_seconds: float           # CPU seconds of the solve
    params: dict[str, Any] = field(default_factory=dict)
    producer_check: str | None = None   # the producer's own proof check (CP-SAT: VALID / INVALID)
    stats: dict[str, Any] = field(default_factory=dict)
    model: list[int] | None = None      # CP-SAT, SAT: the model (signed literals 1..V)

    def certify(self, **kw) -> Certificate:
        """Check this run's proof (certify(cnf, proof)); the solver's figures join the stats."""
        if self.status != UNSAT or self.proof is None:
            return Certificate(self.format, Verdict.NOT_CERTIFIABLE,
                               f"{self.solver} answered {self.status}: there is no refutation to check",
                               {"cnf": str(self.cnf)})
        c = certify(self.cnf, self.proof, format=self.format or "auto", **kw)
        c.stats.update(solver=self.solver, solve_seconds=self.solve_seconds,
                       producer_check=self.producer_check, proof_bytes=self.proof.stat().st_size)
        return c


def proof_capable(solver: str) -> str | None:
    """None when `solver` can log proofs, else the reason it cannot (for NOT-CERTIFIABLE)."""
    if solver in PYSAT_PROOF_SOLVERS or solver == "cpsat" or solver.startswith("ext:"):
        return None
    return (f"solver {solver} cannot log proofs here; proof-logging solvers: "
            + ", ".join(PROOF_SOLVERS))


def prove(cnf: str | Path, proof: str | Path | None = None, *, solver: str = "cadical195",
          binary: bool = True, seed: int = 0, time_limit: float | None = None,
          order: list[int] | None = None, producer_check: bool = True,
          scratch: str | Path | None = None) -> ProofRun:
    """Solve DIMACS file `cnf` with a proof-logging `solver` (PROOF_SOLVERS); for UNSAT its proof
    is written to `proof` (default: beside the CNF, .drat or .lrat). `binary`: binary DRAT for
    ext:cadical. `order` (CP-SAT only): a fixed search, branching on these variables first, in
    this order, true first (FIXED_SEARCH; e.g. a planning model's step variables in time order).
    `producer_check` (CP-SAT only): also CP-SAT's own LRAT check (`check_lrat_proof`, recorded
    as `producer_check`; about a fifth of the solve's CPU on peg cubes; our checker runs anyway).
    `scratch` (CP-SAT only): the folder for its binary LRAT files' private folder (default: the
    system's temporary folder; a caller that may kill the run names one it cleans up).
    `seed`, `time_limit`: CP-SAT's random seed and max_time_in_seconds (at the limit
    the status is UNKNOWN; the other solvers take no limit here)."""
    reason = proof_capable(solver)
    if reason:
        raise InputError(reason)
    cnf = Path(cnf)
    if not cnf.is_file():
        raise InputError("no such CNF file", file=cnf)
    ext = ".lrat" if solver == "cpsat" else ".drat"
    proof = Path(proof) if proof is not None else cnf.with_suffix(ext)
    if not proof.parent.is_dir():
        raise InputError(f"cannot write the proof: folder {str(proof.parent)!r} does not exist",
                         file=proof)
    if solver.startswith("ext:"):
        return _prove_external(cnf, proof, solver, binary)
    from pysat.formula import CNF
    try:
        f = CNF(from_file=str(cnf))
    except Exception as e:  # python-sat's parser: any failure is bad input
        raise InputError(f"python-sat cannot read it: {e}", file=cnf) from None
    if solver == "cpsat":
        return _prove_cpsat(cnf, proof, f.clauses, f.nv, seed, time_limit, order, producer_check,
                            scratch)
    if order is not None:
        raise InputError(f"a fixed search order is a CP-SAT option; solver {solver} has none")
    return _prove_pysat(cnf, proof, f.clauses, solver)


# ---- python-sat -------------------------------------------------------------------------------
def copy_proof(s, proof: Path, raw: bool = True) -> str:
    """Write the proof of python-sat solver `s` (with_proof=True, after an UNSAT answer) to
    `proof`; `raw`: copy the solver's proof file byte for byte (else get_proof()). Returns how."""
    backend = s.solver
    prfile, prfp = getattr(backend, "prfile", None), getattr(backend, "prfp", None)
    if raw and prfile is not None and prfp is not None:
        import pysolvers
        pysolvers.flushpr(prfp)
        prfile.seek(0)

        def copy(tmp):
            with open(tmp, "wb") as out:
                shutil.copyfileobj(prfile, out, 1 << 20)
        how = "raw"
    else:
        def copy(tmp):
            with open(tmp, "w") as out:
                for line in s.get_proof():
                    out.write(line + "\n")
        how = "get_proof"
    write_atomic(proof, copy, what="proof")
    return how


def _prove_pysat(cnf: Path, proof: Path, clauses, solver: str, raw: bool = True) -> ProofRun:
    """python-sat with proof logging; `raw`: copy the solver's proof file (else get_proof())."""
    from pysat.solvers import Solver
    with Solver(name=solver, bootstrap_with=clauses, with_proof=True) as s:
        t0 = time.process_time()
        sat = s.solve()
        secs = time.process_time() - t0
        if sat:
            return ProofRun(SAT, solver, cnf, None, None, round(secs, 3), {"with_proof": True},
                            model=s.get_model())
        how = copy_proof(s, proof, raw)
    return ProofRun(UNSAT, solver, cnf, proof, "drat", round(secs, 3),
                    {"with_proof": True}, stats={"copied": how})


# ---- external -----------------------------------------------------------------------------------
def _prove_external(cnf: Path, proof: Path, solver: str, binary: bool) -> ProofRun:
    argv = shlex.split(solver[len("ext:"):])
    if not argv:
        raise InputError("ext: needs a command, e.g. ext:cadical")
    exe = shutil.which(argv[0])
    if exe is None:
        raise InputError(f"external solver '{argv[0]}' not found on PATH")
    if "-q" not in argv:
        argv.append("-q")
    if not binary:
        argv.append("--binary=false")
    argv = [exe] + argv[1:] + [str(cnf), str(proof)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(argv, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    secs = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 3)
    params = {"argv": [Path(argv[0]).name] + argv[1:-2]}
    if r.returncode == 10:
        return ProofRun(SAT, solver, cnf, None, None, secs, params)
    if r.returncode != 20:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"{argv[0]} exited with status {r.returncode} (not 10 or 20): {tail[0]}")
    if not proof.is_file():
        raise RuntimeError(f"{argv[0]} answered UNSAT but wrote no proof file {proof}")
    return ProofRun(UNSAT, solver, cnf, proof, "drat", secs, params)


# ---- CP-SAT -----------------------------------------------------------------------------------
_FLAG_LOCK = threading.Lock()
# absl's inline namespace in the mangled names, by the ortools wheels' absl library version
_ABSL_LTS = ("lts_20250814", "lts_20250512", "lts_20250127", "lts_20240722", "lts_20240116")
_flag_api: tuple | None = None


def _absl_flag_api():
    """(FindCommandLineFlag, CommandLineFlag::ParseFrom) from ortools' absl libraries, or None."""
    global _flag_api
    if _flag_api is not None:
        return _flag_api or None
    import ortools
    libdir = Path(ortools.__file__).parent / ".libs"
    found = ()
    try:
        refl = ctypes.CDLL(glob.glob(str(libdir / "libabsl_flags_reflection.so*"))[0])
        cmf = ctypes.CDLL(glob.glob(str(libdir / "libabsl_flags_commandlineflag.so*"))[0])
        for lts in _ABSL_LTS:
            n = str(len(lts))
            find = getattr(refl, f"_ZN4absl{n}{lts}19FindCommandLineFlagESt17basic_string_viewIcSt11char_traitsIcEE", None)
            parse = getattr(cmf, f"_ZN4absl{n}{lts}15CommandLineFlag9ParseFromESt17basic_string_viewIcSt11char_traitsIcEEPNSt7__cxx1112basic_stringIcS4_SaIcEEE", None)
            if find is not None and parse is not None:
                find.restype, find.argtypes = ctypes.c_void_p, [ctypes.c_size_t, ctypes.c_char_p]
                parse.restype = ctypes.c_bool
                parse.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p]
                found = (find, parse)
                break
    except (IndexError, OSError):
        found = ()
    _flag_api = found
    return found or None


def _set_absl_flag(name: str, value: str) -> bool:
    """Set absl flag `name` of the ortools library to `value` (string_view ABI: length, pointer)."""
    api = _absl_flag_api()
    if api is None:
        return False
    find, parse = api
    bname, bval = name.encode(), value.encode()
    flag = find(len(bname), bname)
    if not flag:
        return False
    err = ctypes.create_string_buffer(64)  # an empty std::string: pointer to its inline buffer
    base = ctypes.addressof(err)
    ctypes.c_void_p.from_address(base).value = base + 16
    ctypes.c_size_t.from_address(base + 8).value = 0
    return bool(parse(flag, len(bval), bval, base))


def convert_cpsat_lrat(files: list[Path], clauses, out: Path) -> dict[str, Any]:
    """Text LRAT against the CNF `clauses` from CP-SAT's binary files (lrat0.bin: the model
    loading's clauses and inferences, then one file per sub-solver): file 0, then the sub-solver
    file that derives the empty clause (else the one with most lemmas). File 0's deletions are
    left out (CP-SAT's merger ignores them too: a later file may still import those clauses).
    The conversion's rules and kernels: models/cpsat_lrat.py."""
    from .cpsat_lrat import Converter, Steps
    chosen = [Steps(files[0])] if files else []
    if chosen and not chosen[0].empty_and_lemmas()[0] and len(files) > 1:
        scan = [(Steps(p).empty_and_lemmas(), p) for p in files[1:]]
        (_, _), best = max(scan, key=lambda t: t[0])
        chosen.append(Steps(best))
    counts: dict[str, Any] = {}

    def write(tmp):
        with open(tmp, "wb") as f:
            w = Converter(clauses, chosen, f)
            for i, steps in enumerate(chosen):
                w.convert(steps, deletions=i > 0)
            counts.update(w.counts)
    write_atomic(out, write, what="proof")
    counts["subsolver_files"] = [p.name for p in files]
    return counts


def _prove_cpsat(cnf: Path, proof: Path, clauses, nvars: int, seed: int,
                 time_limit: float | None = None, order: list[int] | None = None,
                 producer_check: bool = True, scratch: str | Path | None = None) -> ProofRun:
    from ortools.sat.python import cp_model
    model = cp_model.CpModel()
    xs = [model.NewBoolVar(f"x{v}") for v in range(1, nvars + 1)]
    for c in clauses:
        model.AddBoolOr([xs[l - 1] if l > 0 else xs[-l - 1].Not() for l in c])
    solver = cp_model.CpSolver()
    params = {"num_workers": 1, "cp_model_presolve": False, "random_seed": seed,
              "output_lrat_proof": True, "check_lrat_proof": bool(producer_check)}
    for k, v in params.items():
        setattr(solver.parameters, k, v)
    if order is not None:
        if any(not 1 <= v <= nvars for v in order):
            raise InputError(f"fixed search order: a variable outside 1..{nvars}", file=cnf)
        model.add_decision_strategy([xs[v - 1] for v in order], cp_model.CHOOSE_FIRST,
                                    cp_model.SELECT_MAX_VALUE)
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
        params["search_branching"] = "FIXED_SEARCH"
        params["decision_strategy"] = f"{len(order)} variables in order, CHOOSE_FIRST, SELECT_MAX_VALUE"
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(float(time_limit), 0.001)
    solver.parameters.log_search_progress = True
    solver.parameters.log_to_stdout = False
    log: list[str] = []
    solver.log_callback = log.append
    with _FLAG_LOCK, tempfile.TemporaryDirectory(prefix="puzzlesat-cpsat-lrat-", dir=scratch) as tmp:
        if not _set_absl_flag("cp_model_lrat_output_prefix", os.path.join(tmp, "lrat")):
            raise RuntimeError("cannot direct CP-SAT's LRAT files to a private folder with this "
                               "ortools build (absl flag reflection not found)")
        try:
            t0 = time.process_time()
            status = solver.Solve(model)
            secs = round(time.process_time() - t0, 3)
        finally:
            _set_absl_flag("cp_model_lrat_output_prefix", "/tmp/lrat")
        name = solver.StatusName(status)
        m = re.search(r"LRAT_status:\s*(\w+)", "\n".join(log))
        own = m.group(1) if m else None
        if name == "OPTIMAL" or name == "FEASIBLE":
            model = [v if solver.BooleanValue(xs[v - 1]) else -v for v in range(1, nvars + 1)]
            return ProofRun(SAT, "cpsat", cnf, None, None, secs, params, own, model=model)
        if name == "UNKNOWN" and time_limit is not None:
            return ProofRun("UNKNOWN", "cpsat", cnf, None, None, secs, params, own)
        if name != "INFEASIBLE":
            raise RuntimeError(f"CP-SAT ended {name} on a pure clause model")
        files = sorted(Path(tmp).glob("lrat*.bin"), key=lambda p: int(p.stem[4:] or 0))
        stats = convert_cpsat_lrat(files, clauses, proof)
    return ProofRun(UNSAT, "cpsat", cnf, proof, "lrat", secs, params, own, stats)
