"""Proof logging for the SAT engines (`certify=True`): every UNSAT call an engine makes writes the
exact CNF of that call and the solver's refutation into the run's folder; the engine's Outcome
carries the list (its `certificate`), and the runner checks each proof with `puzzlesat.certify`
after the engine has returned (the engine is never trusted with the verdict).

    ProofLog(ctx, solver, what)   the run folder (under option proof_dir, else the system's
                                  temporary folder); off when ctx.options["certify"] is false
    log.solver(clauses)           a fresh python-sat solver, proof logging on (with_proof=True)
    log.unsat(s, clauses, claim)  after `s` answered UNSAT: CNF k.cnf and proof k.drat written
    log.refute(clauses, claim)    a fresh proof-logging call on `clauses` that must answer UNSAT
                                  (a count's final call: the formula plus N blocking clauses)
    log.prove(clauses, claim)     a fresh models.proofs.prove call (any answer; solver 'cpsat':
                                  CP-SAT's LRAT, e.g. with a fixed search order)
    log.certificate(claim, ...)   the Outcome's `certificate`: a CertificateClaim (unchecked)

Proofs come from python-sat's `with_proof=True` (models/proofs.py: cadical195 binary DRAT,
glucose4 / lingeling text DRUP), copied byte for byte. Each logged call uses a solver that made
that one call from scratch with no assumptions, so its proof refutes exactly the CNF written.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from ..core.result import CertificateClaim, Context, InputError, ProofArtifact
from . import _sat
from .proofs import PYSAT_PROOF_SOLVERS, ProofRun, copy_proof, prove


def not_certifiable(reason: str) -> CertificateClaim:
    """The claim of an answer no proof backs, and why (the runner makes it NOT-CERTIFIABLE)."""
    return CertificateClaim.refusal(reason)


def check_proof_solver(solver: str, engine: str = "") -> None:
    """InputError unless python-sat `solver` can log proofs."""
    if solver not in PYSAT_PROOF_SOLVERS:
        raise InputError(f"certify: SAT solver '{solver}'" + (f" of engine {engine}" if engine else "")
                         + " cannot log proofs; proof-logging solvers: " + ", ".join(PYSAT_PROOF_SOLVERS))


def write_cnf(path: Path, clauses: Sequence[Sequence[int]], nvars: int = 0) -> Path:
    """DIMACS file of `clauses` (header variables: the larger of `nvars` and the largest used)."""
    top = max(nvars, max((abs(x) for c in clauses for x in c), default=0))
    with open(path, "w") as f:
        f.write(f"p cnf {top} {len(clauses)}\n")
        f.writelines(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return path


class ProofLog:
    """The run folder of one certified engine run and the proofs written into it."""

    def __init__(self, ctx: Context, solver: str, what: str = "run"):
        opts = ctx.options
        self.on = bool(opts.get("certify"))
        self.solver_name = solver
        self.proofs: list[dict[str, Any]] = []
        self.folder: Path | None = None
        if not self.on:
            return
        if solver != "cpsat":   # cpsat: only through prove() (LRAT on a CNF file)
            check_proof_solver(solver)
        base = opts.get("proof_dir") or tempfile.gettempdir()
        if not os.path.isdir(base):
            raise InputError(f"option proof_dir={base!r}: no such folder")
        self.folder = Path(tempfile.mkdtemp(prefix=f"puzzlesat-proof-{what}-", dir=base))

    def solver(self, clauses: Sequence[Sequence[int]]):
        """A fresh solver loaded with `clauses`; with proof logging when certifying."""
        if not self.on:
            return _sat.new_solver(self.solver_name, clauses)
        from pysat.solvers import Solver
        return Solver(name=self.solver_name, bootstrap_with=[list(c) for c in clauses], with_proof=True)

    def _paths(self) -> tuple[Path, Path]:
        k = len(self.proofs) + 1
        return self.folder / f"{k}.cnf", self.folder / f"{k}.drat"

    def unsat(self, s, clauses: Sequence[Sequence[int]], claim: str, nvars: int = 0) -> None:
        """Record solver `s`'s refutation of `clauses` (its one call answered UNSAT)."""
        if not self.on:
            return
        cnf, proof = self._paths()
        write_cnf(cnf, clauses, nvars)
        copy_proof(s, proof)
        self.proofs.append({"claim": claim, "cnf": str(cnf), "proof": str(proof), "format": "drat",
                            "solver": self.solver_name})

    def refute(self, clauses: Sequence[Sequence[int]], claim: str, nvars: int = 0) -> None:
        """A fresh proof-logging call on `clauses`; RuntimeError if it is not UNSAT."""
        if not self.on:
            return
        cnf, proof = self._paths()
        write_cnf(cnf, clauses, nvars)
        run = prove(cnf, proof, solver=self.solver_name)
        if run.status != "UNSAT":
            raise RuntimeError(f"certify: the certifying call ({claim}) answered {run.status}")
        self.proofs.append({"claim": claim, "cnf": str(cnf), "proof": str(proof), "format": "drat",
                            "solver": self.solver_name, "solve_seconds": run.solve_seconds})

    def prove(self, clauses: Sequence[Sequence[int]], claim: str, nvars: int = 0, *,
              order: list[int] | None = None, time_limit: float | None = None) -> ProofRun:
        """One fresh call of models.proofs.prove on `clauses` (how CP-SAT logs proofs: LRAT on a
        CNF file; `order`, `time_limit` as prove's): SAT (with its model), UNSAT (CNF and proof
        recorded for the runner's check) or UNKNOWN. Not certifying, it runs in a temporary
        folder, removed after (no proof is kept)."""
        import shutil
        tmp = None if self.on else tempfile.mkdtemp(prefix="puzzlesat-recheck-")
        try:
            folder = self.folder if self.on else Path(tmp)
            k = len(self.proofs) + 1
            cnf = write_cnf(folder / f"{k}.cnf", clauses, nvars)
            scratch = folder / f"{k}.scratch"   # CP-SAT's binary LRAT files: removed after
            scratch.mkdir(exist_ok=True)
            try:
                run = prove(cnf, folder / f"{k}.{'lrat' if self.solver_name == 'cpsat' else 'drat'}",
                            solver=self.solver_name, order=order, time_limit=time_limit,
                            producer_check=False, scratch=scratch)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            if run.status == "UNSAT" and self.on:
                self.proofs.append({"claim": claim, "cnf": str(cnf), "proof": str(run.proof),
                                    "format": run.format, "solver": self.solver_name,
                                    "solve_seconds": run.solve_seconds})
            elif self.on:
                cnf.unlink()
            return run
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)

    def certificate(self, claim: str, trusted: str, *, blocking: int | None = None,
                    orbits: dict[str, Any] | None = None, **extra: Any) -> CertificateClaim | None:
        """The Outcome's certificate claim: what is claimed, the proofs, what the proofs rest on
        (`blocking`: a count's blocked solutions; `orbits`: an orbit count's full enumeration)."""
        if not self.on:
            return None
        return CertificateClaim(claim, tuple(ProofArtifact.from_json(p) for p in self.proofs), trusted,
                                str(self.folder), blocking, orbits, extra=extra)


def blocking(true: Sequence[int] | frozenset, proj: Sequence[int]) -> list[int]:
    """The clause over the whole projection `proj` that excludes one projected model."""
    t = set(true)
    return [-v if v in t else v for v in proj]


__all__ = ["ProofLog", "not_certifiable", "check_proof_solver", "write_cnf", "blocking"]
