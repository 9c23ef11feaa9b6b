"""Certified answers: refutation proofs from the solvers, checked by a checker of our own.

    certify(cnf, proof)    check a DRAT / DRUP / LRAT proof of a DIMACS CNF -> Certificate
    prove(cnf, proof)      run a proof-logging solver on the CNF file, writing its proof
    Certificate, Verdict   VERIFIED / REJECTED (reason) / NOT-CERTIFIABLE (reason)

The checker (parse.py, kernels.py, check.py) shares no code with any solver and imports nothing
of the project but InputError. What it trusts and what it checks: kernels.py.
"""
from .check import FORMATS, Certificate, Verdict, certify, not_certifiable
from .produce import PROOF_SOLVERS, ProofRun, prove

__all__ = ["FORMATS", "PROOF_SOLVERS", "Certificate", "ProofRun", "Verdict", "certify",
           "not_certifiable", "prove"]
