"""Certified answers: refutation proofs checked by a checker of our own.

    certify(cnf, proof)    check a DRAT / DRUP / LRAT proof of a DIMACS CNF -> Certificate
    Certificate, Verdict   VERIFIED / REJECTED (reason) / NOT-CERTIFIABLE (reason) (Verdict is
                           puzzlesat.core.result.CertVerdict, which adds UNKNOWN: a stopped check)

The checker (parse.py, kernels.py, check.py) shares no code with any solver and imports nothing
of the project but InputError and CertVerdict (puzzlesat.core.result). What it trusts and what it checks:
kernels.py. The proofs come from the solvers through puzzlesat.models.proofs (`prove`).
"""
__all__ = ["FORMATS", "Certificate", "Verdict", "certify", "not_certifiable"]


def __getattr__(name: str):
    """The names of check.py, imported on first use (`import puzzlesat` loads no numba)."""
    if name in __all__:
        from . import check
        return getattr(check, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

import sys as _sys
import types as _types


class _CallableModule(_types.ModuleType):
    """This package, callable as `certify(cnf, proof, ...)` (`puzzlesat.certify(...)` in the API),
    so that the function and the subpackage share the name without shadowing each other."""

    def __call__(self, *args, **kwargs):
        from .check import certify
        return certify(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
