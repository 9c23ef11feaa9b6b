"""Certified answers: refutation proofs checked by a checker of our own.

    certify(cnf, proof)    check a DRAT / DRUP / LRAT proof of a DIMACS CNF -> Certificate
    Certificate, Verdict   VERIFIED / REJECTED (reason) / NOT-CERTIFIABLE (reason)

The checker (parse.py, kernels.py, check.py) shares no code with any solver and imports nothing
of the project but InputError (puzzlesat.core.result). What it trusts and what it checks:
kernels.py. The proofs come from the solvers through puzzlesat.models.proofs (`prove`).
"""
from .check import FORMATS, Certificate, Verdict, certify, not_certifiable

__all__ = ["FORMATS", "Certificate", "Verdict", "certify", "not_certifiable"]
