"""What a published table says about where it was measured: the machine (platform, CPU count,
Python) and the versions of the solver libraries, read from the installed packages' metadata
(nothing is imported, so asking is instant and works where a library is missing)."""
from __future__ import annotations

import os
import platform
from importlib import metadata
from typing import Any

SOLVER_PACKAGES = ("ortools", "python-sat", "numba")  # the libraries whose version decides results


def versions(packages: tuple[str, ...] = SOLVER_PACKAGES) -> dict[str, str]:
    """package -> installed version ("not installed" where it is missing)."""
    out = {}
    for p in packages:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out


def machine() -> dict[str, Any]:
    """This machine: platform, CPU count, Python version, puzzlesat and solver versions."""
    from . import __version__
    return {"platform": platform.platform(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "puzzlesat": __version__, "versions": versions()}
